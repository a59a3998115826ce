# shellcheck shell=bash disable=SC2034,SC2154  # variables set or read by the sourcing script
# What gpu-lbm.sh, gpu-pipeline.sh and gpu-dashboard-load.sh share: their usage and output folder, CUDA MPS started
# and always stopped, and steps run under timeout. Sourced after `set -euo pipefail`; it only defines functions and the state they keep.
#
# The script defines log MESSAGE..., started_s, mps_control, mps_stop_wait_s and status, and for measure:
# step_rows FILE and step_errors FILE (what it shows of a step's stdout and stderr) and left_out_of (words after
# "left out, N s left").

mps_running=0
mps_pids_before=""
mps_dir=""
step_pid=0

# The comment at the top of the script, from its second line to `set -euo pipefail`.
usage() {
    sed -n '2,/^set -euo pipefail$/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
}

# check_args "$@": one argument, OUTDIR; otherwise the usage and exit 2.
check_args() {
    if [[ $# -ne 1 || "$1" == -h || "$1" == --help ]]; then
        usage >&2
        exit 2
    fi
}

elapsed() { echo "$(( $(date +%s) - started_s ))"; }

# enter_output OUTDIR: goes to the repository root and makes OUTDIR (relative to it where not absolute); sets repo,
# out (OUTDIR's absolute path) and raw (out/raw, not made).
enter_output() {
    repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
    cd "${repo}"
    mkdir -p "$1"
    out="$(cd "$1" && pwd)"
    raw="${out}/raw"
}

# The processes of MPS (control daemon and server) of this user, from /proc: no procps needed.
mps_pids() {
    local file name
    for file in /proc/[0-9]*/comm; do
        name=""
        read -r name 2>/dev/null < "${file}" || continue
        if [[ "${name}" == nvidia-cuda-mps* && -O "${file%/comm}" ]]; then
            file="${file#/proc/}"
            echo "${file%/comm}"
        fi
    done
}

mps_pid_list() {
    mps_pids | paste -sd ' ' -
}

# start_mps WHAT: starts MPS; WHAT (the runs that want it) goes on without it where it does not start. Its pipe and
# log folders are private ones of random name, exported so that the daemon and every client of the runs (ranks, the
# peers under mpirun) find them: the default, /tmp/nvidia-mps, is a fixed name another user could make first.
start_mps() {
    mps_pids_before="$(mps_pid_list)"
    mps_dir="$(mktemp -d "${TMPDIR:-/tmp}/stagecoach-mps.XXXXXXXXXX")"
    mkdir -m 700 "${mps_dir}/pipe" "${mps_dir}/log"
    export CUDA_MPS_PIPE_DIRECTORY="${mps_dir}/pipe" CUDA_MPS_LOG_DIRECTORY="${mps_dir}/log"
    log "starting MPS: ${mps_control} -d (pipe and log folders in ${mps_dir})"
    mps_running=1
    if ! timeout 20 "${mps_control}" -d; then
        log "MPS did not start; ${1} go on without it (see their log)"
        return 0
    fi
    sleep 1
    log "MPS processes: $(mps_pid_list)"
}

# Asks MPS to quit, waits for its processes to end (bounded), and ends those it started that are left.
stop_mps() {
    [[ "${mps_running}" == "1" ]] || return 0
    mps_running=0
    log "stopping MPS: echo quit | ${mps_control}"
    echo quit | timeout 20 "${mps_control}" || log "quit was not taken (status $?)"
    local waited=0 left pid
    while [[ -n "$(mps_pids)" && "${waited}" -lt "$(( mps_stop_wait_s * 2 ))" ]]; do
        sleep 0.5
        waited=$(( waited + 1 ))
    done
    left="$(mps_pid_list)"
    if [[ -n "${left// /}" ]]; then
        log "MPS still running after ${mps_stop_wait_s} s (${left}): ending the processes it started"
        for pid in ${left}; do
            [[ " ${mps_pids_before} " == *" ${pid} "* ]] || kill -TERM "${pid}" 2>/dev/null || true
        done
        sleep 2
        for pid in $(mps_pids); do
            [[ " ${mps_pids_before} " == *" ${pid} "* ]] || kill -KILL "${pid}" 2>/dev/null || true
        done
    fi
    unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
    cp "${mps_dir}/log/"*.log "${raw}/" 2>/dev/null || true
    rm -rf --one-file-system "${mps_dir}"
    mps_dir=""
    log "MPS stopped ($(elapsed) s)"
}

# A signal ends the running step (timeout passes it on to the step's command) before the script exits; the step runs
# in the background so that the trap runs at once rather than when the step ends.
# shellcheck disable=SC2317  # reached through the traps of set_traps
on_signal() {
    log "$1: ending the running step and MPS"
    if [[ "${step_pid}" != "0" ]]; then
        kill -TERM "${step_pid}" 2>/dev/null || true
        wait "${step_pid}" 2>/dev/null || true
    fi
    exit "$2"
}

# MPS stopped on every way out; INT and TERM end the running step first.
set_traps() {
    trap stop_mps EXIT
    trap 'on_signal interrupted 130' INT
    trap 'on_signal terminated 143' TERM
}

# measure NAME LIMIT COMMAND...: runs the command under timeout into raw/NAME.txt and raw/NAME.err, shows its rows
# (step_rows) and, where it failed, its errors (step_errors), and records NAME, exit status, seconds and limit in
# raw/steps.tsv; a step with less than 10 s left is not run.
measure() {
    local name="$1" limit="$2" code=0 begin
    shift 2
    if [[ "${limit}" -lt 10 ]]; then
        log "${name}: left out, ${limit} s left${left_out_of}"
        printf '%s\tskipped\t0\t%s\n' "${name}" "${limit}" >> "${raw}/steps.tsv"
        status=1
        return 0
    fi
    echo
    echo "=== ${name} ($(elapsed) s, limit ${limit} s): $*"
    begin=$(date +%s)
    timeout --kill-after=10 "${limit}" "$@" > "${raw}/${name}.txt" 2> "${raw}/${name}.err" &
    step_pid=$!
    wait "${step_pid}" || code=$?
    step_pid=0
    printf '%s\t%s\t%s\t%s\n' "${name}" "${code}" "$(( $(date +%s) - begin ))" "${limit}" >> "${raw}/steps.tsv"
    step_rows "${raw}/${name}.txt"
    if [[ "${code}" -ne 0 ]]; then
        echo "--- ${name} exit ${code}$( [[ "${code}" -eq 124 || "${code}" -eq 137 ]] && echo " (stopped after ${limit} s)")"
        step_errors "${raw}/${name}.err"
        status=1
    fi
}
