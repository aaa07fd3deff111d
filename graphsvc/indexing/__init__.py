"""Indexing a directory into the graph: the orchestration around the pure `indexers`.

`indexers` turns bytes into records; this package decides what to read, runs the parser
processes, keeps the index state beside the graph and hands the records to the graph writer.

- `pipeline`: `index_tree()` and `index_symbols()`, the runs behind the CLI, GraphQL and REST
- `summary`: what a run reports (the CLI's lines, the JSON of a job)
- `pool`: the parser processes
- `locks`: one symbol run per workspace at a time
- `state`: what the last run saw, kept beside the graph for incremental runs
- `fingerprint`: what the graph is a function of besides the files
- `jobs`: the server's background index jobs
- `watch`: re-index a workspace whenever its files change (`graphsvc watch`, `serve --watch`)
- `workspaces`: list, show and drop a workspace with its index state
- `workspaces`: list, show and drop a workspace (its graph and its index state)
"""
