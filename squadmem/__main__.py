from __future__ import annotations

from squadmem.cli.lane import run

run()
