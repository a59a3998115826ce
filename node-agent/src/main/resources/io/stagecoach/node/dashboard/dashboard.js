// The stage-tracing dashboard: reads a job's updates (Server-Sent Events) and draws them. No library.
"use strict";

const COLOURS = { PACK: "#1f77b4", D2H: "#ff7f0e", WIRE: "#2ca02c", H2D: "#d62728", UNPACK: "#9467bd", GET: "#8c564b" };
const MAX_BARS = 60000;
const LANE_PX = 28;
const MAX_SUBLANES = 4;
const LABEL_PX = 120;
const AXIS_PX = 22;
const JOB_LIST_PERIOD_MS = 3000;

const state = {
  job: null, picked: false, source: null, stageNames: [], lanes: [], bars: [], lastUs: 0, nowUs: 0,
  follow: true, spanUs: 100000, endUs: 0, dirty: true, drawn: 0, subLaneEnds: new Map(), subLanesUsed: new Map(),
};

const $ = (id) => document.getElementById(id);

function formatBytes(bytes) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes, unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit++; }
  return (unit === 0 ? value : value.toFixed(1)) + " " + units[unit];
}

function formatUs(us) {
  if (Math.abs(us) >= 1e6) return (us / 1e6).toFixed(3) + " s";
  if (Math.abs(us) >= 1e3) return (us / 1e3).toFixed(3) + " ms";
  return us.toFixed(1) + " µs";
}

function row(cells) {
  const tr = document.createElement("tr");
  cells.forEach((cell, i) => {
    const td = document.createElement(i === 0 ? "th" : "td");
    if (i === 0) td.scope = "row";
    if (cell instanceof Node) td.appendChild(cell); else td.textContent = cell;
    tr.appendChild(td);
  });
  return tr;
}

function fillTable(id, rows) {
  const body = $(id).querySelector("tbody");
  body.replaceChildren(...rows);
}

function laneKey(rank, stage) { return rank * 16 + stage; }

// Chunks of one stage overlap when several are in flight: each bar goes to the first sub-lane of its lane that is
// free when it starts (at most MAX_SUBLANES, then the one that frees first), as the Chrome export's tracks do.
function placeBar(bar) {
  const key = laneKey(bar[0], bar[1]);
  let ends = state.subLaneEnds.get(key);
  if (!ends) { ends = []; state.subLaneEnds.set(key, ends); }
  const start = bar[4], end = bar[4] + bar[5];
  let sub = ends.findIndex((laneEnd) => laneEnd <= start);
  if (sub < 0 && ends.length < MAX_SUBLANES) sub = ends.length;
  if (sub < 0) sub = ends.indexOf(Math.min(...ends));
  ends[sub] = Math.max(ends[sub] || 0, end);
  state.subLanesUsed.set(key, Math.max(state.subLanesUsed.get(key) || 1, sub + 1));
  bar.push(sub);
  return bar;
}

function onFrame(frame) {
  state.stageNames = frame.stageNames;
  state.lanes = frame.lanes.slice().sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  for (const bar of frame.bars) state.bars.push(placeBar(bar));
  if (state.bars.length > MAX_BARS) state.bars.splice(0, state.bars.length - MAX_BARS);
  state.lastUs = frame.lastUs;
  state.nowUs = frame.nowUs;
  state.dirty = true;
  setStatus(`${frame.program}, ${frame.size} ranks, ${frame.state}`);
  $("events").textContent = `(${frame.counters.records.toLocaleString()} stage events)`;
  const nodes = frame.nodes || {};
  const rankText = (r) => nodes[r] === undefined ? `rank ${r}` : `rank ${r} (${nodes[r]})`;
  const lanesText = [];
  let rank = -1, names = [];
  for (const [r, s] of state.lanes) {
    if (r !== rank) { if (names.length) lanesText.push(`${rankText(rank)}: ${names.join(", ")}`); rank = r; names = []; }
    names.push(state.stageNames[s]);
  }
  if (names.length) lanesText.push(`${rankText(rank)}: ${names.join(", ")}`);
  $("lanes").textContent = lanesText.length ? lanesText.join("; ") : "none yet";
  $("lanes").dataset.lanes = state.lanes.map(([r, s]) => `${r}:${state.stageNames[s]}`).join(" ");
  updateSampling(frame.counters);
  updateFlights(frame.flights);
  updateLinks(frame.links, frame.windowS);
  updateStages(frame.stages);
  updateCounters(frame.counters);
  $("export-kept").textContent = frame.counters.exportKept.toLocaleString();
}

