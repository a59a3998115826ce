#!/usr/bin/env python3
"""The "CUDA IPC copy" peer: device bytes moved by the sender itself, with one device-to-device copy into the
receiver's buffer, opened through CUDA IPC, and an MPI message that says the copy is done.

usage: mpirun -np 2 [--allow-run-as-root] python3 cupy_ipc_p2p.py latency|bw [--min-size B] [--max-size B]
           [--iterations N] [--skip N] [--window N] [--warm-up N] [--percentiles] [--backend auto|cupy|numpy]
           [--emulate]

Each rank allocates its receive buffer (cudaMalloc of its own) and sends its IPC handle (cudaIpcGetMemHandle) to the
other once, through MPI; each opens the other's (cudaIpcOpenMemHandle). A message is one cudaMemcpyAsync device to
device into the peer's buffer, a stream synchronize, then a 1-byte MPI message; the receiver's receive is waiting for
that message. The handles are closed at the end, once both ranks are done.

  latency  osu_latency: ping-pong, the reply the same way back into the other rank's buffer; one-way time = half the
           round trip. Iterations as OMB: 10000 after 100 untimed up to 8 KiB, 1000 after 10 above.
  bw       osu_bw: rank 0 queues a window of 64 copies, each followed by an event, and sends each message's 1-byte
           note (MPI_Isend) once its event has completed; rank 1 receives the notes (MPI_Irecv) and answers the
           window with 4 bytes; MB/s = 10^6 B/s. 100 windows after 10 up to 8 KiB, 20 after 2 above.

Every size is checked once after its timed loop, in the receiver's own buffer. Without CuPy (or with --emulate) the
same code runs on numpy with POSIX shared memory for the IPC buffers, and the header says so.
"""
import sys
import time

import numpy as np

import cupy_p2p_common as common

PROGRAM = "cupy_ipc_p2p.py"
TAG = 1
BW_TAG = 100
ACK_TAG = 101
ACK_BYTES = 4
TITLE = "CUDA IPC copy: cudaMemcpyAsync into the peer's buffer + stream synchronize + 1-byte {mpi} message"


class Buffers:
    """This rank's send buffer and IPC receive buffer, and the peer's receive buffer opened through its handle."""

    def __init__(self, comm, backend, length, window):
        self.comm = comm
        self.backend = backend
        self.peer = 1 - comm.Get_rank()
        self.send_device = backend.device_zeros(length)
        self.receive_device, handle, self.free = backend.shared_buffer(length)
        peer_handle = comm.sendrecv(handle, dest=self.peer, source=self.peer)
        self.peer_device, self.close = backend.open_shared(peer_handle, length)
        self.note = np.zeros(max(window, 1), dtype=np.uint8)
        self.acknowledgement = np.zeros(ACK_BYTES, dtype=np.uint8)
        self.events = [backend.event() for _ in range(window)]

    def release(self):
        """Closes the peer's buffer once neither rank copies any more, then frees this one's once the peer has
        closed it."""
        self.backend.synchronize()
        self.comm.Barrier()
        self.close()
        self.comm.Barrier()
        self.free()

    def ping_pong(self, size, iterations, skip, record=None):
        backend, comm, peer = self.backend, self.comm, self.peer
        copy_bytes, synchronize = backend.copy_bytes, backend.synchronize
        send_device, peer_device, note = self.send_device, self.peer_device, self.note[:1]

        def send():
            copy_bytes(peer_device, send_device, size)
            synchronize()
            comm.Send(note, dest=peer, tag=TAG)

        def receive():
            comm.Recv(note, source=peer, tag=TAG)

        return common.ping_pong(comm.Get_rank() == 0, iterations, skip, send, receive, synchronize, record)

    def send_window(self, size, window):
        backend, comm, events = self.backend, self.comm, self.events
        for w in range(window):
            backend.copy_bytes(self.peer_device, self.send_device, size)
            events[w].record()
        requests = []
        for w in range(window):
            events[w].synchronize()
            requests.append(comm.Isend(self.note[w:w + 1], dest=self.peer, tag=BW_TAG))
        for request in requests:
            request.Wait()
        comm.Recv(self.acknowledgement, source=self.peer, tag=ACK_TAG)

    def receive_window(self, size, window):
        comm = self.comm
        requests = [comm.Irecv(self.note[w:w + 1], source=self.peer, tag=BW_TAG) for w in range(window)]
        for request in requests:
            request.Wait()
        comm.Send(self.acknowledgement, dest=self.peer, tag=ACK_TAG)

    def windows(self, size, window, iterations, skip):
        """Returns the nanoseconds of the timed windows, from the end of the untimed ones to the end of the last."""
        move = self.send_window if self.comm.Get_rank() == 0 else self.receive_window
        start_ns = end_ns = 0
        for i in range(iterations + skip):
            if i == skip:
                start_ns = time.perf_counter_ns()
            move(size, window)
            end_ns = time.perf_counter_ns()
        return end_ns - start_ns

    def prepare(self, size, seed):
        """The pattern in the send buffer and zeros in this rank's receive buffer, both landed before the peer may
        copy."""
        self.send_device[:size] = common.pattern(self.backend.xp, size, seed)
        self.receive_device[:size] = 0
        self.backend.synchronize()
        self.comm.Barrier()


