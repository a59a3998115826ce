#!/usr/bin/env bash
# Jobs across two "nodes" made of network namespaces joined by one veth pair (addresses of a random 10.x.y.0/24 that
# exist only inside them), side by side with raw Aeron UDP between the same namespaces, in one run:
#   - 8 B one-way latency H H: stagecoach run -n 2 -H node-a:1,node-b:1 latency H H (two agents, one per namespace,
#     TLS with a cluster key made here) against the Aeron samples Ping/Pong (a standalone media driver per
#     namespace, shaped like the agent's: one shared agent thread), half the mean round trip;
#   - 4 MiB bandwidth H H: stagecoach bw H H against StreamingPublisher/RateSubscriber at the same message size
#     (term length 32 MiB so that 4 MiB fits one message), the median of the one-second reports;
#   - the same bandwidths with 5% of the packets dropped each way on node b's side (nftables numgen random);
#   - job start: stagecoach run -n 4 -H node-a:2,node-b:2 of a program that prints when main starts, from the
#     command to the last rank in main, against the same four JVMs (java, options, class path) started by hand at
#     once, two per namespace;
#   - the live dashboard's cost to a job across nodes (section dashboard): HaloRing, 8 ranks on a ring exchanging
#     1 MiB device faces through the stage pipeline, node-a:4,node-b:4, submitted by turns to agent a (no dashboard
#     anywhere) and to a third agent, node-c in namespace a, which runs no ranks and serves the dashboard
#     (dashboard.port): both nodes' records go to it through the cluster; iterations per second; then the resident
#     memory (VmRSS, VmHWM) of agent c and of agent a, and the last update's counters of c's page.
# Goals: latency <= 1.5x raw Aeron UDP; bandwidth >= 70% of raw Aeron UDP; start overhead <= 300 ms; the dashboard
# costs the job at most 3%.
# Needs root (ip netns); installs nftables where nft is missing. Removes the namespaces, processes and files it made,
# also when it fails.
#
# Usage: benchmarks/scripts/netns-p2p.sh [OUTDIR]      (default benchmarks/target/netns-p2p)
# Environment: STAGECOACH=bin/stagecoach (the launcher: a source tree's or an agent bundle's), JAVA (for the Aeron
#   samples and keytool; default the launcher's), RUNS=3 (runs of each measurement; medians reported),
#   STAGECOACH_RUN_OPTS (extra options of stagecoach run, e.g. "-cp DIR/benchmarks.jar" for an agent bundle, which
#   has no benchmark programs), LOSS=5 (percent), START_RUNS=5, AERON_MESSAGES=100000 (round trips Ping times after 3 x 10000 of warm-up),
#   BW_SECONDS=12 (how long the Aeron throughput samples run), LOSS_ITERATIONS=4 (bw iterations of 64 messages at
#   loss), SECTIONS="latency bw loss start" (which measurements; "dashboard" too for the dashboard's cost), MVN_ARGS="-o",
#   HALO_ITERATIONS=300 (the dashboard section's timed iterations, after 20).
set -euo pipefail
shopt -s nullglob

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "${repo_root}"
out="${1:-benchmarks/target/netns-p2p}"
STAGECOACH="${STAGECOACH:-bin/stagecoach}"
RUNS="${RUNS:-3}"
LOSS="${LOSS:-5}"
START_RUNS="${START_RUNS:-5}"
AERON_MESSAGES="${AERON_MESSAGES:-100000}"
BW_SECONDS="${BW_SECONDS:-12}"
LOSS_ITERATIONS="${LOSS_ITERATIONS:-4}"
read -r -a run_opts <<< "${STAGECOACH_RUN_OPTS:-}"
SECTIONS=" ${SECTIONS:-latency bw loss start} "
wants() { [[ "${SECTIONS}" == *" $1 "* ]]; }
[[ "$(id -u)" -eq 0 ]] || { echo "netns-p2p: needs root for network namespaces" >&2; exit 1; }
umask 077
mkdir -p "${out}"
work="$(mktemp -d /tmp/stagecoach-netns-XXXXXXXX)"
id="$(printf '%04x' $((RANDOM % 65536)))"
ns_a="scbench-${id}-a"; ns_b="scbench-${id}-b"
subnet="10.$((RANDOM % 150 + 100)).$((RANDOM % 250 + 1))"
ip_a="${subnet}.1"; ip_b="${subnet}.2"
agents=()

