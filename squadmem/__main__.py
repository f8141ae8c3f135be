from __future__ import annotations

from squadmem.cli import run

run()
