import type { ClientFile } from '@/api/types/ClientFile'
import type { Inspection } from '@/api/types/Inspection'
import type { Lever } from '@/api/types/Lever'
import type { MappingTemplate } from '@/api/types/MappingTemplate'
import type { RunSnapshot } from '@/api/types/RunSnapshot'
import type { StandardColumn } from '@/api/types/StandardColumn'

import { json, noContent, type MockRequest } from './mock-api'

// Test data and MSW handlers for the files area (the generated wire types): the files list with its
// filters, levers and their standard columns, mapping templates and runs, over an in-memory state
// a test can read and change.

export const PSE_LEVER: Lever = { id: 'lev-pse', code: 'pse', name: 'Public Sector Entities', category: 'PSE' }
export const MDB_LEVER: Lever = { id: 'lev-mdb', code: 'mdb', name: 'Multilateral Development Banks', category: 'MDB' }

export const PSE_COLUMNS: StandardColumn[] = [
  { name: 'NIF', description: 'Tax identifier of the counterparty', category: 'core', isRequired: true, dataType: 'text' },
  { name: 'Maturity', description: 'Residual maturity', category: 'core', isRequired: true, dataType: 'numeric' },
  { name: 'Exposure_Amount', description: 'Exposure value in euros', category: 'core', isRequired: true, dataType: 'numeric' },
  { name: 'Current_Risk_Weight', description: 'Risk weight applied today', category: 'core', isRequired: true, dataType: 'numeric' },
  { name: 'Legal_Name', description: 'Name of the counterparty', category: 'optional', isRequired: false, dataType: 'text' },
]

export function makeInspection(overrides: Partial<Inspection> = {}): Inspection {
  return {
    fileName: 'pse.csv',
    columns: [
      { name: 'nif', dataType: 'text', samples: ['P2807901D', 'P0801900B'] },
      { name: 'plazo', dataType: 'numeric', samples: ['12', '3'] },
      { name: 'importe', dataType: 'numeric', samples: ['1000000', '250000'] },
      { name: 'rw', dataType: 'numeric', samples: ['1', '1'] },
      { name: 'nombre', dataType: 'text', samples: ['Ayuntamiento de Madrid'] },
    ],
    preview: [
      ['P2807901D', '12', '1000000', '1', 'Ayuntamiento de Madrid'],
      ['P0801900B', '3', '250000', '1', 'Ayuntamiento de Barcelona'],
      ['P4109100J', '24', '500000', '1', 'Ayuntamiento de Sevilla'],
    ],
    suggestedMapping: { NIF: 'nif', Exposure_Amount: 'importe' },
    suggestionScores: { NIF: 1, Exposure_Amount: 0.8 },
    riskWeightFormat: 'decimal',
    maturityUnit: 'months',
    classification: null,
    ...overrides,
  }
}

export function makeRun(overrides: Partial<RunSnapshot> = {}): RunSnapshot {
  return {
    id: 'run-1',
    clientId: 'c-1',
    fileId: 'f-1',
    mode: 'manual',
    state: 'queued',
    stage: 'queued',
    rowsRead: 0,
    rowsTotal: null,
    rowsDone: 0,
    rowsMatched: 0,
    percent: 0,
    seq: 1,
    attempts: 0,
    error: null,
    createdAt: '2026-11-25T09:00:00Z',
    startedAt: null,
    finishedAt: null,
    result: null,
    ...overrides,
  }
}

export function makeFile(overrides: Partial<ClientFile> = {}): ClientFile {
  return {
    id: 'f-1',
    clientId: 'c-1',
    name: 'pse_exposures.csv',
    fileType: 'csv',
    sizeBytes: 2048,
    uploadedAt: '2025-01-05T10:00:00Z',
    uploadedBy: 'u-1',
    leverId: PSE_LEVER.id,
    leverName: PSE_LEVER.name,
    leverCategory: PSE_LEVER.category,
    processed: true,
    status: 'processed',
    processingError: null,
    hasProcessed: true,
    savingsRwas: 1234567.4,
    savingsBps: 2.567,
    latestRun: null,
    ...overrides,
  }
}

