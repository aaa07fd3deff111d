-- The layout of a workspace's grep tables (`graphsvc.context.grep_index.TEXT_FORMAT`). Rows
-- written before this column are format 1, an FTS5 trigram table; a run of an indexer that
-- writes another format drops the workspace's tables and rewrites every file, and until then
-- grep reads the old table whole rather than query it as it would the new one.
ALTER TABLE grep_workspaces ADD COLUMN format INTEGER NOT NULL DEFAULT 1;

-- Characters of the workspace's vocabulary (`grep_terms_<id>`) after it was last compacted.
ALTER TABLE grep_workspaces ADD COLUMN terms_compacted INTEGER NOT NULL DEFAULT 0;
