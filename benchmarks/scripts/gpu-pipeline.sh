#!/usr/bin/env bash
# gpu-pipeline.sh OUTDIR: the stage pipeline's device-to-device benchmarks on the GPU machine, beside two peers, under
# CUDA MPS and without it, and one markdown table of the results against the pipeline's targets.
#
# Run it as root from the repository root of a machine with one NVIDIA GPU, python3 with CuPy and mpi4py, Open MPI and
# the bundle made by bin/build-bundle in .bundle/stagecoach (no Java needed), like bin/gpu-suite. Two ranks share the
# GPU. Everything it prints also goes to OUTDIR/gpu-pipeline.log. Every step runs under `timeout`, within a deadline
# shared by the two modes (DEADLINE_S, 450 s; stopping MPS, the summary and the archive add well under a minute), so
# the whole script ends within about 8 minutes; a step that runs out of time is stopped, its table keeps the rows it
# printed, and the summary shows n/a where a figure is missing.
#
# For MPS on (nvidia-cuda-mps-control -d before, `echo quit | nvidia-cuda-mps-control` after, waited for at most
# MPS_STOP_WAIT_S; a trap stops it on every way out, so MPS is never left running) and then off, interleaved by measure:
#   latency 1 B-512 KiB  ours: stagecoach run -n 2 latency D D; Default: cupy_default_p2p.py latency; IPC copy:
#                        cupy_ipc_p2p.py latency; OMB's iterations with MPS, SMALL_ITERATIONS_NO_MPS (+ skip) without
#   latency 1-64 MiB     the same three, LARGE_ITERATIONS round trips after LARGE_SKIP (the sweep to 64 MiB with OMB's
#                        1000 would not fit in the time)
#   stream wire          ours with the stage pipeline forced (STAGECOACH_DEVICE_PATH=staged) and
#                        STAGECOACH_PIPELINE_WIRE=${STAGED_WIRE:-stream} (stream: the path two nodes take): latency
#                        256 KiB-64 MiB and bw 256 KiB-64 MiB, counted as above
#   H D, D H             with MPS only: ours, 4 MiB latency from host to device memory and back
#   bw 256 KiB-64 MiB    ours (bw D D), Default, IPC copy: BW_ITERATIONS windows of 64 after BW_SKIP
#   halo                 ours (halo D D), Default: faces X, Y, Z of 128^3 and 256^3 grids, OMB-style counts
#   4 MiB latency        with MPS only: ours without --trace, then with --trace OUTDIR/dd-4m.json, TRACE_ROUNDS times
#                        (the trace's cost against its 3% target)
# then benchmarks/scripts/gpu-pipeline-summary.py writes OUTDIR/summary.md.
#
# Exits with 0 when every step completed, 1 when one failed, ran out of time or was left out (the summary lists them),
# 2 when it cannot start (no bundle, no mpirun, MPS already running).
#
# Output, five files at most: OUTDIR/gpu-pipeline.log, OUTDIR/summary.md, OUTDIR/raw.tar.gz (every program's stdout
# and stderr, the steps' exit statuses and times, the machine's context), OUTDIR/dd-4m.json (the stage trace of the
# last traced round) and OUTDIR/dd-4m.json.gz where that is over 8 MB.
#
# Environment (all optional):
#   DEADLINE_S=450               seconds for all the measuring steps, split evenly between the modes still to run
#   MODES="mps nomps"            which modes to run, in order
#   WARM_UP=10000                --warm-up of every program, ours and the peers' (untimed 8 B round trips)
#   SMALL_ITERATIONS_NO_MPS=1000 SMALL_SKIP_NO_MPS=100    latency 1 B-512 KiB without MPS (a round trip there waits
#                                for the other process's time slice: OMB's 10000 would take minutes)
#   LARGE_ITERATIONS=100 LARGE_SKIP=10                    latency 1 MiB and up
#   BW_ITERATIONS=5 BW_SKIP=1    bandwidth windows
#   HALO_ITERATIONS=             halo round trips per face (empty: OMB-style, 1000 up to 64 KiB faces, 200 above)
#   MAX_SIZE=67108864            largest message; GRIDS=128,256 halo grid edges
#   TRACE_ROUNDS=2               pairs of 4 MiB latency runs without and with --trace
#   SMOKE=1                      a quick pass that every step runs (a few iterations each, about two minutes)
#   STAGECOACH_BUNDLE=.bundle/stagecoach   the bundle; STAGECOACH=its bin/stagecoach, the launcher
#   STAGECOACH_DEVICE=cuda       our ranks' device layer
#   PYTHON=python3               the peers' interpreter; PEER_BACKEND=cupy (numpy: the peers' emulation, no GPU)
#   MPIRUN_ARGS=                 extra mpirun options for the peers (--allow-run-as-root is added as root)
#   MPS_CONTROL=nvidia-cuda-mps-control    MPS_STOP_WAIT_S=20
#   OURS_PATH=auto               STAGECOACH_DEVICE_PATH of the "ours" steps: auto (one node: the one-sided path over
#                                CUDA IPC) or staged (the stage pipeline); the summary's targets follow it
#   STAGED_WIRE=stream           the wire of the staged ("stream") steps: stream or arena; STREAM=0 leaves them out
set -euo pipefail

