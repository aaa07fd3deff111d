// Keyword search over names, qualified names, paths, signatures and docs.
CREATE FULLTEXT INDEX entity_text IF NOT EXISTS
FOR (n:Entity) ON EACH [n.name, n.qualified_name, n.path, n.signature, n.doc];
