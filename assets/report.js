// tracediff report: displays, sorts and filters the numbers tracediff embedded above; it computes
// nothing but Δ, Δ % and the running sums. Hand-written, no library (see README: Report).
"use strict";
window.__tracediffErrors = [];
window.addEventListener("error", (e) => window.__tracediffErrors.push(String(e.message)));
(function () {
  const origError = console.error;
  console.error = function (...args) { window.__tracediffErrors.push(args.map(String).join(" ")); origError.apply(console, args); };
})();

const D = JSON.parse(document.getElementById("report-data").textContent);
const SVGNS = "http://www.w3.org/2000/svg";
const C = { ctl: "#0072B2", tst: "#E69F00", up: "#D55E00", down: "#009E73", sum: "#CC79A7", unk: "#999999" };
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...kids) {
  const e = tag.startsWith("svg:") ? document.createElementNS(SVGNS, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) e.setAttribute(k, v);
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}

// ---- numbers ---------------------------------------------------------------------------------
// Exact microseconds, as the CLI's csv/json: 1500 ns → "1.5".
function us(ns) {
  if (ns === null || ns === undefined) return "–";
  const sign = ns < 0 ? "-" : "", a = Math.abs(ns), whole = Math.floor(a / 1000), frac = a % 1000;
  const w = whole.toLocaleString("en-US");
  return frac === 0 ? sign + w : sign + w + "." + String(frac).padStart(3, "0").replace(/0+$/, "");
}
// Three significant digits with a unit, as the CLI's module table: "1.10 ms".
function dur(ns) {
  if (ns === null || ns === undefined) return "–";
  const a = Math.abs(ns);
  const [d, u] = a >= 1e9 ? [1e9, "s"] : a >= 1e6 ? [1e6, "ms"] : a >= 1e3 ? [1e3, "µs"] : [1, "ns"];
  const v = ns / d;
  const digits = Math.abs(v) >= 100 || d === 1 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
  return v.toFixed(digits) + " " + u;
}
const signed = (s, v) => (v > 0 ? "+" + s : s);
// Δ % against control: "new" / "gone" where one side is 0, as the CLI.
function pctValue(c, t) {
  if (c === null || t === null || c === undefined || t === undefined) return null;
  if (c === 0) return t === 0 ? 0 : Infinity;
  if (t === 0) return -Infinity;
  return ((t - c) / c) * 100;
}
function pctText(p) {
  if (p === null) return "–";
  if (p === Infinity) return "new";
  if (p === -Infinity) return "gone";
  if (p === 0) return "0%";
  return (p > 0 ? "+" : "") + p.toFixed(1) + "%";
}
const signClass = (v) => (v === null || v === 0 || Number.isNaN(v) ? null : v > 0 ? "pos" : "neg");
function bytes(n) {
  if (n === null || n === undefined) return "–";
  const a = Math.abs(n), units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0, v = a;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return (n < 0 ? "-" : "") + (i === 0 ? String(v) : v.toFixed(2)) + " " + units[i];
}

// ---- header and overview -----------------------------------------------------------------------
function header() {
  const dl = $("compared");
  const ov = D.overview || {};
  const plural = (n, word) => `${word}${n === 1 ? "" : "s"}`;
  // Runs of consecutive numbers as the terminal's headers write them: `1009–1014`, `0, 2–3`.
  const ranges = (v) => {
    const runs = [];
    for (const n of v) {
      const last = runs[runs.length - 1];
      if (last && last[1] + 1 === n) last[1] = n; else runs.push([n, n]);
    }
    return runs.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(", ");
  };
  // How many of the side's steps or ranks those are, never set against a step's number.
  const of = (n, available, word) => (available > n ? ` (${n} of ${available} ${word}s)` : "");
  // The tables use the selected steps; the overview summarises the steps it names itself (every
  // step by default), so the header says both when they differ.
  // A side of runs, as the terminal's headers name it: `3 runs × 5 steps` (`3–5 steps` where they differ).
  const runsText = (s) => {
    const lo = Math.min(...s.run_steps), hi = Math.max(...s.run_steps);
    const steps = lo === hi ? `${lo} ${plural(lo, "step")}` : `${lo}–${hi} steps`;
    return `${s.path} — ${s.run_steps.length} runs × ${steps}, ${plural(s.ranks.length, "rank")} ${ranges(s.ranks)}; ` +
      `every value per step: each run's mean over its steps, then the mean over runs; ${s.files.length} ${plural(s.files.length, "file")}`;
  };
  const sideText = (s, i) => {
    if (s.run_steps && s.run_steps.length > 1) return runsText(s);
    const used = [ov.control, ov.test][i];
    const overviewSteps = used && used.steps_used ? used.steps_used : null;
    const tables = s.iterations
      ? `${plural(s.iterations.length, "step")} ${ranges(s.iterations)}${of(s.iterations.length, s.steps_available, "step")}`
      : "no ProfilerStep (whole trace)";
    const sameSteps = overviewSteps && s.iterations && overviewSteps.join(",") === s.iterations.join(",");
    const overviewText = overviewSteps && !sameSteps
      ? `; the overview: ${plural(overviewSteps.length, "step")} ${ranges(overviewSteps)}` : "";
    return `${s.path} — ${plural(s.ranks.length, "rank")} ${ranges(s.ranks)}${of(s.ranks.length, s.ranks_available, "rank")}; ` +
      `the tables and module tree: ${tables}${overviewText}; ${s.files.length} ${plural(s.files.length, "file")}`;
  };
  const add = (k, v) => dl.append(el("dt", {}, k), el("dd", {}, v));
  D.sides.forEach((s, i) => add(`${i === 0 ? "Control" : "Test"} (${s.label})`, sideText(s, i)));
  if (D.sides.some((s) => s.iterations && s.steps_available > s.iterations.length))
    add("Steps", "the tables use the steps named above; tracediff report --iteration all uses every step");
  const devs = [ov.control, ov.test].map((s, i) => (s && s.device_name) ||
    (D.moduleDevice[i] ? "device not named in deviceProperties" : "no device events (host only)"));
  add("Devices", `${devs[0]} vs ${devs[1]}`);
  add("Significance", judgement());
  if (D.fallback) add("Module tree", "no nn.Module events on a side: the nodes are annotations and top-level operators (record with with_stack=True for modules)");
  add("Events", `device filter: ${D.device}` + (D.include.length ? `; include ${D.include.join(", ")}` : "") +
    (D.exclude.length ? `; exclude ${D.exclude.join(", ")}` : ""));
}