def header(mpi, backend, report, test, warm_up):
    report.print(f"# OSU MPI-style {test} ({TITLE.format(mpi=common.mpi_library_version(mpi))})")
    report.print(common.DEVICE_BUFFERS)
    report.comment(f"Device layer: {backend.describe()}")
    report.comment(warm_up)


def latency(comm, mpi, backend, options, report):
    header(mpi, backend, report, "Latency Test", common.warm_up_comment(options.warm_up))
    report.columns(*common.latency_columns(options))
    buffers = Buffers(comm, backend, max(options.max_size, common.WARM_UP_LARGE_BYTES), 1)
    rank, peer = comm.Get_rank(), 1 - comm.Get_rank()
    if options.warm_up:
        buffers.ping_pong(common.WARM_UP_SMALL_BYTES, options.warm_up, 0)
        buffers.ping_pong(common.WARM_UP_LARGE_BYTES, common.warm_up_large(options.warm_up), 0)
    for size in common.sizes(options):
        report.progress(f"{size} bytes")
        count = common.iterations(options, size, common.LARGE_MESSAGE_BYTES, 10_000, 1_000)
        buffers.prepare(size, rank)
        record = [] if options.percentiles else None
        elapsed_ns = buffers.ping_pong(size, count, common.skip(options, size, common.LARGE_MESSAGE_BYTES, 100, 10),
                                       record)
        common.check_bytes(backend, buffers.receive_device, size, peer, f"latency size {size}")
        report.row(size, common.one_way_us(elapsed_ns, count, record))
    buffers.release()


def bandwidth(comm, mpi, backend, options, report):
    header(mpi, backend, report, "Bandwidth Test", common.warm_up_windows_comment(options.warm_up, options.window))
    report.comment(f"Window size {options.window}")
    report.columns("Bandwidth (MB/s)")
    buffers = Buffers(comm, backend, max(options.max_size, common.WARM_UP_LARGE_BYTES), options.window)
    root, rank, peer = comm.Get_rank() == 0, comm.Get_rank(), 1 - comm.Get_rank()
    if options.warm_up:
        small, large = common.warm_up_windows(options.warm_up, options.window)
        buffers.windows(common.WARM_UP_SMALL_BYTES, options.window, small, 0)
        buffers.windows(common.WARM_UP_LARGE_BYTES, options.window, large, 0)
    for size in common.sizes(options):
        report.progress(f"{size} bytes")
        count = common.iterations(options, size, common.LARGE_MESSAGE_BYTES, 100, 20)
        buffers.prepare(size, rank)
        elapsed_ns = buffers.windows(size, options.window, count,
                                     common.skip(options, size, common.LARGE_MESSAGE_BYTES, 10, 2))
        if not root:
            common.check_bytes(backend, buffers.receive_device, size, peer, f"bw size {size}")
        report.row(size, [size * count * options.window / 1e6 / (elapsed_ns / 1e9)])
    buffers.release()


def main(comm, mpi, backend, options, report):
    {"latency": latency, "bw": bandwidth}[options.mode](comm, mpi, backend, options, report)


if __name__ == "__main__":
    sys.exit(common.run(PROGRAM, __doc__, ("latency", "bw"), sys.argv[1:], main))
