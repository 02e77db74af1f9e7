-- The six levers of the product (the analysis engine's lever codes), present in every
-- deployment, not only with the demo data. Ids are fixed; a database that already has a lever
-- with the code (the demo data wrote them before this migration) keeps its own.

INSERT INTO levers (id, code, lever_name, description, lever_category, created_at, updated_at)
SELECT 'lever-pse', 'pse', 'Public Sector Entities (PSE)', 'Exposures to public sector entities treated as their central, regional or local government, or by the rating of the entity or its sovereign (CRR Art. 116).', 'Assets', '2026-11-25T00:00:00.000000Z', '2026-11-25T00:00:00.000000Z'
WHERE NOT EXISTS (SELECT 1 FROM levers WHERE code = 'pse');

INSERT INTO levers (id, code, lever_name, description, lever_category, created_at, updated_at)
SELECT 'lever-rgla', 'rgla', 'Regional Governments and Local Authorities (RGLA)', 'Exposures to regional governments and local authorities treated as exposures to their central government where eligible (CRR Art. 115).', 'Assets', '2026-11-25T00:00:00.000000Z', '2026-11-25T00:00:00.000000Z'
WHERE NOT EXISTS (SELECT 1 FROM levers WHERE code = 'rgla');

INSERT INTO levers (id, code, lever_name, description, lever_category, created_at, updated_at)
SELECT 'lever-mdb', 'mdb', 'Multilateral Development Banks (MDB)', 'Exposures to multilateral development banks listed in CRR Art. 117(2) at 0 %, other MDBs by rating, and international organisations (Art. 118).', 'Assets', '2026-11-25T00:00:00.000000Z', '2026-11-25T00:00:00.000000Z'
WHERE NOT EXISTS (SELECT 1 FROM levers WHERE code = 'mdb');

INSERT INTO levers (id, code, lever_name, description, lever_category, created_at, updated_at)
SELECT 'lever-institutions', 'institutions', 'Institutions', 'Exposures to credit institutions by rating, with the short-term treatment of CRR Art. 120 and 121.', 'Assets', '2026-11-25T00:00:00.000000Z', '2026-11-25T00:00:00.000000Z'
WHERE NOT EXISTS (SELECT 1 FROM levers WHERE code = 'institutions');

INSERT INTO levers (id, code, lever_name, description, lever_category, created_at, updated_at)
SELECT 'lever-corporates', 'corporates', 'Corporates with Eligible Collateral', 'Corporate exposures by rating (CRR Art. 122) with financial collateral under the simple method (Art. 222, 20 % floor).', 'CRMT', '2026-11-25T00:00:00.000000Z', '2026-11-25T00:00:00.000000Z'
WHERE NOT EXISTS (SELECT 1 FROM levers WHERE code = 'corporates');

INSERT INTO levers (id, code, lever_name, description, lever_category, created_at, updated_at)
SELECT 'lever-sovereigns', 'sovereigns', 'Sovereigns', 'Exposures to central governments and central banks, including the domestic-currency treatment of CRR Art. 114(4).', 'Assets', '2026-11-25T00:00:00.000000Z', '2026-11-25T00:00:00.000000Z'
WHERE NOT EXISTS (SELECT 1 FROM levers WHERE code = 'sovereigns');