const OVERVIEW_LABELS = {
  device_memory_bytes: "device memory", ranks: "ranks", steps: "steps", mean_step_time_us: "mean step time",
  "breakdown.compute_per_step_us": "├ compute",
  "breakdown.compute_by_class.gemm_per_step_us": "│\u00a0├ gemm",
  "breakdown.compute_by_class.attention_per_step_us": "│\u00a0├ attention",
  "breakdown.compute_by_class.conv_per_step_us": "│\u00a0├ conv",
  "breakdown.compute_by_class.norm_per_step_us": "│\u00a0├ norm",
  "breakdown.compute_by_class.elementwise_per_step_us": "│\u00a0├ elementwise",
  "breakdown.compute_by_class.reduce_per_step_us": "│\u00a0├ reduce",
  "breakdown.compute_by_class.index_per_step_us": "│\u00a0├ index",
  "breakdown.compute_by_class.copy_per_step_us": "│\u00a0├ copy",
  "breakdown.compute_by_class.communication_per_step_us": "│\u00a0├ communication",
  "breakdown.compute_by_class.moe_per_step_us": "│\u00a0├ moe",
  "breakdown.compute_by_class.optimizer_per_step_us": "│\u00a0├ optimizer",
  "breakdown.compute_by_class.other_per_step_us": "│\u00a0├ other",
  "breakdown.comm_exposed_per_step_us": "├ exposed communication",
  "breakdown.memory_exposed_per_step_us": "├ exposed memory copies", "breakdown.idle_per_step_us": "└ GPU idle",
  "breakdown.idle.host_communication_per_step_us": "\u00a0\u00a0├ host communication",
  "breakdown.idle.synchronize_per_step_us": "\u00a0\u00a0├ synchronize", "breakdown.idle.launch_per_step_us": "\u00a0\u00a0├ launch",
  "breakdown.idle.dataloader_per_step_us": "\u00a0\u00a0├ dataloader", "breakdown.idle.host_compute_per_step_us": "\u00a0\u00a0├ host compute",
  "breakdown.idle.untraced_per_step_us": "\u00a0\u00a0└ untraced",
  "breakdown.comm_total_per_step_us": "communication per step", "breakdown.comm_overlapped_per_step_us": "├ overlapped with compute",
  "breakdown.overlap_ratio": "└ overlap ratio", host_comm_per_step_us: "host communication per step",
  gpu_busy_per_step_us: "GPU busy per step", gpu_utilization: "GPU utilization",
  host_busy_per_step_us: "host ops busy per step", avg_allocated_bytes: "avg allocated",
  peak_allocated_bytes: "peak allocated",
};
function overviewValue(key, v, isDiff) {
  if (v === null || v === undefined) return "–";
  let s;
  if (key.endsWith("_us")) s = dur(Math.round(v * 1000));
  else if (key.endsWith("_bytes")) s = bytes(v);
  else if (key === "gpu_utilization" || key.endsWith("_ratio")) s = (v * 100).toFixed(1) + (isDiff ? " pp" : "%");
  else s = String(v);
  return isDiff && v > 0 ? "+" + s : s;
}
// An overview Δ cell's colour, never by direction alone: the step time's where its change was
// judged significant (`stepSignificant`, the headline's judgement; neutral where it was judged
// within the noise or not estimated); the breakdown's parts by their share of the step's change
// (where the step's time went: under 1% plain, deeper d1 < 5% ≤ d2 < 25% ≤ d3, as the tables'
// Δ cells); every other row (GPU busy, host ops busy, host communication, memory, ratios,
// counts) neutral, as no significance is estimated for it.
function overviewClass(key, diff, stepDiff, stepSignificant) {
  const c = signClass(diff);
  if (c === null) return null;
  if (key === "mean_step_time_us") return stepSignificant === true ? c : null;
  if (!key.startsWith("breakdown.") || !key.endsWith("_us")) return null;
  const step = Math.abs(stepDiff || 0);
  if (step === 0) return null;
  const share = Math.abs(diff) / step;
  return share < 0.01 ? null : c + (share >= 0.25 ? " d3" : share >= 0.05 ? " d2" : " d1");
}
function overview() {
  const ov = D.overview, t = $("overview-table");
  if (!ov || !ov.control) { t.replaceWith(el("p", { class: "note" }, "No overview.")); return; }
  t.append(el("thead", {}, el("tr", {}, el("th", {}, ""), el("th", {}, D.labels[0]), el("th", {}, D.labels[1]), el("th", {}, "Δ"), el("th", {}, "Δ %"))));
  const body = el("tbody");
  // "breakdown.x" reads x in each side's breakdown object, "breakdown.idle.x" x in its idle
  // object (null where a side has none).
  const get = (o, key) => key.split(".").reduce((v, k) => (v === null || v === undefined ? null : v[k]), o);
  for (const key of Object.keys(OVERVIEW_LABELS)) {
    const inner = key.includes(".") ? key.split(".")[0] : key;
    if (!(inner in ov.control)) continue;
    if (key.includes(".") && !ov.control[inner] && !ov.test[inner]) continue;
    // The idle causes only where a side has them (summaries older than them have none), the
    // kernel classes of compute only where a side ran some.
    const group = key.split(".").slice(0, -1).join(".");
    if (group.includes(".") && !get(ov.control, group) && !get(ov.test, group)) continue;
    if (group === "breakdown.compute_by_class" && !get(ov.control, key) && !get(ov.test, key)) continue;
    const pct = get(ov.diff_pct, key);
    const diff = get(ov.diff, key);
    const cls = overviewClass(key, diff, get(ov.diff, "mean_step_time_us"), D.stepSignificant);
    body.append(el("tr", { "data-key": key }, el("td", {}, OVERVIEW_LABELS[key]),
      el("td", {}, overviewValue(key, get(ov.control, key))), el("td", {}, overviewValue(key, get(ov.test, key))),
      el("td", { class: cls }, overviewValue(key, diff, true)), el("td", { class: cls }, pct === null || pct === undefined ? "–" : pct)));
  }
  // The last class shown closes its branch, as in the terminal's table.
  const classes = body.querySelectorAll('tr[data-key^="breakdown.compute_by_class."]');
  if (classes.length) {
    const cell = classes[classes.length - 1].firstChild;
    cell.textContent = cell.textContent.replace("├", "└");
  }
  t.append(body);
}

