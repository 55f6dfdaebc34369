"""The memory's own files: daily logs and their line grammar, transcripts, tombstones, the MCP server's heartbeat."""