# shellcheck source=lib/gpu-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/gpu-common.sh"
check_args "$@"

enter_output "$1"
log="${out}/gpu-pipeline.log"
rm -rf "${raw}" "${out}/raw.tar.gz" "${out}/summary.md" "${out}/dd-4m.json" "${out}/dd-4m.json.gz" "${log}"
mkdir -p "${raw}"
exec > >(tee -a "${log}") 2>&1

bundle="${STAGECOACH_BUNDLE:-${repo}/.bundle/stagecoach}"
stagecoach="${STAGECOACH:-${bundle}/bin/stagecoach}"
export STAGECOACH_DEVICE="${STAGECOACH_DEVICE:-cuda}"
export PYTHONUNBUFFERED=1
export STAGECOACH_DEVICE_PATH="${OURS_PATH:-auto}"
staged_wire="${STAGED_WIRE:-stream}"
python="${PYTHON:-python3}"
peer_backend="${PEER_BACKEND:-cupy}"
mps_control="${MPS_CONTROL:-nvidia-cuda-mps-control}"
mps_stop_wait_s="${MPS_STOP_WAIT_S:-20}"
read -r -a modes <<< "${MODES:-mps nomps}"
read -r -a mpirun_args <<< "${MPIRUN_ARGS:-}"
if [[ "$(id -u)" -eq 0 ]]; then
    mpirun_args+=(--allow-run-as-root)
fi
if [[ "${SMOKE:-0}" == "1" ]]; then
    : "${WARM_UP:=200}" "${SMALL_ITERATIONS_MPS:=200}" "${SMALL_SKIP_MPS:=10}" "${SMALL_ITERATIONS_NO_MPS:=50}"
    : "${SMALL_SKIP_NO_MPS:=5}" "${LARGE_ITERATIONS:=5}" "${LARGE_SKIP:=1}" "${BW_ITERATIONS:=1}" "${BW_SKIP:=1}"
    : "${HALO_ITERATIONS:=20}" "${TRACE_ROUNDS:=1}" "${DEADLINE_S:=240}"
fi
deadline_s="${DEADLINE_S:-450}"
warm_up="${WARM_UP:-10000}"
large_iterations="${LARGE_ITERATIONS:-100}"
large_skip="${LARGE_SKIP:-10}"
bw_iterations="${BW_ITERATIONS:-5}"
bw_skip="${BW_SKIP:-1}"
max_size="${MAX_SIZE:-67108864}"
grids="${GRIDS:-128,256}"
trace_rounds="${TRACE_ROUNDS:-2}"
small_max=$(( max_size < 524288 ? max_size : 524288 ))
bw_min=$(( max_size < 262144 ? max_size : 262144 ))
started_s=$(date +%s)
mode_deadline_s=0
status=0

log() { echo "gpu-pipeline: $*"; }
left_out_of=" of this mode's time"  # measure's words on a step left out

set_traps

# Seconds a step may take: its own limit, cut to what is left of its mode's share of the deadline.
limit_for() {
    local want="$1" left
    left=$(( mode_deadline_s - $(date +%s) ))
    echo $(( want < left ? want : left ))
}

# What measure shows of a step's stdout and, where it failed, of its stderr.
step_rows() {
    grep -v -e '^# Warm-up' -e '^# JIT' "$1" | head -n 60 || true
}

step_errors() {
    grep -v -e ' INFO ' -e '^latency: ' -e '^bw: ' -e '^halo: ' "$1" | tail -n 15 || true
}

# ours NAME LIMIT [run options] PROGRAM ARGS...: our ranks through the bundle's launcher; its own --timeout ends the
# ranks a little before the step's limit, so that the launcher cleans up.
ours() {
    local name="$1" limit
    limit="$(limit_for "$2")"
    shift 2
    measure "${name}" "${limit}" "${stagecoach}" run -n 2 --timeout "$(( limit > 20 ? limit - 8 : limit ))" "$@"
}

