"""The document model and the rules every layer shares: standard library only."""
