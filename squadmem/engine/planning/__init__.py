"""Planning: the tier rules applied over the projection of the tier files, into a plan (pure:
no git, no files, no clock)."""
