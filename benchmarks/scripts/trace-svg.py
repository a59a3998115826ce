#!/usr/bin/env python3
"""Draw a stage trace as an SVG timeline.

Reads the Chrome trace JSON that `stagecoach run --trace FILE` writes and draws one lane per rank and track
(PACK, D2H, WIRE, H2D, UNPACK, GET, and the extra lanes of a stage whose chunks overlap), a bar per chunk coloured by
stage and labelled with its chunk number, a time axis in microseconds, a legend and a title. Hovering over a bar
shows its rank, stage, chunk, transfer, start, duration and bytes. Standard library only.

Usage:
  trace-svg.py TRACE.json [-o OUT.svg] [--transfer ID] [--from US] [--to US] [--width PX] [--title TEXT]

--transfer keeps the events of one transfer; --from and --to keep a time window (microseconds, as the trace's
"ts"), clipping bars at its edges. Exits with 1, saying why, when nothing is left to draw.
"""

import argparse
import json
import math
import sys
from xml.sax.saxutils import escape, quoteattr

STAGES = ["PACK", "D2H", "WIRE", "H2D", "UNPACK", "GET"]
COLOURS = {"PACK": "#4e79a7", "D2H": "#f28e2b", "WIRE": "#59a14f", "H2D": "#e15759", "UNPACK": "#b07aa1",
           "GET": "#76b7b2"}
OTHER_COLOUR = "#9c755f"
LANE_HEIGHT = 22
BAR_HEIGHT = 16
RANK_GAP = 12
LABEL_WIDTH = 150
RIGHT_MARGIN = 30
TOP = 58
AXIS_HEIGHT = 46
LEGEND_HEIGHT = 30
FONT = "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description="Draw a stage trace (Chrome trace JSON) as an SVG timeline.")
    parser.add_argument("trace", help="the trace, as written by stagecoach run --trace")
    parser.add_argument("-o", "--output", help="the SVG to write (default: the trace's name with .svg)")
    parser.add_argument("--transfer", type=int, help="draw only the events of this transfer")
    parser.add_argument("--from", dest="start", type=float, help="start of the window, in microseconds")
    parser.add_argument("--to", dest="end", type=float, help="end of the window, in microseconds")
    parser.add_argument("--width", type=int, default=1200, help="width of the picture in pixels (1200)")
    parser.add_argument("--title", help="title (default: the trace's file name)")
    return parser.parse_args(argv)


def load(path):
    with open(path, encoding="utf-8") as source:
        trace = json.load(source)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    other = trace.get("otherData", {}) if isinstance(trace, dict) else {}
    return events, other


def metadata(events):
    names, order = {}, {}
    for event in events:
        if event.get("ph") != "M":
            continue
        key = (event.get("pid"), event.get("tid")) if event["name"].startswith("thread") else (event.get("pid"),)
        args = event.get("args", {})
        if event["name"] in ("process_name", "thread_name"):
            names[key] = args.get("name", "")
        elif event["name"] in ("process_sort_index", "thread_sort_index"):
            order[key] = args.get("sort_index", 0)
    return names, order


def slices(events, options):
    kept = []
    for event in events:
        if event.get("ph") != "X":
            continue
        start, end = float(event["ts"]), float(event["ts"]) + float(event.get("dur", 0))
        if options.transfer is not None and event.get("args", {}).get("transfer") != options.transfer:
            continue
        if (options.start is not None and end < options.start) or (options.end is not None and start > options.end):
            continue
        kept.append(event)
    return kept


def lanes(kept, names, order):
    keys = sorted({(event["pid"], event["tid"]) for event in kept},
                  key=lambda key: (order.get((key[0],), key[0]), key[0], order.get(key, key[1]), key[1]))
    rows, y, previous_pid = {}, TOP, None
    for key in keys:
        if previous_pid is not None and key[0] != previous_pid:
            y += RANK_GAP
        rows[key] = y
        y += LANE_HEIGHT
        previous_pid = key[0]
    return keys, rows, y


def nice_step(span, ticks=8):
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    for multiple in (1, 2, 5, 10):
        if raw <= multiple * power:
            return multiple * power
    return 10 * power


def label_number(value):
    return ("%.3f" % value).rstrip("0").rstrip(".")


class Picture:
    def __init__(self, width, start, end):
        self.width = width
        self.start = start
        self.end = end if end > start else start + 1
        self.parts = []

    def x(self, time):
        usable = self.width - LABEL_WIDTH - RIGHT_MARGIN
        return LABEL_WIDTH + (time - self.start) / (self.end - self.start) * usable

    def add(self, text):
        self.parts.append(text)

    def text(self, x, y, content, size=12, anchor="start", weight="normal", fill="#222"):
        self.add('<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s" font-weight="%s" fill="%s" %s>%s</text>'
                 % (x, y, size, anchor, weight, fill, FONT, escape(str(content))))


def draw_lanes(picture, keys, rows, names):
    previous_pid = None
    for index, key in enumerate(keys):
        y = rows[key]
        fill = "#f4f4f4" if index % 2 == 0 else "#ffffff"
        picture.add('<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>'
                    % (LABEL_WIDTH, y, picture.width - LABEL_WIDTH - RIGHT_MARGIN, LANE_HEIGHT, fill))
        if key[0] != previous_pid:
            picture.text(8, y + 15, names.get((key[0],), "pid %s" % key[0]), weight="bold")
        picture.text(LABEL_WIDTH - 8, y + 15, names.get(key, "tid %s" % key[1]), anchor="end")
        previous_pid = key[0]


