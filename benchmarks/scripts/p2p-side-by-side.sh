#!/usr/bin/env bash
# Point-to-point, side by side on this machine in one run: Stagecoach's OMB-style programs (latency, bw, halo)
# launched with `bin/stagecoach run -n 2`, Open MPI running the C peer benchmarks/peers/osu_p2p.c, and raw Aeron
# IPC running the samples shipped in aeron-all (Ping/Pong as two processes on a standalone media driver,
# EmbeddedPingPong, EmbeddedIpcThroughput). Every figure is the median of RUNS runs; the runs of the three
# systems interleave so that a slow spell of the machine hits all of them.
#
# Installs Debian's openmpi-bin and libopenmpi-dev when mpicc, mpirun or mpi.h is missing (needs root), builds the C peer into
# benchmarks/target/peers/, and prints one markdown table with the goals:
#   8 B one-way latency within 2x of raw Aeron IPC; 4 MB bandwidth >= 70% of Open MPI's;
#   each halo face no slower than Open MPI with the same datatypes.
#
# Environment (all optional):
#   RUNS=3                 runs per program (medians are reported)
#   BUFFERS="H H,D D"      Stagecoach buffer pairs to run (D = device memory; emulated without a GPU)
#   GRIDS=128,256          halo grid edges
#   LAT_BYTES=8            latency message size of the table
#   BW_BYTES=4194304       bandwidth message size of the table
#   FULL=1                 sweep every size from 1 B to BW_BYTES (full OMB tables in the output directory)
#   AERON_IDLE=org.agrona.concurrent.BackoffIdleStrategy    EmbeddedPingPong's idle strategy
#   SPIN_LATENCY=1         also run our latency with stagecoach.idle=spin (the Ping/Pong samples busy-spin)
#   AERON_MESSAGES=100000  round trips timed by the Aeron ping samples (after 3 x 10000 warm-up)
#   STAGECOACH_IDLE=       stagecoach.idle for our ranks (backoff | yield | spin; empty: the default)
#   STAGECOACH=bin/stagecoach            the launcher to run our ranks with (e.g. a bundle's bin/stagecoach)
#   STAGECOACH_RUN_OPTS=   extra options for `stagecoach run`, e.g. "-cp DIR" or "-J-Xmx2g"
#   NICE=-20               scheduling priority of every measured program, ours and the peers alike (-20 as root,
#                          0 otherwise): on a shared machine it keeps other builds from preempting them
#   MPI=1                  run the Open MPI peer (0: leave it out, e.g. on a machine without MPI)
#   JAVA=java              the java for the Aeron samples (default: java on the PATH, else the bundle's)
#   SKIP_BUILD=1           do not run Maven (use the jars already in the target directories)
#   MVN_ARGS="-o"          extra Maven arguments, e.g. offline
#   RESULTS=benchmarks/target/p2p        where the raw outputs and table.md go
# Output: RESULTS (every raw output, table.md)
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "${repo_root}"

RUNS="${RUNS:-3}"
BUFFERS="${BUFFERS:-H H,D D}"
GRIDS="${GRIDS:-128,256}"
LAT_BYTES="${LAT_BYTES:-8}"
BW_BYTES="${BW_BYTES:-4194304}"
FULL="${FULL:-0}"
AERON_IDLE="${AERON_IDLE:-org.agrona.concurrent.BackoffIdleStrategy}"
SPIN_LATENCY="${SPIN_LATENCY:-1}"
AERON_MESSAGES="${AERON_MESSAGES:-100000}"
STAGECOACH_IDLE="${STAGECOACH_IDLE:-}"
STAGECOACH="${STAGECOACH:-bin/stagecoach}"
MPI="${MPI:-1}"
JAVA="${JAVA:-$(command -v java || echo "${STAGECOACH_HOME:-.bundle/stagecoach}/runtime/bin/java")}"
read -r -a run_opts <<< "${STAGECOACH_RUN_OPTS:-}"
target="benchmarks/target"
results="${RESULTS:-${target}/p2p}"
peer_binary="${target}/peers/osu_p2p"
if [[ "$(id -u)" -eq 0 ]]; then NICE="${NICE:--20}"; else NICE="${NICE:-0}"; fi
# The Aeron peers' directories lie in a private folder of random name (Aeron deletes its directory at start and end,
# following links: a name another user could guess and plant would make it delete what they choose).
umask 077
shm_base="$(mktemp -d /dev/shm/stagecoach-p2p.XXXXXXXXXX)"
trap 'rm -rf --one-file-system "${shm_base}"' EXIT
# The Aeron samples run as our ranks do: Agrona's bounds checks off (the launcher's default for ranks).
jvm_opens=(--add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED
           -Dagrona.disable.bounds.checks=true)

