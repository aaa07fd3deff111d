// Lookups used by the indexers (per-file symbol sets) and the query engine (names, kinds).
// entity_kind (workspace, kind) was created here too; no query read it, and 006 drops it.
CREATE INDEX entity_workspace IF NOT EXISTS FOR (n:Entity) ON (n.workspace);
CREATE INDEX entity_workspace_file IF NOT EXISTS FOR (n:Entity) ON (n.workspace, n.file);
CREATE INDEX entity_name IF NOT EXISTS FOR (n:Entity) ON (n.name);
CREATE INDEX entity_qualified_name IF NOT EXISTS FOR (n:Entity) ON (n.qualified_name);
CREATE INDEX entity_community IF NOT EXISTS FOR (n:Entity) ON (n.workspace, n.community);
