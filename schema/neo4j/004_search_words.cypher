// Keyword search over names, qualified names, paths, signatures, the words inside names
// (`words`: snake_case and camelCase apart) and docs. It replaces entity_text (005 drops it).
CREATE FULLTEXT INDEX entity_search IF NOT EXISTS
FOR (n:Entity) ON EACH [n.name, n.qualified_name, n.path, n.signature, n.words, n.doc];