# stream NAME LIMIT PROGRAM ARGS...: our ranks with the stream wire forced (stagecoach.pipeline.wire=stream), the path
# two nodes take: each packed chunk crosses Aeron as DATA into a pinned slot of the receiver.
stream() {
    local name="$1" limit
    limit="$(limit_for "$2")"
    shift 2
    measure "${name}" "${limit}" env STAGECOACH_DEVICE_PATH=staged STAGECOACH_PIPELINE_WIRE="${staged_wire}" \
        "${stagecoach}" run -n 2 \
        --timeout "$(( limit > 20 ? limit - 8 : limit ))" "$@"
}

# peer NAME LIMIT SCRIPT ARGS...: a peer on two Open MPI ranks.
peer() {
    local name="$1" limit script="$3"
    limit="$(limit_for "$2")"
    shift 3
    measure "${name}" "${limit}" mpirun "${mpirun_args[@]}" -np 2 "${python}" "benchmarks/peers/${script}" "$@" \
        --backend "${peer_backend}" --warm-up "${warm_up}"
}

run_mode() {
    local mode="$1" small=() halo=()
    if [[ "${mode}" == "nomps" ]]; then
        small=(--iterations "${SMALL_ITERATIONS_NO_MPS:-1000}" --skip "${SMALL_SKIP_NO_MPS:-100}")
    elif [[ -n "${SMALL_ITERATIONS_MPS:-}" ]]; then
        small=(--iterations "${SMALL_ITERATIONS_MPS}" --skip "${SMALL_SKIP_MPS:-100}")
    fi
    if [[ -n "${HALO_ITERATIONS:-}" ]]; then
        halo=(--iterations "${HALO_ITERATIONS}" --skip 10)
    fi
    local sized_small=(--min-size 1 --max-size "${small_max}" ${small[@]+"${small[@]}"})
    local sized_large=(--min-size 1048576 --max-size "${max_size}" --iterations "${large_iterations}" --skip "${large_skip}")
    local sized_bw=(--min-size "${bw_min}" --max-size "${max_size}" --iterations "${bw_iterations}" --skip "${bw_skip}")
    local warm=(--warm-up "${warm_up}")

    ours "${mode}-ours-latency-small" 100 latency D D "${sized_small[@]}" "${warm[@]}"
    if [[ "${mode}" == "mps" ]]; then
        log "MPS servers: $(echo get_server_list | timeout 10 "${mps_control}" 2>&1 | tr '\n' ' ')"
    fi
    peer "${mode}-default-latency-small" 100 cupy_default_p2p.py latency "${sized_small[@]}"
    peer "${mode}-ipc-latency-small" 100 cupy_ipc_p2p.py latency "${sized_small[@]}"
    if [[ "${max_size}" -ge 1048576 ]]; then
        ours "${mode}-ours-latency-large" 100 latency D D "${sized_large[@]}" "${warm[@]}"
        peer "${mode}-default-latency-large" 100 cupy_default_p2p.py latency "${sized_large[@]}"
        peer "${mode}-ipc-latency-large" 60 cupy_ipc_p2p.py latency "${sized_large[@]}"
    fi
    if [[ "${max_size}" -ge 1048576 && "${STREAM:-1}" != "0" ]]; then
        stream "${mode}-stream-latency-large" 100 latency D D --min-size "${bw_min}" --max-size "${max_size}" \
            --iterations "${large_iterations}" --skip "${large_skip}" "${warm[@]}"
    fi
    ours "${mode}-ours-bw" 100 bw D D "${sized_bw[@]}" "${warm[@]}"
    peer "${mode}-default-bw" 100 cupy_default_p2p.py bw "${sized_bw[@]}"
    peer "${mode}-ipc-bw" 60 cupy_ipc_p2p.py bw "${sized_bw[@]}"
    if [[ "${STREAM:-1}" != "0" ]]; then
        stream "${mode}-stream-bw" 100 bw D D "${sized_bw[@]}" "${warm[@]}"
    fi
    ours "${mode}-ours-halo" 100 halo D D --grids "${grids}" ${halo[@]+"${halo[@]}"} "${warm[@]}"
    peer "${mode}-default-halo" 100 cupy_default_p2p.py halo --grids "${grids}" ${halo[@]+"${halo[@]}"}
    if [[ "${mode}" == "mps" && "${max_size}" -ge 4194304 ]]; then
        ours "mps-ours-hd" 40 latency H D --min-size 4194304 --max-size 4194304 "${warm[@]}"
        ours "mps-ours-dh" 40 latency D H --min-size 4194304 --max-size 4194304 "${warm[@]}"
        local round
        for round in $(seq 1 "${trace_rounds}"); do
            local four=(latency D D --min-size 4194304 --max-size 4194304 --percentiles "${warm[@]}")
            ours "mps-ours-notrace-${round}" 45 "${four[@]}"
            ours "mps-ours-trace-${round}" 60 --trace "${out}/dd-4m.json" "${four[@]}"
        done
    fi
}

