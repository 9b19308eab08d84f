#!/usr/bin/env bash
# Runs a command while every core is kept busy, to prove a test suite does not depend on the
# machine's speed: `scripts/under-load.sh cargo test --no-fail-fast`.
#
# THRONG_LOAD_PER_CORE (default 1) busy loops per core, at the same priority as the command, so
# the command gets about 1/(1+N) of each core it asks for. The loops stop when the command ends,
# however it ends (exit, failure, Ctrl+C), and the command's exit status is returned.
set -euo pipefail

if [ $# -eq 0 ]; then
    echo "usage: $0 COMMAND [ARGS...]" >&2
    exit 2
fi
per_core="${THRONG_LOAD_PER_CORE:-1}"
case "$per_core" in
    ''|*[!0-9]*) echo "$0: THRONG_LOAD_PER_CORE must be a whole number, got '$per_core'" >&2; exit 2 ;;
esac
cores=$(nproc)
hogs=()
stop_hogs() {
    for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait "${hogs[@]}" 2>/dev/null || true
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM
for _ in $(seq 1 $((cores * per_core))); do
    # A pure CPU loop: no memory traffic, no I/O; `exec` so the pid killed is the loop itself.
    bash -c 'exec 0</dev/null; while :; do :; done' &
    hogs+=($!)
done
echo "under-load: ${#hogs[@]} busy loops on $cores cores while running: $*" >&2
set +e
"$@"
status=$?
set -e
echo "under-load: '$*' exited with status $status" >&2
exit $status
