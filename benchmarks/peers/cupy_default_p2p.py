#!/usr/bin/env python3
"""The "Default" peer: device buffers moved by an application with a GPU-unaware MPI, as the paper's baseline does
it: CuPy packs a non-contiguous face into a contiguous device buffer, copies it to pinned host memory (D2H), Open MPI
moves the host bytes (mpi4py, buffer protocol), the receiver copies them to the device (H2D) and CuPy scatters them
into the destination.

usage: mpirun -np 2 [--allow-run-as-root] python3 cupy_default_p2p.py latency|bw|halo [--min-size B]
           [--max-size B] [--iterations N] [--skip N] [--window N] [--grids 128,256] [--warm-up N] [--percentiles]
           [--staging-bytes B] [--backend auto|cupy|numpy] [--emulate]

  latency  osu_latency: ping-pong of contiguous device bytes, sizes --min-size to --max-size in powers of two;
           one-way time = half the round trip. Iterations as OMB: 10000 after 100 untimed up to 8 KiB, 1000 after
           10 above.
  bw       osu_bw: rank 0 stages and sends a window of 64 messages (MPI_Isend), rank 1 receives them (MPI_Irecv)
           into pinned slots and copies each to its device buffer, then answers with 4 bytes; MB/s = 10^6 B/s.
           100 windows after 10 up to 8 KiB, 20 after 2 above. The window's host slots are at most
           --staging-bytes (256 MiB) a side: above that a slot is reused once its message is sent (received and
           copied to the device), as a bounded staging pool would.
  halo     the faces of n^3 float32 grids (x fastest) as the Java Halo program exchanges them: rank 0 sends plane
           n-2 into rank 1's ghost plane 0, rank 1 sends plane 1 into rank 0's plane n-1; X and Y faces packed with
           cupy.copyto into a contiguous device buffer and unpacked the same way, the contiguous Z face copied from
           and to its plane directly. 1000 round trips after 10 for faces up to 64 KiB, 200 after 10 above.

Where the device is waited for (and nowhere else): the stream is synchronized after the D2H copy, before MPI reads
the host buffer; a receive ends with its H2D copy (and unpack) queued on the stream, which the next D2H's
synchronize, or the one that ends the timed loop, waits for; in bw, an event per slot says when its D2H copy has
landed (before its MPI_Isend) and when its H2D copy has left it (before the slot takes the next message), and the
receiver synchronizes before it acknowledges the window. Every size and face is checked once after its timed loop.
Without CuPy (or with --emulate) the same code runs on numpy, and the header says so.
"""
import sys
import time

import numpy as np

import cupy_p2p_common as common

PROGRAM = "cupy_default_p2p.py"
TAG = 1
BW_TAG = 100
ACK_TAG = 101
HALO_TAG = 2
ACK_BYTES = 4
DEFAULT_STAGING_BYTES = 256 << 20
TITLE = "Default: CuPy pack + D2H + {mpi} on host + H2D + unpack"


class Messages:
    """Contiguous device bytes staged through pinned host memory: one message each way per round trip."""

    def __init__(self, comm, backend, length):
        self.comm = comm
        self.backend = backend
        self.peer = 1 - comm.Get_rank()
        self.send_device = backend.device_zeros(length)
        self.receive_device = backend.device_zeros(length)
        self.send_host = backend.pinned_empty(length)
        self.receive_host = backend.pinned_empty(length)

    def loop(self, size, iterations, skip, record=None):
        backend, comm, peer = self.backend, self.comm, self.peer
        to_host, to_device, synchronize = backend.to_host, backend.to_device, backend.synchronize
        send_device, send_host = self.send_device[:size], self.send_host[:size]
        receive_device, receive_host = self.receive_device[:size], self.receive_host[:size]

        def send():
            to_host(send_device, send_host)
            synchronize()
            comm.Send(send_host, dest=peer, tag=TAG)

        def receive():
            comm.Recv(receive_host, source=peer, tag=TAG)
            to_device(receive_host, receive_device)

        return common.ping_pong(comm.Get_rank() == 0, iterations, skip, send, receive, synchronize, record)


def latency(comm, mpi, backend, options, report):
    report.print(f"# OSU MPI-style Latency Test ({TITLE.format(mpi=common.mpi_library_version(mpi))})")
    report.print(common.DEVICE_BUFFERS)
    report.comment(f"Device layer: {backend.describe()}")
    report.comment(common.warm_up_comment(options.warm_up))
    report.columns(*common.latency_columns(options))
    messages = Messages(comm, backend, max(options.max_size, common.WARM_UP_LARGE_BYTES))
    rank, peer = comm.Get_rank(), 1 - comm.Get_rank()
    if options.warm_up:
        messages.loop(common.WARM_UP_SMALL_BYTES, options.warm_up, 0)
        messages.loop(common.WARM_UP_LARGE_BYTES, common.warm_up_large(options.warm_up), 0)
    for size in common.sizes(options):
        report.progress(f"{size} bytes")
        count = common.iterations(options, size, common.LARGE_MESSAGE_BYTES, 10_000, 1_000)
        messages.send_device[:size] = common.pattern(backend.xp, size, rank)
        messages.receive_device[:size] = 0
        backend.synchronize()
        comm.Barrier()
        record = [] if options.percentiles else None
        elapsed_ns = messages.loop(size, count, common.skip(options, size, common.LARGE_MESSAGE_BYTES, 100, 10),
                                   record)
        common.check_bytes(backend, messages.receive_device, size, peer, f"latency size {size}")
        report.row(size, common.one_way_us(elapsed_ns, count, record))