// The status line is a live region: it changes only when the job's state does, not at every update.
function setStatus(text) {
  if ($("status").textContent !== text) $("status").textContent = text;
}

function updateSampling(c) {
  const notice = $("sampling");
  const parts = [];
  if (c.sampledOut > 0) {
    parts.push(`Stage events arrive faster than this page can draw them (at most ${c.maxBarsPerSecond.toLocaleString()} ` +
      `bars a second): the server keeps 1 of every ${c.stride} for the timeline now, and has passed over ` +
      `${c.sampledOut.toLocaleString()} of ${c.records.toLocaleString()} so far. The tables count every event.`);
  }
  if (c.skippedForView > 0) parts.push(`This view skipped ${c.skippedForView.toLocaleString()} bars it fell behind on.`);
  if (c.droppedByRanks > 0) {
    parts.push(`The ranks dropped ${c.droppedByRanks.toLocaleString()} events that found their live ring full.`);
  }
  if (c.exportOverwritten > 0) {
    parts.push(`The download keeps the newest ${c.exportKept.toLocaleString()} events ` +
      `(${c.exportOverwritten.toLocaleString()} older ones are gone).`);
  }
  notice.hidden = parts.length === 0;
  notice.textContent = parts.join(" ");
}

function updateFlights(flights) {
  fillTable("paths", Object.entries(flights.byPath).map(([path, [now, ended]]) => row([path, now, ended])));
  fillTable("flights", flights.rows.map((f) => {
    const bar = document.createElement("progress");
    bar.max = 100; bar.value = f.progress; bar.textContent = f.progress + "%";
    bar.setAttribute("aria-label", `${f.progress}% of ${f.chunks} chunks`);
    const cell = document.createElement("span");
    cell.append(bar, ` ${f.progress}%`);
    return row([String(f.rank), f.receiving ? "receiving" : "sending", String(f.peer), f.path,
      formatBytes(f.bytes), cell, f.ageMs + " ms"]);
  }));
}

function updateLinks(links, windowS) {
  $("rate-window").textContent = windowS;
  fillTable("links", links.map((l) => {
    const tr = row([String(l.from), String(l.to), l.mbPerS.toFixed(2), l.avgMbPerS.toFixed(2), formatBytes(l.bytes),
      l.messages.toLocaleString()]);
    tr.dataset.from = l.from; tr.dataset.to = l.to; tr.dataset.mbPerS = l.mbPerS;
    tr.children[2].className = "rate";
    tr.children[3].className = "average";
    return tr;
  }));
}

function updateStages(stages) {
  fillTable("stages", stages.map((s) => {
    const tr = row([s.stage, s.count.toLocaleString(), s.share.toFixed(1) + " %", formatUs(s.meanUs), formatUs(s.p99Us)]);
    tr.dataset.stage = s.stage;
    return tr;
  }));
}

function updateCounters(c) {
  const names = {
    records: "stage events received", transferRecords: "transfer events received", barsKept: "bars kept for drawing",
    sampledOut: "events sampled out of the timeline", droppedByRanks: "events dropped by the ranks (live ring full)",
    skippedForView: "bars this view skipped", invalid: "invalid events", untrackedFlights: "transfers not followed",
    exportKept: "events kept for the download", exportOverwritten: "events too old for the download",
  };
  const list = $("counters");
  list.replaceChildren();
  for (const [key, label] of Object.entries(names)) {
    const dt = document.createElement("dt"); dt.textContent = label;
    const dd = document.createElement("dd"); dd.textContent = c[key].toLocaleString(); dd.id = "counter-" + key;
    list.append(dt, dd);
  }
}

