"""Tests of benchmarks/scripts/gpu-pipeline.sh and gpu-pipeline-summary.py without a GPU. Not run by Maven.

The script runs whole with stand-ins: a launcher that prints OMB tables of a modelled pipeline (and a trace where
--trace asks for one), an nvidia-cuda-mps-control whose daemon is a copy of sleep named nvidia-cuda-mps-server, and
the real peers on numpy under Open MPI. Checked: the steps and their options, MPS started and always stopped (also on
SIGTERM mid-step), the output folder's few files, and the summary's figures and verdicts.

Run from the repository root (Debian: apt-get install -y openmpi-bin python3-mpi4py python3-numpy shellcheck):
  python3 -m unittest -v benchmarks/scripts/test_gpu_pipeline.py
PYTHON names the peers' interpreter as in benchmarks/peers/test_cupy_peers.py.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import time
import unittest

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(SCRIPTS))
SCRIPT = os.path.join(SCRIPTS, "gpu-pipeline.sh")
SUMMARY = os.path.join(SCRIPTS, "gpu-pipeline-summary.py")
sys.path.insert(0, os.path.join(REPO, "benchmarks", "peers"))

from test_cupy_peers import PYTHON  # noqa: E402

MIB = 1 << 20

# The launcher's stand-in: one-way latency 10 us + size / 32,000 B/us (4 MiB: 141 us), 1% more with --trace;
# bandwidth size / (10 + size / 30,000) MB/s (4 MiB: 28,000); halo faces 20, 25, 30 us (X, Y, Z) at 128^3, twice
# that at 256^3. FAKE_SLEEP_S makes it wait first.
LAUNCHER = r'''#!/usr/bin/env python3
import json, os, sys, time
args = sys.argv[1:]
with open(os.environ["FAKE_CALLS"], "a") as calls:
    calls.write(json.dumps(args) + "\n")
assert args[:3] == ["run", "-n", "2"], args
i, trace = 3, None
while args[i].startswith("--"):
    if args[i] == "--trace":
        trace = args[i + 1]
    i += 2
program, rest = args[i], args[i + 3:]
options, j = {}, 0
while j < len(rest):
    if rest[j] == "--percentiles":
        options[rest[j]] = True
        j += 1
    else:
        options[rest[j]] = rest[j + 1]
        j += 2
time.sleep(float(os.environ.get("FAKE_SLEEP_S", "0")))
slower = 1.01 if trace else 1.0
print(f"# OSU MPI-style stand-in {program}")
print("# Send Buffer on DEVICE (D) and Receive Buffer on DEVICE (D)")
if program == "halo":
    for k, face in enumerate("XYZ"):
        print(f"# Face {face}: stand-in")
        print("# Grid           Bytes   Avg Latency(us)")
        for n in [int(g) for g in options["--grids"].split(",")]:
            print(f"{n:<10d}{4 * n * n:>12d}{(20 + 5 * k) * (2 if n >= 256 else 1):18.2f}")
else:
    size = int(options["--min-size"])
    while size <= int(options["--max-size"]):
        value = size / (10 + size / 30000) if program == "bw" else (10 + size / 32000) * slower
        print(f"{size:<10d}{value:18.2f}" + (f"{value:18.2f}{value * 1.5:18.2f}" if "--percentiles" in options else ""))
        size *= 2
if trace:
    events = [{"name": stage, "cat": "stage", "ph": "X", "pid": 1, "tid": k, "ts": 10.0 * k, "dur": 12.5,
               "args": {"transfer": 1, "chunk": k, "bytes": 524288, "device": 0}}
              for k, stage in enumerate(["PACK", "WIRE", "UNPACK"] * 8)]
    with open(trace, "w") as out:
        json.dump({"displayTimeUnit": "ns", "traceEvents": events, "otherData": {"dropped": "0"}}, out)
'''

MPS_CONTROL = r'''#!/usr/bin/env bash
set -euo pipefail
here="$(dirname "$0")"
if [[ "${1:-}" == "-d" ]]; then
    "${here}/nvidia-cuda-mps-server" 600 < /dev/null > /dev/null 2>&1 &
    echo $! > "${here}/mps.pid"
    echo start >> "${here}/mps.log"
    exit 0
fi
read -r command
echo "${command}" >> "${here}/mps.log"
case "${command}" in
    quit) kill "$(cat "${here}/mps.pid")"; rm -f "${here}/mps.pid" ;;
    get_server_list) cat "${here}/mps.pid" ;;
esac
'''


def write(path, text, mode=0o755):
    with open(path, "w") as out:
        out.write(text)
    os.chmod(path, mode)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split(")")[-1].split()[0] != "Z"


class StandIns:
    """A folder with the launcher's and MPS's stand-ins, and the environment that points the script at them."""

    def __init__(self, folder):
        self.folder = folder
        self.bin = os.path.join(folder, "bin")
        os.makedirs(self.bin)
        write(os.path.join(self.bin, "stagecoach"), LAUNCHER)
        write(os.path.join(self.bin, "nvidia-cuda-mps-control"), MPS_CONTROL)
        shutil.copy(shutil.which("sleep"), os.path.join(self.bin, "nvidia-cuda-mps-server"))
        self.calls = os.path.join(folder, "calls.jsonl")
        self.out = os.path.join(folder, "out")

    def environment(self, **extra):
        environment = dict(os.environ)
        environment.update({
            "STAGECOACH": os.path.join(self.bin, "stagecoach"), "MPS_CONTROL": os.path.join(self.bin,
                                                                                            "nvidia-cuda-mps-control"),
            "FAKE_CALLS": self.calls, "PYTHON": PYTHON or "python3", "PEER_BACKEND": "numpy",
            "MPIRUN_ARGS": "--oversubscribe", "MAX_SIZE": str(4 * MIB), "GRIDS": "16,32", "WARM_UP": "20",
            "SMALL_ITERATIONS_MPS": "20", "SMALL_SKIP_MPS": "2", "SMALL_ITERATIONS_NO_MPS": "10",
            "SMALL_SKIP_NO_MPS": "1", "LARGE_ITERATIONS": "3", "LARGE_SKIP": "1", "BW_ITERATIONS": "1",
            "BW_SKIP": "1", "HALO_ITERATIONS": "10", "TRACE_ROUNDS": "2", "DEADLINE_S": "400",
            "MPS_STOP_WAIT_S": "5"})
        environment.update(extra)
        return environment

    def calls_made(self):
        if not os.path.exists(self.calls):
            return []
        with open(self.calls) as calls:
            return [json.loads(line) for line in calls]

    def server_pid(self):
        path = os.path.join(self.bin, "mps.pid")
        if not os.path.exists(path):
            return None
        with open(path) as source:
            return int(source.read())

    def mps_log(self):
        path = os.path.join(self.bin, "mps.log")
        if not os.path.exists(path):
            return []
        with open(path) as source:
            return source.read().split()


class ShellTest(unittest.TestCase):
    def test_the_script_parses_and_passes_shellcheck(self):
        subprocess.run(["bash", "-n", SCRIPT], check=True, timeout=30)
        if not shutil.which("shellcheck"):
            self.skipTest("shellcheck is not installed (apt-get install -y shellcheck)")
        result = subprocess.run(["shellcheck", SCRIPT], capture_output=True, text=True, timeout=60)
        self.assertEqual(0, result.returncode, result.stdout)

    def test_without_outdir_it_prints_its_usage(self):
        result = subprocess.run(["bash", SCRIPT], capture_output=True, text=True, timeout=30)
        self.assertEqual(2, result.returncode)
        self.assertIn("gpu-pipeline.sh OUTDIR:", result.stderr)
        self.assertIn("DEADLINE_S=450", result.stderr)
        self.assertNotIn("set -euo pipefail", result.stderr)


def omb(path, rows, header="# stand-in"):
    with open(path, "w") as out:
        out.write(header + "\n# Size       Avg Latency(us)\n")
        for size, value in rows:
            out.write(f"{size:<10d}{value:18.2f}\n")


def halo(path, values):
    with open(path, "w") as out:
        for face in "XYZ":
            out.write(f"# Face {face}: stand-in\n# Grid           Bytes   Avg Latency(us)\n")
            for n in (128, 256):
                out.write(f"{n:<10d}{4 * n * n:>12d}{values[face, n]:18.2f}\n")


def table_row(summary, measure):
    for line in summary.splitlines():
        if line.startswith(f"| {measure} |"):
            return [cell.strip() for cell in line.strip().strip("|").split("|")]
    raise AssertionError(f"no row '{measure}' in:\n{summary}")


class SummaryTest(unittest.TestCase):
    def setUp(self):
        self.raw = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.raw)

    def summarise(self, *extra):
        result = subprocess.run([sys.executable, SUMMARY, self.raw, *extra], capture_output=True, text=True,
                                timeout=60)
        self.assertEqual(0, result.returncode, result.stderr)
        return result.stdout

    def test_verdicts_against_the_targets(self):
        ours = {8: 12.0, 256 << 10: 45.0, MIB: 50.0, 2 * MIB: 80.0, 4 * MIB: 140.0, 8 * MIB: 500.0, 16 * MIB: 900.0,
                32 * MIB: 1700.0, 64 * MIB: 3300.0}
        omb(os.path.join(self.raw, "mps-ours-latency-small.txt"), [(s, v) for s, v in ours.items() if s < MIB])
        omb(os.path.join(self.raw, "mps-ours-latency-large.txt"), [(s, v) for s, v in ours.items() if s >= MIB])
        omb(os.path.join(self.raw, "mps-default-latency-small.txt"), [(8, 20.0), (256 << 10, 90.0)])
        omb(os.path.join(self.raw, "mps-ipc-latency-small.txt"), [(8, 9.0)])
        omb(os.path.join(self.raw, "mps-ours-bw.txt"), [(4 * MIB, 26000.0)])
        omb(os.path.join(self.raw, "mps-default-bw.txt"), [(4 * MIB, 9000.0)])
        halo(os.path.join(self.raw, "mps-ours-halo.txt"), {(f, n): 10.0 for f in "XYZ" for n in (128, 256)})
        halo(os.path.join(self.raw, "mps-default-halo.txt"),
             {(f, n): 30.0 if f != "Y" else 15.0 for f in "XYZ" for n in (128, 256)})
        omb(os.path.join(self.raw, "nomps-ours-latency-small.txt"), [(8, 150.0)])
        omb(os.path.join(self.raw, "nomps-default-latency-small.txt"), [(8, 140.0)])
        for round_number, (traced, plain) in enumerate([(101.0, 100.0), (103.0, 100.5), (99.0, 101.0)], 1):
            omb(os.path.join(self.raw, f"mps-ours-trace-{round_number}.txt"), [(4 * MIB, traced)])
            omb(os.path.join(self.raw, f"mps-ours-notrace-{round_number}.txt"), [(4 * MIB, plain)])
        with open(os.path.join(self.raw, "steps.tsv"), "w") as steps:
            steps.write("mps-ours-bw\t0\t12\t100\nnomps-ours-bw\t124\t100\t100\nnomps-ipc-bw\tskipped\t0\t3\n")
        with open(os.path.join(self.raw, "context.txt"), "w") as context:
            context.write("2026-12-01T00:00:00Z on gpu, 16 CPUs\n")

        summary = self.summarise()

        self.assertIn("- 2026-12-01T00:00:00Z on gpu, 16 CPUs", summary)
        self.assertIn("| measure | target | ours, MPS | Default, MPS | IPC copy, MPS | verdict, MPS | ours, no MPS | "
                      "Default, no MPS | IPC copy, no MPS | verdict, no MPS |", summary)
        self.assertEqual(["D-D one-way latency, 8 B (us)", "<= Default's", "12.00", "20.00", "9.00",
                          "met (0.60x Default)", "150.00", "140.00", "n/a", "**missed** (1.07x Default)"],
                         table_row(summary, "D-D one-way latency, 8 B (us)"))
        self.assertEqual(["45.00", "90.00", "n/a", "**missed**"],
                         table_row(summary, "D-D one-way latency, 256 KiB (us)")[2:6])
        self.assertEqual(["140.00", "n/a", "n/a", "met", "n/a", "n/a", "n/a", "n/a"],
                         table_row(summary, "D-D one-way latency, 4 MiB (us)")[2:])
        self.assertEqual("", table_row(summary, "D-D one-way latency, 16 MiB (us)")[5])
        self.assertEqual(["26,000", "9,000", "n/a", "met"],
                         table_row(summary, "D-D bandwidth, 4 MiB, window 64 (MB/s)")[2:6])
        cliff = table_row(summary, "no cliff: largest time ratio of a size doubling, 1 MiB to 64 MiB")
        self.assertEqual(["3.57x at 4 MiB to 8 MiB", "n/a", "n/a", "**missed**"], cliff[2:6])
        self.assertEqual(["10.00", "30.00", "-", "met (0.33x Default)"],
                         table_row(summary, "halo 128^3 face X, one way (us)")[2:6])
        self.assertEqual(["10.00", "15.00", "-", "**missed** (0.67x Default)"],
                         table_row(summary, "halo 256^3 face Y, one way (us)")[2:6])
        self.assertIn("4 MiB latency with --trace / without: 101.00 / 100.50 us, medians of 3 / 3 rounds "
                      "(101.00 / 100.00, 103.00 / 100.50, 99.00 / 101.00): +0.5%, target <= 3%: met", summary)
        self.assertIn("- nomps-ours-bw: stopped at its time limit (100 s, limit 100 s)", summary)
        self.assertIn("- nomps-ipc-bw: left out: no time left (0 s, limit 3 s)", summary)
        self.assertNotIn("- mps-ours-bw:", summary)

    def test_an_empty_folder_gives_a_table_of_n_a(self):
        summary = self.summarise("--trace", os.path.join(self.raw, "missing.json"))
        self.assertEqual(["n/a"] * 8, table_row(summary, "D-D one-way latency, 4 MiB (us)")[2:])
        self.assertIn("4 MiB latency with and without --trace: n/a (no rounds measured)", summary)
        self.assertIn("no stage trace at", summary)


@unittest.skipIf(PYTHON is None, "needs mpirun and a python3 with mpi4py and numpy "
                                 "(apt-get install -y openmpi-bin python3-mpi4py python3-numpy)")
class ScriptTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.folder)
        self.stand_ins = StandIns(self.folder)
        self.addCleanup(self.end_server)

    def end_server(self):
        pid = self.stand_ins.server_pid()
        if pid is not None and alive(pid):
            os.kill(pid, signal.SIGKILL)

    def run_script(self, timeout_s=560, **extra):
        return subprocess.run(["bash", SCRIPT, self.stand_ins.out], cwd=REPO, env=self.stand_ins.environment(**extra),
                              capture_output=True, text=True, timeout=timeout_s)

    def test_every_step_runs_mps_is_stopped_and_few_files_come_back(self):
        result = self.run_script(OURS_PATH="staged")

        self.assertEqual(0, result.returncode, result.stdout[-4000:] + result.stderr[-2000:])
        self.assertEqual(["start", "get_server_list", "quit"], self.stand_ins.mps_log())
        self.assertIsNone(self.stand_ins.server_pid())
        out = self.stand_ins.out
        self.assertEqual({"gpu-pipeline.log", "summary.md", "raw.tar.gz", "dd-4m.json"}, set(os.listdir(out)))
        calls = self.stand_ins.calls_made()
        starts = [next(i for i, word in enumerate(call) if word in ("latency", "bw", "halo")) for call in calls]
        programs = [" ".join(call[i:i + 7]) for call, i in zip(calls, starts)]
        self.assertEqual([
            "latency D D --min-size 1 --max-size 524288", "latency D D --min-size 1048576 --max-size 4194304",
            "latency D D --min-size 262144 --max-size 4194304", "bw D D --min-size 262144 --max-size 4194304",
            "bw D D --min-size 262144 --max-size 4194304", "halo D D --grids 16,32 --iterations 10",
            "latency H D --min-size 4194304 --max-size 4194304", "latency D H --min-size 4194304 --max-size 4194304",
            "latency D D --min-size 4194304 --max-size 4194304", "latency D D --min-size 4194304 --max-size 4194304",
            "latency D D --min-size 4194304 --max-size 4194304", "latency D D --min-size 4194304 --max-size 4194304",
            "latency D D --min-size 1 --max-size 524288", "latency D D --min-size 1048576 --max-size 4194304",
            "latency D D --min-size 262144 --max-size 4194304", "bw D D --min-size 262144 --max-size 4194304",
            "bw D D --min-size 262144 --max-size 4194304", "halo D D --grids 16,32 --iterations 10"], programs)
        self.assertTrue(all(call[:4] == ["run", "-n", "2", "--timeout"] and call[-2:] == ["--warm-up", "20"]
                            for call in calls), calls)
        traced = [call for call in calls if "--trace" in call]
        self.assertEqual(2, len(traced))
        self.assertTrue(all(call[5:8] == ["--trace", os.path.join(out, "dd-4m.json"), "latency"] for call in traced))
        with tarfile.open(os.path.join(out, "raw.tar.gz")) as archive:
            names = set(archive.getnames())
            default = archive.extractfile("raw/mps-default-latency-small.txt").read().decode()
        for mode in ("mps", "nomps"):
            for name in ("ours-latency-small", "default-latency-large", "ipc-latency-small", "ipc-bw",
                         "default-halo"):
                self.assertIn(f"raw/{mode}-{name}.txt", names)
        self.assertTrue({"raw/steps.tsv", "raw/context.txt", "raw/mps-ours-trace-2.err"} <= names, names)
        self.assertIn("# Device layer: numpy", default)
        with open(os.path.join(out, "summary.md")) as source:
            summary = source.read()
        row = table_row(summary, "D-D one-way latency, 4 MiB (us)")
        self.assertEqual(["141.07", "met"], [row[2], row[5]])
        self.assertNotEqual("n/a", row[3])
        self.assertNotEqual("n/a", row[4])
        self.assertEqual("met", table_row(summary, "D-D bandwidth, 4 MiB, window 64 (MB/s)")[5])
        self.assertIn("+1.0%, target <= 3%: met", summary)
        self.assertIn("PACK: 8 events, median 12.5 us for a chunk of 524,288 B", summary)
        self.assertIn("Ours with the stream wire forced", summary)
        self.assertIn("raw/nomps-stream-bw.txt", names)
        self.assertNotIn("Steps without a full result", summary)
        with open(os.path.join(out, "gpu-pipeline.log")) as source:
            log = source.read()
        self.assertIn("gpu-pipeline: MPS stopped", log)
        self.assertIn("=== nomps-default-halo", log)
        self.assertIn("| D-D one-way latency, 4 MiB (us) |", log)

    def test_steps_left_without_time_are_listed_and_fail_the_run(self):
        result = self.run_script(timeout_s=120, MODES="nomps", DEADLINE_S="5")
        self.assertEqual(1, result.returncode, result.stdout[-3000:])
        self.assertEqual([], self.stand_ins.calls_made())
        with open(os.path.join(self.stand_ins.out, "summary.md")) as source:
            summary = source.read()
        self.assertIn("- nomps-ours-latency-small: left out: no time left", summary)
        self.assertIn("- nomps-default-halo: left out: no time left", summary)
        self.assertIn("some steps fell short (exit 1)", result.stdout)

    def test_it_refuses_to_run_while_mps_runs(self):
        server = subprocess.Popen([os.path.join(self.stand_ins.bin, "nvidia-cuda-mps-server"), "600"])
        self.addCleanup(server.wait)
        self.addCleanup(server.kill)
        result = self.run_script(timeout_s=60)
        self.assertEqual(2, result.returncode)
        self.assertIn(f"MPS is already running (pids {server.pid}), not started by this script", result.stdout)
        self.assertEqual([], self.stand_ins.calls_made())

    def test_a_terminated_run_ends_its_step_and_stops_mps(self):
        process = subprocess.Popen(["bash", SCRIPT, self.stand_ins.out], cwd=REPO,
                                   env=self.stand_ins.environment(FAKE_SLEEP_S="60"), stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 60
        while not self.stand_ins.calls_made() and time.monotonic() < deadline:
            time.sleep(0.2)
        self.assertIsNotNone(self.stand_ins.server_pid())
        server = self.stand_ins.server_pid()
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=60)
        self.assertLess(time.monotonic() - started, 20, output)
        self.assertEqual(143, process.returncode, output)
        self.assertIn("terminated: ending the running step and MPS", output)
        self.assertIn("MPS stopped", output)
        self.assertFalse(alive(server))
        self.assertEqual(["start", "quit"], self.stand_ins.mps_log())


if __name__ == "__main__":
    unittest.main()
