"""The command line: the click commands (``app``), the fast lane that parses the frequent ones
without click (``lane``, the console script), what each command starts from (``invocation``),
and the reference rendered from ``--help``. It parses and delegates to the commands."""
