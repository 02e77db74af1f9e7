-- Issue 12: universal column mappings' global learning, the admin runs list, and the six
-- levers' column definitions.

-- Product settings that administrators change at run time: one row per key, the value as text.
-- universal_mappings.global_learning: '1' (confirmed mappings feed the universal suggestions and
-- auto-mapping uses the enabled ones) or '0' (neither).
CREATE TABLE app_settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    updated_at TEXT NOT NULL
);
INSERT INTO app_settings (key, value, updated_by, updated_at)
VALUES ('universal_mappings.global_learning', '1', NULL, '2026-11-26T00:00:00.000000Z');

-- The administrators' runs list: newest first across clients (state and client filters use the
-- indexes of 0006).
CREATE INDEX processing_runs_created ON processing_runs(created_at);

-- The suggestions list, by confidence.
CREATE INDEX universal_column_suggestions_confidence ON universal_column_suggestions(confidence_score);

-- Each lever's column definitions, seeded from the analysis engine's standard columns
-- (analysis::columns::STANDARD_COLUMNS, in its display order) with the lever's required set
-- (the specification's per-lever required columns, analysis::mapping::required_columns). A lever
-- that already has definitions keeps its own. The levers are found by code, so a database whose
-- levers came from the demo data (other ids) gets them too.

INSERT INTO lever_column_definitions (id, lever_id, column_name, column_type, description, is_required, category, display_order, created_at, updated_at)
SELECT 'lcd-' || l.code || '-' || lower(c.column_name), l.id, c.column_name, c.column_type, c.description, c.is_required, c.category, c.display_order, '2026-11-26T00:00:00.000000Z', '2026-11-26T00:00:00.000000Z'
FROM levers l, (
    SELECT 'Exposure_ID' AS column_name, 'text' AS column_type, 'Unique identifier of the exposure (loan, bond, facility or contract).' AS description, 0 AS is_required, 'core' AS category, 1 AS display_order
    UNION ALL
    SELECT 'Asset_Class' AS column_name, 'text' AS column_type, 'Exposure class of the standardised approach (e.g. Corporate, Institution, Public Sector Entity).' AS description, 0 AS is_required, 'core' AS category, 2 AS display_order
    UNION ALL
    SELECT 'Eligible_Collateral' AS column_name, 'boolean' AS column_type, 'Whether the exposure has eligible collateral (Yes/No).' AS description, 0 AS is_required, 'core' AS category, 3 AS display_order
    UNION ALL
    SELECT 'Current_Risk_Weight' AS column_name, 'numeric' AS column_type, 'Risk weight currently applied, as a percentage (20) or a decimal (0.2); range 0-999.' AS description, 1 AS is_required, 'core' AS category, 4 AS display_order
    UNION ALL
    SELECT 'Exposure_Amount' AS column_name, 'numeric' AS column_type, 'Exposure value under the standardised approach, in the exposure currency.' AS description, 1 AS is_required, 'core' AS category, 5 AS display_order
    UNION ALL
    SELECT 'NIF' AS column_name, 'text' AS column_type, 'Spanish tax identification number of the counterparty (NIF/CIF).' AS description, 1 AS is_required, 'analysis' AS category, 6 AS display_order
    UNION ALL
    SELECT 'LEI' AS column_name, 'text' AS column_type, 'Legal Entity Identifier (ISO 17442) of the counterparty.' AS description, 0 AS is_required, 'analysis' AS category, 7 AS display_order
    UNION ALL
    SELECT 'Legal_Name' AS column_name, 'text' AS column_type, 'Legal name of the counterparty.' AS description, 0 AS is_required, 'analysis' AS category, 8 AS display_order
    UNION ALL
    SELECT 'Maturity' AS column_name, 'date' AS column_type, 'Maturity date of the exposure, or the residual maturity as a period (e.g. 3m, 2y, or a bare number in months unless the header names days or years).' AS description, 1 AS is_required, 'analysis' AS category, 9 AS display_order
    UNION ALL
    SELECT 'Currency' AS column_name, 'text' AS column_type, 'ISO 4217 currency of the exposure (e.g. EUR).' AS description, 0 AS is_required, 'optional' AS category, 10 AS display_order
    UNION ALL
    SELECT 'Country' AS column_name, 'text' AS column_type, 'ISO 3166 code of the counterparty''s jurisdiction (e.g. ES).' AS description, 0 AS is_required, 'optional' AS category, 11 AS display_order
    UNION ALL
    SELECT 'Credit_Quality_Step' AS column_name, 'numeric' AS column_type, 'Credit quality step 1-6 of the counterparty''s ECAI rating.' AS description, 0 AS is_required, 'optional' AS category, 12 AS display_order
    UNION ALL
    SELECT 'Rating' AS column_name, 'text' AS column_type, 'Long-term external rating in S&P, Fitch or Moody''s notation (mapped to a credit quality step).' AS description, 0 AS is_required, 'optional' AS category, 13 AS display_order
    UNION ALL
    SELECT 'Collateral_Value' AS column_name, 'numeric' AS column_type, 'Value of the collateral securing the exposure.' AS description, 0 AS is_required, 'optional' AS category, 14 AS display_order
    UNION ALL
    SELECT 'Collateral_Risk_Weight' AS column_name, 'numeric' AS column_type, 'Risk weight of a direct exposure to the collateral instrument.' AS description, 0 AS is_required, 'optional' AS category, 15 AS display_order
    UNION ALL
    SELECT 'Collateral_Type' AS column_name, 'text' AS column_type, 'Type of collateral (cash, deposit, sovereign_bond, bond, equity, ...).' AS description, 0 AS is_required, 'optional' AS category, 16 AS display_order
    UNION ALL
    SELECT 'Collateral_Currency' AS column_name, 'text' AS column_type, 'ISO 4217 currency of the collateral.' AS description, 0 AS is_required, 'optional' AS category, 17 AS display_order
    UNION ALL
    SELECT 'SCRA_Grade' AS column_name, 'text' AS column_type, 'SCRA grade of an unrated institution (A+, A, B or C).' AS description, 0 AS is_required, 'optional' AS category, 18 AS display_order
    UNION ALL
    SELECT 'Origination_Date' AS column_name, 'date' AS column_type, 'Date the exposure was originated (drawn or issued): with a Maturity date it gives the original maturity that the short-term rules of Art. 116(3), 120(2) and 121 use.' AS description, 0 AS is_required, 'optional' AS category, 19 AS display_order
) c
WHERE l.code = 'pse'
  AND NOT EXISTS (SELECT 1 FROM lever_column_definitions d WHERE d.lever_id = l.id);

INSERT INTO lever_column_definitions (id, lever_id, column_name, column_type, description, is_required, category, display_order, created_at, updated_at)
SELECT 'lcd-' || l.code || '-' || lower(c.column_name), l.id, c.column_name, c.column_type, c.description, c.is_required, c.category, c.display_order, '2026-11-26T00:00:00.000000Z', '2026-11-26T00:00:00.000000Z'
FROM levers l, (
    SELECT 'Exposure_ID' AS column_name, 'text' AS column_type, 'Unique identifier of the exposure (loan, bond, facility or contract).' AS description, 1 AS is_required, 'core' AS category, 1 AS display_order
    UNION ALL
    SELECT 'Asset_Class' AS column_name, 'text' AS column_type, 'Exposure class of the standardised approach (e.g. Corporate, Institution, Public Sector Entity).' AS description, 1 AS is_required, 'core' AS category, 2 AS display_order
    UNION ALL
    SELECT 'Eligible_Collateral' AS column_name, 'boolean' AS column_type, 'Whether the exposure has eligible collateral (Yes/No).' AS description, 1 AS is_required, 'core' AS category, 3 AS display_order
    UNION ALL
    SELECT 'Current_Risk_Weight' AS column_name, 'numeric' AS column_type, 'Risk weight currently applied, as a percentage (20) or a decimal (0.2); range 0-999.' AS description, 1 AS is_required, 'core' AS category, 4 AS display_order
    UNION ALL
    SELECT 'Exposure_Amount' AS column_name, 'numeric' AS column_type, 'Exposure value under the standardised approach, in the exposure currency.' AS description, 1 AS is_required, 'core' AS category, 5 AS display_order
    UNION ALL
    SELECT 'NIF' AS column_name, 'text' AS column_type, 'Spanish tax identification number of the counterparty (NIF/CIF).' AS description, 1 AS is_required, 'analysis' AS category, 6 AS display_order
    UNION ALL
    SELECT 'LEI' AS column_name, 'text' AS column_type, 'Legal Entity Identifier (ISO 17442) of the counterparty.' AS description, 0 AS is_required, 'analysis' AS category, 7 AS display_order
    UNION ALL
    SELECT 'Legal_Name' AS column_name, 'text' AS column_type, 'Legal name of the counterparty.' AS description, 0 AS is_required, 'analysis' AS category, 8 AS display_order
    UNION ALL
    SELECT 'Maturity' AS column_name, 'date' AS column_type, 'Maturity date of the exposure, or the residual maturity as a period (e.g. 3m, 2y, or a bare number in months unless the header names days or years).' AS description, 0 AS is_required, 'analysis' AS category, 9 AS display_order
    UNION ALL
    SELECT 'Currency' AS column_name, 'text' AS column_type, 'ISO 4217 currency of the exposure (e.g. EUR).' AS description, 0 AS is_required, 'optional' AS category, 10 AS display_order
    UNION ALL
    SELECT 'Country' AS column_name, 'text' AS column_type, 'ISO 3166 code of the counterparty''s jurisdiction (e.g. ES).' AS description, 0 AS is_required, 'optional' AS category, 11 AS display_order
    UNION ALL
    SELECT 'Credit_Quality_Step' AS column_name, 'numeric' AS column_type, 'Credit quality step 1-6 of the counterparty''s ECAI rating.' AS description, 0 AS is_required, 'optional' AS category, 12 AS display_order
    UNION ALL
    SELECT 'Rating' AS column_name, 'text' AS column_type, 'Long-term external rating in S&P, Fitch or Moody''s notation (mapped to a credit quality step).' AS description, 0 AS is_required, 'optional' AS category, 13 AS display_order
    UNION ALL
    SELECT 'Collateral_Value' AS column_name, 'numeric' AS column_type, 'Value of the collateral securing the exposure.' AS description, 0 AS is_required, 'optional' AS category, 14 AS display_order
    UNION ALL
    SELECT 'Collateral_Risk_Weight' AS column_name, 'numeric' AS column_type, 'Risk weight of a direct exposure to the collateral instrument.' AS description, 0 AS is_required, 'optional' AS category, 15 AS display_order
    UNION ALL
    SELECT 'Collateral_Type' AS column_name, 'text' AS column_type, 'Type of collateral (cash, deposit, sovereign_bond, bond, equity, ...).' AS description, 0 AS is_required, 'optional' AS category, 16 AS display_order
    UNION ALL
    SELECT 'Collateral_Currency' AS column_name, 'text' AS column_type, 'ISO 4217 currency of the collateral.' AS description, 0 AS is_required, 'optional' AS category, 17 AS display_order
    UNION ALL
    SELECT 'SCRA_Grade' AS column_name, 'text' AS column_type, 'SCRA grade of an unrated institution (A+, A, B or C).' AS description, 0 AS is_required, 'optional' AS category, 18 AS display_order
    UNION ALL
    SELECT 'Origination_Date' AS column_name, 'date' AS column_type, 'Date the exposure was originated (drawn or issued): with a Maturity date it gives the original maturity that the short-term rules of Art. 116(3), 120(2) and 121 use.' AS description, 0 AS is_required, 'optional' AS category, 19 AS display_order
) c
WHERE l.code = 'rgla'
  AND NOT EXISTS (SELECT 1 FROM lever_column_definitions d WHERE d.lever_id = l.id);

INSERT INTO lever_column_definitions (id, lever_id, column_name, column_type, description, is_required, category, display_order, created_at, updated_at)
SELECT 'lcd-' || l.code || '-' || lower(c.column_name), l.id, c.column_name, c.column_type, c.description, c.is_required, c.category, c.display_order, '2026-11-26T00:00:00.000000Z', '2026-11-26T00:00:00.000000Z'
FROM levers l, (
    SELECT 'Exposure_ID' AS column_name, 'text' AS column_type, 'Unique identifier of the exposure (loan, bond, facility or contract).' AS description, 0 AS is_required, 'core' AS category, 1 AS display_order
    UNION ALL
    SELECT 'Asset_Class' AS column_name, 'text' AS column_type, 'Exposure class of the standardised approach (e.g. Corporate, Institution, Public Sector Entity).' AS description, 0 AS is_required, 'core' AS category, 2 AS display_order
    UNION ALL
    SELECT 'Eligible_Collateral' AS column_name, 'boolean' AS column_type, 'Whether the exposure has eligible collateral (Yes/No).' AS description, 0 AS is_required, 'core' AS category, 3 AS display_order
    UNION ALL
    SELECT 'Current_Risk_Weight' AS column_name, 'numeric' AS column_type, 'Risk weight currently applied, as a percentage (20) or a decimal (0.2); range 0-999.' AS description, 0 AS is_required, 'core' AS category, 4 AS display_order
    UNION ALL
    SELECT 'Exposure_Amount' AS column_name, 'numeric' AS column_type, 'Exposure value under the standardised approach, in the exposure currency.' AS description, 1 AS is_required, 'core' AS category, 5 AS display_order
    UNION ALL
    SELECT 'NIF' AS column_name, 'text' AS column_type, 'Spanish tax identification number of the counterparty (NIF/CIF).' AS description, 0 AS is_required, 'analysis' AS category, 6 AS display_order
    UNION ALL
    SELECT 'LEI' AS column_name, 'text' AS column_type, 'Legal Entity Identifier (ISO 17442) of the counterparty.' AS description, 1 AS is_required, 'analysis' AS category, 7 AS display_order
    UNION ALL
    SELECT 'Legal_Name' AS column_name, 'text' AS column_type, 'Legal name of the counterparty.' AS description, 1 AS is_required, 'analysis' AS category, 8 AS display_order
    UNION ALL
    SELECT 'Maturity' AS column_name, 'date' AS column_type, 'Maturity date of the exposure, or the residual maturity as a period (e.g. 3m, 2y, or a bare number in months unless the header names days or years).' AS description, 1 AS is_required, 'analysis' AS category, 9 AS display_order
    UNION ALL
    SELECT 'Currency' AS column_name, 'text' AS column_type, 'ISO 4217 currency of the exposure (e.g. EUR).' AS description, 0 AS is_required, 'optional' AS category, 10 AS display_order
    UNION ALL
    SELECT 'Country' AS column_name, 'text' AS column_type, 'ISO 3166 code of the counterparty''s jurisdiction (e.g. ES).' AS description, 0 AS is_required, 'optional' AS category, 11 AS display_order
    UNION ALL
    SELECT 'Credit_Quality_Step' AS column_name, 'numeric' AS column_type, 'Credit quality step 1-6 of the counterparty''s ECAI rating.' AS description, 0 AS is_required, 'optional' AS category, 12 AS display_order
    UNION ALL
    SELECT 'Rating' AS column_name, 'text' AS column_type, 'Long-term external rating in S&P, Fitch or Moody''s notation (mapped to a credit quality step).' AS description, 0 AS is_required, 'optional' AS category, 13 AS display_order
    UNION ALL
    SELECT 'Collateral_Value' AS column_name, 'numeric' AS column_type, 'Value of the collateral securing the exposure.' AS description, 0 AS is_required, 'optional' AS category, 14 AS display_order
    UNION ALL
    SELECT 'Collateral_Risk_Weight' AS column_name, 'numeric' AS column_type, 'Risk weight of a direct exposure to the collateral instrument.' AS description, 0 AS is_required, 'optional' AS category, 15 AS display_order
    UNION ALL
    SELECT 'Collateral_Type' AS column_name, 'text' AS column_type, 'Type of collateral (cash, deposit, sovereign_bond, bond, equity, ...).' AS description, 0 AS is_required, 'optional' AS category, 16 AS display_order
    UNION ALL
    SELECT 'Collateral_Currency' AS column_name, 'text' AS column_type, 'ISO 4217 currency of the collateral.' AS description, 0 AS is_required, 'optional' AS category, 17 AS display_order
    UNION ALL
    SELECT 'SCRA_Grade' AS column_name, 'text' AS column_type, 'SCRA grade of an unrated institution (A+, A, B or C).' AS description, 0 AS is_required, 'optional' AS category, 18 AS display_order
    UNION ALL
    SELECT 'Origination_Date' AS column_name, 'date' AS column_type, 'Date the exposure was originated (drawn or issued): with a Maturity date it gives the original maturity that the short-term rules of Art. 116(3), 120(2) and 121 use.' AS description, 0 AS is_required, 'optional' AS category, 19 AS display_order
) c
WHERE l.code = 'mdb'
  AND NOT EXISTS (SELECT 1 FROM lever_column_definitions d WHERE d.lever_id = l.id);

INSERT INTO lever_column_definitions (id, lever_id, column_name, column_type, description, is_required, category, display_order, created_at, updated_at)
SELECT 'lcd-' || l.code || '-' || lower(c.column_name), l.id, c.column_name, c.column_type, c.description, c.is_required, c.category, c.display_order, '2026-11-26T00:00:00.000000Z', '2026-11-26T00:00:00.000000Z'
FROM levers l, (
    SELECT 'Exposure_ID' AS column_name, 'text' AS column_type, 'Unique identifier of the exposure (loan, bond, facility or contract).' AS description, 1 AS is_required, 'core' AS category, 1 AS display_order
    UNION ALL
    SELECT 'Asset_Class' AS column_name, 'text' AS column_type, 'Exposure class of the standardised approach (e.g. Corporate, Institution, Public Sector Entity).' AS description, 1 AS is_required, 'core' AS category, 2 AS display_order
    UNION ALL
    SELECT 'Eligible_Collateral' AS column_name, 'boolean' AS column_type, 'Whether the exposure has eligible collateral (Yes/No).' AS description, 1 AS is_required, 'core' AS category, 3 AS display_order
    UNION ALL
    SELECT 'Current_Risk_Weight' AS column_name, 'numeric' AS column_type, 'Risk weight currently applied, as a percentage (20) or a decimal (0.2); range 0-999.' AS description, 1 AS is_required, 'core' AS category, 4 AS display_order
    UNION ALL
    SELECT 'Exposure_Amount' AS column_name, 'numeric' AS column_type, 'Exposure value under the standardised approach, in the exposure currency.' AS description, 1 AS is_required, 'core' AS category, 5 AS display_order
    UNION ALL
    SELECT 'NIF' AS column_name, 'text' AS column_type, 'Spanish tax identification number of the counterparty (NIF/CIF).' AS description, 0 AS is_required, 'analysis' AS category, 6 AS display_order
    UNION ALL
    SELECT 'LEI' AS column_name, 'text' AS column_type, 'Legal Entity Identifier (ISO 17442) of the counterparty.' AS description, 0 AS is_required, 'analysis' AS category, 7 AS display_order
    UNION ALL
    SELECT 'Legal_Name' AS column_name, 'text' AS column_type, 'Legal name of the counterparty.' AS description, 0 AS is_required, 'analysis' AS category, 8 AS display_order
    UNION ALL
    SELECT 'Maturity' AS column_name, 'date' AS column_type, 'Maturity date of the exposure, or the residual maturity as a period (e.g. 3m, 2y, or a bare number in months unless the header names days or years).' AS description, 0 AS is_required, 'analysis' AS category, 9 AS display_order
    UNION ALL
    SELECT 'Currency' AS column_name, 'text' AS column_type, 'ISO 4217 currency of the exposure (e.g. EUR).' AS description, 0 AS is_required, 'optional' AS category, 10 AS display_order
    UNION ALL
    SELECT 'Country' AS column_name, 'text' AS column_type, 'ISO 3166 code of the counterparty''s jurisdiction (e.g. ES).' AS description, 0 AS is_required, 'optional' AS category, 11 AS display_order
    UNION ALL
    SELECT 'Credit_Quality_Step' AS column_name, 'numeric' AS column_type, 'Credit quality step 1-6 of the counterparty''s ECAI rating.' AS description, 0 AS is_required, 'optional' AS category, 12 AS display_order
    UNION ALL
    SELECT 'Rating' AS column_name, 'text' AS column_type, 'Long-term external rating in S&P, Fitch or Moody''s notation (mapped to a credit quality step).' AS description, 0 AS is_required, 'optional' AS category, 13 AS display_order
    UNION ALL
    SELECT 'Collateral_Value' AS column_name, 'numeric' AS column_type, 'Value of the collateral securing the exposure.' AS description, 0 AS is_required, 'optional' AS category, 14 AS display_order
    UNION ALL
    SELECT 'Collateral_Risk_Weight' AS column_name, 'numeric' AS column_type, 'Risk weight of a direct exposure to the collateral instrument.' AS description, 0 AS is_required, 'optional' AS category, 15 AS display_order
    UNION ALL
    SELECT 'Collateral_Type' AS column_name, 'text' AS column_type, 'Type of collateral (cash, deposit, sovereign_bond, bond, equity, ...).' AS description, 0 AS is_required, 'optional' AS category, 16 AS display_order
    UNION ALL
    SELECT 'Collateral_Currency' AS column_name, 'text' AS column_type, 'ISO 4217 currency of the collateral.' AS description, 0 AS is_required, 'optional' AS category, 17 AS display_order
    UNION ALL
    SELECT 'SCRA_Grade' AS column_name, 'text' AS column_type, 'SCRA grade of an unrated institution (A+, A, B or C).' AS description, 0 AS is_required, 'optional' AS category, 18 AS display_order
    UNION ALL
    SELECT 'Origination_Date' AS column_name, 'date' AS column_type, 'Date the exposure was originated (drawn or issued): with a Maturity date it gives the original maturity that the short-term rules of Art. 116(3), 120(2) and 121 use.' AS description, 0 AS is_required, 'optional' AS category, 19 AS display_order
) c
WHERE l.code = 'institutions'
  AND NOT EXISTS (SELECT 1 FROM lever_column_definitions d WHERE d.lever_id = l.id);

INSERT INTO lever_column_definitions (id, lever_id, column_name, column_type, description, is_required, category, display_order, created_at, updated_at)
SELECT 'lcd-' || l.code || '-' || lower(c.column_name), l.id, c.column_name, c.column_type, c.description, c.is_required, c.category, c.display_order, '2026-11-26T00:00:00.000000Z', '2026-11-26T00:00:00.000000Z'
FROM levers l, (
    SELECT 'Exposure_ID' AS column_name, 'text' AS column_type, 'Unique identifier of the exposure (loan, bond, facility or contract).' AS description, 1 AS is_required, 'core' AS category, 1 AS display_order
    UNION ALL
    SELECT 'Asset_Class' AS column_name, 'text' AS column_type, 'Exposure class of the standardised approach (e.g. Corporate, Institution, Public Sector Entity).' AS description, 1 AS is_required, 'core' AS category, 2 AS display_order
    UNION ALL
    SELECT 'Eligible_Collateral' AS column_name, 'boolean' AS column_type, 'Whether the exposure has eligible collateral (Yes/No).' AS description, 1 AS is_required, 'core' AS category, 3 AS display_order
    UNION ALL
    SELECT 'Current_Risk_Weight' AS column_name, 'numeric' AS column_type, 'Risk weight currently applied, as a percentage (20) or a decimal (0.2); range 0-999.' AS description, 1 AS is_required, 'core' AS category, 4 AS display_order
    UNION ALL
    SELECT 'Exposure_Amount' AS column_name, 'numeric' AS column_type, 'Exposure value under the standardised approach, in the exposure currency.' AS description, 1 AS is_required, 'core' AS category, 5 AS display_order
    UNION ALL
    SELECT 'NIF' AS column_name, 'text' AS column_type, 'Spanish tax identification number of the counterparty (NIF/CIF).' AS description, 0 AS is_required, 'analysis' AS category, 6 AS display_order
    UNION ALL
    SELECT 'LEI' AS column_name, 'text' AS column_type, 'Legal Entity Identifier (ISO 17442) of the counterparty.' AS description, 0 AS is_required, 'analysis' AS category, 7 AS display_order
    UNION ALL
    SELECT 'Legal_Name' AS column_name, 'text' AS column_type, 'Legal name of the counterparty.' AS description, 0 AS is_required, 'analysis' AS category, 8 AS display_order
    UNION ALL
    SELECT 'Maturity' AS column_name, 'date' AS column_type, 'Maturity date of the exposure, or the residual maturity as a period (e.g. 3m, 2y, or a bare number in months unless the header names days or years).' AS description, 0 AS is_required, 'analysis' AS category, 9 AS display_order
    UNION ALL
    SELECT 'Currency' AS column_name, 'text' AS column_type, 'ISO 4217 currency of the exposure (e.g. EUR).' AS description, 0 AS is_required, 'optional' AS category, 10 AS display_order
    UNION ALL
    SELECT 'Country' AS column_name, 'text' AS column_type, 'ISO 3166 code of the counterparty''s jurisdiction (e.g. ES).' AS description, 0 AS is_required, 'optional' AS category, 11 AS display_order
    UNION ALL
    SELECT 'Credit_Quality_Step' AS column_name, 'numeric' AS column_type, 'Credit quality step 1-6 of the counterparty''s ECAI rating.' AS description, 0 AS is_required, 'optional' AS category, 12 AS display_order
    UNION ALL
    SELECT 'Rating' AS column_name, 'text' AS column_type, 'Long-term external rating in S&P, Fitch or Moody''s notation (mapped to a credit quality step).' AS description, 0 AS is_required, 'optional' AS category, 13 AS display_order
    UNION ALL
    SELECT 'Collateral_Value' AS column_name, 'numeric' AS column_type, 'Value of the collateral securing the exposure.' AS description, 0 AS is_required, 'optional' AS category, 14 AS display_order
    UNION ALL
    SELECT 'Collateral_Risk_Weight' AS column_name, 'numeric' AS column_type, 'Risk weight of a direct exposure to the collateral instrument.' AS description, 0 AS is_required, 'optional' AS category, 15 AS display_order
    UNION ALL
    SELECT 'Collateral_Type' AS column_name, 'text' AS column_type, 'Type of collateral (cash, deposit, sovereign_bond, bond, equity, ...).' AS description, 0 AS is_required, 'optional' AS category, 16 AS display_order
    UNION ALL
    SELECT 'Collateral_Currency' AS column_name, 'text' AS column_type, 'ISO 4217 currency of the collateral.' AS description, 0 AS is_required, 'optional' AS category, 17 AS display_order
    UNION ALL
    SELECT 'SCRA_Grade' AS column_name, 'text' AS column_type, 'SCRA grade of an unrated institution (A+, A, B or C).' AS description, 0 AS is_required, 'optional' AS category, 18 AS display_order
    UNION ALL
    SELECT 'Origination_Date' AS column_name, 'date' AS column_type, 'Date the exposure was originated (drawn or issued): with a Maturity date it gives the original maturity that the short-term rules of Art. 116(3), 120(2) and 121 use.' AS description, 0 AS is_required, 'optional' AS category, 19 AS display_order
) c
WHERE l.code = 'corporates'
  AND NOT EXISTS (SELECT 1 FROM lever_column_definitions d WHERE d.lever_id = l.id);

INSERT INTO lever_column_definitions (id, lever_id, column_name, column_type, description, is_required, category, display_order, created_at, updated_at)
SELECT 'lcd-' || l.code || '-' || lower(c.column_name), l.id, c.column_name, c.column_type, c.description, c.is_required, c.category, c.display_order, '2026-11-26T00:00:00.000000Z', '2026-11-26T00:00:00.000000Z'
FROM levers l, (
    SELECT 'Exposure_ID' AS column_name, 'text' AS column_type, 'Unique identifier of the exposure (loan, bond, facility or contract).' AS description, 1 AS is_required, 'core' AS category, 1 AS display_order
    UNION ALL
    SELECT 'Asset_Class' AS column_name, 'text' AS column_type, 'Exposure class of the standardised approach (e.g. Corporate, Institution, Public Sector Entity).' AS description, 1 AS is_required, 'core' AS category, 2 AS display_order
    UNION ALL
    SELECT 'Eligible_Collateral' AS column_name, 'boolean' AS column_type, 'Whether the exposure has eligible collateral (Yes/No).' AS description, 1 AS is_required, 'core' AS category, 3 AS display_order
    UNION ALL
    SELECT 'Current_Risk_Weight' AS column_name, 'numeric' AS column_type, 'Risk weight currently applied, as a percentage (20) or a decimal (0.2); range 0-999.' AS description, 1 AS is_required, 'core' AS category, 4 AS display_order
    UNION ALL
    SELECT 'Exposure_Amount' AS column_name, 'numeric' AS column_type, 'Exposure value under the standardised approach, in the exposure currency.' AS description, 1 AS is_required, 'core' AS category, 5 AS display_order
    UNION ALL
    SELECT 'NIF' AS column_name, 'text' AS column_type, 'Spanish tax identification number of the counterparty (NIF/CIF).' AS description, 0 AS is_required, 'analysis' AS category, 6 AS display_order
    UNION ALL
    SELECT 'LEI' AS column_name, 'text' AS column_type, 'Legal Entity Identifier (ISO 17442) of the counterparty.' AS description, 0 AS is_required, 'analysis' AS category, 7 AS display_order
    UNION ALL
    SELECT 'Legal_Name' AS column_name, 'text' AS column_type, 'Legal name of the counterparty.' AS description, 0 AS is_required, 'analysis' AS category, 8 AS display_order
    UNION ALL
    SELECT 'Maturity' AS column_name, 'date' AS column_type, 'Maturity date of the exposure, or the residual maturity as a period (e.g. 3m, 2y, or a bare number in months unless the header names days or years).' AS description, 0 AS is_required, 'analysis' AS category, 9 AS display_order
    UNION ALL
    SELECT 'Currency' AS column_name, 'text' AS column_type, 'ISO 4217 currency of the exposure (e.g. EUR).' AS description, 0 AS is_required, 'optional' AS category, 10 AS display_order
    UNION ALL
    SELECT 'Country' AS column_name, 'text' AS column_type, 'ISO 3166 code of the counterparty''s jurisdiction (e.g. ES).' AS description, 0 AS is_required, 'optional' AS category, 11 AS display_order
    UNION ALL
    SELECT 'Credit_Quality_Step' AS column_name, 'numeric' AS column_type, 'Credit quality step 1-6 of the counterparty''s ECAI rating.' AS description, 0 AS is_required, 'optional' AS category, 12 AS display_order
    UNION ALL
    SELECT 'Rating' AS column_name, 'text' AS column_type, 'Long-term external rating in S&P, Fitch or Moody''s notation (mapped to a credit quality step).' AS description, 0 AS is_required, 'optional' AS category, 13 AS display_order
    UNION ALL
    SELECT 'Collateral_Value' AS column_name, 'numeric' AS column_type, 'Value of the collateral securing the exposure.' AS description, 0 AS is_required, 'optional' AS category, 14 AS display_order
    UNION ALL
    SELECT 'Collateral_Risk_Weight' AS column_name, 'numeric' AS column_type, 'Risk weight of a direct exposure to the collateral instrument.' AS description, 0 AS is_required, 'optional' AS category, 15 AS display_order
    UNION ALL
    SELECT 'Collateral_Type' AS column_name, 'text' AS column_type, 'Type of collateral (cash, deposit, sovereign_bond, bond, equity, ...).' AS description, 0 AS is_required, 'optional' AS category, 16 AS display_order
    UNION ALL
    SELECT 'Collateral_Currency' AS column_name, 'text' AS column_type, 'ISO 4217 currency of the collateral.' AS description, 0 AS is_required, 'optional' AS category, 17 AS display_order
    UNION ALL
    SELECT 'SCRA_Grade' AS column_name, 'text' AS column_type, 'SCRA grade of an unrated institution (A+, A, B or C).' AS description, 0 AS is_required, 'optional' AS category, 18 AS display_order
    UNION ALL
    SELECT 'Origination_Date' AS column_name, 'date' AS column_type, 'Date the exposure was originated (drawn or issued): with a Maturity date it gives the original maturity that the short-term rules of Art. 116(3), 120(2) and 121 use.' AS description, 0 AS is_required, 'optional' AS category, 19 AS display_order
) c
WHERE l.code = 'sovereigns'
  AND NOT EXISTS (SELECT 1 FROM lever_column_definitions d WHERE d.lever_id = l.id);
