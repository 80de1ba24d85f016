"""The two lanes a round can take: Cursor's agent protocol, or Cursor's own CLI."""
