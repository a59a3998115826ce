#!/usr/bin/env bash
# dashboard-load.sh: what the live dashboard costs a busy job. Runs HaloRing (N ranks on a ring exchanging device
# faces at full speed, through the stage pipeline) in turn without the dashboard (closed), with --trace FILE instead
# (traced: the ranks' tracing, into files), with the dashboard served but no
# browser on it (served: the ranks' live files and the launcher's reading), and with it open in a headless Chromium
# on the same machine (open, bin/install-browser), and prints each run's rate and, with the dashboard, what its last
# update counted (events, sampled out, dropped).
#
#   benchmarks/scripts/dashboard-load.sh [RUNS] [RANKS] [FACE_BYTES] [ITERATIONS]    (defaults 3 8 1048576 300)
set -euo pipefail
umask 077
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
runs="${1:-3}" ranks="${2:-8}" face="${3:-1048576}" iterations="${4:-300}"
work="$(mktemp -d)"
browser_pid=""
cleanup() { [ -n "$browser_pid" ] && kill "$browser_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
eval "$("$repo/bin/install-browser" | sed 's/^/export /')"

job() {
    "$repo/bin/stagecoach" run -n "$ranks" --oversubscribe "$@" -J-Dstagecoach.device.path=staged \
        io.stagecoach.benchmarks.omb.HaloRing D --face-bytes "$face" --iterations "$iterations" --skip 20
}

for run in $(seq 1 "$runs"); do
    closed="$(job 2>"$work/closed.err" | grep -o 'halo-ring:.*')"
    echo "run $run closed: $closed"
    traced="$(job --trace "$work/trace.json" 2>"$work/traced.err" | grep -o 'halo-ring:.*')"
    echo "run $run traced: $traced"
    served="$(job --dashboard 2>"$work/served.err" | grep -o 'halo-ring:.*')"
    echo "run $run served: $served"
    job --dashboard --dashboard-linger 3 >"$work/open.out" 2>"$work/open.err" &
    job_pid=$!
    url="" login=""
    for _ in $(seq 1 600); do
        login="$(grep -o 'http://127.0.0.1:[0-9]*/login?token=[0-9a-f]*' "$work/open.err" | head -1 || true)"
        [ -n "$login" ] && break
        sleep 0.1
    done
    [ -n "$login" ] || { echo "no dashboard address" >&2; cat "$work/open.err" >&2; exit 1; }
    url="${login%%login\?token=*}"
    # The token stays off command lines: the browser opens a private page that sends it on, curl reads a header file.
    printf '<meta http-equiv="refresh" content="0;url=%s">\n' "$login" > "$work/open.html"
    printf 'Authorization: Bearer %s\n' "${login##*token=}" > "$work/auth.header"
    "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --user-data-dir="$work/profile" "file://$work/open.html" >/dev/null 2>&1 &
    browser_pid=$!
    while ! grep -q 'halo-ring:' "$work/open.out"; do
        kill -0 "$job_pid" 2>/dev/null || break
        sleep 0.2
    done
    job_id="$(curl -s -H @"$work/auth.header" "${url}api/jobs" | sed 's/.*\["\([^"]*\)"\].*/\1/')"
    counters="$(timeout 2 curl -s -N -H @"$work/auth.header" "${url}api/jobs/$job_id/events" | grep -m1 '^data:' |
        grep -o '"counters":{[^}]*}' || true)"
    wait "$job_pid" || true
    kill "$browser_pid" 2>/dev/null || true
    wait "$browser_pid" 2>/dev/null || true
    browser_pid=""
    echo "run $run open:   $(grep -o 'halo-ring:.*' "$work/open.out") $counters"
done
