"""The embedded store beside the graph: events, turns, episodes, content cache, continuity."""
