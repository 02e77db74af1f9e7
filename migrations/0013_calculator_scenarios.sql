-- Saved calculator scenarios (spec 002, calculators): a named set of calculator inputs a client's
-- members keep and compare side by side with the client's real portfolio. The figures are kept
-- as they were when the scenario was saved (the client's official figures change over time);
-- the results are computed again by the engine's calculator whenever the scenarios are read.
CREATE TABLE calculator_scenarios (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    cet1_capital DOUBLE PRECISION NOT NULL,
    total_rwas DOUBLE PRECISION NOT NULL,
    -- 'rwas', 'percent_of_rwas' or 'bps' (analysis::calculator::Optimisation).
    optimisation_by TEXT NOT NULL,
    optimisation_value DOUBLE PRECISION NOT NULL,
    net_interest_margin_pct DOUBLE PRECISION NOT NULL,
    variable_fee_pct DOUBLE PRECISION NOT NULL,
    projection_years BIGINT NOT NULL,
    -- 'eur', 'usd' or 'gbp' (display only).
    currency TEXT NOT NULL,
    created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL
);
-- One name per client; the list reads a client's scenarios newest first.
CREATE UNIQUE INDEX calculator_scenarios_client_name ON calculator_scenarios(client_id, name);
CREATE INDEX calculator_scenarios_client_created ON calculator_scenarios(client_id, created_at);
