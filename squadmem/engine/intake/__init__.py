"""Intake: Squad's files read as a commit holds them (``sources``), their new entries placed and
committed (``take``)."""
