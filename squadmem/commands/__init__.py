"""One module per command: each reads the repository, asks the engine, renders."""
