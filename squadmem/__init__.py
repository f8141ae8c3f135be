"""squadmem: tiered, git-native memory for AI agent teams."""

from __future__ import annotations

__version__ = "0.1.0"
