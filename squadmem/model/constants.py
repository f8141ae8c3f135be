"""The names and sizes every layer shares, each defined once.

No imports, so the hooks (which run on every commit) and everyone else read
them at no cost; pre-commit's ``constants.py`` is the model. A module that
needs one imports it from here rather than spelling it out again.
"""

SQUAD_DIR = ".squad/memory"  # the Squad layout's memory folder (a workspace's places differ)
LOG_DIR = "log"  # the daily logs, under SQUAD_DIR
LOG_PREFIX = f"{SQUAD_DIR}/{LOG_DIR}/"
SETTINGS_NAME = "tiers.toml"
SETTINGS_PATH = f"{SQUAD_DIR}/{SETTINGS_NAME}"
MAX_FILE_BYTES = 1024 * 1024  # a tier file or daily log squadmem reads or writes

STATE_DIR = "squadmem"  # squadmem's folder in a work tree's git dir
JOURNAL = "journal.json"  # an unfinished move, in STATE_DIR
PENDING_USES = "pending-uses.json"  # uses not yet in a commit, in STATE_DIR
SETTLE = "merge-settle.json"  # what the merge driver leaves for the post-merge hook, in STATE_DIR

# The commit trailers squadmem writes and reads, spelled here only (git matches their keys in any case).
TRAILER = "Squad-Memory-Used"  # the uses of sections
DELETE_TRAILER = "Squad-Memory-Delete"  # sections removed on purpose
MOVE_TRAILER = "Squad-Memory-Move"  # a move: `<id> <from> -> <to>`
REASON_TRAILER = "Squad-Memory-Reason"  # the rule that made a move (`manual` for one by hand)
RESTORE_TRAILER = "Squad-Memory-Restore"  # the commit a section restored from history came from
INDEX_TRAILER = "Squad-Memory-Index"  # an Index refresh, naming its agent
INTAKE_TRAILER = "Squad-Memory-Intake"  # an intake of Squad's entries, with their count
SIGN_OFF_TRAILER = "Signed-off-by"  # git's own, which the use trailer goes before
INDEX_TITLE = "Index → Deeper Tiers"  # the hot file's section that points at the deeper tiers

# Squad's files squadmem writes its spawn blocks into (squadmem.model.spawnblock): the only paths
# outside the memory folder a squadmem commit may write, and only through no symlink.
SPAWN_FILES = (
    ".squad/templates/spawn-reference.md",
    ".github/agents/squad.agent.md",
    ".github/skills/tiered-memory/SKILL.md",
    ".squad/templates/charter.md",
    ".github/skills/agent-collaboration/SKILL.md",
    ".copilot/skills/agent-collaboration/SKILL.md",
)
CHARTERS = ".squad/agents/*/charter.md"  # each agent's charter, as Squad writes it
SPAWN_RECORD = f"{SQUAD_DIR}/squad-spawn.json"  # the Squad lines the blocks replaced; on or off
