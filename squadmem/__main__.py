from __future__ import annotations

from squadmem.lane import run

run()