// ---- module tree and navigation --------------------------------------------------------------
// The tree comes as a flat list, parents before children: each node names its parent's index
// (`u`) and its ordinal among same-key siblings (`i`), so its path segment is `n[i]`. Paths name
// every ancestor (their total size grows with the square of the depth: a model can nest
// thousands of modules deep), so they are built only for the nodes shown. No recursion either.
const N = D.nodes;
N.forEach((n, id) => { n.id = id; n.ch = []; });
N.forEach((n) => { if (n.id > 0) N[n.u].ch.push(n); });
const ROOT = N[0];
const parentOf = (n) => (n.id === 0 ? null : N[n.u]);
const segment = (n) => `${n.n}[${n.i}]`;
const childPath = (p, n) => (p === "" ? segment(n) : p + "/" + segment(n));
function pathOf(n) {
  const segs = [];
  for (let x = n; x.id !== 0; x = N[x.u]) segs.push(segment(x));
  return segs.reverse().join("/");
}
// The node at path `p` (exactly as pathOf writes it), or null.
function nodeAt(p) {
  let x = ROOT, rest = p;
  while (rest !== "") {
    const next = x.ch.find((c) => { const s = segment(c); return rest === s || rest.startsWith(s + "/"); });
    if (!next) return null;
    rest = rest.slice(Math.min(rest.length, segment(next).length + 1));
    x = next;
  }
  return x;
}

// The fragment holds the view: `#node=PATH`, plus `&time=host|device` when not the default, so
// that a link opens the same node and time, and the browser's back zooms out.
const DEFAULT_TIME = D.moduleDevice.some((x) => x) ? "device" : "host";
const state = { path: "", node: ROOT, time: DEFAULT_TIME };
const fromHash = () => {
  const f = {};
  location.hash.replace(/^#/, "").split("&").forEach((kv) => {
    const i = kv.indexOf("=");
    if (i > 0) f[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1));
  });
  const time = f.time === "host" || (f.time === "device" && DEFAULT_TIME === "device") ? f.time : DEFAULT_TIME;
  const node = typeof f.node === "string" ? nodeAt(f.node) : null;
  return node ? { path: f.node, node, time } : { path: "", node: ROOT, time };
};
const fragment = (p, time) => "node=" + encodeURIComponent(p) + (time === DEFAULT_TIME ? "" : "&time=" + time);
const go = (p) => { location.hash = fragment(p, state.time); };
const lastSegment = (n) => (n.id === 0 ? n.n : segment(n));

// A long chain of ancestors shows its first and last few, not thousands of links.
const CRUMBS = 12;
function breadcrumb() {
  const nav = $("breadcrumb");
  nav.textContent = "";
  const chain = [];
  for (let x = state.node; x; x = parentOf(x)) chain.unshift(x);
  const keep = chain.length <= CRUMBS ? chain : [...chain.slice(0, 2), null, ...chain.slice(chain.length - (CRUMBS - 3))];
  // Paths of the kept nodes: the last ones share the current path's prefix.
  let cut = state.path;
  const paths = new Map();
  for (let x = state.node; x && keep.includes(x); x = parentOf(x)) {
    paths.set(x, cut);
    cut = cut.slice(0, Math.max(0, cut.length - segment(x).length - 1));
  }
  keep.forEach((x, i) => {
    if (i > 0) nav.append(el("span", { class: "sep", "aria-hidden": "true" }, "/"));
    if (x === null) { nav.append(el("span", { class: "more" }, `… ${chain.length - keep.length + 1} more …`)); return; }
    if (i === keep.length - 1) nav.append(el("span", { "aria-current": "location" }, lastSegment(x)));
    else nav.append(el("a", { href: "#" + fragment(paths.has(x) ? paths.get(x) : pathOf(x), state.time) }, lastSegment(x)));
  });
  $("back").disabled = state.node === ROOT;
}

const TIME_INDEX = { host: 1, device: 2 };
const val = (side, k) => (side ? side[TIME_INDEX[k]] : null);

