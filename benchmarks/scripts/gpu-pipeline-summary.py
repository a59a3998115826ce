#!/usr/bin/env python3
"""Summarise the raw outputs of benchmarks/scripts/gpu-pipeline.sh as one markdown table, with the targets of the
stage pipeline as verdicts.

Usage:
  gpu-pipeline-summary.py RAWDIR [--trace TRACE.json]

RAWDIR holds MODE-WHO-KIND.txt, MODE mps or nomps, WHO ours, default (the Default peer: CuPy + D2H + Open MPI on host
+ H2D) or ipc (the CUDA IPC copy peer), KIND latency-small, latency-large, bw or halo, in the OMB format of our
programs; mps-ours-trace-N.txt and mps-ours-notrace-N.txt, the 4 MiB latency with and without --trace; and, where
present, context.txt (lines printed under the title) and steps.tsv (name, exit status, seconds, limit of each step).
A figure that is missing (a step that failed, timed out or was left out) is shown as n/a and its verdict too.

Targets of ours (--targets staged, the default: ours ran the stage pipeline): device-to-device one-way latency
<= 40 us at 256 KiB and <= 150 us at 4 MiB; bandwidth >= 25,000 MB/s at 4 MiB; 8 B latency no higher than the Default
peer's; every halo face in at most half the Default peer's time. With --targets one-sided (ours ran the one-sided path
of one node, CUDA IPC): <= 10 us at 8 B, <= 20 us at 256 KiB, <= 25 us at 4 MiB, 64 MiB at >= 1 TB/s (<= 67.1 us);
bandwidth >= 200,000 MB/s at 4 MiB; every halo face in at most a quarter of the Default peer's time. Both: no cliff
from 1 MiB to 64 MiB (no doubling of the size more than triples the time); the stage trace costs at most 3% of the
4 MiB latency. The stream-wire table keeps the staged targets.
"""
import argparse
import json
import os
import statistics
import sys

MODES = (("mps", "MPS"), ("nomps", "no MPS"))
PEERS = (("ours", "ours"), ("default", "Default"), ("ipc", "IPC copy"))
KIB = 1024
MIB = 1024 * 1024
LATENCY_SIZES = (8, 256 * KIB, 1 * MIB, 4 * MIB, 16 * MIB, 64 * MIB)
BANDWIDTH_SIZE = 4 * MIB
CLIFF_FROM, CLIFF_TO, CLIFF_FACTOR = 1 * MIB, 64 * MIB, 3.0
GRIDS = (128, 256)
FACES = ("X", "Y", "Z")
TRACE_OVERHEAD = 0.03
TARGETS = {
    "staged": {"latency": {256 * KIB: 40.0, 4 * MIB: 150.0}, "bandwidth": 25_000, "halo": 2},
    "one-sided": {"latency": {8: 10.0, 256 * KIB: 20.0, 4 * MIB: 25.0, 64 * MIB: 67.1}, "bandwidth": 200_000,
                  "halo": 4},
}


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("raw", help="the folder of raw outputs")
    parser.add_argument("--trace", help="the stage trace of the 4 MiB latency run (Chrome trace JSON)")
    parser.add_argument("--targets", choices=sorted(TARGETS), default="staged",
                        help="the path ours ran and whose targets the verdicts use")
    return parser.parse_args(argv)


def numbers(line):
    try:
        return [float(field) for field in line.split()]
    except ValueError:
        return None


def omb_table(path):
    """{size: [values]} of an OMB table: the rows that are not comments and hold numbers only."""
    table = {}
    if not os.path.exists(path):
        return table
    with open(path, encoding="utf-8", errors="replace") as source:
        for line in source:
            row = numbers(line) if not line.startswith("#") else None
            if row and len(row) >= 2:
                table[int(row[0])] = row[1:]
    return table


