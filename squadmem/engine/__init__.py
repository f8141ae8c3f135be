"""The engine: history, planning, the commit writer and verification."""
