#!/usr/bin/env bash
# gpu-lbm.sh OUTDIR: the multiphase LBM example (examples/lbm) on the GPU machine: its GPU check, then two ranks
# sharing the one GPU under CUDA MPS, every variant (Default, Contig, Datatype, Overlap) in one run per block size,
# and a markdown summary of the MLUPS against the targets (Datatype and Overlap at least 25% faster than Default).
#
# Run it from the repository root of a machine with one NVIDIA GPU and the bundle made by bin/build-bundle in
# .bundle/stagecoach (no Java or Maven needed), as root where MPS needs it. Everything it prints also goes to
# OUTDIR/gpu-lbm.log. Every step runs under `timeout`; the whole script ends within DEADLINE_S (default 540 s) plus
# about a minute; a step that runs out of time is stopped and the summary shows n/a for it.
#
#   1. nvidia-smi and the bundle's BUILD line
#   2. the GPU check: the bundle's example-tests --include-tag gpu (CudaTwinsTest: every kernel against its Java
#      twin on the same inputs, bit for bit, and every variant on the GPU against the emulated device), JUnit reports
#      in OUTDIR/test-reports
#   3. MPS on (nvidia-cuda-mps-control -d; a trap stops it on every way out, so it is never left running)
#   4. for each size of SIZES: stagecoach run -n 2 lbm --size SIZE --steps STEPS --warm-up WARM_UP --variant all
#      (SIZE^3 cells per rank, the paper's "128^3 per GPU"), rank 0's table in OUTDIR/raw/lbm-SIZE.txt
#   5. MPS off, the summary (OUTDIR/summary.md) and the raw outputs (OUTDIR/raw.tar.gz)
#
# Exits with 0 when every step completed, 1 when one failed or ran out of time (a run that went unstable exits 3,
# and counts as failed), 2 when it cannot start (no bundle, MPS already running). Missing a target is reported in the
# summary, not in the exit status.
#
# Environment (all optional):
#   SIZES="128 64"          cells per rank along each axis, one run each
#   STEPS=1000 WARM_UP=50   timed and untimed steps per variant
#   RANKS=2                 ranks sharing the GPU
#   MPS=1                   0 runs the ranks without MPS (the GPU then time-slices between them)
#   CHECK=1                 0 leaves the GPU check out
#   DEADLINE_S=540          seconds for the GPU check and the runs together
#   STAGECOACH_BUNDLE=.bundle/stagecoach   the bundle; STAGECOACH_DEVICE=cuda the ranks' device layer
#   MPS_CONTROL=nvidia-cuda-mps-control    MPS_STOP_WAIT_S=20
set -euo pipefail

# shellcheck source=lib/gpu-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/gpu-common.sh"
check_args "$@"

enter_output "$1"
log="${out}/gpu-lbm.log"
rm -rf "${raw}" "${out}/raw.tar.gz" "${out}/summary.md" "${out}/test-reports" "${log}"
mkdir -p "${raw}"
exec > >(tee -a "${log}") 2>&1

bundle="${STAGECOACH_BUNDLE:-${repo}/.bundle/stagecoach}"
export STAGECOACH_DEVICE="${STAGECOACH_DEVICE:-cuda}"
read -r -a sizes <<< "${SIZES:-128 64}"
steps="${STEPS:-1000}"
warm_up="${WARM_UP:-50}"
ranks="${RANKS:-2}"
use_mps="${MPS:-1}"
deadline_s="${DEADLINE_S:-540}"
mps_control="${MPS_CONTROL:-nvidia-cuda-mps-control}"
mps_stop_wait_s="${MPS_STOP_WAIT_S:-20}"
started_s=$(date +%s)
status=0

log() { echo "gpu-lbm: $*"; }
left_out_of=""  # measure's words on a step left out

set_traps

# Seconds a step may take: its own limit, cut to what is left of the deadline.
limit_for() {
    local want="$1" left
    left=$(( started_s + deadline_s - $(date +%s) ))
    echo $(( want < left ? want : left ))
}

# What measure shows of a step's stdout and, where it failed, of its stderr.
step_rows() {
    grep -v -e '^│ *at ' -e '^\[ ' "$1" | grep -e '^#' -e '^[A-Z][a-z]* ' -e 'twins:' -e '✘' \
        -e 'tests successful' -e 'tests failed' | head -n 40 || true
}

step_errors() {
    grep -v -e ' INFO ' -e '^lbm: ' "$1" | tail -n 15 || true
}

# lbm SIZE: every variant on RANKS ranks of SIZE^3 cells each; the launcher's own --timeout ends the ranks a little
# before the step's limit, so that it cleans up.
lbm() {
    local size="$1" limit
    limit="$(limit_for 240)"
    measure "lbm-${size}" "${limit}" "${bundle}/bin/stagecoach" run -n "${ranks}" \
        --timeout "$(( limit > 20 ? limit - 8 : limit ))" \
        lbm --size "${size}" --steps "${steps}" --warm-up "${warm_up}" --variant all
}