context() {
    echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n), $(nproc) CPUs"
    echo "GPU: $(timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -n 2 | tr '\n' ' ')"
    if [[ -f "${bundle}/BUILD" ]]; then
        echo "bundle: $(tr '\n' ' ' < "${bundle}/BUILD")"
    else
        echo "bundle: no BUILD file in ${bundle}"
    fi
    echo "checkout: git HEAD $(git rev-parse --short HEAD 2>/dev/null || echo unknown) (a copied checkout may lag; the bundle line names the code that ran)"
    echo "peers: $(timeout 60 "${python}" -c 'import sys, numpy, mpi4py
try:
    import cupy; c = "CuPy " + cupy.__version__
except Exception as e:
    c = "no CuPy (" + type(e).__name__ + ")"
print("Python", sys.version.split()[0] + ",", c + ", numpy", numpy.__version__ + ", mpi4py", mpi4py.__version__)' 2>&1 | tail -n 1), $(mpirun --version 2>&1 | head -n 1), backend ${peer_backend}"
    echo "settings: modes ${modes[*]}, warm-up ${warm_up}, latency to ${small_max} B with $([[ -n "${SMALL_ITERATIONS_MPS:-}" ]] && echo "${SMALL_ITERATIONS_MPS}" || echo "OMB's") iterations with MPS and ${SMALL_ITERATIONS_NO_MPS:-1000} without, 1 MiB to ${max_size} B ${large_iterations} after ${large_skip}; bw ${bw_min}-${max_size} B ${bw_iterations} windows after ${bw_skip}; halo ${grids} $([[ -n "${HALO_ITERATIONS:-}" ]] && echo "${HALO_ITERATIONS}" || echo "OMB-style") round trips; ${trace_rounds} trace rounds; STAGECOACH_DEVICE=${STAGECOACH_DEVICE}"
}

log "started at $(date -u +%H:%M:%SZ) in ${repo}; output in ${out}"
[[ -x "${stagecoach}" ]] || { log "no launcher at ${stagecoach}: run bin/build-bundle and carry .bundle/"; exit 2; }
command -v mpirun >/dev/null 2>&1 || { log "mpirun is missing"; exit 2; }
if [[ " ${modes[*]} " == *" mps "* ]] && ! command -v "${mps_control}" >/dev/null 2>&1; then
    log "${mps_control} is missing: MPS cannot be started (MODES=nomps leaves it out)"
    exit 2
fi
if [[ -n "$(mps_pids)" ]]; then
    log "MPS is already running (pids $(mps_pid_list)), not started by this script: the runs without it" \
        "would be with it. Stop it first (echo quit | ${mps_control})."
    exit 2
fi
context | tee "${raw}/context.txt"
timeout 20 nvidia-smi > "${raw}/nvidia-smi.txt" 2>&1 || true

for index in "${!modes[@]}"; do
    mode="${modes[${index}]}"
    left=$(( started_s + deadline_s - $(date +%s) ))
    mode_deadline_s=$(( $(date +%s) + left / (${#modes[@]} - index) ))
    echo
    log "mode ${mode}: $(( mode_deadline_s - $(date +%s) )) s ($(elapsed) s so far)"
    case "${mode}" in
        mps) start_mps "the MPS runs"; run_mode mps; stop_mps ;;
        nomps) run_mode nomps ;;
        *) log "unknown mode ${mode} (mps or nomps)"; exit 2 ;;
    esac
done

echo
log "summary ($(elapsed) s)"
if [[ -f "${out}/dd-4m.json" && "$(stat -c %s "${out}/dd-4m.json")" -gt 8000000 ]]; then
    timeout 60 gzip -c "${out}/dd-4m.json" > "${out}/dd-4m.json.gz" || log "gzip of the trace failed"
fi
trace_args=()
[[ -f "${out}/dd-4m.json" ]] && trace_args=(--trace "${out}/dd-4m.json")
targets=staged
[[ "${STAGECOACH_DEVICE_PATH}" == "auto" ]] && targets=one-sided
timeout 60 "${python}" benchmarks/scripts/gpu-pipeline-summary.py "${raw}" --targets "${targets}" \
    ${trace_args[@]+"${trace_args[@]}"} \
    > "${out}/summary.md" || { log "the summary failed (status $?)"; status=1; }
cat "${out}/summary.md"
timeout 60 tar -czf "${out}/raw.tar.gz" -C "${out}" raw && rm -rf "${raw}"
log "done in $(elapsed) s, $([[ "${status}" -eq 0 ]] && echo "every step complete" || echo "some steps fell short (exit 1)"): $(find "${out}" -mindepth 1 -maxdepth 1 -printf '%f ')"
exit "${status}"
