"""Writing: a plan carried out as commits beside the user's work, and move commits made again."""
