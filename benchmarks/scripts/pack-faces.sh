#!/usr/bin/env bash
# Host pack of halo faces: the datatype engine (JMH) side by side with Open MPI's MPI_Pack of the same faces.
#
# Installs Debian's openmpi-bin and libopenmpi-dev when mpicc, mpirun or mpi.h is missing (needs root), builds the C peer
# benchmarks/peers/mpi_pack_faces.c into benchmarks/target/, builds the benchmarks, then runs ROUNDS rounds of
# (the peer on one rank, then PackFacesBenchmark through PackFacesTable with plain java), so that both see the
# same machine, and prints one markdown table of the per-figure medians over the rounds, with the goals.
#
# Environment (all optional):
#   ROUNDS=3             rounds of peer + JMH
#   GRIDS=128,256        grid edges
#   FORKS=1 WARMUPS=3 ITERATIONS=5 ITERATION_MS=500    JMH settings (a round's figure: median of iterations)
#   PEER_BATCHES=25 PEER_BATCH_MS=20                   MPI_Pack peer: median of batches of this length
#   NICE=-20             scheduling priority of the measured programs (-20 as root, 0 otherwise): on a shared
#                        machine it keeps other work from preempting the measurements
#   SKIP_BUILD=1         do not run Maven (use the jar and classpath already in benchmarks/target)
#   MVN_ARGS="-o"        extra Maven arguments, e.g. offline
# Output: benchmarks/target/pack-faces/: per round mpi_pack_faces-N.txt, jmh-N.log, rows-N.tsv; table.md
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "${repo_root}"

ROUNDS="${ROUNDS:-3}"
GRIDS="${GRIDS:-128,256}"
FORKS="${FORKS:-1}"
WARMUPS="${WARMUPS:-3}"
ITERATIONS="${ITERATIONS:-5}"
ITERATION_MS="${ITERATION_MS:-500}"
PEER_BATCHES="${PEER_BATCHES:-25}"
PEER_BATCH_MS="${PEER_BATCH_MS:-20}"
if [[ "$(id -u)" -eq 0 ]]; then NICE="${NICE:--20}"; else NICE="${NICE:-0}"; fi
target="benchmarks/target"
results="${target}/pack-faces"
peer_binary="${target}/peers/mpi_pack_faces"

install_open_mpi() {
    # mpicc and mpirun come with openmpi-bin, mpi.h with libopenmpi-dev: look for all three
    if command -v mpirun >/dev/null 2>&1 && echo '#include <mpi.h>' | mpicc -E -x c - >/dev/null 2>&1; then
        return
    fi
    if [[ "$(id -u)" -ne 0 ]]; then
        echo "pack-faces: Open MPI (mpicc, mpirun or mpi.h) is missing and installing openmpi-bin libopenmpi-dev needs root" >&2
        exit 1
    fi
    echo "pack-faces: installing openmpi-bin libopenmpi-dev" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openmpi-bin libopenmpi-dev >/dev/null
}

build_peer() {
    mkdir -p "$(dirname "${peer_binary}")"
    mpicc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror \
        -o "${peer_binary}" benchmarks/peers/mpi_pack_faces.c
}

run_peer() {
    local round="$1"
    local as_root=()
    if [[ "$(id -u)" -eq 0 ]]; then
        as_root=(--allow-run-as-root)
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
    nice -n "${NICE}" mpirun "${as_root[@]}" -n 1 "${peer_binary}" \
        --grids "${GRIDS}" --batches "${PEER_BATCHES}" --batch-ms "${PEER_BATCH_MS}" \
        > "${results}/mpi_pack_faces-${round}.txt"
}

build_java() {
    if [[ "${SKIP_BUILD:-0}" == "1" ]]; then
        return
    fi
    # shellcheck disable=SC2086
    mvn -B -q ${MVN_ARGS:-} -pl benchmarks -am install -DskipTests
}

table() {
    local jar
    jar="$(ls "${target}"/stagecoach-benchmarks-*.jar | head -n 1)"
    nice -n "${NICE}" java -cp "${jar}:$(cat "${target}/benchmarks.classpath")" \
        io.stagecoach.benchmarks.datatype.PackFacesTable "$@"
}

run_java() {
    local round="$1"
    table --peer "${results}/mpi_pack_faces-${round}.txt" --grids "${GRIDS}" --forks "${FORKS}" \
        --warmup-iterations "${WARMUPS}" --iterations "${ITERATIONS}" --iteration-ms "${ITERATION_MS}" \
        --rows "${results}/rows-${round}.tsv" > "${results}/jmh-${round}.log"
}

install_open_mpi
build_peer
build_java
rm -rf "${results}"
mkdir -p "${results}"
rows=()
for round in $(seq 1 "${ROUNDS}"); do
    echo "== round ${round}/${ROUNDS}: Open MPI MPI_Pack peer (load average $(cut -d" " -f1-3 /proc/loadavg))" >&2
    run_peer "${round}"
    echo "== round ${round}/${ROUNDS}: Stagecoach CompiledType.pack, JMH (log: ${results}/jmh-${round}.log)" >&2
    run_java "${round}"
    sed -n '/^| face/,$p' "${results}/jmh-${round}.log" >&2
    rows+=("${results}/rows-${round}.tsv")
done
echo
echo "== $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $(java -version 2>&1 | head -n 1), nice ${NICE}," \
    "load average now $(cut -d' ' -f1-3 /proc/loadavg)"
table --out "${results}/table.md" --merge "${rows[@]}"