// ---- folding: runs of consecutive added (or deleted) siblings with one key show as one bar ------
// (as the terminal's table does), their times summed; a click on the folded bar unfolds it.
const unfolded = new Set(); // the first node of each run the user unfolded
const sumTimes = (list, side) => {
  const present = list.map((x) => x[side]).filter((v) => v);
  if (!present.length) return null;
  const add = (i) => (present.some((v) => v[i] !== null) ? present.reduce((a, v) => a + (v[i] || 0), 0) : null);
  return [add(0), present.reduce((a, v) => a + v[1], 0), add(2)];
};
// The children of `n` as shown: nodes, and folded runs `{run: [nodes…], n, k, s, c, t}`.
function shownChildren(n) {
  const kids = n.ch, out = [];
  for (let i = 0; i < kids.length;) {
    const x = kids[i];
    let j = i + 1;
    if (x.s === "added" || x.s === "deleted") {
      while (j < kids.length && kids[j].s === x.s && kids[j].k === x.k && kids[j].n === x.n) j++;
    }
    if (j - i < 2 || unfolded.has(x)) {
      for (let m = i; m < j; m++) out.push(kids[m]);
    } else {
      const run = kids.slice(i, j);
      out.push({ run, n: x.n, k: x.k, s: x.s, c: sumTimes(run, "c"), t: sumTimes(run, "t") });
    }
    i = j;
  }
  return out;
}
const overlapMark = (n) => (n.o && n.o.some((v) => v > 0) ? " ∥" : "");
// A node built from a graph's capture: its kernels ran via graph replay (`r` per side).
const replayMark = (n) => (n.r && n.r.some(Boolean) ? " (via graph replay)" : "");
// Per side, the share of a node's device time that ran via graph replay: the device time of the
// nodes at or below it that were built from a capture.
function replayedShare(n) {
  return [0, 1].map((side) => {
    const key = side ? "t" : "c", total = n[key] ? n[key][2] : null;
    if (!total) return 0;
    let sum = 0;
    for (const todo = [n]; todo.length;) {
      const x = todo.pop();
      if (x.r && x.r[side]) sum += (x[key] && x[key][2]) || 0;
      else todo.push(...x.ch);
    }
    return sum / total;
  });
}
function replayedNote(n) {
  const s = replayedShare(n);
  if (!s.some((v) => v > 0)) return "";
  return " Via graph replay (kernels joined to their capture, placed on their captured modules): " +
    s.map((v, i) => `${(100 * v).toFixed(1)}% of ${D.labels[i]}'s device time`).join(", ") + ".";
}
// Which judgement the `*` marks are: between runs (two runs or more a side), or within one run
// against the scatter of its steps.
const BETWEEN_RUNS = D.significance.judged === "runs";
const BEYOND = BETWEEN_RUNS ? "beyond the scatter between runs" : "beyond the scatter of the steps within each run";
function judgement() {
  const S = D.significance;
  if (!S.estimated) return `not judged (no * marks): ${S.note}`;
  return BETWEEN_RUNS
    ? "between runs: a module's * is Welch's t on each run's per-step time, Benjamini–Hochberg at 5% over the tree's " +
      "nodes, and a change of at least 1% of the step (docs/significance.md#several-runs-per-side)"
    : "within one run per side: a module's * is judged against the scatter of the steps inside each run, which a rerun " +
      "of the same program can exceed; record several runs per side (control/run1/ … runN/) for a verdict between runs " +
      "(docs/significance.md#several-runs-per-side)";
}
// Whether the node's time (host or device, as shown) changed beyond the noise, as the
// terminal's `sig` column: `*`.
const isSignificant = (n) => !!(n.g && n.g[state.time === "device" ? 1 : 0]);
const sigMark = (n) => (isSignificant(n) ? " *" : "");

function summary(n) {
  const k = state.time, c = val(n.c, k), t = val(n.t, k);
  const d = (t || 0) - (c || 0);
  const kids = n.ch;
  const count = (s) => kids.filter((x) => x.s === s).length;
  const runs = shownChildren(n).filter((x) => x.run).length;
  const overlap = overlapMark(n)
    ? ` ∥ Its children ran concurrently: they overlap by ${dur(n.o[0])} (${D.labels[0]}) and ${dur(n.o[1])} (${D.labels[1]}) of host time.`
    : "";
  const sig = isSignificant(n) ? ` * Its ${k} time changed ${BEYOND}.` : "";
  $("node-summary").textContent = `${lastSegment(n)} (${n.k}, ${n.s}): ${k} time ${dur(c)} → ${dur(t)}, ` +
    `Δ ${signed(dur(d), d)} (${pctText(pctValue(c, t))}); ${kids.length} children: ` +
    `${count("matched")} matched, ${count("added")} added, ${count("deleted")} deleted, ${count("unknown")} unknown.${sig}${overlap}${replayedNote(n)} ` +
    "Click a bar (or focus it and press Enter) to zoom in" +
    (runs ? `; ${runs} run${runs > 1 ? "s" : ""} of added or deleted siblings folded (×N): click one to unfold it.` : ".");
}