def draw_bars(picture, kept, rows, names):
    for event in sorted(kept, key=lambda event: float(event["ts"])):
        start = max(float(event["ts"]), picture.start)
        end = min(float(event["ts"]) + float(event.get("dur", 0)), picture.end)
        x0, x1 = picture.x(start), picture.x(end)
        y = rows[(event["pid"], event["tid"])] + (LANE_HEIGHT - BAR_HEIGHT) / 2
        args = event.get("args", {})
        tip = "%s %s chunk %s (transfer %s): start %s us, %s us, %s bytes, device %s" % (
            names.get((event["pid"],), event["pid"]), event["name"], args.get("chunk"), args.get("transfer"),
            label_number(float(event["ts"])), label_number(float(event.get("dur", 0))), args.get("bytes"),
            args.get("device"))
        picture.add('<rect class="bar" x="%.2f" y="%.1f" width="%.2f" height="%d" fill="%s" stroke="#ffffff" '
                    'stroke-width="0.5"><title>%s</title></rect>'
                    % (x0, y, max(x1 - x0, 0.5), BAR_HEIGHT, COLOURS.get(event["name"], OTHER_COLOUR), escape(tip)))
        if x1 - x0 >= 14 and "chunk" in args:
            picture.text((x0 + x1) / 2, y + 12, args["chunk"], size=10, anchor="middle", fill="#ffffff")


def draw_axis(picture, bottom):
    picture.add('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#444"/>'
                % (LABEL_WIDTH, bottom, picture.width - RIGHT_MARGIN, bottom))
    step = nice_step(picture.end - picture.start)
    tick = math.ceil(picture.start / step) * step
    while tick <= picture.end + step * 1e-9:
        x = picture.x(tick)
        picture.add('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#444"/>' % (x, bottom, x, bottom + 5))
        picture.add('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#dddddd" stroke-dasharray="2,3"/>'
                    % (x, TOP, x, bottom))
        picture.text(x, bottom + 18, label_number(tick), size=11, anchor="middle")
        tick += step
    picture.text((LABEL_WIDTH + picture.width - RIGHT_MARGIN) / 2, bottom + 36, "time (us)", size=12,
                 anchor="middle")


def draw_legend(picture, kept, y):
    present = {event["name"] for event in kept}
    x = LABEL_WIDTH
    for stage in STAGES + sorted(present - set(STAGES)):
        if stage not in present:
            continue
        picture.add('<rect x="%d" y="%d" width="14" height="14" fill="%s"/>'
                    % (x, y, COLOURS.get(stage, OTHER_COLOUR)))
        picture.text(x + 20, y + 12, stage)
        x += 30 + 9 * len(stage)


def subtitle(kept, options, other):
    parts = ["%d stage events" % len(kept)]
    if options.transfer is not None:
        parts.append("transfer %d" % options.transfer)
    if options.start is not None or options.end is not None:
        parts.append("window %s to %s us" % (label_number(options.start or 0.0),
                                              "end" if options.end is None else label_number(options.end)))
    if other.get("program"):
        parts.append(other["program"])
    if other.get("droppedRecords") not in (None, "0"):
        parts.append("%s records dropped" % other["droppedRecords"])
    return "; ".join(parts)


def draw(options):
    events, other = load(options.trace)
    names, order = metadata(events)
    kept = slices(events, options)
    if not kept:
        raise SystemExit("trace-svg: no stage events in %s%s" % (options.trace, " after the filters"
                         if options.transfer is not None or options.start is not None or options.end is not None
                         else ""))
    keys, rows, bottom = lanes(kept, names, order)
    start = options.start if options.start is not None else min(float(event["ts"]) for event in kept)
    end = options.end if options.end is not None else max(float(event["ts"]) + float(event.get("dur", 0))
                                                          for event in kept)
    picture = Picture(options.width, start, end)
    height = bottom + AXIS_HEIGHT + LEGEND_HEIGHT
    picture.text(8, 24, options.title or options.trace.split("/")[-1], size=16, weight="bold")
    picture.text(8, 44, subtitle(kept, options, other), size=12, fill="#555")
    draw_lanes(picture, keys, rows, names)
    draw_axis(picture, bottom)
    draw_bars(picture, kept, rows, names)
    draw_legend(picture, kept, bottom + AXIS_HEIGHT + 4)
    header = ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">'
              % (options.width, height, options.width, height))
    return "\n".join(['<?xml version="1.0" encoding="UTF-8"?>', header,
                      '<rect width="100%%" height="100%%" fill="#ffffff"/>'] + picture.parts + ["</svg>", ""])


def main(argv):
    options = parse_arguments(argv)
    svg = draw(options)
    output = options.output or (options.trace[:-5] if options.trace.endswith(".json") else options.trace) + ".svg"
    with open(output, "w", encoding="utf-8") as target:
        target.write(svg)
    print("trace-svg: wrote %s" % output)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
