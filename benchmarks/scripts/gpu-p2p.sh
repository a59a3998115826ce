#!/usr/bin/env bash
# gpu-p2p.sh OUTDIR: point-to-point benchmarks through the launcher from the self-contained bundle, on a GPU machine
# that has no Java (run from the repository root with .bundle/stagecoach present; bin/build-bundle makes it).
# Each run is bounded in time; logs land in OUTDIR.
set -uo pipefail
out="${1:?usage: benchmarks/scripts/gpu-p2p.sh OUTDIR}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
stagecoach="${STAGECOACH_BUNDLE:-$repo/.bundle/stagecoach}/bin/stagecoach"
mkdir -p "$out"
export STAGECOACH_DEVICE="${STAGECOACH_DEVICE:-cuda}"

bench() {
    local name="$1"
    shift
    echo "=== stagecoach run -n 2 $* ($(date -u +%H:%M:%S))"
    timeout --kill-after=5 "${LIMIT_S:-100}" "$stagecoach" run -n 2 "$@" >"$out/$name.txt" 2>"$out/$name.err"
    echo "--- exit $?"
    grep -v '^#' "$out/$name.txt" | head -n 40
    grep -v -e '^latency:' -e '^bw:' -e '^bibw:' -e '^halo:' -e ' INFO ' "$out/$name.err" | head -n 5
}

bench latency-DD latency D D
bench latency-HH latency H H
bench bw-DD bw D D
bench bibw-DD bibw D D
bench halo-DD halo D D
