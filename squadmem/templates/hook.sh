#!/bin/sh
# squadmem {event} hook (written by `squadmem init`; delete it to remove squadmem's checks).
# Runs the hook that was here before squadmem, if any, then squadmem's checks
# with the Python squadmem was installed with.
SQUADMEM_PYTHON="${{SQUADMEM_PYTHON:-{python}}}"
hook_dir=$(dirname "$0")
stdin_copy=/dev/null
if [ "{event}" = pre-push ]; then
    stdin_copy=$(mktemp) || exit 1
    trap 'rm -f "$stdin_copy"' EXIT
    cat > "$stdin_copy"
fi
if [ -x "$hook_dir/{event}.squadmem-legacy" ]; then
    "$hook_dir/{event}.squadmem-legacy" "$@" < "$stdin_copy" || exit $?
fi
"$SQUADMEM_PYTHON" -m squadmem.hooks.run {event} "$@" < "$stdin_copy" || exit $?
