import type { Calculation, CalculatorClient, SavedScenario, ScenarioList } from '../api'

/**
 * Test answers of the calculator endpoints: Bank A's figures (R 48.2bn, C 6.53bn) and a 1 % By
 * Value calculation as the server computes it (see `server/tests/api/calculator.rs`).
 */
export function makeCalculatorClient(overrides: Partial<CalculatorClient> = {}): CalculatorClient {
  return {
    clientId: 'c-1',
    clientName: 'Bank A',
    cet1Capital: 6_530_000_000,
    totalRwas: 48_200_000_000,
    cet1RatioPct: 13.547717842323651,
    rwasPerBp: 35_577_947.932618685,
    figuresProblem: null,
    portfolioSavingsRwas: 221_600_000,
    portfolioSavingsBps: 6.2573455427,
    canSave: true,
    ...overrides,
  }
}

export function makeCalculation(overrides: Partial<Calculation> = {}): Calculation {
  return {
    currency: 'eur',
    cet1Capital: 6_530_000_000,
    totalRwas: 48_200_000_000,
    cet1RatioPct: 13.547717842323651,
    rwasPerBp: 35_577_947.932618685,
    summary: { optimisedRwas: 482_000_000, newTotalRwas: 47_718_000_000, optimisationPct: 1, optimisationBps: 13.684563477 },
    scenarioA: { currentRatioPct: 13.547717842323651, optimisedRatioPct: 13.684563477094597, improvementBps: 13.684563477 },
    scenarioB: {
      capitalFreed: 65_300_000,
      unlockedCapital: 63_341_000,
      variableFee: 1_900_230,
      netInterestMarginPct: 1.3,
      variableFeePct: 3,
      firstYearNetIncome: -1_076_797,
      cumulativeIncome: 552_594.93,
      projectionYears: 3,
      years: [
        { year: 1, balance: 63_341_000, income: -1_076_797, cumulativeValue: -1_076_797 },
        { year: 2, balance: 62_264_203, income: 809_434.64, cumulativeValue: -267_362.36 },
        { year: 3, balance: 63_073_637.64, income: 819_957.29, cumulativeValue: 552_594.93 },
      ],
      breakEvenYear: 2.3260686434,
    },
    ...overrides,
  }
}

export function makeScenario(overrides: Partial<SavedScenario> = {}): SavedScenario {
  return {
    id: 's-1',
    clientId: 'c-1',
    name: 'Plan 20 bps',
    optimisation: { by: 'bps', value: 20 },
    netInterestMarginPct: 1.3,
    projectionYears: 3,
    currency: 'eur',
    createdBy: 'u-1',
    createdByName: 'Ana García',
    createdAt: '2026-11-20T10:00:00.000000Z',
    result: makeCalculation({
      summary: { optimisedRwas: 701_207_292.04, newTotalRwas: 47_498_792_707.96, optimisationPct: 1.4548, optimisationBps: 20 },
    }),
    error: null,
    ...overrides,
  }
}

export function makeScenarioList(overrides: Partial<ScenarioList> = {}): ScenarioList {
  return {
    clientId: 'c-1',
    clientName: 'Bank A',
    portfolio: {
      savingsRwas: 221_600_000,
      savingsBps: 6.2573455427,
      result: makeCalculation({
        summary: { optimisedRwas: 221_600_000, newTotalRwas: 47_978_400_000, optimisationPct: 0.4597, optimisationBps: 6.2573455427 },
      }),
      error: null,
    },
    scenarios: [],
    canSave: true,
    ...overrides,
  }
}
