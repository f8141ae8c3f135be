"""``squadmem maintain``: take in Squad's new entries, plan the tier rules' moves, then commit them.

The run is the engine's (:mod:`squadmem.engine.maintenance`), which ``demo`` runs too:
a dry run stops after the plan, a real run plans again under the writers' lock and
commits exactly that plan, one commit per move, then one per Index that changed.
``make_plan`` and ``load_settings`` are named here as the benchmarks read them.
"""

from __future__ import annotations

from squadmem.engine.maintenance import load_settings as load_settings
from squadmem.engine.maintenance import maintain as maintain
from squadmem.engine.maintenance import make_plan as make_plan
