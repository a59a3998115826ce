#!/usr/bin/env python3
"""Peer of the device benchmark's halo faces: CuPy (and PyTorch when present) making a halo face contiguous.

Faces of n^3 float32 arrays, x fastest (shape (z, y, x)), plane index 0 as in DeviceBenchmark:
  X face a[:, :, 0]  n*n floats, stride n      (our vector(n*n, 1, n))
  Y face a[:, 0, :]  n rows of n floats         (our vector(n, n, n*n))
  Z face a[0, :, :]  contiguous n*n floats      (our contiguous(n*n)); ascontiguousarray returns it without a copy,
                     so the Z row also reports .copy(), which moves the bytes as our pack does.
End to end = wall clock from the call to the end of stream.synchronize(), the counterpart of our pack + event record
+ poll; GPU time = CUDA events around the call. Medians over many runs after a warm-up. The row "8 B copy" (a copy of
two floats) is CuPy's floor, beside our "8 B pack end to end" rows.

usage: cupy_faces.py [--out DIR] [--runs N]
"""
import argparse
import os
import statistics
import sys
import time


def measure(make, synchronize, runs):
    for _ in range(100):
        make()
    synchronize()
    samples = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        make()
        synchronize()
        samples.append(time.perf_counter_ns() - start)
    samples.sort()
    return statistics.median(samples) / 1000.0, samples[int(0.9 * (len(samples) - 1))] / 1000.0


def gpu_time(cp, make, runs):
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(min(runs, 500)):
        start.record()
        make()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) * 1000.0)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="folder for cupy-faces.txt")
    parser.add_argument("--runs", type=int, default=3000)
    args = parser.parse_args()

    rows = []

    def row(line):
        rows.append(line)
        print(line, flush=True)

    import cupy as cp
    stream = cp.cuda.get_current_stream()
    device = cp.cuda.Device(0)
    name = cp.cuda.runtime.getDeviceProperties(device.id)["name"].decode()
    row(f"# cupy {cp.__version__} on {name}")
    row(f"{'face':44s} {'median us':>10s} {'p90 us':>10s} {'gpu us':>10s} {'runs':>8s}")
    for n in (128, 256):
        a = cp.random.random((n, n, n), dtype=cp.float32)
        faces = {"X": a[:, :, 0], "Y": a[:, 0, :], "Z": a[0, :, :]}
        for label, face in faces.items():
            kib = 4 * n * n // 1024
            make = (lambda f=face: cp.ascontiguousarray(f))
            median, p90 = measure(make, stream.synchronize, args.runs)
            gpu = gpu_time(cp, make, args.runs)
            row(f"{f'{n}^3 {label} face ({kib} KiB) ascontiguousarray':44s} {median:10.2f} {p90:10.2f} "
                f"{gpu:10.2f} {args.runs:8d}")
            if label == "Z":
                make = (lambda f=face: f.copy())
                median, p90 = measure(make, stream.synchronize, args.runs)
                gpu = gpu_time(cp, make, args.runs)
                row(f"{f'{n}^3 {label} face ({kib} KiB) copy':44s} {median:10.2f} {p90:10.2f} "
                    f"{gpu:10.2f} {args.runs:8d}")
        del a, faces
    tiny = cp.random.random(2, dtype=cp.float32)
    make = (lambda: tiny.copy())
    median, p90 = measure(make, stream.synchronize, args.runs)
    gpu = gpu_time(cp, make, args.runs)
    row(f"{'8 B copy':44s} {median:10.2f} {p90:10.2f} {gpu:10.2f} {args.runs:8d}")

    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        row("")
        row(f"# torch {torch.__version__}: .contiguous() (.clone() for Z), end to end with torch.cuda.synchronize()")
        for n in (128, 256):
            t = torch.rand((n, n, n), dtype=torch.float32, device="cuda")
            faces = {"X": t[:, :, 0], "Y": t[:, 0, :], "Z": t[0, :, :]}
            for label, face in faces.items():
                kib = 4 * n * n // 1024
                make = (lambda f=face: f.clone()) if label == "Z" else (lambda f=face: f.contiguous())
                median, p90 = measure(make, torch.cuda.synchronize, args.runs)
                row(f"{f'{n}^3 {label} face ({kib} KiB) torch':44s} {median:10.2f} {p90:10.2f} {'':>10s} "
                    f"{args.runs:8d}")

    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "cupy-faces.txt"), "w") as out:
            out.write("\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