log() { echo "p2p: $*" >&2; }

install_open_mpi() {
    # mpicc and mpirun come with openmpi-bin, mpi.h with libopenmpi-dev: look for all three
    if command -v mpirun >/dev/null 2>&1 && echo '#include <mpi.h>' | mpicc -E -x c - >/dev/null 2>&1; then
        return
    fi
    if [[ "$(id -u)" -ne 0 ]]; then
        log "Open MPI (mpicc, mpirun or mpi.h) is missing and installing openmpi-bin libopenmpi-dev needs root"
        exit 1
    fi
    log "installing openmpi-bin libopenmpi-dev"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openmpi-bin libopenmpi-dev >/dev/null
}

build_peer() {
    mkdir -p "$(dirname "${peer_binary}")"
    mpicc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -o "${peer_binary}" benchmarks/peers/osu_p2p.c
}

build_java() {
    if [[ "${SKIP_BUILD:-0}" == "1" ]]; then
        return
    fi
    # shellcheck disable=SC2086
    mvn -B -q ${MVN_ARGS:-} -pl benchmarks -am install -DskipTests
}

aeron_jar() {
    {
        [[ -f "${target}/benchmarks.classpath" ]] && tr ':' '\n' < "${target}/benchmarks.classpath"
        ls node-agent/target/lib/aeron-all-*.jar "${STAGECOACH_HOME:-.bundle/stagecoach}"/lib/aeron-all-*.jar \
            "${HOME}"/.m2/repository/io/aeron/aeron-all/*/aeron-all-*.jar 2>/dev/null
    } | awk '/\/aeron-all-[0-9.]*\.jar$/ && !found { print; found = 1 }'
}

size_range() {
    local bytes="$1"
    if [[ "${FULL}" == "1" ]]; then
        echo "--min-size 1 --max-size ${bytes}"
    else
        echo "--min-size ${bytes} --max-size ${bytes}"
    fi
}

mpi() {
    local as_root=()
    if [[ "$(id -u)" -eq 0 ]]; then
        as_root=(--allow-run-as-root)
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
    nice -n "${NICE}" mpirun "${as_root[@]}" -n 2 "${peer_binary}" "$@"
}

ours() {
    local idle=()
    if [[ -n "${STAGECOACH_IDLE}" ]]; then
        idle=(-J "-Dstagecoach.idle=${STAGECOACH_IDLE}")
    fi
    nice -n "${NICE}" "${STAGECOACH}" run -n 2 ${idle[@]+"${idle[@]}"} ${run_opts[@]+"${run_opts[@]}"} "$@"
}

# Ping and Pong as two processes on one standalone driver shaped like the launcher's node driver (one shared
# agent thread that backs off); both samples busy-spin while they wait (their idle strategy is fixed).
aeron_ping_pong() {
    local jar dir driver pong
    jar="$(aeron_jar)"
    dir="${shm_base}/aeron"
    local props=(-Daeron.dir="${dir}" -Daeron.sample.ping.channel=aeron:ipc -Daeron.sample.pong.channel=aeron:ipc)
    nice -n "${NICE}" "${JAVA}" "${jvm_opens[@]}" -cp "${jar}" -Daeron.dir="${dir}" -Daeron.threading.mode=SHARED \
        -Daeron.dir.delete.on.start=true -Daeron.dir.delete.on.shutdown=true io.aeron.driver.MediaDriver \
        >/dev/null 2>&1 &
    driver=$!
    sleep 2
    nice -n "${NICE}" "${JAVA}" "${jvm_opens[@]}" -cp "${jar}" "${props[@]}" io.aeron.samples.Pong >/dev/null 2>&1 &
    pong=$!
    echo n | nice -n "${NICE}" "${JAVA}" "${jvm_opens[@]}" -cp "${jar}" "${props[@]}" -Daeron.sample.messageLength="${LAT_BYTES}" \
        -Daeron.sample.messages="${AERON_MESSAGES}" -Daeron.sample.warmup.messages=10000 \
        -Daeron.sample.warmup.iterations=3 io.aeron.samples.Ping || true
    kill "${pong}" 2>/dev/null || true
    wait "${pong}" 2>/dev/null || true
    kill "${driver}" 2>/dev/null || true
    wait "${driver}" 2>/dev/null || true
}

aeron_embedded_ping_pong() {
    local dir="${shm_base}/aeron-emb"
    echo n | nice -n "${NICE}" "${JAVA}" "${jvm_opens[@]}" -cp "$(aeron_jar)" -Daeron.dir="${dir}" \
        -Daeron.dir.delete.on.start=true -Daeron.dir.delete.on.shutdown=true \
        -Daeron.sample.ping.channel=aeron:ipc -Daeron.sample.pong.channel=aeron:ipc \
        -Daeron.sample.idleStrategy="${AERON_IDLE}" -Daeron.sample.messageLength="${LAT_BYTES}" \
        -Daeron.sample.messages="${AERON_MESSAGES}" -Daeron.sample.warmup.messages=10000 \
        -Daeron.sample.warmup.iterations=3 io.aeron.samples.EmbeddedPingPong || true
    rm -rf --one-file-system "${dir}"
}

aeron_ipc_throughput() {
    local dir="${shm_base}/aeron-thr"
    timeout -s INT 8 nice -n "${NICE}" "${JAVA}" "${jvm_opens[@]}" -cp "$(aeron_jar)" -Daeron.dir="${dir}" \
        -Daeron.dir.delete.on.start=true -Daeron.dir.delete.on.shutdown=true \
        -Daeron.sample.messageLength="${BW_BYTES}" io.aeron.samples.EmbeddedIpcThroughput || true
    rm -rf --one-file-system "${dir}"
}

# OMB table: the value on the row of a size.
omb_value() {
    awk -v size="$2" '!/^#/ && $1 == size { print $2; exit }' "$1"
}

# OMB table with --percentiles: the median (column 3) or 99th percentile (column 4) on the row of a size.
omb_column() {
    awk -v size="$2" -v column="$3" '!/^#/ && $1 == size { print $column; exit }' "$1"
}

# Halo table: the latency of a face and grid.
halo_value() {
    awk -v face="$2" -v grid="$3" '/^# Face / { current = $3 } !/^#/ && current == face":" && $1 == grid { print $3; exit }' "$1"
}

# Aeron ping histogram, microseconds of round trip: half the mean or the p50 gives one way.
aeron_one_way() {
    case "$2" in
        mean) awk '/^#\[Mean/ { gsub(/,/, "", $3); printf "%.3f\n", $3 / 2; exit }' "$1" ;;
        p50) awk '$2 + 0 >= 0.5 && $2 + 0 <= 1 && NF == 4 { printf "%.3f\n", $1 / 2; exit }' "$1" ;;
    esac
}

# Aeron throughput reports: median MB/s over the one-second reports, less the first (start) and the last (cut
# short by the interrupt).
aeron_mbs() {
    awk '/^Duration/ { gsub(/ms|,/, "", $0); if ($7 > 0) v[++n] = $7 / ($2 / 1000) / 1e6 }
        END { for (i = 2; i < n; i++) print v[i] }' "$1" | median
}

median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2];
        else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

collect() {
    local pattern="$1" extractor="$2"
    shift 2
    for file in ${pattern}; do
        [[ -f "${file}" ]] || continue
        "${extractor}" "${file}" "$@"
    done | median
}

tag_of() { echo "$1" | tr -d ' ' ; }

# Runs one measured program into a file; a failure is logged and leaves the file without a figure (n/a in the
# table) instead of ending the whole comparison.
measure() {
    local file="$1"
    shift
    if ! "$@" > "${file}"; then
        log "failed: $* (see ${file} and the log above)"
    fi
}

run_all() {
    local run="$1" first=1
    IFS=',' read -r -a pairs <<< "${BUFFERS}"
    for pair in "${pairs[@]}"; do
        local tag
        tag="$(tag_of "${pair}")"
        log "run ${run}: Stagecoach ${pair}"
        # shellcheck disable=SC2086
        measure "${results}/ours-${tag}-latency-${run}.txt" ours latency ${pair} $(size_range "${LAT_BYTES}") \
            --percentiles
        if [[ "${first}" == "1" && "${SPIN_LATENCY}" == "1" ]]; then
            # shellcheck disable=SC2086
            STAGECOACH_IDLE=spin measure "${results}/ours-${tag}-latency-spin-${run}.txt" \
                ours latency ${pair} $(size_range "${LAT_BYTES}") --percentiles
        fi
        # shellcheck disable=SC2086
        measure "${results}/ours-${tag}-bw-${run}.txt" ours bw ${pair} $(size_range "${BW_BYTES}")
        # shellcheck disable=SC2086
        measure "${results}/ours-${tag}-halo-${run}.txt" ours halo ${pair} --grids "${GRIDS}"
        first=0
    done
    if [[ "${MPI}" == "1" ]]; then
        log "run ${run}: Open MPI"
        # shellcheck disable=SC2046
        measure "${results}/mpi-latency-${run}.txt" mpi latency $(size_range "${LAT_BYTES}")
        # shellcheck disable=SC2046
        measure "${results}/mpi-bw-${run}.txt" mpi bw $(size_range "${BW_BYTES}")
        measure "${results}/mpi-halo-${run}.txt" mpi halo --grids "${GRIDS}"
    fi
    log "run ${run}: raw Aeron IPC"
    measure "${results}/aeron-pingpong-${run}.txt" aeron_ping_pong
    measure "${results}/aeron-embedded-${run}.txt" aeron_embedded_ping_pong
    measure "${results}/aeron-throughput-${run}.txt" aeron_ipc_throughput
}

ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "n/a" || b == "n/a" || b == 0) print "n/a"; else printf "%.2f\n", a / b }'
}

verdict() {
    awk -v r="$1" -v limit="$2" -v sense="$3" 'BEGIN {
        if (r == "n/a") { print "n/a"; exit }
        ok = (sense == "max") ? (r <= limit) : (r >= limit); print ok ? "met" : "missed" }'
}

row() {
    local measure="$1" ours="$2" aeron="$3" mpi="$4" peer="$5" limit="$6" sense="$7" goal="$8"
    local base r
    base="$([[ "${peer}" == "Aeron" ]] && echo "${aeron}" || echo "${mpi}")"
    r="$(ratio "${ours}" "${base}")"
    echo "| ${measure} | ${ours} | ${aeron:-} | ${mpi} | ${r} x ${peer} | ${goal} | $(verdict "${r}" "${limit}" "${sense}") |"
}

print_table() {
    IFS=',' read -r -a pairs <<< "${BUFFERS}"
    IFS=',' read -r -a grids <<< "${GRIDS}"
    local first lat_mpi lat_aeron
    first="$(tag_of "${pairs[0]}")"
    lat_mpi="$(collect "${results}/mpi-latency-*.txt" omb_value "${LAT_BYTES}")"
    lat_aeron="$(collect "${results}/aeron-pingpong-*.txt" aeron_one_way mean)"
    echo "| measure | Stagecoach ${pairs[0]} | raw Aeron IPC | Open MPI | Stagecoach / peer | goal | verdict |"
    echo "| --- | ---: | ---: | ---: | ---: | --- | --- |"
    row "${LAT_BYTES} B one-way latency, us (ours: idle ${STAGECOACH_IDLE:-backoff})" \
        "$(collect "${results}/ours-${first}-latency-[0-9]*.txt" omb_value "${LAT_BYTES}")" \
        "${lat_aeron}" "${lat_mpi}" Aeron 2 max "<= 2 x Aeron"
    if [[ "${SPIN_LATENCY}" == "1" ]]; then
        row "${LAT_BYTES} B one-way latency, us (ours: idle spin)" \
            "$(collect "${results}/ours-${first}-latency-spin-*.txt" omb_value "${LAT_BYTES}")" \
            "${lat_aeron}" "${lat_mpi}" Aeron 2 max "<= 2 x Aeron"
    fi
    row "${BW_BYTES} B bandwidth, MB/s (window 64)" \
        "$(collect "${results}/ours-${first}-bw-*.txt" omb_value "${BW_BYTES}")" \
        "$(collect "${results}/aeron-throughput-*.txt" aeron_mbs)" \
        "$(collect "${results}/mpi-bw-*.txt" omb_value "${BW_BYTES}")" MPI 0.70 min ">= 0.70 x MPI"
    for face in X Y Z; do
        for grid in "${grids[@]}"; do
            row "halo ${grid}^3 face ${face}, one-way us" \
                "$(collect "${results}/ours-${first}-halo-*.txt" halo_value "${face}" "${grid}")" "" \
                "$(collect "${results}/mpi-halo-*.txt" halo_value "${face}" "${grid}")" MPI 1 max "<= 1 x MPI"
        done
    done
    echo
    echo "Stagecoach ${pairs[0]} ${LAT_BYTES} B one-way latency, median and 99th percentile of the half round trips:" \
        "idle ${STAGECOACH_IDLE:-backoff} $(collect "${results}/ours-${first}-latency-[0-9]*.txt" omb_column "${LAT_BYTES}" 3) us" \
        "and $(collect "${results}/ours-${first}-latency-[0-9]*.txt" omb_column "${LAT_BYTES}" 4) us;" \
        "idle spin $(collect "${results}/ours-${first}-latency-spin-*.txt" omb_column "${LAT_BYTES}" 3) us" \
        "and $(collect "${results}/ours-${first}-latency-spin-*.txt" omb_column "${LAT_BYTES}" 4) us."
    echo
    echo "Raw Aeron IPC: latency = Ping/Pong (two processes, busy spin, one SHARED backing-off driver), mean of" \
        "RTT/2 ${lat_aeron} us, p50 of RTT/2 $(collect "${results}/aeron-pingpong-*.txt" aeron_one_way p50) us;" \
        "EmbeddedPingPong (${AERON_IDLE##*.}) mean of RTT/2 $(collect "${results}/aeron-embedded-*.txt" aeron_one_way mean) us," \
        "p50 $(collect "${results}/aeron-embedded-*.txt" aeron_one_way p50) us; bandwidth = EmbeddedIpcThroughput," \
        "${BW_BYTES} B messages, median of its one-second reports."
    for pair in "${pairs[@]:1}"; do
        local tag
        tag="$(tag_of "${pair}")"
        echo
        echo "Stagecoach ${pair}: ${LAT_BYTES} B latency $(collect "${results}/ours-${tag}-latency-[0-9]*.txt" omb_value "${LAT_BYTES}") us," \
            "${BW_BYTES} B bandwidth $(collect "${results}/ours-${tag}-bw-*.txt" omb_value "${BW_BYTES}") MB/s, halo one-way" \
            "$(for face in X Y Z; do for grid in "${grids[@]}"; do
                printf '%s %s^3 %s us; ' "${face}" "${grid}" "$(collect "${results}/ours-${tag}-halo-*.txt" halo_value "${face}" "${grid}")"
            done; done)"
    done
}

if [[ "${MPI}" == "1" ]]; then
    install_open_mpi
    build_peer
fi
build_java
mkdir -p "${results}"
rm -f "${results}"/*.txt
load_before="$(cut -d ' ' -f 1-3 /proc/loadavg)"
for run in $(seq 1 "${RUNS}"); do
    run_all "${run}"
done
{
    echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) CPUs, $("${JAVA}" -version 2>&1 | head -n 1), $( (mpirun --version 2>/dev/null || echo no MPI) | head -n 1)"
    echo "== commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)${STAGECOACH_HOME:+, bundle ${STAGECOACH_HOME}$(cat "${STAGECOACH_HOME}/BUILD" 2>/dev/null | sed 's/^/ /')}, nice ${NICE}, load average ${load_before} before and $(cut -d ' ' -f 1-3 /proc/loadavg) after"
    echo "== medians of ${RUNS} runs; raw outputs in ${results}/"
    echo
    print_table
} | tee "${results}/table.md"