# The table row of a variant in a run's output: "MLUPS ms/step comm% mass-drift max|u|" or nothing.
row() {
    local file="$1" variant="$2"
    [[ -f "${file}" ]] || return 0
    awk -v v="${variant}" '$1 == v { print $2, $3, $4, $6, $8; exit }' "${file}"
}

summary() {
    local size file variant default_mlups values mlups ms comm drift speed speedup verdict
    echo "# Multiphase LBM, ${ranks} ranks on one GPU"
    echo
    sed 's/^/    /' "${raw}/context.txt"
    echo
    echo "${ranks} ranks on one GPU$([[ "${use_mps}" == "1" ]] && echo " under MPS"), ${steps} timed steps after" \
        "${warm_up} warm-up per variant, every variant in one run per size. Target: Datatype and Overlap at least" \
        "1.25x Default's MLUPS."
    echo
    echo "| cells per rank | variant | MLUPS | ms/step | comm % | vs Default | target | mass drift | max \\|u\\| |"
    echo "|---|---|---|---|---|---|---|---|---|"
    for size in "${sizes[@]}"; do
        file="${raw}/lbm-${size}.txt"
        default_mlups="$(row "${file}" Default | cut -d' ' -f1)"
        for variant in Default Contig Datatype Overlap; do
            values="$(row "${file}" "${variant}")"
            if [[ -z "${values}" ]]; then
                echo "| ${size}^3 | ${variant} | n/a | n/a | n/a | n/a | n/a | n/a | n/a |"
                continue
            fi
            read -r mlups ms comm drift speed <<< "${values}"
            speedup="n/a"
            verdict="-"
            if [[ -n "${default_mlups}" ]]; then
                speedup="$(awk -v a="${mlups}" -v b="${default_mlups}" 'BEGIN { printf "%.2fx", a / b }')"
                if [[ "${variant}" == Datatype || "${variant}" == Overlap ]]; then
                    verdict="$(awk -v a="${mlups}" -v b="${default_mlups}" \
                        'BEGIN { print (a >= 1.25 * b ? "met" : "missed") }')"
                fi
            fi
            echo "| ${size}^3 | ${variant} | ${mlups} | ${ms} | ${comm} | ${speedup} | ${verdict} | ${drift} | ${speed} |"
        done
    done
    echo
    local counts
    counts="$(grep -h -e 'tests successful' -e 'tests failed' "${raw}/gpu-check.txt" 2>/dev/null | tr -s ' []' ' ' \
        | paste -sd, - || true)"
    echo "GPU check: ${counts:-not run}"
    grep -h 'twins:' "${raw}/gpu-check.txt" 2>/dev/null | sed 's/^/    /' || true
    echo
    echo "Steps (name, exit status, seconds, limit):"
    sed 's/^/    /' "${raw}/steps.tsv"
}

log "started at $(date -u +%H:%M:%SZ) in ${repo}; output in ${out}"
[[ -x "${bundle}/bin/stagecoach" && -x "${bundle}/bin/example-tests" ]] ||
    { log "no bundle with the example at ${bundle}: run bin/build-bundle and carry .bundle/"; exit 2; }
if [[ "${use_mps}" == "1" ]]; then
    command -v "${mps_control}" >/dev/null 2>&1 || { log "${mps_control} is missing (MPS=0 runs without it)"; exit 2; }
    if [[ -n "$(mps_pids)" ]]; then
        log "MPS is already running (pids $(mps_pid_list)), not started by this script. Stop it first" \
            "(echo quit | ${mps_control})."
        exit 2
    fi
fi
{
    echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n), $(nproc) CPUs"
    echo "GPU: $(timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 \
        | head -n 2 | tr '\n' ' ')"
    echo "bundle: $(tr '\n' ' ' < "${bundle}/BUILD" 2>/dev/null || echo no BUILD file)"
    echo "checkout: git HEAD $(git rev-parse --short HEAD 2>/dev/null || echo unknown) (a copied checkout may lag; the bundle line names the code that ran)"
    echo "settings: sizes ${sizes[*]}, ${steps} steps after ${warm_up}, ${ranks} ranks, MPS=${use_mps}," \
        "STAGECOACH_DEVICE=${STAGECOACH_DEVICE}"
} | tee "${raw}/context.txt"
timeout 20 nvidia-smi > "${raw}/nvidia-smi.txt" 2>&1 || true

if [[ "${CHECK:-1}" == "1" ]]; then
    measure gpu-check "$(limit_for 150)" "${bundle}/bin/example-tests" "${out}/test-reports" --include-tag gpu
fi
if [[ "${use_mps}" == "1" ]]; then
    start_mps "the runs"
fi
for size in "${sizes[@]}"; do
    lbm "${size}"
done
stop_mps

echo
log "summary ($(elapsed) s)"
summary > "${out}/summary.md"
cat "${out}/summary.md"
timeout 60 tar -czf "${out}/raw.tar.gz" -C "${out}" raw && rm -rf "${raw}"
log "done in $(elapsed) s, $([[ "${status}" -eq 0 ]] && echo "every step complete" || echo "some steps fell short (exit 1)")"
exit "${status}"
