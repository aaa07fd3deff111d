-- The indexed files' text for `grep`, kept by the indexer beside the graph (derived data: a
-- run rewrites what changed; dropping a workspace removes it). One row per workspace of a
-- graph; each file's content hash says which version its text and symbols are of.
-- The text itself lives in one FTS5 trigram table per workspace, `grep_text_<id>`, created
-- by `graphsvc.context.grep_index` (a drop is then one DROP TABLE, and a search reads only
-- its workspace's index).

CREATE TABLE grep_workspaces (
    id      INTEGER PRIMARY KEY,
    graph   TEXT NOT NULL,  -- the graph's URI: two graphs may hold workspaces of one name
    name    TEXT NOT NULL,
    indexer TEXT,           -- fingerprint of the indexer that extracted the symbols
    UNIQUE (graph, name)
);

CREATE TABLE grep_files (
    id        INTEGER PRIMARY KEY,
    workspace INTEGER NOT NULL REFERENCES grep_workspaces (id) ON DELETE CASCADE,
    path      TEXT NOT NULL,
    hash      TEXT NOT NULL,
    UNIQUE (workspace, path)
);

-- The symbols of each file by line range: a hit's enclosing symbol without the graph.
CREATE TABLE grep_symbols (
    file           INTEGER NOT NULL REFERENCES grep_files (id) ON DELETE CASCADE,
    start_line     INTEGER NOT NULL,
    end_line       INTEGER NOT NULL,
    id             TEXT NOT NULL,
    kind           TEXT NOT NULL,
    qualified_name TEXT NOT NULL
);

CREATE INDEX grep_symbols_at ON grep_symbols (file, start_line);
