"""What the CuPy point-to-point peers (cupy_default_p2p.py, cupy_ipc_p2p.py) share: their command line, the array
backend, OMB-style reports, the bytes they send and how the receiver checks them, and the timed ping-pong.

The backend is CuPy on a GPU. Where CuPy cannot be imported or sees no device (or with --backend numpy / --emulate),
the same code runs on numpy: "device" buffers and "pinned" host buffers are separate numpy arrays, copies are numpy
copies, stream synchronizes and events do nothing, and CUDA IPC handles are names of POSIX shared memory.
That tests the MPI logic, not the GPU; the report's header says which backend ran.

Output follows io.stagecoach.benchmarks.omb (OmbReport): '#' title lines, a column header, then one row per size
('%-10d%18.2f'), so that the scripts that read our tables read these.
"""
import argparse
import os
import sys
import time

import numpy as np

LARGE_MESSAGE_BYTES = 8192
LARGE_FACE_BYTES = 64 * 1024
WARM_UP_SMALL_BYTES = 8
WARM_UP_LARGE_BYTES = 64 * 1024
MAX_SIZE_BYTES = 1 << 30
MAX_WINDOW = 1024
SIZE_WIDTH = 10
FIELD_WIDTH = 18
DEVICE_BUFFERS = "# Send Buffer on DEVICE (D) and Receive Buffer on DEVICE (D)"


class UsageError(Exception):
    """A bad command line; rank 0 prints it with the usage."""


class Parser(argparse.ArgumentParser):
    """Raises on a bad command line instead of exiting, and prints --help on rank 0 only."""

    def __init__(self, root, **kwargs):
        super().__init__(**kwargs)
        self.root = root

    def error(self, message):
        raise UsageError(message)

    def _print_message(self, message, file=None):
        if self.root:
            super()._print_message(message, file)


def parse_options(program, description, modes, root):
    """The command line of OMB's programs as ours take it (BenchmarkOptions), the buffers always on the device."""
    parser = Parser(root, prog=f"mpirun -np 2 python3 {program}", description=description,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=modes)
    parser.add_argument("--min-size", type=int, default=1, help="smallest message, bytes (default 1)")
    parser.add_argument("--max-size", type=int, default=4 << 20, help="largest message, bytes (default 4194304)")
    parser.add_argument("--iterations", type=int, default=-1, help="timed iterations per size (OMB's when left out)")
    parser.add_argument("--skip", type=int, default=-1, help="untimed iterations per size (OMB's when left out)")
    parser.add_argument("--window", type=int, default=64, help="messages in flight per window (bw; default 64)")
    parser.add_argument("--grids", default="128,256", help="edges of the n^3 float grids (halo; default 128,256)")
    parser.add_argument("--warm-up", type=int, default=20000,
                        help="untimed round trips of 8 B (and a hundredth as many of 64 KiB) before the first size, "
                             "as our programs and osu_p2p run; 0 for none (default 20000)")
    parser.add_argument("--percentiles", action="store_true",
                        help="also the median and the 99th percentile of the half round trips (latency, halo)")
    parser.add_argument("--backend", choices=("auto", "cupy", "numpy"), default="auto",
                        help="cupy, numpy (emulation, no GPU), or auto: cupy where it imports and sees a device")
    parser.add_argument("--emulate", action="store_true", help="the same as --backend numpy")
    return parser


def check_options(options):
    if not 1 <= options.min_size <= options.max_size <= MAX_SIZE_BYTES:
        raise UsageError(f"sizes must satisfy 1 <= --min-size ({options.min_size}) <= --max-size "
                         f"({options.max_size}) <= {MAX_SIZE_BYTES}")
    if not 1 <= options.window <= MAX_WINDOW:
        raise UsageError(f"--window {options.window} is outside [1, {MAX_WINDOW}]")
    if options.iterations == 0 or options.iterations < -1 or options.skip < -1 or options.warm_up < 0:
        raise UsageError("--iterations must be at least 1, --skip and --warm-up at least 0")
    try:
        options.grids = [int(edge) for edge in options.grids.split(",")]
    except ValueError:
        raise UsageError(f"--grids '{options.grids}' is not a list of integers") from None
    if not all(4 <= edge <= 1024 for edge in options.grids):
        raise UsageError(f"--grids edges must be in [4, 1024], not {options.grids}")
    if options.emulate:
        options.backend = "numpy"
    return options


def iterations(options, size_bytes, threshold_bytes, small, large):
    """Timed iterations: the command line's, else OMB's count for the size."""
    if options.iterations > 0:
        return options.iterations
    return large if size_bytes > threshold_bytes else small