export function makeTemplate(overrides: Partial<MappingTemplate> = {}): MappingTemplate {
  return {
    id: 't-1',
    clientId: 'c-1',
    name: 'Spanish PSE export',
    leverId: PSE_LEVER.id,
    sourceColumns: ['NIF', 'Plazo', 'Importe', 'RW', 'Nombre'],
    mapping: { NIF: 'NIF', Maturity: 'Plazo', Exposure_Amount: 'Importe', Current_Risk_Weight: 'RW' },
    createdAt: '2026-11-20T10:00:00Z',
    ...overrides,
  }
}

/** The in-memory server state behind {@link filesHandlers}. */
export type FilesState = {
  files: ClientFile[]
  levers: Lever[]
  columns: Record<string, StandardColumn[]>
  templates: MappingTemplate[]
  runs: RunSnapshot[]
  /** The client's pending validations (the pending badge). */
  pendingValidations: number
}

export function filesState(overrides: Partial<FilesState> = {}): FilesState {
  return { files: [], levers: [PSE_LEVER, MDB_LEVER], columns: { [PSE_LEVER.id]: PSE_COLUMNS }, templates: [], runs: [], pendingValidations: 0, ...overrides }
}

/** The list endpoint's filters, as the server applies them (name contains, lever or none, type, processed, dates inclusive). */
export function applyFileFilters(files: ClientFile[], query: URLSearchParams): ClientFile[] {
  const q = (query.get('q') ?? '').toLowerCase()
  const lever = query.get('lever') ?? ''
  const type = query.get('type') ?? ''
  const processed = query.get('processed') ?? ''
  const from = query.get('from') ?? ''
  const to = query.get('to') ?? ''
  return files.filter(
    (f) =>
      (q === '' || f.name.toLowerCase().includes(q)) &&
      (lever === '' || (lever === 'none' ? f.leverId === null : f.leverId === lever)) &&
      (type === '' || f.fileType === type) &&
      (processed === '' || String(f.processed) === processed) &&
      (from === '' || f.uploadedAt.slice(0, 10) >= from) &&
      (to === '' || f.uploadedAt.slice(0, 10) <= to),
  )
}

/** MSW handlers (for `mockApi`) answering the files area's reads and changes from `state`. */
export function filesHandlers(state: FilesState): Record<string, (req: MockRequest) => Response> {
  return {
    'GET /api/files': ({ query }) => json(200, applyFileFilters(state.files, query)),
    'GET /api/validations/summary': ({ query }) =>
      json(200, { clientId: query.get('client_id') ?? '', pendingValidations: state.pendingValidations, canApprove: false }),
    'DELETE /api/files/:id': ({ params }) => {
      const before = state.files.length
      state.files = state.files.filter((f) => f.id !== params.id)
      return state.files.length < before ? noContent() : json(404, { code: 'not_found', message: 'File not found' })
    },
    'GET /api/levers': () => json(200, state.levers),
    'GET /api/levers/:id/columns': ({ params }) => json(200, state.columns[String(params.id)] ?? []),
    'GET /api/mapping-templates': ({ query }) => {
      const lever = query.get('lever')
      return json(200, state.templates.filter((t) => !lever || t.leverId === lever))
    },
    'POST /api/mapping-templates': ({ body }) => {
      const input = body as Pick<MappingTemplate, 'name' | 'leverId' | 'sourceColumns' | 'mapping'>
      const template = makeTemplate({ ...input, id: `t-${state.templates.length + 1}` })
      state.templates = [template, ...state.templates]
      return json(201, template)
    },
    'DELETE /api/mapping-templates/:id': ({ params }) => {
      state.templates = state.templates.filter((t) => t.id !== params.id)
      return noContent()
    },
    'GET /api/runs/:id': ({ params }) => {
      const run = state.runs.find((r) => r.id === params.id)
      return run ? json(200, run) : json(404, { code: 'not_found', message: 'Run not found' })
    },
  }
}
