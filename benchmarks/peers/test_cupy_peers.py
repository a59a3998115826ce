"""Tests of the CuPy point-to-point peers on numpy (their emulation) with Open MPI: the MPI logic, the checks and the
output format, not the GPU. Not run by Maven.

Run from the repository root (Debian: apt-get install -y openmpi-bin python3-mpi4py python3-numpy):
  python3 -m unittest -v benchmarks/peers/test_cupy_peers.py
PYTHON names the interpreter that runs the peers (default: the first of this one, python3 and /usr/bin/python3 that
imports mpi4py and numpy); the MPI tests are skipped, saying why, where there is none or no mpirun.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import unittest

import numpy as np

PEERS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, PEERS)

import cupy_p2p_common as common  # noqa: E402

ROW = re.compile(r"^(\d+) +(\d+\.\d\d)((?: +\d+\.\d\d)*)$")
TIMEOUT_S = 120


def peer_python():
    candidates = [os.environ.get("PYTHON"), sys.executable, "python3", "/usr/bin/python3"]
    for candidate in filter(None, (shutil.which(c) if c else None for c in candidates)):
        probe = subprocess.run([candidate, "-c", "import mpi4py.MPI, numpy"], capture_output=True, timeout=60)
        if probe.returncode == 0:
            return candidate
    return None


PYTHON = peer_python() if shutil.which("mpirun") else None


def mpirun(script, *arguments):
    command = ["mpirun", "-np", "2", "--oversubscribe"]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    command += [PYTHON, os.path.join(PEERS, script), *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S)


def rows(output):
    """[(size, [values])] of the table rows, each checked against OmbReport's '%-10d%18.2f...' layout."""
    found = []
    for line in output.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        match = ROW.match(line)
        if not match:
            raise AssertionError(f"not a table row: {line!r}")
        values = [float(v) for v in line[10:].split()]
        expected = f"{int(match.group(1)):<10d}" + "".join(f"{v:18.2f}" for v in values)
        if line != expected:
            raise AssertionError(f"row {line!r} is not laid out as {expected!r}")
        found.append((int(match.group(1)), values))
    return found


def shared_memory_names():
    return set(glob.glob("/dev/shm/psm_*"))