def skip(options, size_bytes, threshold_bytes, small, large):
    """Untimed iterations before the timed ones: the command line's, else OMB's count for the size."""
    if options.skip >= 0:
        return options.skip
    return large if size_bytes > threshold_bytes else small


def sizes(options):
    size = options.min_size
    while size <= options.max_size:
        yield size
        size <<= 1


class Report:
    """What rank 0 prints, in OmbReport's format; progress of long runs on stderr."""

    def __init__(self, program, root):
        self.program = program
        self.root = root
        self.start_ns = time.perf_counter_ns()

    def print(self, line):
        if self.root:
            print(line, flush=True)

    def comment(self, text):
        self.print("# " + text)

    def columns(self, *names):
        self.print(f"{'# Size':<{SIZE_WIDTH}s}" + "".join(f"{name:>{FIELD_WIDTH}s}" for name in names))

    def row(self, size_bytes, values):
        self.print(f"{size_bytes:<{SIZE_WIDTH}d}" + "".join(f"{value:{FIELD_WIDTH}.2f}" for value in values))

    def progress(self, what):
        if self.root and time.perf_counter_ns() - self.start_ns > 2_000_000_000:
            print(f"{self.program}: {what} ({(time.perf_counter_ns() - self.start_ns) / 1e9:.1f} s)",
                  file=sys.stderr, flush=True)


def mpi_library_version(mpi):
    version = mpi.Get_library_version()
    for stop in (",", "\n"):
        version = version.split(stop)[0]
    return version.strip()


