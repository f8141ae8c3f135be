"""``squadmem report``: tier files against their budgets, every section's last use, logs, advice.

The report is the engine's (:mod:`squadmem.engine.report`), which ``demo`` shows too:
:func:`make` builds one JSON-ready object (its schema is in docs/commands.md and is
stable), :func:`text` and :func:`markdown` render it.
"""

from __future__ import annotations

from squadmem.engine.report import make as make
from squadmem.engine.report import markdown as markdown
from squadmem.engine.report import text as text