// ---- the execution chart ---------------------------------------------------------------------
const W = 1200, L = 80, R = 80, TOP = [16, 236], BOT = [268, 378], H = 490;
function ticks(max) {
  if (max <= 0) return [0];
  const step = Math.pow(10, Math.floor(Math.log10(max)));
  const s = max / step > 5 ? step * 2 : max / step > 2 ? step : step / 2;
  const out = [];
  for (let v = 0; v <= max * 1.0001; v += s) out.push(v);
  return out;
}
function line(points, color, dash) {
  return el("svg:polyline", { points: points.map((p) => p.join(",")).join(" "), fill: "none", stroke: color,
    "stroke-width": 2, "stroke-dasharray": dash || null });
}
function execChart(n) {
  const box = $("exec-chart");
  box.textContent = "";
  const kids = shownChildren(n);
  if (!kids.length) { box.append(el("p", { class: "note" }, "This node has no children.")); return; }
  const k = state.time, pw = W - L - R, gw = pw / kids.length;
  const cv = kids.map((x) => val(x.c, k)), tv = kids.map((x) => val(x.t, k));
  const dv = kids.map((_, i) => (tv[i] || 0) - (cv[i] || 0));
  const cum = (a) => { let s = 0; return a.map((v) => (s += v || 0)); };
  const cc = cum(cv), tc = cum(tv), dc = cum(dv);
  const maxBar = Math.max(1, ...cv.map((v) => v || 0), ...tv.map((v) => v || 0));
  const maxCum = Math.max(1, cc[cc.length - 1], tc[tc.length - 1]);
  const maxD = Math.max(1, ...dv.map(Math.abs), ...dc.map(Math.abs));
  const yTop = (v) => TOP[1] - (v / maxBar) * (TOP[1] - TOP[0]);
  const yCum = (v) => TOP[1] - (v / maxCum) * (TOP[1] - TOP[0]);
  const mid = (BOT[0] + BOT[1]) / 2, yBot = (v) => mid - (v / maxD) * ((BOT[1] - BOT[0]) / 2);
  const svg = el("svg:svg", { viewBox: `0 0 ${W} ${H}`, role: "group", "aria-label": `${k} time per child of ${lastSegment(n)}` });
  for (const v of ticks(maxBar)) svg.append(el("svg:line", { class: "grid", x1: L, x2: W - R, y1: yTop(v), y2: yTop(v) }),
    el("svg:text", { x: L - 6, y: yTop(v) + 4, "text-anchor": "end" }, dur(v)));
  for (const v of ticks(maxCum)) svg.append(el("svg:text", { x: W - R + 6, y: yCum(v) + 4, fill: C.sum }, dur(v)));
  svg.append(el("svg:text", { x: L, y: 10 }, `${k} time per child (bars, left axis) and cumulative (lines, right axis)`));
  svg.append(el("svg:text", { x: L, y: BOT[0] - 6 }, "Δ (test − control) per child (bars) and running sum (line)"));
  svg.append(el("svg:line", { class: "axis", x1: L, x2: W - R, y1: TOP[1], y2: TOP[1] }),
    el("svg:line", { class: "axis", x1: L, x2: W - R, y1: mid, y2: mid }),
    el("svg:text", { x: L - 6, y: yBot(maxD) + 4, "text-anchor": "end" }, signed(dur(maxD), maxD)),
    el("svg:text", { x: L - 6, y: yBot(-maxD) + 4, "text-anchor": "end" }, dur(-maxD)));
  const every = Math.ceil(18 / gw), angle = gw < 60 ? -60 : -35;
  const base = state.path;
  kids.forEach((x, i) => svg.append(group(x, i, gw, { cv, tv, dv, yTop, yBot, mid, every, angle, base })));
  if (every > 1) svg.append(el("svg:text", { x: W - R, y: 10, "text-anchor": "end" }, `${kids.length} children: 1 in ${every} labelled; hover or focus a bar for its name`));
  const xs = (i) => L + gw * (i + 0.5);
  svg.append(line(cc.map((v, i) => [xs(i), yCum(v)]), C.ctl, "6 3"), line(tc.map((v, i) => [xs(i), yCum(v)]), C.tst, "6 3"),
    line(dc.map((v, i) => [xs(i), yBot(v)]), C.sum));
  box.append(svg);
}
function group(x, i, gw, s) {
  const folded = !!x.run, zoomable = !folded && x.ch.length > 0, clickable = folded || zoomable;
  const first = folded ? x.run[0] : x, path = childPath(s.base, first);
  const x0 = L + gw * i, bw = Math.max(1, Math.min(gw * 0.38, 48));
  const status = (x.s === "matched" || x.s === "unknown" ? "" : ` (${x.s})`) + overlapMark(x) + (folded ? "" : sigMark(x));
  const label = (folded ? `${x.n} ×${x.run.length}` : lastSegment(x)) + status;
  const what = folded ? `${x.run.length} consecutive ${x.n} (${path} … ${segment(x.run[x.run.length - 1])})` : path + replayMark(x);
  const tip = `${what}${status}\n${D.labels[0]}: ${dur(s.cv[i])}\n${D.labels[1]}: ${dur(s.tv[i])}\nΔ ${signed(dur(s.dv[i]), s.dv[i])} (${pctText(pctValue(s.cv[i], s.tv[i]))})` +
    (folded ? "\nclick to unfold" : zoomable ? "\nclick to zoom in" : "");
  const g = el("svg:g", { class: "group" + (zoomable ? " zoomable" : "") + (folded ? " folded" : ""), "data-path": path, "data-status": x.s,
    "data-count": folded ? x.run.length : null, "data-significant": !folded && isSignificant(x) ? "true" : null,
    tabindex: clickable ? 0 : null, role: clickable ? "button" : null, "aria-label": tip.replace(/\n/g, "; ") });
  g.append(el("svg:title", {}, tip), el("svg:rect", { class: "hit", x: x0, y: TOP[0], width: gw, height: BOT[1] - TOP[0], fill: "transparent" }));
  const faded = x.s === "unknown" ? 0.45 : 1;
  const bar = (v, xx, color, side) => v === null ? null : el("svg:rect", { class: "bar " + side, x: xx, y: s.yTop(v), width: bw,
    height: Math.max(0, TOP[1] - s.yTop(v)), fill: color, "fill-opacity": faded });
  const cx = x0 + gw / 2;
  g.append(bar(s.cv[i], cx - bw, C.ctl, "control"), bar(s.tv[i], cx, C.tst, "test"));
  const d = s.dv[i], y = s.yBot(d);
  const dw = Math.min(gw * 0.6, 64);
  g.append(el("svg:rect", { class: "bar diff", x: cx - dw / 2, y: Math.min(y, s.mid), width: dw,
    height: Math.abs(y - s.mid), fill: d > 0 ? C.up : C.down, "fill-opacity": faded }));
  if (clickable) {
    const unfold = () => {
      unfolded.add(first);
      render();
      // Keep the keyboard where it was: on the run's first node.
      const g = document.querySelector(`#exec-chart .group[data-path="${CSS.escape(path)}"]`);
      if (g && g.tabIndex >= 0) g.focus();
    };
    const act = folded ? unfold : () => go(path);
    g.addEventListener("click", act);
    g.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); act(); } });
  }
  // With many children the labels would overlap: only every `s.every`-th is written (all have tooltips).
  if (i % s.every !== 0) return g;
  const tx = cx, ty = BOT[1] + 12;
  const max = s.angle === -60 ? 20 : 26, short = label.length > max ? label.slice(0, max - 1) + "…" : label;
  g.append(el("svg:text", { x: tx, y: ty, transform: `rotate(${s.angle} ${tx} ${ty})`, "text-anchor": "end",
    class: "st-" + x.s, "font-weight": clickable ? 600 : null, "font-style": folded ? "italic" : null }, short));
  return g;
}
function legend() {
  const sw = (c) => el("span", { class: "sw", style: `background:${c}` });
  $("exec-legend").append(sw(C.ctl), `${D.labels[0]} (bar; dashed line: cumulative)`, sw(C.tst), `${D.labels[1]} (bar; dashed line: cumulative)`,
    sw(C.up), "Δ > 0 (slower)", sw(C.down), "Δ < 0 (faster)", sw(C.sum), "running sum of Δ",
    " — labels: bold = has children (zoomable); (added), (deleted), (unknown: time not covered by the children, faded); " +
    "italic ×N = N consecutive added or deleted siblings folded (click to unfold); ∥ = its children ran concurrently" +
    (D.significance.estimated
      ? `; * = its time (host or device, as shown) changed ${BEYOND} and 1% of the step (docs/significance.md)` +
        (D.significance.shift ? `; ${D.significance.shift}` : "")
      : `; no * marks: ${D.significance.note}`));
}

