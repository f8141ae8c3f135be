#!/bin/sh
# squadmem {event} hook (written by `squadmem init`; delete it to remove squadmem's checks).
# Runs the hook that was here before squadmem, if any, then squadmem's checks
# with the Python squadmem was installed with (standard library only: started
# with -I -S, squadmem's folder appended to its path, when that folder is known).
SQUADMEM_PYTHON="${{SQUADMEM_PYTHON:-{python}}}"
squadmem_root={root}
hook_dir=${{0%/*}}
stdin_copy=/dev/null
if [ "{event}" = pre-push ]; then
    stdin_copy=$(mktemp) || exit 1
    trap 'rm -f "$stdin_copy"' EXIT
    cat > "$stdin_copy"
fi
if [ -x "$hook_dir/{event}.squadmem-legacy" ]; then
    "$hook_dir/{event}.squadmem-legacy" "$@" < "$stdin_copy" || exit $?
fi
if ! command -v "$SQUADMEM_PYTHON" >/dev/null 2>&1; then
    gone=$SQUADMEM_PYTHON
    SQUADMEM_PYTHON=
    for candidate in python3 python; do
        if command -v "$candidate" >/dev/null 2>&1 &&
            "$candidate" -c 'import squadmem.hooks.run' >/dev/null 2>&1; then
            SQUADMEM_PYTHON=$candidate
            break
        fi
    done
    echo "squadmem: {event} hook: $gone is gone (squadmem's Python was removed or moved)" >&2
    echo "hint: repair: run \`squadmem init\` with the squadmem you use now; remove: delete $0" >&2
    if [ -z "$SQUADMEM_PYTHON" ]; then
        echo "squadmem: {event} hook: no Python with squadmem found: squadmem's checks did not run" >&2
        exit 0
    fi
    echo "squadmem: {event} hook: running squadmem's checks with $SQUADMEM_PYTHON" >&2
    squadmem_root=
fi
# A commit that stages nothing under .squad/memory/, MEMORY.md or memory/ (the places of either
# layout: which one a commit uses is read from what it commits, never from the work tree), none of
# Squad's files that hold squadmem's spawn blocks (its spawn template, coordinator, charters, skills), concludes
# no merge and has no squadmem move unfinished gives squadmem's checks nothing to judge: the same
# test they make first, done here without starting Python (git runs this hook at the top of the work
# tree), with replacement refs off as squadmem reads objects. Its answer, the staged memory files as
# `git diff --raw` lists them (the checks' own command line), is left in a file of the git directory
# for the checks, which then need not ask git again.
squadmem_git_dir=${{GIT_DIR:-.git}}
squadmem_specs=':(top).squad/memory :(top)MEMORY.md :(top)memory :(top).squad/templates/spawn-reference.md :(top).github/agents/squad.agent.md :(top).github/skills/tiered-memory/SKILL.md :(top).squad/templates/charter.md :(top).github/skills/agent-collaboration/SKILL.md :(top).copilot/skills/agent-collaboration/SKILL.md :(top).squad/agents/*/charter.md'
squadmem_staged=
if [ "{event}" = pre-commit ] && [ $# -eq 0 ] && [ -d "$squadmem_git_dir" ] &&
    [ ! -e "$squadmem_git_dir/squadmem/journal.json" ] && [ ! -e "$squadmem_git_dir/MERGE_HEAD" ]; then
    squadmem_staged=$squadmem_git_dir/squadmem-staged.diff
    GIT_NO_REPLACE_OBJECTS=1 git diff --cached --raw -z --no-ext-diff --no-color -M --exit-code \
        --output="$squadmem_staged" -- ':(top).squad/memory' \
        ':(top)MEMORY.md' \
        ':(top)memory' \
        ':(top).squad/templates/spawn-reference.md' \
        ':(top).github/agents/squad.agent.md' \
        ':(top).github/skills/tiered-memory/SKILL.md' \
        ':(top).squad/templates/charter.md' \
        ':(top).github/skills/agent-collaboration/SKILL.md' \
        ':(top).copilot/skills/agent-collaboration/SKILL.md' \
        ':(top).squad/agents/*/charter.md' 2>/dev/null
    case $? in
        0) exit 0 ;;
        1) ;;
        *) squadmem_staged= ;;
    esac
fi
# After a merge: only a note of the merge driver's (an edit kept at a moved section's old place)
# gives squadmem something to settle; without one, nothing starts.
if [ "{event}" = post-merge ] && [ -d "$squadmem_git_dir" ] && [ ! -f "$squadmem_git_dir/commondir" ] &&
    [ ! -e "$squadmem_git_dir/squadmem/merge-settle.json" ]; then
    exit 0
fi
# The message hooks: with no use pending, no amend under way (the git process's arguments, read
# from /proc where there is one), no Squad-Memory-Used line in the message and no section removed
# to name, squadmem has nothing to add or refuse: also answered here without starting Python.
if {{ [ "{event}" = prepare-commit-msg ] || [ "{event}" = commit-msg ]; }} && [ -n "${{1:-}}" ] &&
    [ -d "$squadmem_git_dir" ] && [ -r "/proc/$PPID/cmdline" ]; then
    squadmem_state=$squadmem_git_dir
    if [ -f "$squadmem_git_dir/commondir" ]; then
        read -r squadmem_common < "$squadmem_git_dir/commondir"
        case $squadmem_common in
            /*) squadmem_state=$squadmem_common ;;
            *) squadmem_state=$squadmem_git_dir/$squadmem_common ;;
        esac
    fi
    # git's arguments, read by the shell itself (no process): read drops their NUL bytes, so they run
    # together and an argument that merely holds --amend only starts Python, which then decides.
    squadmem_amend=${{GIT_REFLOG_ACTION:-}}
    while IFS= read -r squadmem_arguments || [ -n "$squadmem_arguments" ]; do
        squadmem_amend=$squadmem_amend$squadmem_arguments
    done < "/proc/$PPID/cmdline"
    case $squadmem_amend in
        *amend*) ;;
        *)
            if [ ! -e "$squadmem_state/squadmem/pending-uses.json" ]; then
                # a Squad-Memory-Used line in the message (any case), looked for by the shell itself
                squadmem_used=
                while IFS= read -r squadmem_line || [ -n "$squadmem_line" ]; do
                    case $squadmem_line in
                        [Ss][Qq][Uu][Aa][Dd]-[Mm][Ee][Mm][Oo][Rr][Yy]-[Uu][Ss][Ee][Dd]*)
                            squadmem_used=1
                            break
                            ;;
                    esac
                done < "$1"
                # nor a note of the pre-commit hook's (or prepare-commit-msg's, before an editor)
                # that the commit removes a section the message must name
                [ -n "$squadmem_used" ] || [ -e "$squadmem_state/squadmem/removals-unnamed" ] || exit 0
            fi
            ;;
    esac
fi
if [ -n "$squadmem_root" ] && [ -f "$squadmem_root/squadmem/hooks/run.py" ]; then
    SQUADMEM_STAGED_DIFF=$squadmem_staged SQUADMEM_STAGED_SPECS=$squadmem_specs \
        "$SQUADMEM_PYTHON" -I -S -c 'import sys; sys.path.append(sys.argv.pop(1)); from squadmem.hooks.run import main; raise SystemExit(main())' "$squadmem_root" {event} "$@" < "$stdin_copy" || exit $?
else
    SQUADMEM_STAGED_DIFF=$squadmem_staged SQUADMEM_STAGED_SPECS=$squadmem_specs \
        "$SQUADMEM_PYTHON" -m squadmem.hooks.run {event} "$@" < "$stdin_copy" || exit $?
fi
