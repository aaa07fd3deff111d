// Lookups used by the indexers (per-file symbol sets) and the query engine (names, kinds).
CREATE INDEX entity_workspace IF NOT EXISTS FOR (n:Entity) ON (n.workspace);
CREATE INDEX entity_workspace_file IF NOT EXISTS FOR (n:Entity) ON (n.workspace, n.file);
CREATE INDEX entity_name IF NOT EXISTS FOR (n:Entity) ON (n.name);
CREATE INDEX entity_qualified_name IF NOT EXISTS FOR (n:Entity) ON (n.qualified_name);
CREATE INDEX entity_kind IF NOT EXISTS FOR (n:Entity) ON (n.workspace, n.kind);
CREATE INDEX entity_community IF NOT EXISTS FOR (n:Entity) ON (n.workspace, n.community);