// ---- operator and kernel tables ----------------------------------------------------------------
// A kernel's name as its cell shows it: without its leading `void` and with its argument list as
// `(…)` (the cell cuts the end, so `void cutlass::Kernel2<cutlass_80_simt_sgemm_256x12…` showed
// neither its tile nor its layout); the cell's tooltip, the filter and the sort keep the name.
function shownName(name) {
  let s = name.startsWith("void ") ? name.slice(5) : name;
  if (s.endsWith(")")) {
    let depth = 0;
    for (let i = s.length - 1; i >= 0; i--) {
      if (s[i] === ")") depth++;
      else if (s[i] === "(" && --depth === 0) {
        if (i > 0 && /[\w>]/.test(s[i - 1])) s = s.slice(0, i) + "(…)";
        break;
      }
    }
  }
  return s;
}
const MEASURE_NAMES = { calls: "calls", host_self: "host self", host_total: "host total", device_self: "device self",
  device_total: "device total", device_mean: "mean", device_min: "min", device_max: "max" };
function makeTable(prefix, kind, measures) {
  const t = { prefix, kind, measures, sort: null, filter: "", group: null };
  $(`${prefix}-filter`).addEventListener("input", (e) => { t.filter = e.target.value.toLowerCase(); drawTable(t); });
  $(`${prefix}-group`).addEventListener("change", (e) => { t.group = e.target.value; t.sort = null; drawTable(t); });
  return t;
}
// The nearest node at or above the current one that has tables (their depth is limited).
function tableNode() {
  for (let x = state.node; x; x = parentOf(x)) if (D.tables[x.id]) return x;
  return null;
}
function columns(t, data) {
  const m = t.measures, M = m.length, gi = m.indexOf(t.group), ci = m.indexOf("calls");
  const get = (r, i, side) => r[1 + i + (side ? M : 0)];
  // Calls per step carry two decimals: their difference too, without the float's noise.
  const dCalls = (r) => Math.round((get(r, ci, 1) - get(r, ci, 0)) * 100) / 100;
  const gname = MEASURE_NAMES[t.group] + " µs";
  const first = t.kind === "kc"
    ? [{ title: "class", key: (r) => D.names[r[0]], text: (r) => D.names[r[0]], cls: () => "name", asc: true }]
    : [{ title: "name", key: (r) => D.names[r[0]], text: (r) => shownName(D.names[r[0]]), cls: () => "name", asc: true }];
  // Kernel rows carry their class (by index in D.classNames), in the row order of `data.rows`.
  if (t.kind === "k" && data.class) {
    const classOf = new Map(data.rows.map((r, i) => [r, D.classNames[data.class[i]]]));
    first.push({ title: "class", key: (r) => classOf.get(r), text: (r) => classOf.get(r), asc: true });
  }
  // Class rows: each side's share of the node's kernel time (every kernel of the node is in some class).
  const shares = [];
  if (t.kind === "kc" && t.group === "device_total") {
    const sums = [0, 1].map((side) => data.rows.reduce((a, r) => a + (get(r, gi, side) || 0), 0));
    const share = (r, side) => (sums[side] > 0 ? (get(r, gi, side) || 0) / sums[side] : null);
    const text = (v) => (v === null ? "–" : (100 * v).toFixed(1) + "%");
    for (const side of [0, 1])
      shares.push({ title: `${D.labels[side]} share`, key: (r) => share(r, side), text: (r) => text(share(r, side)) });
  }
  // The rows' marks (`data.g`: per row, per measure), as the views' `sig` column: `*` where the
  // shown time changed beyond the noise; beside the name, so that a wide table's scroll never
  // hides it.
  const marks = [];
  const judged = data.g ? new Map(data.rows.map((r, i) => [r, data.g[i][gi]])) : new Map();
  const onDevice = String(t.group).startsWith("device");
  const cellClass = (r) => deltaClass(diffOf(get(r, gi, 0), get(r, gi, 1)), judged.get(r), onDevice);
  if (data.g) {
    const markOf = new Map(data.rows.map((r, i) => [r, data.g[i][gi] === true]));
    marks.push({ title: "sig", key: (r) => (markOf.get(r) ? 1 : 0), text: (r) => (markOf.get(r) ? "*" : ""), cls: () => "sig" });
  }
  return [
    ...first,
    ...marks,
    { title: `${D.labels[0]} calls`, key: (r) => get(r, ci, 0), text: (r) => String(get(r, ci, 0)) },
    { title: `${D.labels[1]} calls`, key: (r) => get(r, ci, 1), text: (r) => String(get(r, ci, 1)) },
    { title: "Δ calls", key: (r) => dCalls(r), text: (r) => { const d = dCalls(r); return signed(String(d), d); } },
    { title: `${D.labels[0]} ${gname}`, key: (r) => get(r, gi, 0), text: (r) => us(get(r, gi, 0)) },
    { title: `${D.labels[1]} ${gname}`, key: (r) => get(r, gi, 1), text: (r) => us(get(r, gi, 1)) },
    { title: `Δ ${gname}`, key: (r) => diffOf(get(r, gi, 0), get(r, gi, 1)), text: (r) => { const d = diffOf(get(r, gi, 0), get(r, gi, 1)); return d === null ? "–" : signed(us(d), d); },
      cls: cellClass },
    { title: "Δ %", key: (r) => pctValue(get(r, gi, 0), get(r, gi, 1)), text: (r) => pctText(pctValue(get(r, gi, 0), get(r, gi, 1))),
      cls: cellClass },
    ...shares,
  ];
}
const diffOf = (c, t) => (c === null || t === null ? null : t - c);
// The step's change of host and device time (the module tree's root): what a row's Δ is a
// share of when it is coloured.
const STEP_DELTA = (() => {
  const r = D.nodes[0];
  const d = (k) => (r && r.c && r.t && r.c[k] !== null && r.t[k] !== null ? Math.abs(r.t[k] - r.c[k]) : 0);
  return { host: d(1), device: d(2) };
})();
// A Δ cell's colour: by significance and size, never by direction alone. Where rows were judged
// (`mark` true or false), only significant rows are coloured; where not, rows under 1% of the
// step's change stay plain. The colour is deeper with the row's share of the step's change of
// the same time: d1 under 5%, d2 5–25%, d3 more.
function deltaClass(v, mark, device) {
  if (v === null || v === 0 || Number.isNaN(v) || mark === false) return null;
  const step = device ? STEP_DELTA.device : STEP_DELTA.host;
  const share = step > 0 ? Math.abs(v) / step : 1;
  if (mark !== true && share < 0.01) return null;
  return (v > 0 ? "pos" : "neg") + (share >= 0.25 ? " d3" : share >= 0.05 ? " d2" : " d1");
}
function compareKeys(a, b, asc) {
  const na = a === null || Number.isNaN(a), nb = b === null || Number.isNaN(b);
  if (na || nb) return na === nb ? 0 : na ? 1 : -1; // missing values last, either way
  const r = typeof a === "string" ? a.localeCompare(b) : a < b ? -1 : a > b ? 1 : 0;
  return asc ? r : -r;
}
function drawTable(t) {
  const table = $(`${t.prefix}-table`), p = tableNode();
  table.textContent = "";
  const data = p === null ? null : D.tables[p.id][t.kind];
  const note = $(`${t.prefix}-note`);
  if (!data || (t.kind === "kc" && !D.hasDevice)) { note.textContent = data ? "No device events." : "No table for this node."; return; }
  const cols = columns(t, data);
  let rows = data.rows.filter((r) => !t.filter || D.names[r[0]].toLowerCase().includes(t.filter));
  if (t.sort) {
    const col = cols[t.sort.col];
    rows = rows.map((r, i) => [r, i]).sort((a, b) => compareKeys(col.key(a[0]), col.key(b[0]), t.sort.asc) || a[1] - b[1]).map((x) => x[0]);
  }
  const head = el("tr");
  cols.forEach((c, i) => {
    const sorted = t.sort && t.sort.col === i;
    const b = el("button", { type: "button", title: "sort by " + c.title }, c.title);
    b.addEventListener("click", () => {
      t.sort = sorted ? { col: i, asc: !t.sort.asc } : { col: i, asc: !!c.asc };
      drawTable(t);
      table.querySelectorAll("th button")[i].focus();
    });
    head.append(el("th", { scope: "col", "aria-sort": sorted ? (t.sort.asc ? "ascending" : "descending") : "none" }, b));
  });
  const body = el("tbody");
  for (const r of rows) {
    const tr = el("tr");
    cols.forEach((c) => tr.append(el("td", { class: c.cls ? c.cls(r) : null, title: c === cols[0] ? D.names[r[0]] : null }, c.text(r))));
    body.append(tr);
  }
  table.append(el("thead", {}, head), body);
  const where = p === state.node ? "" : ` (tables go ${D.limits.depth} levels deep: showing ${p === ROOT ? "the step" : pathOf(p)}, the nearest node above)`;
  note.textContent = (t.kind === "kc"
    ? `${rows.length} classes: every kernel of this node, by class (as tracediff kernels --by-class)${where}. Click a heading to sort.`
    : `${rows.length} shown of ${data.rows.length} rows embedded, ${data.total} in this node ` +
      `(the ${D.limits.rows} largest by |Δ| are embedded)${where}.${replayedNote(p)} Click a heading to sort.`) + tableLegend(t, data);
}
// The table's legend line: what a row's `*` says, or why there are none.
function tableLegend(t, data) {
  if (data.g) {
    return ` sig: * = its ${MEASURE_NAMES[t.group]} time changed ${BEYOND} and 1% of the step, ` +
      "judged over the node's rows as tracediff operators / kernels --zoom judge them (docs/significance.md).";
  }
  return D.significance.estimated ? " No row is judged for this time (no * marks)." : ` No * marks: ${D.significance.note}`;
}

