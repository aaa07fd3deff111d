// entity_text, replaced by entity_search (004) and read by nothing: every entity written was
// indexed by both, which made a first index's symbol writes cost about a third more Neo4j CPU.
DROP INDEX entity_text IF EXISTS;