def warm_up_large(warm_up):
    """Round trips of WARM_UP_LARGE_BYTES in a warm-up of warm_up round trips of WARM_UP_SMALL_BYTES."""
    return max(1, warm_up // 100) if warm_up else 0


def warm_up_comment(warm_up):
    return (f"Warm-up before timing: {warm_up} round trips of {WARM_UP_SMALL_BYTES} B and {warm_up_large(warm_up)} "
            f"of {WARM_UP_LARGE_BYTES} B, untimed")


def warm_up_windows(warm_up, window):
    """Windows of WARM_UP_SMALL_BYTES and of WARM_UP_LARGE_BYTES messages in a bandwidth warm-up: about as many
    messages as a ping-pong warm-up's round trips, as our programs' warm-up runs them."""
    if not warm_up:
        return 0, 0
    return max(1, warm_up // window), max(1, warm_up // 100 // window)


def warm_up_windows_comment(warm_up, window):
    small, large = warm_up_windows(warm_up, window)
    return (f"Warm-up before timing: {small} windows of {WARM_UP_SMALL_BYTES} B messages and {large} of "
            f"{WARM_UP_LARGE_BYTES} B, untimed")


def latency_columns(options):
    if options.percentiles:
        return ("Avg Latency(us)", "P50 Latency(us)", "P99 Latency(us)")
    return ("Avg Latency(us)",)


class NumpyEvent:
    def record(self):
        pass

    def synchronize(self):
        pass


class NumpyBackend:
    """Emulation: the same calls as CupyBackend, on numpy in host memory."""

    emulated = True

    def __init__(self, reason):
        self.xp = np
        self.reason = reason

    def describe(self):
        return f"numpy {np.__version__} emulation, no GPU ({self.reason}): the MPI logic only, not a GPU measurement"

    def device_zeros(self, count, dtype=np.uint8):
        return np.zeros(count, dtype=dtype)

    def pinned_empty(self, nbytes):
        return np.zeros(nbytes, dtype=np.uint8)

    def to_host(self, device, host):
        np.copyto(host, device)

    def to_device(self, host, device):
        np.copyto(device, host)

    def copy(self, destination, source):
        np.copyto(destination, source)

    def copy_bytes(self, destination, source, nbytes):
        np.copyto(destination[:nbytes], source[:nbytes])

    def synchronize(self):
        pass

    def event(self):
        return NumpyEvent()

    def to_numpy(self, array):
        return np.array(array)

    def shared_buffer(self, nbytes):
        """A buffer another process can open by its handle: POSIX shared memory and its name."""
        from multiprocessing import shared_memory
        memory = shared_memory.SharedMemory(create=True, size=nbytes)
        array = np.ndarray((nbytes,), dtype=np.uint8, buffer=memory.buf)
        array[:] = 0

        def free():
            release_shared(memory)
            memory.unlink()

        return array, memory.name.encode(), free

    def open_shared(self, handle, nbytes):
        from multiprocessing import shared_memory
        try:
            memory = shared_memory.SharedMemory(name=handle.decode(), track=False)
        except TypeError:
            memory = shared_memory.SharedMemory(name=handle.decode())
            from multiprocessing import resource_tracker
            resource_tracker.unregister(memory._name, "shared_memory")
        return np.ndarray((nbytes,), dtype=np.uint8, buffer=memory.buf), lambda: release_shared(memory)


def release_shared(memory):
    try:
        memory.close()
    except BufferError:
        pass


class CupyEvent:
    def __init__(self, cp, stream):
        self.event = cp.cuda.Event(disable_timing=True)
        self.stream = stream

    def record(self):
        self.event.record(self.stream)

    def synchronize(self):
        self.event.synchronize()


class CupyBackend:
    """CuPy on the rank's device (local rank modulo the device count, as our ranks choose), one non-blocking stream
    for every copy and kernel; host buffers in pinned memory."""

    emulated = False

    def __init__(self, cp):
        self.cp = cp
        self.xp = cp
        count = cp.cuda.runtime.getDeviceCount()
        local_rank = int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", os.environ.get("MPI_LOCALRANKID", "0")))
        self.device_id = local_rank % count
        self.device_count = count
        cp.cuda.Device(self.device_id).use()
        self.stream = cp.cuda.Stream(non_blocking=True)
        self.stream.use()
        self.runtime = cp.cuda.runtime

    def describe(self):
        properties = self.runtime.getDeviceProperties(self.device_id)
        name = properties["name"]
        name = name.decode() if isinstance(name, bytes) else name
        version = self.runtime.runtimeGetVersion()
        return (f"CuPy {self.cp.__version__} on {name} (device {self.device_id} of {self.device_count}), CUDA "
                f"runtime {version // 1000}.{version % 1000 // 10}, one non-blocking stream, pinned host buffers")

    def device_zeros(self, count, dtype=np.uint8):
        return self.cp.zeros(count, dtype=dtype)

    def pinned_empty(self, nbytes):
        return np.ndarray((nbytes,), dtype=np.uint8, buffer=self.cp.cuda.alloc_pinned_memory(nbytes))

    def to_host(self, device, host):
        device.get(stream=self.stream, out=host, blocking=False)

    def to_device(self, host, device):
        device.set(host, stream=self.stream)

    def copy(self, destination, source):
        self.cp.copyto(destination, source)

    def copy_bytes(self, destination, source, nbytes):
        destination.data.copy_from_device_async(source.data, nbytes, self.stream)

    def synchronize(self):
        self.stream.synchronize()

    def event(self):
        return CupyEvent(self.cp, self.stream)

    def to_numpy(self, array):
        host = self.cp.asnumpy(array, stream=self.stream)
        self.stream.synchronize()
        return host

    def shared_buffer(self, nbytes):
        """A buffer of its own cudaMalloc (not the pool's, whose blocks share allocations) and its IPC handle."""
        cp = self.cp
        memory = cp.cuda.Memory(nbytes)
        array = cp.ndarray((nbytes,), dtype=cp.uint8, memptr=cp.cuda.MemoryPointer(memory, 0))
        array.fill(0)
        self.stream.synchronize()
        return array, bytes(self.runtime.ipcGetMemHandle(memory.ptr)), lambda: None

    def open_shared(self, handle, nbytes):
        cp = self.cp
        pointer = self.runtime.ipcOpenMemHandle(handle)
        memory = cp.cuda.UnownedMemory(pointer, nbytes, handle, self.device_id)
        array = cp.ndarray((nbytes,), dtype=cp.uint8, memptr=cp.cuda.MemoryPointer(memory, 0))
        return array, lambda: self.runtime.ipcCloseMemHandle(pointer)


def open_backend(choice):
    """CuPy where asked for or, with auto, where it imports and sees a device; else the numpy emulation."""
    if choice == "numpy":
        return NumpyBackend("asked for with --backend numpy")
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("CuPy sees no CUDA device")
        return CupyBackend(cupy)
    except Exception as failure:  # ImportError, CUDARuntimeError without a driver, no device
        if choice == "cupy":
            raise RuntimeError(f"--backend cupy: CuPy cannot run here: {failure}") from failure
        return NumpyBackend(f"CuPy not usable: {str(failure).splitlines()[0] if str(failure) else type(failure).__name__}")


def pattern(xp, size_bytes, seed):
    """The bytes a rank sends, (i * 31 + seed) & 0x7f as the Java programs and osu_p2p send: a period of 128."""
    period = ((np.arange(128, dtype=np.int64) * 31 + seed) & 0x7F).astype(np.uint8)
    return xp.tile(xp.asarray(period), -(-size_bytes // 128))[:size_bytes]


def check_bytes(backend, received, size_bytes, seed, context):
    actual = backend.to_numpy(received[:size_bytes])
    expected = backend.to_numpy(pattern(backend.xp, size_bytes, seed))
    wrong = np.flatnonzero(actual != expected)
    if wrong.size:
        index = int(wrong[0])
        raise RuntimeError(f"{context}: byte {index} of {size_bytes} is {int(actual[index])}, "
                           f"expected {int(expected[index])} ({wrong.size} wrong)")


def cell_values(xp, n, owner):
    """The grid of the Java Halo program: cell c of rank r holds float(r * 0x400000 + (c * 2654435761 & 0x3fffff))."""
    cells = xp.arange(n * n * n, dtype=xp.int64)
    return (owner * 0x400000 + ((cells * 2654435761) & 0x3FFFFF)).astype(xp.float32).reshape(n, n, n)


# The faces of an n^3 float grid laid out x fastest (cell (i, j, k) at i + n * (j + n * k)), as HaloFace defines them;
# the array's shape is (z, y, x), so a face in C order lists its cells in the order of the face's MPI datatype.
FACES = {
    "X": ("vector(NY*NZ, 1, NX, FLOAT): grid[:, :, i], one float every NX", lambda grid, plane: grid[:, :, plane]),
    "Y": ("vector(NZ, NX, NX*NY, FLOAT): grid[:, j, :], a row of NX floats every NX*NY",
          lambda grid, plane: grid[:, plane, :]),
    "Z": ("contiguous(NX*NY, FLOAT): grid[k, :, :], contiguous", lambda grid, plane: grid[plane, :, :]),
}


def check_face(backend, grid, face, n, ghost_plane, sent_plane, peer, context):
    take = FACES[face][1]
    actual = backend.to_numpy(take(grid, ghost_plane))
    expected = take(cell_values(np, n, peer), sent_plane)
    wrong = np.argwhere(actual != expected)
    if wrong.size:
        b, a = (int(v) for v in wrong[0])
        raise RuntimeError(f"{context}: ghost cell ({a}, {b}) is {actual[b, a]}, expected {expected[b, a]} "
                           f"({len(wrong)} wrong)")


def ping_pong(root, iterations_count, skip_count, send, receive, finish, record):
    """OMB's ping-pong: rank 0 sends then receives, rank 1 receives then sends; the clock runs from the end of the
    untimed iterations (device work finished) to the end of the last timed one (its device work finished). Returns the
    elapsed nanoseconds; with record, each round trip's nanoseconds are appended to it."""
    start_ns = last_ns = 0
    for i in range(iterations_count + skip_count):
        if i == skip_count:
            finish()
            start_ns = last_ns = time.perf_counter_ns()
        if root:
            send()
            receive()
        else:
            receive()
            send()
        if record is not None and i >= skip_count:
            now_ns = time.perf_counter_ns()
            record.append(now_ns - last_ns)
            last_ns = now_ns
    finish()
    return time.perf_counter_ns() - start_ns


def one_way_us(elapsed_ns, iterations_count, round_trips_ns):
    """The average one-way time (half the round trip) in microseconds, then the median and the 99th percentile of the
    half round trips where they were recorded (RoundTrips' quantiles)."""
    average = elapsed_ns / 1e3 / (2.0 * max(1, iterations_count))
    if not round_trips_ns:
        return [average]
    ordered = sorted(round_trips_ns)

    def quantile(q):
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 2e3

    return [average, quantile(0.50), quantile(0.99)]


def run(program, description, modes, argv, main, add_options=None):
    """Parses (add_options adds a program's own options to the parser), opens MPI and the backend, and runs
    main(comm, mpi, backend, options, report); a failure on one rank aborts the job (the other would wait forever)
    after printing what went wrong."""
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    root = comm.Get_rank() == 0
    parser = parse_options(program, description, modes, root)
    if add_options is not None:
        add_options(parser)
    try:
        options = check_options(parser.parse_args(argv))
    except UsageError as error:
        if root:
            parser.print_usage(sys.stderr)
            print(f"{program}: {error}", file=sys.stderr, flush=True)
        return 2
    if comm.Get_size() != 2:
        if root:
            print(f"{program}: needs exactly 2 ranks, has {comm.Get_size()}", file=sys.stderr, flush=True)
        return 2
    try:
        backend = open_backend(options.backend)
        main(comm, MPI, backend, options, Report(f"{program} {options.mode}", root))
    except Exception as failure:
        print(f"{program} rank {comm.Get_rank()}: {type(failure).__name__}: {failure}", file=sys.stderr, flush=True)
        comm.Abort(1)
    return 0
