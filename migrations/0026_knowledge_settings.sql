-- The knowledge base's Settings tab: the words per chunk new indexing uses (app_settings key
-- 'knowledge.chunk_words'), and the chunk size each document's chunks were cut with, so the tab
-- can say which documents a re-index would change. Documents indexed before were cut at 200.
ALTER TABLE knowledge_documents ADD COLUMN chunk_words BIGINT;
UPDATE knowledge_documents SET chunk_words = 200 WHERE status = 'completed';
INSERT INTO app_settings (key, value, updated_by, updated_at)
VALUES ('knowledge.chunk_words', '200', NULL, '2026-12-02T00:00:00.000000Z');
