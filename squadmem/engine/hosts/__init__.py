"""What the hosts leave behind: OpenClaw's agents and transcript store, and the transcripts of
Claude Code, Codex CLI and OpenClaw read as events."""