// ---- aligned kernel sequences ------------------------------------------------------------------
const seq = { status: "", filter: "" };
function sequences() {
  const A = D.aligned, note = $("seq-note"), table = $("seq-table"), box = $("seq-groups");
  if (!A) { note.textContent = "No device events: no kernel sequences."; return; }
  if (!box.childElementCount) {
    const pct = (v) => (v === null ? "–" : (100 * v).toFixed(1) + "%");
    box.append(el("p", { class: "note" }, `Device time in paired (same or changed) positions: ${D.labels[0]} ${pct(A.paired[0])}, ` +
      `${D.labels[1]} ${pct(A.paired[1])}; (rank, step) windows summed: ${A.windows[0]} and ${A.windows[1]}. ` +
      "Each side's kernels per stream, in order; a repeated layer is shown once (time summed over its repetitions). " +
      "As tracediff kernels --aligned."));
    if (D.alignedRuns) $("sequences-h").textContent = "Kernel sequences aligned by class (the first run of each side)";
    if (D.alignedRuns) box.append(el("p", { class: "note", id: "seq-runs" }, "Sides of runs: these are the sequences of one run " +
      `against one run, the first of each side (${D.alignedRuns[0]} against ${D.alignedRuns[1]}): a sequence is one run's ` +
      "order of kernels, which runs do not average. tracediff kernels --aligned RUN RUN compares any other two."));
    for (const [g, c, t] of A.groups) box.append(el("p", { class: "note" }, `stream group ${g}: ${c}; ${t}`));
  }
  const name = (id) => (id === null ? "" : D.names[id]);
  const rows = A.rows.filter((r) => (!seq.status || r[4] === seq.status) &&
    (!seq.filter || [name(r[5]), name(r[6]), r[3]].some((x) => x.toLowerCase().includes(seq.filter))));
  table.textContent = "";
  const heads = ["group", "part", "pos", "class", "status", `${D.labels[0]} kernel`, `${D.labels[1]} kernel`,
    `${D.labels[0]} µs`, `${D.labels[1]} µs`, "Δ µs"];
  table.append(el("thead", {}, el("tr", {}, ...heads.map((h) => el("th", { scope: "col" }, h)))));
  const body = el("tbody");
  for (const [g, part, pos, cls, status, cn, tn, cd, td] of rows) {
    const d = cd === null || td === null ? null : td - cd;
    body.append(el("tr", {}, el("td", {}, String(g)), el("td", {}, part), el("td", {}, String(pos)), el("td", {}, cls),
      el("td", {}, status), el("td", { class: "name", title: name(cn) }, shownName(name(cn))),
      el("td", { class: "name", title: name(tn) }, shownName(name(tn))), el("td", {}, cd === null ? "–" : us(cd)),
      el("td", {}, td === null ? "–" : us(td)), el("td", { class: signClass(d) }, d === null ? "–" : signed(us(d), d))));
  }
  table.append(body);
  const more = A.total > A.rows.length ? ` (the first ${A.rows.length} of ${A.total} positions are embedded)` : "";
  note.textContent = `${rows.length} positions shown${more}.`;
}
$("seq-status").addEventListener("change", (e) => { seq.status = e.target.value; sequences(); });
$("seq-filter").addEventListener("input", (e) => { seq.filter = e.target.value.toLowerCase(); sequences(); });

