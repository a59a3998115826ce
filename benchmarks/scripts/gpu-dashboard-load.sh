#!/usr/bin/env bash
# gpu-dashboard-load.sh OUTDIR: what the live dashboard costs a busy job on the GPU machine: dashboard-load.sh (RANKS
# ranks of HaloRing on a ring, device faces through the stage pipeline, by turns closed, traced, served and open)
# with every rank on the one GPU under CUDA MPS, for each face size of FACES, then once more without MPS. The open
# runs are watched by curl reading the page's event stream (no browser on that machine: a browser would be on the
# operator's). Everything it prints also goes to OUTDIR/gpu-dashboard-load.log.
#
# Run it from the repository root with the bundle made by bin/build-bundle in .bundle/stagecoach and Pekko HTTP in
# its lib/ (bin/build-bundle leaves out pekko-http, pekko-http-core, pekko-parsing and pekko-stream for size: copy
# them in from node-agent/target/lib). Exits 2 when it cannot start, 1 when a step failed or ran out of time.
#
# Environment (all optional):
#   FACES="1048576 65536"  face sizes, one dashboard-load.sh each under MPS
#   RUNS=5 RANKS=8 ITERATIONS=2000   runs of each mode, ranks, timed iterations
#   NO_MPS_RUNS=2 NO_MPS_ITERATIONS=200   the same at the first face size without MPS (0 runs leaves it out)
#   STEP_LIMIT_S=240       time limit of each dashboard-load.sh
#   MPS_CONTROL=nvidia-cuda-mps-control    MPS_STOP_WAIT_S=20
set -euo pipefail

# shellcheck source=lib/gpu-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/gpu-common.sh"
check_args "$@"

enter_output "$1"
mkdir -p "${raw}"
exec > >(tee -a "${out}/gpu-dashboard-load.log") 2>&1

bundle="${repo}/.bundle/stagecoach"
read -r -a faces <<< "${FACES:-1048576 65536}"
runs="${RUNS:-5}" ranks="${RANKS:-8}" iterations="${ITERATIONS:-2000}"
no_mps_runs="${NO_MPS_RUNS:-2}" no_mps_iterations="${NO_MPS_ITERATIONS:-200}"
limit="${STEP_LIMIT_S:-240}"
mps_control="${MPS_CONTROL:-nvidia-cuda-mps-control}"
mps_stop_wait_s="${MPS_STOP_WAIT_S:-20}"
started_s=$(date +%s)
status=0
left_out_of=""
log() { echo "[$(elapsed) s] $*"; }
step_rows() { grep -E '^(run |summary|closed|traced|served|open)' "$1" || true; }
step_errors() { tail -n 20 "$1"; }

[[ -x "${bundle}/bin/stagecoach" ]] || { echo "no bundle at ${bundle}: run bin/build-bundle and carry .bundle/"; exit 2; }
compgen -G "${bundle}/lib/pekko-http_*.jar" >/dev/null ||
    { echo "no Pekko HTTP in ${bundle}/lib: copy pekko-http*, pekko-parsing* and pekko-stream* into it"; exit 2; }
export STAGECOACH="${bundle}/bin/stagecoach" VIEWER=curl STAGECOACH_DEVICE="${STAGECOACH_DEVICE:-cuda}"
benchmarks_jars=("${bundle}"/lib/stagecoach-benchmarks-*.jar)
[[ ${#benchmarks_jars[@]} -eq 1 && -f "${benchmarks_jars[0]}" ]] ||
    { echo "not one benchmarks jar in ${bundle}/lib: ${benchmarks_jars[*]}"; exit 2; }
export STAGECOACH_RUN_OPTS="-cp ${benchmarks_jars[0]}"
log "gpu-dashboard-load on $(hostname), bundle: $(cat "${bundle}/BUILD" 2>/dev/null); $(nproc) cores"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true

set_traps
start_mps "the runs"
for face in "${faces[@]}"; do
    measure "mps-${face}" "${limit}" benchmarks/scripts/dashboard-load.sh "${runs}" "${ranks}" "${face}" "${iterations}"
done
stop_mps
if [[ "${no_mps_runs}" -gt 0 ]]; then
    measure "no-mps-${faces[0]}" "${limit}" benchmarks/scripts/dashboard-load.sh "${no_mps_runs}" "${ranks}" \
        "${faces[0]}" "${no_mps_iterations}"
fi
log "done, status ${status}"
exit "${status}"
