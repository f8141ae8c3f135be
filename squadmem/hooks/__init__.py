"""Hook entry points. Standard library only: they run on every commit."""