// ---- ops-diff ----------------------------------------------------------------------------------
function opsDiff() {
  const box = $("opsdiff-lists");
  box.append(el("p", { class: "note" }, `Per ${D.opsDiff.naming.replace(/_/g, " ")} over the whole selection, as \`tracediff ops-diff\` (by name).`));
  for (const list of D.opsDiff.lists) {
    const t = el("table", { class: "data" }, el("thead", {}, el("tr", {}, ...["name", `${D.labels[0]} count`, `${D.labels[1]} count`,
      `${D.labels[0]} µs`, `${D.labels[1]} µs`, "Δ µs"].map((h) => el("th", { scope: "col" }, h)))));
    const body = el("tbody");
    for (const [name, cc, tc, cd, td] of list.rows)
      body.append(el("tr", {}, el("td", { class: "name", title: name }, name), el("td", {}, String(cc)), el("td", {}, String(tc)),
        el("td", {}, us(cd)), el("td", {}, us(td)), el("td", { class: signClass(td - cd) }, signed(us(td - cd), td - cd))));
    t.append(body);
    const more = list.total > list.rows.length ? ` (first ${list.rows.length} shown)` : "";
    box.append(el("details", { "data-category": list.category }, el("summary", {}, `${list.category}: ${list.total}${more}`),
      el("div", { class: "scroll" }, t)));
  }
}

// ---- wiring ------------------------------------------------------------------------------------
const opTable = makeTable("op", "op", D.opMeasures), kTable = makeTable("k", "k", D.kMeasures);
const kcTable = makeTable("kc", "kc", D.kMeasures);
opTable.group = D.hasDevice ? "device_total" : "host_total";
kTable.group = "device_total";
kcTable.group = "device_total";
$("op-group").value = opTable.group;
if (!D.hasDevice) { $("k-group").disabled = true; $("kc-group").disabled = true; }

function render() {
  Object.assign(state, fromHash());
  document.querySelectorAll("#time-toggle input").forEach((r) => { r.checked = r.value === state.time; });
  const n = state.node;
  breadcrumb();
  summary(n);
  execChart(n);
  // A path thousands of levels deep would widen the page: its middle is left out.
  const shortPath = state.path.length > 160 ? state.path.slice(0, 60) + " … " + state.path.slice(-90) : state.path;
  const where = state.path === "" ? "(whole step)" : "in " + shortPath;
  document.querySelectorAll(".in-node").forEach((s) => { s.textContent = where; });
  drawTable(opTable);
  drawTable(kTable);
  drawTable(kcTable);
}

document.querySelectorAll("#time-toggle input").forEach((r) => {
  r.checked = r.value === state.time;
  if (r.value === "device" && !D.moduleDevice.some((x) => x)) r.disabled = true;
  // The time replaces the current history entry: back still zooms out.
  r.addEventListener("change", () => { history.replaceState(null, "", "#" + fragment(state.path, r.value)); render(); });
});
$("back").addEventListener("click", () => { if (state.node !== ROOT) go(pathOf(parentOf(state.node))); });
window.addEventListener("hashchange", render);
header();
overview();
legend();
opsDiff();
sequences();
render();
// Tests wait for this before reading the page.
window.__tracediffReady = true;
