"""Search: the sections of the work tree in SQLite FTS5, and how a section matches words."""