function draw() {
  requestAnimationFrame(draw);
  if (!state.dirty) return;
  state.dirty = false;
  const canvas = $("timeline");
  const width = canvas.clientWidth;
  const height = AXIS_PX + Math.max(1, state.lanes.length) * LANE_PX + 4;
  const ratio = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
    canvas.width = Math.round(width * ratio); canvas.height = Math.round(height * ratio);
    canvas.style.height = height + "px";
  }
  const g = canvas.getContext("2d");
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.clearRect(0, 0, width, height);
  if (state.follow) state.endUs = Math.max(state.lastUs, 0);
  const endUs = state.endUs, startUs = endUs - state.spanUs;
  const plot = width - LABEL_PX;
  const x = (us) => LABEL_PX + (us - startUs) / state.spanUs * plot;
  const laneIndex = new Map(state.lanes.map(([r, s], i) => [laneKey(r, s), i]));
  g.font = "12px system-ui, sans-serif";
  g.fillStyle = "#1b1b1b";
  state.lanes.forEach(([r, s], i) => {
    const y = AXIS_PX + i * LANE_PX;
    g.fillStyle = i % 2 ? "#f4f4f4" : "#ffffff";
    g.fillRect(0, y, width, LANE_PX);
    g.fillStyle = "#1b1b1b";
    g.fillText(`rank ${r} ${state.stageNames[s]}`, 4, y + 18);
  });
  drawAxis(g, startUs, endUs, x, width);
  let drawn = 0;
  g.strokeStyle = "#ffffff";
  for (const [rank, stage, , , startBar, durUs, , sub] of state.bars) {
    const endBar = startBar + durUs;
    if (endBar < startUs || startBar > endUs) continue;
    const lane = laneIndex.get(laneKey(rank, stage));
    if (lane === undefined) continue;
    const subLanes = state.subLanesUsed.get(laneKey(rank, stage)) || 1;
    const barPx = (LANE_PX - 4) / subLanes;
    const x0 = Math.max(LABEL_PX, x(startBar)), x1 = Math.min(width, x(endBar));
    const y = AXIS_PX + lane * LANE_PX + 2 + sub * barPx;
    g.fillStyle = COLOURS[state.stageNames[stage]] || "#555";
    g.fillRect(x0, y, Math.max(1, x1 - x0), barPx - 1);
    if (x1 - x0 > 4) g.strokeRect(x0 + 0.5, y + 0.5, x1 - x0 - 1, barPx - 2);
    drawn++;
  }
  state.drawn = drawn;
  $("bars-drawn").textContent = drawn;
  const newest = state.bars.length ? state.bars[state.bars.length - 1] : null;
  $("last-bar-end").textContent = newest ? formatUs(newest[4] + newest[5]) : "–";
  $("last-bar-end").dataset.us = newest ? newest[4] + newest[5] : "";
  $("window").textContent = formatUs(state.spanUs);
  $("window").dataset.us = state.spanUs;
}

function drawAxis(g, startUs, endUs, x, width) {
  const span = endUs - startUs;
  const step = Math.pow(10, Math.floor(Math.log10(span / 5)));
  const tick = span / step > 25 ? step * 5 : span / step > 10 ? step * 2 : step;
  g.strokeStyle = "#c8c8c8"; g.fillStyle = "#595959";
  for (let t = Math.ceil(startUs / tick) * tick; t <= endUs; t += tick) {
    const px = x(t);
    g.beginPath(); g.moveTo(px, AXIS_PX - 4); g.lineTo(px, g.canvas.height); g.stroke();
    if (px + 60 < width) g.fillText(formatUs(t), px + 2, 12);
  }
  g.fillStyle = "#1b1b1b";
  g.fillText("time", 4, 12);
}

function setFollow(on) {
  state.follow = on;
  $("follow").setAttribute("aria-pressed", String(on));
  state.dirty = true;
}

function zoom(factor, atFraction = 1) {
  const anchor = state.endUs - state.spanUs * (1 - atFraction);
  state.spanUs = Math.min(6e8, Math.max(1, state.spanUs * factor));
  state.endUs = anchor + state.spanUs * (1 - atFraction);
  if (atFraction !== 1) setFollow(false);
  state.dirty = true;
}

function pan(fraction) {
  setFollow(false);
  state.endUs += state.spanUs * fraction;
  state.dirty = true;
}

function fitAll() {
  if (!state.bars.length) return;
  let first = Infinity, last = -Infinity;
  for (const bar of state.bars) { first = Math.min(first, bar[4]); last = Math.max(last, bar[4] + bar[5]); }
  setFollow(false);
  state.spanUs = Math.max(1, last - first);
  state.endUs = last;
  state.dirty = true;
}