def halo_table(path):
    """{(face, grid): average one-way us} of a halo table: '# Face X: ...' then 'grid bytes avg ...' rows."""
    table, face = {}, None
    if not os.path.exists(path):
        return table
    with open(path, encoding="utf-8", errors="replace") as source:
        for line in source:
            fields = line.split()
            if line.startswith("# Face ") and len(fields) >= 3:
                face = fields[2].rstrip(":")
            elif not line.startswith("#") and face is not None:
                row = numbers(line)
                if row and len(row) >= 3:
                    table[face, int(row[0])] = row[2]
    return table


class Results:
    def __init__(self, raw):
        self.raw = raw

    def path(self, mode, who, kind):
        return os.path.join(self.raw, f"{mode}-{who}-{kind}.txt")

    def latency(self, mode, who):
        table = omb_table(self.path(mode, who, "latency-small"))
        table.update(omb_table(self.path(mode, who, "latency-large")))
        return {size: values[0] for size, values in table.items()}

    def bandwidth(self, mode, who):
        return {size: values[0] for size, values in omb_table(self.path(mode, who, "bw")).items()}

    def halo(self, mode, who):
        return halo_table(self.path(mode, who, "halo"))

    def rounds(self, name):
        """The 4 MiB averages of the rounds mps-ours-NAME-N.txt, in round order."""
        values, round_number = [], 1
        while os.path.exists(os.path.join(self.raw, f"mps-ours-{name}-{round_number}.txt")):
            row = omb_table(os.path.join(self.raw, f"mps-ours-{name}-{round_number}.txt")).get(4 * MIB)
            if row:
                values.append(row[0])
            round_number += 1
        return values


def size_name(size):
    if size >= MIB:
        return f"{size // MIB} MiB"
    if size >= KIB:
        return f"{size // KIB} KiB"
    return f"{size} B"


def us(value):
    return "n/a" if value is None else f"{value:.2f}"


def mbs(value):
    return "n/a" if value is None else f"{value:,.0f}"


def verdict(ok, detail=""):
    if ok is None:
        return "n/a"
    return ("met" if ok else "**missed**") + (f" ({detail})" if detail else "")


def at_most(value, limit):
    return None if value is None else value <= limit


def cliff(latency):
    """The largest ratio of time between a size and its half from CLIFF_FROM to CLIFF_TO, and where: (ratio, size)
    or None when no two such sizes were measured."""
    worst = None
    size = CLIFF_FROM
    while size * 2 <= CLIFF_TO:
        low, high = latency.get(size), latency.get(size * 2)
        if low and high:
            ratio = high / low
            if worst is None or ratio > worst[0]:
                worst = (ratio, size)
        size *= 2
    return worst


def cliff_text(worst):
    if worst is None:
        return "n/a"
    ratio, size = worst
    return f"{ratio:.2f}x at {size_name(size)} to {size_name(2 * size)}"


