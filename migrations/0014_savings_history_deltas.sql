-- The dashboards' time series (spec 000 section 2.5, spec 002 client dashboard). A client's
-- savings_history row holds its savings at the end of a month, and a client has rows only for
-- the months its savings were synced (the latest row stands until the next one). The savings of
-- all clients at the end of month K are therefore the sum of each client's latest row at or
-- before K, which costs one lookup per client and month. Each row now also keeps its change
-- against the client's previous row (delta_rwas, delta_bps; the first row's change is its
-- total), so that sum is a running total of the months' summed changes: one grouped read of an
-- index that holds them, whatever the number of clients.
ALTER TABLE savings_history ADD COLUMN delta_rwas DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE savings_history ADD COLUMN delta_bps DOUBLE PRECISION NOT NULL DEFAULT 0;

UPDATE savings_history SET
    delta_rwas = total_rwas - COALESCE((
        SELECT p.total_rwas FROM savings_history p
        WHERE p.client_id = savings_history.client_id
          AND (p.year < savings_history.year
               OR (p.year = savings_history.year AND p.month < savings_history.month))
        ORDER BY p.year DESC, p.month DESC LIMIT 1), 0),
    delta_bps = total_bps - COALESCE((
        SELECT p.total_bps FROM savings_history p
        WHERE p.client_id = savings_history.client_id
          AND (p.year < savings_history.year
               OR (p.year = savings_history.year AND p.month < savings_history.month))
        ORDER BY p.year DESC, p.month DESC LIMIT 1), 0);

CREATE INDEX savings_history_month_deltas ON savings_history(year, month, delta_rwas, delta_bps);
