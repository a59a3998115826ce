#!/usr/bin/env bash
# The floor of a two-copy halo-face transfer between two cores through shared memory, in plain C
# (benchmarks/peers/face_handoff.c): the pack of a Y face into a shared buffer in chunks, handed over to a reader on
# another core that unpacks each chunk as it is published. Open MPI's shared-memory path and Stagecoach's shared arena
# both move a non-contiguous face this way, so neither can beat this figure on the machine it runs on.
#
# Builds the program with cc into benchmarks/target/peers/, then runs ROUNDS rounds of each grid for each cpu pair.
#
# Environment (all optional):
#   ROUNDS=3                 rounds per grid and cpu pair
#   GRIDS="128 256"          grid edges
#   CPU_PAIRS="0,1 0,LAST"   writer,reader cpus; LAST is the highest cpu this command may use
#   CHUNK=8192               bytes packed between two publications
#   NICE=-20                 scheduling priority (-20 as root, 0 otherwise)
# Output: standard output, one block per run.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "${repo_root}"

ROUNDS="${ROUNDS:-3}"
GRIDS="${GRIDS:-128 256}"
CHUNK="${CHUNK:-8192}"
last_cpu="$(( $(nproc) - 1 ))"
CPU_PAIRS="${CPU_PAIRS:-0,1 0,LAST}"
if [[ "$(id -u)" -eq 0 ]]; then NICE="${NICE:--20}"; else NICE="${NICE:-0}"; fi
binary="benchmarks/target/peers/face_handoff"

mkdir -p "$(dirname "${binary}")"
cc -O2 -std=c11 -Wall -Wextra -Werror -pthread -o "${binary}" benchmarks/peers/face_handoff.c

echo "# face-handoff: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
pairs=""
for pair in ${CPU_PAIRS}; do
    pair="${pair//LAST/${last_cpu}}"
    [[ " ${pairs} " == *" ${pair} "* ]] || pairs="${pairs} ${pair}"
done
for round in $(seq 1 "${ROUNDS}"); do
    for pair in ${pairs}; do
        for grid in ${GRIDS}; do
            echo "## round ${round}, grid ${grid}, cpus ${pair}"
            nice -n "${NICE}" "${binary}" --grid "${grid}" --chunk "${CHUNK}" --cpus "${pair}"
        done
    done
done
