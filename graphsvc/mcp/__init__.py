"""The Model Context Protocol surface: the query verbs and the embedded store as MCP tools
(`tools`), served on stdio and streamable HTTP (`server`)."""