def rows(results, goal=TARGETS["staged"]):
    """The table's rows: (measure, target, {mode: ([cells of ours, Default, IPC copy], verdict)})."""
    latency = {(mode, who): results.latency(mode, who) for mode, _ in MODES for who, _ in PEERS}
    bandwidth = {(mode, who): results.bandwidth(mode, who) for mode, _ in MODES for who, _ in PEERS}
    halo = {(mode, who): results.halo(mode, who) for mode, _ in MODES for who, _ in PEERS}
    table = []
    limits = goal["latency"]
    targets = {size: f"<= {limit:g} us" for size, limit in limits.items()}
    targets.setdefault(8, "<= Default's")
    for size in LATENCY_SIZES:
        cells = {}
        for mode, _ in MODES:
            values = [latency[mode, who].get(size) for who, _ in PEERS]
            if size == 8 and size not in limits:
                ok = None if None in values[:2] else values[0] <= values[1]
                detail = "" if ok is None else f"{values[0] / values[1]:.2f}x Default"
            else:
                limit = limits.get(size)
                ok, detail = (at_most(values[0], limit), "") if limit else (None, "")
            cells[mode] = ([us(v) for v in values], verdict(ok, detail) if size in targets else "")
        table.append((f"D-D one-way latency, {size_name(size)} (us)", targets.get(size, ""), cells))
    cells = {}
    for mode, _ in MODES:
        values = [bandwidth[mode, who].get(BANDWIDTH_SIZE) for who, _ in PEERS]
        ok = None if values[0] is None else values[0] >= goal["bandwidth"]
        cells[mode] = ([mbs(v) for v in values], verdict(ok))
    table.append((f"D-D bandwidth, {size_name(BANDWIDTH_SIZE)}, window 64 (MB/s)", f">= {goal['bandwidth']:,} MB/s",
                  cells))
    cells = {}
    for mode, _ in MODES:
        worst = [cliff(latency[mode, who]) for who, _ in PEERS]
        ok = None if worst[0] is None else worst[0][0] <= CLIFF_FACTOR
        cells[mode] = ([cliff_text(w) for w in worst], verdict(ok))
    table.append((f"no cliff: largest time ratio of a size doubling, {size_name(CLIFF_FROM)} to "
                  f"{size_name(CLIFF_TO)}", "each <= 3x", cells))
    for grid in GRIDS:
        for face in FACES:
            cells = {}
            for mode, _ in MODES:
                mine, theirs = halo[mode, "ours"].get((face, grid)), halo[mode, "default"].get((face, grid))
                ok = None if mine is None or theirs is None else mine <= theirs / goal["halo"]
                detail = "" if ok is None else f"{mine / theirs:.2f}x Default"
                cells[mode] = ([us(mine), us(theirs), "-"], verdict(ok, detail))
            table.append((f"halo {grid}^3 face {face}, one way (us)", f"<= 1/{goal['halo']} Default's", cells))
    return table


def stream_rows(results):
    """Ours on the stream wire: [(measure, target, {mode: (value, verdict)})]."""
    table = []
    for size in (256 * KIB, 1 * MIB, 4 * MIB, 16 * MIB, 64 * MIB):
        cells = {}
        for mode, _ in MODES:
            value = results.latency(mode, "stream").get(size)
            limit = {256 * KIB: 40.0, 4 * MIB: 150.0}.get(size)
            cells[mode] = (us(value), verdict(at_most(value, limit)) if limit else "")
        target = {256 * KIB: "<= 40 us", 4 * MIB: "<= 150 us"}.get(size, "")
        table.append((f"D-D one-way latency, {size_name(size)} (us)", target, cells))
    cells = {}
    for mode, _ in MODES:
        value = results.bandwidth(mode, "stream").get(BANDWIDTH_SIZE)
        cells[mode] = (mbs(value), verdict(None if value is None else value >= 25_000))
    table.append((f"D-D bandwidth, {size_name(BANDWIDTH_SIZE)}, window 64 (MB/s)", ">= 25,000 MB/s", cells))
    return table


def trace_row(results):
    traced, plain = results.rounds("trace"), results.rounds("notrace")
    if not traced or not plain:
        return None
    with_trace, without = statistics.median(traced), statistics.median(plain)
    overhead = with_trace / without - 1
    rounds = ", ".join(f"{t:.2f} / {p:.2f}" for t, p in zip(traced, plain))
    return (f"4 MiB latency with --trace / without: {with_trace:.2f} / {without:.2f} us, medians of "
            f"{len(traced)} / {len(plain)} rounds ({rounds}): {overhead * 100:+.1f}%, target <= "
            f"{TRACE_OVERHEAD * 100:.0f}%: {verdict(overhead <= TRACE_OVERHEAD)}")