class CommonTest(unittest.TestCase):
    def test_pattern_is_the_java_programs_bytes(self):
        pattern = common.pattern(np, 1000, 1)
        self.assertEqual([(i * 31 + 1) & 0x7F for i in range(1000)], pattern.tolist())
        self.assertEqual(0, len(common.pattern(np, 0, 0)))

    def test_check_bytes_names_the_first_wrong_byte(self):
        received = common.pattern(np, 300, 0).copy()
        common.check_bytes(common.NumpyBackend("test"), received, 300, 0, "ok")
        received[200] ^= 1
        received[250] ^= 1
        with self.assertRaisesRegex(RuntimeError, r"size 300: byte 200 of 300 is .*\(2 wrong\)"):
            common.check_bytes(common.NumpyBackend("test"), received, 300, 0, "size 300")

    def test_faces_list_their_cells_as_halo_face_orders_them(self):
        n = 5
        cells = np.arange(n ** 3).reshape(n, n, n)
        java_cell = {"X": lambda p, a, b: p + n * (a + n * b), "Y": lambda p, a, b: a + n * (p + n * b),
                     "Z": lambda p, a, b: a + n * (b + n * p)}
        for face, (_, take) in common.FACES.items():
            listed = take(cells, 3).reshape(-1)
            self.assertEqual([java_cell[face](3, e % n, e // n) for e in range(n * n)], listed.tolist(), face)

    def test_check_face_finds_a_wrong_ghost_cell(self):
        n = 6
        grid = common.cell_values(np, n, 0)
        common.FACES["Y"][1](grid, 0)[...] = common.FACES["Y"][1](common.cell_values(np, n, 1), n - 2)
        common.check_face(common.NumpyBackend("test"), grid, "Y", n, 0, n - 2, 1, "ok")
        common.FACES["Y"][1](grid, 0)[2, 4] += 1
        with self.assertRaisesRegex(RuntimeError, r"ghost cell \(4, 2\) is .*\(1 wrong\)"):
            common.check_face(common.NumpyBackend("test"), grid, "Y", n, 0, n - 2, 1, "face Y")

    def test_cell_values_are_the_java_programs(self):
        grid = common.cell_values(np, 8, 1).reshape(-1)
        for cell in (0, 1, 77, 511):
            self.assertEqual(float(1 * 0x400000 + ((cell * 2654435761) & 0x3FFFFF)), float(grid[cell]))

    def test_one_way_is_half_the_round_trip_with_round_trips_quantiles(self):
        self.assertEqual([5.0], common.one_way_us(100_000, 10, None))
        round_trips = [2000 * i for i in range(1, 101)]
        average, median, p99 = common.one_way_us(sum(round_trips), 100, round_trips)
        self.assertEqual((50.5, 51.0, 100.0), (average, median, p99))


@unittest.skipIf(PYTHON is None, "needs mpirun and a python3 with mpi4py and numpy "
                                 "(apt-get install -y openmpi-bin python3-mpi4py python3-numpy)")
class PeersTest(unittest.TestCase):
    def assert_ran(self, result):
        self.assertEqual(0, result.returncode, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}")
        self.assertIn("# Device layer: numpy", result.stdout)
        self.assertIn("emulation, no GPU", result.stdout)
        self.assertIn("# Send Buffer on DEVICE (D) and Receive Buffer on DEVICE (D)", result.stdout)

    def test_default_latency_prints_a_row_per_power_of_two(self):
        result = mpirun("cupy_default_p2p.py", "latency", "--max-size", "65536", "--warm-up", "50",
                        "--iterations", "30", "--skip", "3", "--emulate")
        self.assert_ran(result)
        self.assertIn("# OSU MPI-style Latency Test (Default: CuPy pack + D2H + Open MPI", result.stdout)
        self.assertIn("# Warm-up before timing: 50 round trips of 8 B and 1 of 65536 B, untimed", result.stdout)
        self.assertIn("# Size       Avg Latency(us)\n", result.stdout)
        table = rows(result.stdout)
        self.assertEqual([1 << i for i in range(17)], [size for size, _ in table])
        self.assertTrue(all(len(values) == 1 and values[0] > 0 for _, values in table))

    def test_default_latency_with_percentiles_and_omb_counts(self):
        result = mpirun("cupy_default_p2p.py", "latency", "--min-size", "8192", "--max-size", "16384",
                        "--warm-up", "0", "--percentiles", "--backend", "numpy")
        self.assert_ran(result)
        table = rows(result.stdout)
        self.assertEqual([8192, 16384], [size for size, _ in table])
        for _, (average, median, p99) in table:
            self.assertTrue(0 < median <= p99, (average, median, p99))

    def test_default_bandwidth_reuses_slots_beyond_the_staging_bytes(self):
        result = mpirun("cupy_default_p2p.py", "bw", "--min-size", "4096", "--max-size", "262144", "--window", "16",
                        "--iterations", "3", "--skip", "1", "--warm-up", "64", "--staging-bytes", "65536",
                        "--emulate")
        self.assert_ran(result)
        self.assertIn("# Warm-up before timing: 4 windows of 8 B messages and 1 of 65536 B, untimed", result.stdout)
        self.assertIn("# Window size 16, at most 65536 B of pinned host slots a side", result.stdout)
        self.assertIn("# Size      Bandwidth (MB/s)\n", result.stdout)
        self.assertEqual([4096 << i for i in range(7)], [size for size, _ in rows(result.stdout)])

    def test_default_halo_prints_a_table_per_face(self):
        result = mpirun("cupy_default_p2p.py", "halo", "--grids", "8,12", "--iterations", "20", "--skip", "2",
                        "--warm-up", "40", "--percentiles", "--emulate")
        self.assert_ran(result)
        faces = re.findall(r"^# Face ([XYZ]): ", result.stdout, re.MULTILINE)
        self.assertEqual(["X", "Y", "Z"], faces)
        self.assertIn("# Grid           Bytes   Avg Latency(us)   P50 Latency(us)   P99 Latency(us)", result.stdout)
        halo_rows = [line.split() for line in result.stdout.splitlines() if re.match(r"^\d", line)]
        self.assertEqual([["8", "256"], ["12", "576"]] * 3, [row[:2] for row in halo_rows])
        self.assertTrue(all(len(row) == 5 for row in halo_rows))

    def test_ipc_latency_and_bandwidth_leave_no_shared_memory(self):
        before = shared_memory_names()
        result = mpirun("cupy_ipc_p2p.py", "latency", "--max-size", "1048576", "--warm-up", "20",
                        "--iterations", "20", "--skip", "2", "--emulate")
        self.assert_ran(result)
        self.assertIn("(CUDA IPC copy: cudaMemcpyAsync into the peer's buffer", result.stdout)
        self.assertEqual([1 << i for i in range(21)], [size for size, _ in rows(result.stdout)])
        result = mpirun("cupy_ipc_p2p.py", "bw", "--min-size", "1024", "--max-size", "1048576", "--iterations", "2",
                        "--skip", "1", "--warm-up", "64", "--emulate")
        self.assert_ran(result)
        self.assertIn("# Window size 64\n", result.stdout)
        self.assertEqual([1024 << i for i in range(11)], [size for size, _ in rows(result.stdout)])
        self.assertEqual(before, shared_memory_names())

    def test_a_bad_command_line_is_named_once_and_ends_the_job(self):
        result = mpirun("cupy_ipc_p2p.py", "halo")
        self.assertNotEqual(0, result.returncode)
        self.assertEqual(1, result.stderr.count("invalid choice: 'halo'"), result.stderr)
        result = mpirun("cupy_default_p2p.py", "latency", "--min-size", "64", "--max-size", "8")
        self.assertNotEqual(0, result.returncode)
        self.assertEqual(1, result.stderr.count("--min-size (64) <= --max-size (8)"), result.stderr)

    def test_asking_for_cupy_where_it_cannot_run_fails_every_rank(self):
        probe = subprocess.run([PYTHON, "-c", "import cupy; assert cupy.cuda.runtime.getDeviceCount() > 0"],
                               capture_output=True, timeout=60)
        if probe.returncode == 0:
            self.skipTest("CuPy runs here")
        result = mpirun("cupy_default_p2p.py", "latency", "--backend", "cupy")
        self.assertNotEqual(0, result.returncode)
        self.assertIn("--backend cupy: CuPy cannot run here", result.stderr)
        self.assertEqual("", result.stdout.strip())


if __name__ == "__main__":
    unittest.main()