cleanup() {
    set +e
    for ns in "${ns_a}" "${ns_b}"; do
        for pid in $(ip netns pids "${ns}" 2>/dev/null); do kill -9 "${pid}" 2>/dev/null; done
    done
    sleep 0.5
    ip netns del "${ns_a}" 2>/dev/null; ip netns del "${ns_b}" 2>/dev/null
    rm -rf --one-file-system "${work}"
}
trap cleanup EXIT

if [[ "${STAGECOACH}" == bin/stagecoach ]]; then
    (cd "${repo_root}" && STAGECOACH_MVN_ARGS="${MVN_ARGS:-}" bin/stagecoach --version >/dev/null)
fi
java_home="$(dirname "$(dirname "$(readlink -f "$(command -v "${JAVA:-java}")")")")"
JAVA="${JAVA:-${java_home}/bin/java}"
keytool="$(dirname "${JAVA}")/keytool"
aeron_jars=(node-agent/target/lib/aeron-all-*.jar "$(dirname "$(dirname "${STAGECOACH}")")"/lib/aeron-all-*.jar)
[[ ${#aeron_jars[@]} -gt 0 ]] || { echo "netns-p2p: no aeron-all jar for the Aeron samples" >&2; exit 1; }
aeron_jar="${aeron_jars[0]}"
if [[ "${SECTIONS}" == *" loss "* ]] && ! command -v nft >/dev/null &&
    ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q nftables >/dev/null 2>&1; then
    echo "netns-p2p: no nft here and nftables cannot be installed: the loss section is left out" >&2
    SECTIONS="${SECTIONS/ loss / }"
fi
jvm_opens=(--add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED
           -Dagrona.disable.bounds.checks=true)

ip netns add "${ns_a}"; ip netns add "${ns_b}"
ip link add "sc${id}a" netns "${ns_a}" type veth peer name "sc${id}b" netns "${ns_b}"
ip -n "${ns_a}" addr add "${ip_a}/24" dev "sc${id}a"; ip -n "${ns_b}" addr add "${ip_b}/24" dev "sc${id}b"
for ns in "${ns_a}" "${ns_b}"; do ip -n "${ns}" link set lo up; done
ip -n "${ns_a}" link set "sc${id}a" up; ip -n "${ns_b}" link set "sc${id}b" up

# The cluster's key, and one agent per namespace.
head -c 24 /dev/urandom | base64 > "${work}/cluster.password"
"${keytool}" -genkeypair -alias agent -keyalg EC -groupname secp256r1 -dname CN=bench -validity 2 -storetype PKCS12 \
    -keystore "${work}/cluster.p12" -storepass:file "${work}/cluster.password" \
    -keypass:file "${work}/cluster.password" >/dev/null 2>&1
for n in a b; do
    ip_var="ip_${n}"; ns_var="ns_${n}"
    cat > "${work}/${n}.conf" <<CONF
stagecoach.agent {
  node-name = node-${n}
  bind { host = "${!ip_var}", port = 25520 }
  seeds = ["${ip_a}:25520"]
  state-dir = "${work}/state-${n}"
  gpus = 0
  tls { key-store = "${work}/cluster.p12", password-file = "${work}/cluster.password" }
}
CONF
    ip netns exec "${!ns_var}" "${STAGECOACH}" agent --config "${work}/${n}.conf" > "${out}/agent-${n}.log" 2>&1 &
    agents+=($!)
done
members=2
if wants dashboard; then
    cat > "${work}/c.conf" <<CONF
stagecoach.agent {
  node-name = node-c
  bind { host = "${ip_a}", port = 25521 }
  seeds = ["${ip_a}:25520"]
  state-dir = "${work}/state-c"
  gpus = 0
  tls { key-store = "${work}/cluster.p12", password-file = "${work}/cluster.password" }
  dashboard.port = 25580
}
CONF
    ip netns exec "${ns_a}" "${STAGECOACH}" agent --config "${work}/c.conf" > "${out}/agent-c.log" 2>&1 &
    agents+=($!)
    members=3
fi
for _ in $(seq 120); do
    if "${STAGECOACH}" agent status --json --config "${work}/a.conf" 2>/dev/null | grep -o '"status":"Up"' | wc -l \
        | grep -qx "${members}"; then break; fi
    sleep 1
done
sleep 3

run_job() {
    ip netns exec "${ns_a}" "${STAGECOACH}" run --agent-config "${work}/a.conf" --oversubscribe \
        ${run_opts[@]+"${run_opts[@]}"} "$@"
}

# A job submitted to agent c, which serves the dashboard (on namespace a's loopback): its trace is merged there.
run_job_at_c() {
    ip netns exec "${ns_a}" "${STAGECOACH}" run --agent-config "${work}/c.conf" --oversubscribe \
        ${run_opts[@]+"${run_opts[@]}"} "$@"
}

# Raw Aeron UDP between the namespaces: a standalone driver in each, the samples on them.
aeron_driver() {
    ip netns exec "$1" "${JAVA}" "${jvm_opens[@]}" -cp "${aeron_jar}" -Daeron.dir="$2" -Daeron.threading.mode=SHARED \
        -Daeron.dir.delete.on.start=true -Daeron.dir.delete.on.shutdown=true io.aeron.driver.MediaDriver \
        >/dev/null 2>&1 &
    echo $!
}

aeron_ping_pong() {
    local da db pong
    da="$(aeron_driver "${ns_a}" "${work}/aeron-a")"; db="$(aeron_driver "${ns_b}" "${work}/aeron-b")"
    sleep 2
    local channels=(-Daeron.sample.ping.channel="aeron:udp?endpoint=${ip_b}:20123"
                    -Daeron.sample.pong.channel="aeron:udp?endpoint=${ip_a}:20124")
    ip netns exec "${ns_b}" "${JAVA}" "${jvm_opens[@]}" -cp "${aeron_jar}" -Daeron.dir="${work}/aeron-b" \
        "${channels[@]}" io.aeron.samples.Pong >/dev/null 2>&1 &
    pong=$!
    echo n | ip netns exec "${ns_a}" "${JAVA}" "${jvm_opens[@]}" -cp "${aeron_jar}" -Daeron.dir="${work}/aeron-a" \
        "${channels[@]}" -Daeron.sample.messageLength=32 -Daeron.sample.messages="${AERON_MESSAGES}" \
        -Daeron.sample.warmup.messages=$((AERON_MESSAGES / 10)) -Daeron.sample.warmup.iterations=3 io.aeron.samples.Ping || true
    kill "${pong}" "${da}" "${db}" 2>/dev/null || true
    wait "${pong}" "${da}" "${db}" 2>/dev/null || true
}

aeron_throughput() {
    local da db sub
    da="$(aeron_driver "${ns_a}" "${work}/aeron-a")"; db="$(aeron_driver "${ns_b}" "${work}/aeron-b")"
    sleep 2
    local channel="aeron:udp?endpoint=${ip_b}:20121|term-length=33554432"
    ip netns exec "${ns_b}" timeout -s INT $((BW_SECONDS + 2)) "${JAVA}" "${jvm_opens[@]}" -cp "${aeron_jar}" \
        -Daeron.dir="${work}/aeron-b" -Daeron.sample.channel="${channel}" io.aeron.samples.RateSubscriber &
    sub=$!
    sleep 1
    ip netns exec "${ns_a}" timeout -s INT "${BW_SECONDS}" "${JAVA}" "${jvm_opens[@]}" -cp "${aeron_jar}" \
        -Daeron.dir="${work}/aeron-a" -Daeron.sample.channel="${channel}" -Daeron.sample.messageLength=4194304 \
        -Daeron.sample.messages=100000000 io.aeron.samples.StreamingPublisher >/dev/null 2>&1 || true
    wait "${sub}" 2>/dev/null || true
    kill "${da}" "${db}" 2>/dev/null || true
    wait "${da}" "${db}" 2>/dev/null || true
}

add_loss() {
    ip netns exec "${ns_b}" nft add table inet scloss
    for hook in input output; do
        ip netns exec "${ns_b}" nft add chain inet scloss "${hook}" "{ type filter hook ${hook} priority 0 ; }"
        ip netns exec "${ns_b}" nft add rule inet scloss "${hook}" meta iifname != lo meta oifname != lo \
            numgen random mod 100 '<' "${LOSS}" counter drop
    done
}

median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2];
        else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
omb_value() { awk -v size="$2" '!/^#/ && $1 == size { print $2; exit }' "$1"; }
aeron_one_way() { awk '/^#\[Mean/ { gsub(/,/, "", $3); printf "%.3f\n", $3 / 2; exit }' "$1"; }
# RateSubscriber prints "... msgs/sec, N payload bytes/sec, ..." each second: the median MB/s of the seconds that
# moved data, less the first and last of them (cut by the start and the interrupt).
aeron_mbs() {
    awk '/payload bytes\/sec/ { for (i = 1; i < NF; i++) if ($(i + 1) == "payload" && $i + 0 > 0) v[++n] = $i / 1e6 }
        END { for (i = 2; i < n; i++) print v[i] }' "$1" | median
}

for r in $(seq "${RUNS}"); do
    if wants latency; then
        run_job -n 2 -H node-a:1,node-b:1 latency H H --max-size 8 > "${out}/latency-${r}.txt" \
            2>"${out}/latency-${r}.err"
        aeron_ping_pong > "${out}/aeron-ping-${r}.txt" 2>&1
    fi
    if wants bw; then
        run_job -n 2 -H node-a:1,node-b:1 bw H H --min-size 4194304 --max-size 4194304 > "${out}/bw-${r}.txt" \
            2>"${out}/bw-${r}.err"
        aeron_throughput > "${out}/aeron-rate-${r}.txt" 2>&1
    fi
done
if wants loss; then
    add_loss
    for r in $(seq "${RUNS}"); do
        run_job -n 2 -H node-a:1,node-b:1 bw H H --min-size 4194304 --max-size 4194304 \
            --iterations "${LOSS_ITERATIONS}" --skip 1 > "${out}/bw-loss-${r}.txt" 2>"${out}/bw-loss-${r}.err"
        aeron_throughput > "${out}/aeron-rate-loss-${r}.txt" 2>&1
    done
    ip netns exec "${ns_b}" nft list table inet scloss > "${out}/loss-counters.txt"
    ip netns exec "${ns_b}" nft delete table inet scloss
fi

halo_ring() {
    "$@" -n 8 -H node-a:4,node-b:4 -J-Dstagecoach.device.path=staged io.stagecoach.benchmarks.omb.HaloRing D \
        --face-bytes 1048576 --iterations "${HALO_ITERATIONS:-300}" --skip 20
}
halo_rate() { grep -o 'halo-ring:.*' "$1" | awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "iterations/s,") print $i }'; }
for r in $(seq "$(wants dashboard && echo "${RUNS}" || echo 0)"); do
    halo_ring run_job > "${out}/halo-closed-${r}.txt" 2>"${out}/halo-closed-${r}.err"
    halo_ring run_job_at_c > "${out}/halo-merged-${r}.txt" 2>"${out}/halo-merged-${r}.err"
    if command -v curl >/dev/null; then
        # agent c's token, from its state folder, to curl through a header file (never on a command line)
        printf 'Authorization: Bearer %s\n' "$(cat "${work}/state-c/dashboard.token")" > "${work}/auth.header"
        job_id="$(ip netns exec "${ns_a}" curl -s -H @"${work}/auth.header" http://127.0.0.1:25580/api/jobs |
            grep -o '"[^"]*"\]' | tr -d '"]')"
        ip netns exec "${ns_a}" timeout 3 curl -s -N -H @"${work}/auth.header" \
            "http://127.0.0.1:25580/api/jobs/${job_id}/events" |
            grep -m1 '^data:' | grep -o '"state":"[a-z]*"\|"counters":{[^}]*}' | tr '\n' ' ' \
            > "${out}/halo-merged-${r}.counters" || true
    fi