def trace_summary(path):
    """A line per stage of the trace: events, median duration and bytes of a chunk."""
    if not path or not os.path.exists(path):
        return [f"no stage trace at {path}"] if path else []
    try:
        with open(path, encoding="utf-8") as source:
            trace = json.load(source)
    except (OSError, ValueError) as failure:
        return [f"stage trace {path} could not be read: {failure}"]
    stages = {}
    for event in trace.get("traceEvents", []):
        if event.get("ph") == "X":
            stages.setdefault(event.get("name"), []).append(event)
    lines = [f"stage trace {os.path.basename(path)}: {os.path.getsize(path):,} bytes, "
             f"{sum(len(events) for events in stages.values()):,} stage events"]
    for name, events in stages.items():
        chunk_bytes = statistics.median(event.get("args", {}).get("bytes", 0) for event in events)
        lines.append(f"  {name}: {len(events):,} events, median {statistics.median(e['dur'] for e in events):.1f} us "
                     f"for a chunk of {chunk_bytes:,.0f} B")
    for key, value in trace.get("otherData", {}).items():
        lines.append(f"  {key}: {value}")
    return lines


def steps(raw):
    path = os.path.join(raw, "steps.tsv")
    if not os.path.exists(path):
        return []
    lines = []
    with open(path, encoding="utf-8") as source:
        for line in source:
            fields = line.rstrip("\n").split("\t")
            if len(fields) >= 4 and fields[1] != "0":
                status = {"124": "stopped at its time limit", "137": "killed at its time limit",
                          "skipped": "left out: no time left"}.get(fields[1], f"exit status {fields[1]}")
                lines.append(f"- {fields[0]}: {status} ({fields[2]} s, limit {fields[3]} s)")
    return lines


def main(argv):
    arguments = parse_arguments(argv)
    results = Results(arguments.raw)
    out = [f"# Stage pipeline, device to device, on the GPU machine", ""]
    context = os.path.join(arguments.raw, "context.txt")
    if os.path.exists(context):
        with open(context, encoding="utf-8", errors="replace") as source:
            out += [f"- {line.rstrip()}" for line in source if line.strip()]
        out.append("")
    header = ["measure", "target"]
    for _, mode_name in MODES:
        header += [f"{peer_name}, {mode_name}" for _, peer_name in PEERS] + [f"verdict, {mode_name}"]
    out.append("| " + " | ".join(header) + " |")
    out.append("| --- | --- |" + (" ---: | ---: | ---: | --- |" * len(MODES)))
    for measure, target, cells in rows(results, TARGETS[arguments.targets]):
        line = [measure, target]
        for mode, _ in MODES:
            values, mode_verdict = cells[mode]
            line += values + [mode_verdict]
        out.append("| " + " | ".join(line) + " |")
    out.append("")
    out.append("ours: `stagecoach run -n 2` with latency, bw and halo D D from the bundle; Default: "
               "benchmarks/peers/cupy_default_p2p.py (CuPy pack + D2H + Open MPI on host + H2D + unpack); IPC copy: "
               "benchmarks/peers/cupy_ipc_p2p.py (cudaMemcpyAsync into the peer's buffer opened through CUDA IPC + a "
               "1-byte MPI message). One-way = half the round trip (average); MB/s = 10^6 B/s; halo faces of n^3 float "
               "grids; iterations as the settings line above says.")
    out += ["", "Ours with the stream wire forced (STAGECOACH_PIPELINE_WIRE=stream: each packed chunk crosses Aeron "
            "as DATA into a pinned slot of the receiver, the path two nodes take):", ""]
    out.append("| measure | target | " + " | ".join(f"ours stream, {name} | verdict, {name}" for _, name in MODES) +
               " |")
    out.append("| --- | --- |" + (" ---: | --- |" * len(MODES)))
    for measure, target, cells in stream_rows(results):
        out.append("| " + " | ".join([measure, target] + [c for mode, _ in MODES for c in cells[mode]]) + " |")
    overhead = trace_row(results)
    out += ["", overhead if overhead else "4 MiB latency with and without --trace: n/a (no rounds measured)"]
    trace = trace_summary(arguments.trace)
    if trace:
        out += ["", "```"] + trace + ["```"]
    failed = steps(arguments.raw)
    if failed:
        out += ["", "Steps without a full result:"] + failed
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
