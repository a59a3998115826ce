#!/usr/bin/env bash
# dashboard-load.sh: what the live dashboard costs a busy job. Runs HaloRing (N ranks on a ring exchanging device
# faces at full speed, through the stage pipeline) by turns without the dashboard (closed), with --trace FILE instead
# (traced: the ranks' tracing, into files), with the dashboard served but nobody watching (served: the ranks' live
# files and the launcher's reading), and with it watched (open): by a headless Chromium on the same machine
# (VIEWER=chromium, the default; bin/install-browser), or by curl reading the page's event stream (VIEWER=curl: the
# server's whole work for a viewer, for a machine without a browser, the browser then being elsewhere). Each turn
# starts with another mode, so that no mode always runs first. Prints each run's rate, and for open runs how many
# viewers the server counted while the job ran (0 fails the script: nobody watched) and what its last update
# counted; then the median and range of every mode.
#
#   benchmarks/scripts/dashboard-load.sh [RUNS] [RANKS] [FACE_BYTES] [ITERATIONS] [DEVICE]
#       (defaults 3 8 1048576 300 D; STAGECOACH names the command, default bin/stagecoach of this checkout;
#        STAGECOACH_RUN_OPTS adds options to every run, e.g. -J-Dstagecoach.device=emulated)
set -euo pipefail
umask 077
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
runs="${1:-3}" ranks="${2:-8}" face="${3:-1048576}" iterations="${4:-300}" device="${5:-D}"
stagecoach="${STAGECOACH:-$repo/bin/stagecoach}"
viewer="${VIEWER:-chromium}"
work="$(mktemp -d)"
viewer_pid="" job_pid=""
cleanup() {
    [ -n "$viewer_pid" ] && kill "$viewer_pid" 2>/dev/null
    [ -n "$job_pid" ] && kill "$job_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
case "$viewer" in
    chromium) eval "$("$repo/bin/install-browser" | sed 's/^/export /')" ;;
    curl) command -v curl >/dev/null || { echo "dashboard-load.sh: VIEWER=curl needs curl" >&2; exit 1; } ;;
    *) echo "dashboard-load.sh: VIEWER is chromium or curl, not '$viewer'" >&2; exit 1 ;;
esac

job() {
    # shellcheck disable=SC2086 # options, split on purpose
    "$stagecoach" run -n "$ranks" --oversubscribe ${STAGECOACH_RUN_OPTS:-} "$@" -J-Dstagecoach.device.path=staged \
        io.stagecoach.benchmarks.omb.HaloRing "$device" --face-bytes "$face" --iterations "$iterations" --skip 20
}

rate() { grep -o '[0-9.]* iterations/s' "$1" | head -1 | cut -d' ' -f1 || true; }

run_mode() {
    local mode="$1" out="$work/$1.out" err="$work/$1.err"
    case "$mode" in
        closed) job >"$out" 2>"$err" || true ;;
        traced) job --trace "$work/trace.json" >"$out" 2>"$err" || true ;;
        served) job --dashboard >"$out" 2>"$err" || true ;;
        open) run_open "$out" "$err" ;;
    esac
    local figure
    figure="$(rate "$out")"
    [ -n "$figure" ] || { echo "dashboard-load.sh: the $mode run printed no rate" >&2; cat "$out" "$err" >&2; exit 1; }
    echo "$mode $figure" >> "$work/rates"
    echo "run $turn $mode: $(grep -o 'halo-ring:.*' "$out") ${extra:-}"
    extra=""
}

# The dashboard's job list, and the one job in it (empty where there is none yet); url is run_open's.
jobs_listed() { curl -s -H @"$work/auth.header" "${url}api/jobs" || true; }
job_listed() { jobs_listed | sed -n 's/.*\["\([^"]*\)"\].*/\1/p'; }

run_open() {
    local out="$1" err="$2" login="" url job_id="" viewers=0 seen
    job --dashboard --dashboard-linger 3 >"$out" 2>"$err" &
    job_pid=$!
    for _ in $(seq 1 600); do
        login="$(grep -o 'http://127.0.0.1:[0-9]*/login?token=[0-9a-f]*' "$err" | head -1 || true)"
        [ -n "$login" ] && break
        sleep 0.1
    done
    [ -n "$login" ] || { echo "no dashboard address" >&2; cat "$err" >&2; exit 1; }
    url="${login%%login\?token=*}"
    # The token stays off command lines: the browser opens a private page that sends it on, curl reads a header file.
    printf 'Authorization: Bearer %s\n' "${login##*token=}" > "$work/auth.header"
    if [ "$viewer" = chromium ]; then
        printf '<meta http-equiv="refresh" content="0;url=%s">\n' "$login" > "$work/open.html"
        "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage \
            --user-data-dir="$work/profile" "file://$work/open.html" >/dev/null 2>&1 &
        viewer_pid=$!
    else
        for _ in $(seq 1 300); do
            job_id="$(job_listed)"
            [ -n "$job_id" ] && break
            sleep 0.1
        done
        curl -s -N -H @"$work/auth.header" "${url}api/jobs/$job_id/events" > "$work/stream" &
        viewer_pid=$!
    fi
    # the viewers the server counts while the job runs, until its result
    while ! grep -q 'halo-ring:' "$out"; do
        kill -0 "$job_pid" 2>/dev/null || break
        seen="$(jobs_listed | sed -n 's/.*"viewers":\([0-9]*\).*/\1/p')"
        [ -n "$seen" ] && [ "$seen" -gt "$viewers" ] && viewers="$seen"
        sleep 0.2
    done
    [ -n "$job_id" ] || job_id="$(job_listed)"
    local counters
    counters="$(timeout 2 curl -s -N -H @"$work/auth.header" "${url}api/jobs/$job_id/events" | grep -m1 '^data:' |
        grep -o '"counters":{[^}]*}' || true)"
    wait "$job_pid" || true
    job_pid=""
    kill "$viewer_pid" 2>/dev/null || true
    wait "$viewer_pid" 2>/dev/null || true
    viewer_pid=""
    [ "$viewers" -gt 0 ] || { echo "dashboard-load.sh: no viewer reached the dashboard ($viewer)" >&2; exit 1; }
    extra="viewers $viewers ($viewer) $counters"
}

modes=(closed traced served open)
for turn in $(seq 1 "$runs"); do
    for i in 0 1 2 3; do
        run_mode "${modes[$(( (turn - 1 + i) % 4 ))]}"
    done
done
echo "summary: $ranks ranks, $face B faces, $iterations iterations, $runs runs each, viewer $viewer (it/s)"
for mode in "${modes[@]}"; do
    grep "^$mode " "$work/rates" | cut -d' ' -f2 | sort -g | awk -v mode="$mode" \
        '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
           printf "%-7s median %.1f  range %.1f-%.1f  (n=%d)\n", mode, m, v[1], v[NR], NR }'
done