done
if wants dashboard; then
    for pid in $(ip netns pids "${ns_a}"); do
        for n in a c; do
            if tr '\0' ' ' < "/proc/${pid}/cmdline" | grep -q "agent --config ${work}/${n}.conf"; then
                grep -E 'VmHWM|VmRSS' "/proc/${pid}/status" | tr -s ' \t' ' ' | tr '\n' ' ' \
                    > "${out}/agent-${n}-memory.txt"
            fi
        done
    done
fi

# Job start: command to the last rank in main, against the same JVMs started by hand. A user's first run, ps or kill
# of a bundle makes the commands' class-data archive (bin/stagecoach): one ps makes it before the starts are timed.
touch "${work}/job-start-ms" "${work}/hand-start-ms"
if wants start; then
    ip netns exec "${ns_a}" "${STAGECOACH}" ps --agent-config "${work}/a.conf" >/dev/null 2>&1 || true
fi
for r in $(seq "$(wants start && echo "${START_RUNS}" || echo 0)"); do
    t0="$(date +%s%6N)"
    run_job -n 4 -H node-a:2,node-b:2 io.stagecoach.benchmarks.launch.MainEntry "${work}/rank-command" \
        > "${out}/start-${r}.txt" 2>"${out}/start-${r}.err"
    last="$(awk '/^MAIN/ { if ($3 > m) m = $3 } END { print m }' "${out}/start-${r}.txt")"
    echo $(( (last - t0) / 1000 )) >> "${work}/job-start-ms"
    mapfile -t cmd < "${work}/rank-command"
    t0="$(date +%s%6N)"
    by_hand=()
    for ns in "${ns_a}" "${ns_a}" "${ns_b}" "${ns_b}"; do
        ip netns exec "${ns}" "${cmd[@]}" >> "${out}/by-hand-${r}.txt" &
        by_hand+=($!)
    done
    wait "${by_hand[@]}"
    last="$(awk '/^MAIN/ { if ($3 > m) m = $3 } END { print m }' "${out}/by-hand-${r}.txt")"
    echo $(( (last - t0) / 1000 )) >> "${work}/hand-start-ms"