class Window:
    """osu_bw's window, device bytes staged through at most slot_count pinned host slots a side."""

    def __init__(self, comm, backend, options, length):
        self.comm = comm
        self.backend = backend
        self.window = options.window
        self.staging_bytes = options.staging_bytes
        self.peer = 1 - comm.Get_rank()
        self.device = backend.device_zeros(length)
        self.host = backend.pinned_empty(max(options.staging_bytes, length))
        self.events = [backend.event() for _ in range(options.window)]
        self.acknowledgement = backend.pinned_empty(ACK_BYTES)

    def slot_count(self, size):
        return max(1, min(self.window, self.staging_bytes // size))

    def slot(self, index, size):
        return self.host[index * size:(index + 1) * size]

    def send(self, size):
        """D2H into each slot, each message sent (MPI_Isend) once its copy has landed; a reused slot is refilled
        once the message it held has been sent."""
        backend, comm, events = self.backend, self.comm, self.events
        slots = self.slot_count(size)
        source = self.device[:size]
        requests = [None] * self.window
        for w in range(min(slots, self.window)):
            backend.to_host(source, self.slot(w, size))
            events[w].record()
        for w in range(self.window):
            s = w % slots
            events[s].synchronize()
            requests[w] = comm.Isend(self.slot(s, size), dest=self.peer, tag=BW_TAG)
            if w + slots < self.window:
                requests[w].Wait()
                backend.to_host(source, self.slot(s, size))
                events[s].record()
        wait_all(requests)
        comm.Recv(self.acknowledgement, source=self.peer, tag=ACK_TAG)

    def receive(self, size):
        """MPI_Irecv into each slot, each message copied to the device (H2D) as it arrives; a reused slot takes its
        next message once its copy has left it; the window is acknowledged once every copy has landed."""
        backend, comm, events = self.backend, self.comm, self.events
        slots = self.slot_count(size)
        destination = self.device[:size]
        requests = [None] * self.window
        for w in range(min(slots, self.window)):
            requests[w] = comm.Irecv(self.slot(w, size), source=self.peer, tag=BW_TAG)
        for w in range(self.window):
            s = w % slots
            requests[w].Wait()
            backend.to_device(self.slot(s, size), destination)
            events[s].record()
            if w + slots < self.window:
                events[s].synchronize()
                requests[w + slots] = comm.Irecv(self.slot(s, size), source=self.peer, tag=BW_TAG)
        backend.synchronize()
        comm.Send(self.acknowledgement, dest=self.peer, tag=ACK_TAG)

    def loop(self, size, iterations, skip):
        """Returns the nanoseconds of the timed windows, from the end of the untimed ones to the end of the last."""
        move = self.send if self.comm.Get_rank() == 0 else self.receive
        start_ns = end_ns = 0
        for i in range(iterations + skip):
            if i == skip:
                start_ns = time.perf_counter_ns()
            move(size)
            end_ns = time.perf_counter_ns()
        return end_ns - start_ns


def wait_all(requests):
    for request in requests:
        if request is not None:
            request.Wait()


def bandwidth(comm, mpi, backend, options, report):
    report.print(f"# OSU MPI-style Bandwidth Test ({TITLE.format(mpi=common.mpi_library_version(mpi))})")
    report.print(common.DEVICE_BUFFERS)
    report.comment(f"Device layer: {backend.describe()}")
    report.comment(common.warm_up_windows_comment(options.warm_up, options.window))
    report.comment(f"Window size {options.window}, at most {options.staging_bytes} B of pinned host slots a side")
    report.columns("Bandwidth (MB/s)")
    window = Window(comm, backend, options, max(options.max_size, common.WARM_UP_LARGE_BYTES))
    root, peer = comm.Get_rank() == 0, 1 - comm.Get_rank()
    if options.warm_up:
        small, large = common.warm_up_windows(options.warm_up, options.window)
        window.loop(common.WARM_UP_SMALL_BYTES, small, 0)
        window.loop(common.WARM_UP_LARGE_BYTES, large, 0)
    for size in common.sizes(options):
        report.progress(f"{size} bytes")
        count = common.iterations(options, size, common.LARGE_MESSAGE_BYTES, 100, 20)
        window.device[:size] = common.pattern(backend.xp, size, 0) if root else 0
        backend.synchronize()
        comm.Barrier()
        elapsed_ns = window.loop(size, count, common.skip(options, size, common.LARGE_MESSAGE_BYTES, 10, 2))
        if not root:
            common.check_bytes(backend, window.device, size, peer, f"bw size {size}")
        report.row(size, [size * count * options.window / 1e6 / (elapsed_ns / 1e9)])


class Face:
    """One face of a grid staged through pinned host memory: packed (X, Y) or taken as it is (Z, contiguous)."""

    def __init__(self, comm, backend, grid, face, n):
        self.comm = comm
        self.backend = backend
        self.peer = 1 - comm.Get_rank()
        root = comm.Get_rank() == 0
        take = common.FACES[face][1]
        self.sent = take(grid, n - 2 if root else 1)
        self.ghost = take(grid, n - 1 if root else 0)
        self.contiguous = face == "Z"
        xp = backend.xp
        self.packed = self.sent.reshape(n * n) if self.contiguous else xp.empty(n * n, dtype=xp.float32)
        self.unpacked = self.ghost.reshape(n * n) if self.contiguous else xp.empty(n * n, dtype=xp.float32)
        self.send_host = backend.pinned_empty(4 * n * n).view(np.float32)
        self.receive_host = backend.pinned_empty(4 * n * n).view(np.float32)
        self.n = n

    def loop(self, iterations, skip, record=None):
        backend, comm, peer = self.backend, self.comm, self.peer
        to_host, to_device, copy, synchronize = backend.to_host, backend.to_device, backend.copy, backend.synchronize
        sent, ghost, packed, unpacked = self.sent, self.ghost, self.packed, self.unpacked
        packed_face, unpacked_face = packed.reshape(self.n, self.n), unpacked.reshape(self.n, self.n)
        send_host, receive_host, contiguous = self.send_host, self.receive_host, self.contiguous

        def send():
            if not contiguous:
                copy(packed_face, sent)
            to_host(packed, send_host)
            synchronize()
            comm.Send(send_host, dest=peer, tag=HALO_TAG)

        def receive():
            comm.Recv(receive_host, source=peer, tag=HALO_TAG)
            to_device(receive_host, unpacked)
            if not contiguous:
                copy(ghost, unpacked_face)

        return common.ping_pong(comm.Get_rank() == 0, iterations, skip, send, receive, synchronize, record)


def halo(comm, mpi, backend, options, report):
    rank, peer, root = comm.Get_rank(), 1 - comm.Get_rank(), comm.Get_rank() == 0
    xp = backend.xp
    if options.warm_up:
        n = min(options.grids)
        grid = common.cell_values(xp, n, rank)
        for face in common.FACES:
            Face(comm, backend, grid, face, n).loop(max(1, options.warm_up // 4), 0)
    results = {}
    for n in options.grids:
        initial = common.cell_values(xp, n, rank)
        grid = initial.copy()
        for face in common.FACES:
            if root:
                print(f"{PROGRAM} halo: {n}^3 face {face}", file=sys.stderr, flush=True)
            grid[...] = initial
            backend.synchronize()
            face_bytes = 4 * n * n
            count = common.iterations(options, face_bytes, common.LARGE_FACE_BYTES, 1_000, 200)
            skip = common.skip(options, face_bytes, common.LARGE_FACE_BYTES, 10, 10)
            exchange = Face(comm, backend, grid, face, n)
            comm.Barrier()
            record = [] if options.percentiles else None
            elapsed_ns = exchange.loop(count, skip, record)
            common.check_face(backend, grid, face, n, n - 1 if root else 0, 1 if root else n - 2, peer,
                              f"halo face {face} of {n}^3")
            results[face, n] = common.one_way_us(elapsed_ns, count, record)
        del initial, grid
    report.print(f"# OSU MPI-style Halo Face Latency Test ({TITLE.format(mpi=common.mpi_library_version(mpi))})")
    report.print(common.DEVICE_BUFFERS)
    report.comment(f"Device layer: {backend.describe()}")
    report.comment(f"Warm-up before timing: each face of the {min(options.grids)}^3 grid for "
                   f"{max(1, options.warm_up // 4) if options.warm_up else 0} round trips, untimed")
    report.comment("float arrays, x fastest; rank 0 sends plane N-2 into rank 1's plane 0, rank 1 sends plane 1 back")
    columns = common.latency_columns(options)
    for face, (construction, _) in common.FACES.items():
        how = "D2H and H2D of the plane itself" if face == "Z" else "packed and unpacked with cupy.copyto"
        report.comment(f"Face {face}: {construction}; {how}")
        report.print(f"{'# Grid':<10s}{'Bytes':>12s}" + "".join(f"{c:>{common.FIELD_WIDTH}s}" for c in columns))
        for n in options.grids:
            report.print(f"{n:<10d}{4 * n * n:>12d}" +
                         "".join(f"{v:{common.FIELD_WIDTH}.2f}" for v in results[face, n]))


def main(comm, mpi, backend, options, report):
    {"latency": latency, "bw": bandwidth, "halo": halo}[options.mode](comm, mpi, backend, options, report)


def add_options(parser):
    parser.add_argument("--staging-bytes", type=int, default=DEFAULT_STAGING_BYTES,
                        help="pinned host slots of a bw window, at most this many bytes a side (default 256 MiB)")


if __name__ == "__main__":
    sys.exit(common.run(PROGRAM, __doc__, ("latency", "bw", "halo"), sys.argv[1:], main, add_options))
