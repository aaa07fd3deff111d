"""Tree-sitter indexers: pure extraction (bytes in, records out) plus the jobs that feed the graph writer."""
