// Every entity is unique by (workspace, id); this is also the lookup index for ids.
CREATE CONSTRAINT entity_key IF NOT EXISTS
FOR (n:Entity) REQUIRE (n.workspace, n.id) IS UNIQUE;

CREATE CONSTRAINT schema_meta_key IF NOT EXISTS
FOR (m:GraphsvcMeta) REQUIRE m.key IS UNIQUE;