function wire() {
  $("follow").addEventListener("click", () => setFollow(!state.follow));
  $("zoom-in").addEventListener("click", () => zoom(0.5));
  $("zoom-out").addEventListener("click", () => zoom(2));
  $("pan-left").addEventListener("click", () => pan(-0.5));
  $("pan-right").addEventListener("click", () => pan(0.5));
  $("fit").addEventListener("click", fitAll);
  const canvas = $("timeline");
  canvas.addEventListener("wheel", (event) => {
    event.preventDefault();
    const rect = canvas.getBoundingClientRect();
    const fraction = Math.min(1, Math.max(0, (event.clientX - rect.left - LABEL_PX) / (rect.width - LABEL_PX)));
    zoom(event.deltaY < 0 ? 0.8 : 1.25, fraction);
  }, { passive: false });
  let dragX = null;
  canvas.addEventListener("pointerdown", (event) => { dragX = event.clientX; canvas.setPointerCapture(event.pointerId); });
  canvas.addEventListener("pointerup", () => { dragX = null; });
  canvas.addEventListener("pointermove", (event) => {
    if (dragX === null) return;
    const plot = canvas.clientWidth - LABEL_PX;
    pan(-(event.clientX - dragX) / plot);
    dragX = event.clientX;
  });
  canvas.addEventListener("keydown", (event) => {
    const keys = { "+": () => zoom(0.5), "=": () => zoom(0.5), "-": () => zoom(2), ArrowLeft: () => pan(-0.25),
      ArrowRight: () => pan(0.25), f: () => setFollow(true), F: () => setFollow(true) };
    if (keys[event.key]) { event.preventDefault(); keys[event.key](); }
  });
  const legend = $("legend");
  for (const [stage, colour] of Object.entries(COLOURS)) {
    const item = document.createElement("li");
    item.textContent = stage; item.style.setProperty("--swatch", colour);
    legend.appendChild(item);
  }
  $("job").addEventListener("change", () => open($("job").value));
  window.addEventListener("resize", () => { state.dirty = true; });
}

function open(job) {
  if (state.source) state.source.close();
  Object.assign(state, { job, bars: [], lanes: [], lastUs: 0, dirty: true, subLaneEnds: new Map(),
    subLanesUsed: new Map() });
  $("events").textContent = "";
  $("export").href = `api/jobs/${encodeURIComponent(job)}/trace.json`;
  // a dropped connection is retried by the browser, which names the last update it had (its id): the server goes on
  // from there, so the bars already here are not sent again
  const source = new EventSource(`api/jobs/${encodeURIComponent(job)}/events`);
  source.onmessage = (event) => onFrame(JSON.parse(event.data));
  source.onerror = () => setStatus(source.readyState === EventSource.CLOSED ?
    "This job is no longer on the dashboard (it keeps the newest 16), or the page's login ended." :
    "The connection to the dashboard was lost; retrying…");
  state.source = source;
}

// The job list is read again every few seconds: a job submitted after the page opened is added, and shown at once
// unless the viewer picked a job of their own; a job the server forgot is taken off, and the newest shown instead.
async function refreshJobs() {
  let jobs;
  try {
    const response = await fetch("api/jobs", { credentials: "same-origin" });
    if (!response.ok) return;
    ({ jobs } = await response.json());
  } catch (error) {
    return;
  }
  const select = $("job");
  const listed = new Set(jobs);
  for (const option of Array.from(select.options)) if (!listed.has(option.value)) option.remove();
  const known = new Set(Array.from(select.options, (option) => option.value));
  for (const job of jobs) if (!known.has(job)) select.add(new Option(job, job));
  if (state.job !== null && !listed.has(state.job)) state.picked = false;
  const newest = jobs.length ? jobs[jobs.length - 1] : null;
  if (newest !== null && !state.picked && newest !== state.job) {
    select.value = newest;
    open(newest);
  } else if (newest === null && state.job === null) {
    setStatus("No job yet.");
  }
}

function start() {
  wire();
  $("job").addEventListener("change", () => { state.picked = true; });
  requestAnimationFrame(draw);
  refreshJobs();
  setInterval(refreshJobs, JOB_LIST_PERIOD_MS);
}

start();