done

lat="$(for f in "${out}"/latency-*.txt; do omb_value "$f" 8; done | median)"
alat="$(for f in "${out}"/aeron-ping-*.txt; do aeron_one_way "$f"; done | median)"
bw="$(for f in "${out}"/bw-[0-9]*.txt; do omb_value "$f" 4194304; done | median)"
abw="$(for f in "${out}"/aeron-rate-[0-9]*.txt; do aeron_mbs "$f"; done | median)"
bwl="$(for f in "${out}"/bw-loss-*.txt; do omb_value "$f" 4194304; done | median)"
abwl="$(for f in "${out}"/aeron-rate-loss-*.txt; do aeron_mbs "$f"; done | median)"
job="$(median < "${work}/job-start-ms")"; hand="$(median < "${work}/hand-start-ms")"
closed="$(for f in "${out}"/halo-closed-*.txt; do halo_rate "$f"; done | median)"
merged="$(for f in "${out}"/halo-merged-*.txt; do halo_rate "$f"; done | median)"
{
    echo "| measure | Stagecoach | raw Aeron UDP / by hand | ratio | goal |"
    echo "|---|---|---|---|---|"
    echo "| 8 B one-way latency H H (us) | ${lat} | ${alat} (32 B Ping/Pong) | $(awk -v a="${lat}" -v b="${alat}" 'BEGIN { printf "%.2fx", a / b }') | <= 1.5x |"
    echo "| 4 MiB bandwidth H H (MB/s) | ${bw} | ${abw} | $(awk -v a="${bw}" -v b="${abw}" 'BEGIN { printf "%.0f%%", 100 * a / b }') | >= 70% |"
    echo "| 4 MiB bandwidth at ${LOSS}% loss (MB/s) | ${bwl} | ${abwl} | $(awk -v a="${bwl}" -v b="${abwl}" 'BEGIN { printf "%.0f%%", 100 * a / b }') | reported |"
    echo "| job start, -n 4 on two agents (ms) | ${job} | ${hand} | $(awk -v a="${job}" -v b="${hand}" 'BEGIN { printf "%+.0f ms", a - b }') | <= +300 ms |"
    echo "| 8-rank halo ring across the nodes with the dashboard merging its trace (it/s) | ${merged} | ${closed} (no dashboard) | $(awk -v a="${merged}" -v b="${closed}" 'BEGIN { if (b + 0 > 0) printf "%+.1f%%", 100 * (a - b) / b; else print "n/a" }') | >= -3% |"
    echo
    if wants dashboard; then
        echo "halo ring it/s, no dashboard: $(for f in "${out}"/halo-closed-*.txt; do halo_rate "$f"; done | tr '\n' ' ')"
        echo "halo ring it/s, merged: $(for f in "${out}"/halo-merged-*.txt; do halo_rate "$f"; done | tr '\n' ' ')"
        echo "memory after the runs, agent c (dashboard): $(cat "${out}/agent-c-memory.txt" 2>/dev/null); agent a" \
            "(ranks, no dashboard): $(cat "${out}/agent-a-memory.txt" 2>/dev/null)"
        for f in "${out}"/halo-merged-*.counters; do echo "page's last update, $(basename "$f"): $(cat "$f")"; done
    fi
    echo "RUNS=${RUNS}, START_RUNS=${START_RUNS}, ${RUNS} runs interleaved; load average $(cut -d ' ' -f 1-3 /proc/loadavg); $(nproc) cores; checkout git HEAD $(git rev-parse --short HEAD 2>/dev/null || echo unknown) (may lag); launcher: $(cat "$(dirname "$(dirname "${STAGECOACH}")")/BUILD" 2>/dev/null || echo "${STAGECOACH}")"
} | tee "${out}/table.md"
