// entity_kind (workspace, kind), created by 002 until now: no query reads it (every statement
// of graphsvc/graph was checked with EXPLAIN), and every entity written updated it.
DROP INDEX entity_kind IF EXISTS;
