"""The cell's small files under the host's home: SQLite tables that outlive a process."""
