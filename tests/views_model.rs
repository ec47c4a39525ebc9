//! The operator, kernel and overview views against an independent model of docs/semantics.md#iterations, docs/semantics.md#host-and-device-events
//! and docs/semantics.md#the-call-tree to #overview, on every pair of real traces in `../shared/traces`, to the nanosecond.
//!
//! The model reads each trace with `serde_json::Value` and computes everything from the text:
//! host/device, steps and iterations, the call tree (an "open events" list per thread, walking
//! parents upwards for launching operators and device totals), the rows and the overview. It
//! takes only the selected ranks and iterations from the library (what the views resolved to,
//! which the golden suite checks against HTA). Skips, with a printed reason, when `../shared` is absent.

#![allow(clippy::needless_range_loop)] // the model indexes parallel columns, on purpose plainly

use crate::common;

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use tracediff::commands::{self, CompareRequest, KernelsOptions, OperatorsOptions};
use tracediff::{Pick, Resolved, ViewTable};

fn traces() -> Option<PathBuf> {
    common::traces("the views model")
}

#[derive(Debug, Clone)]
struct Ev {
    name: String,
    cat: String,
    thread: String,
    ts: i64,
    dur: i64,
    corr: i64,
    place: char, // 'h' host, 'd' device work, 'a' gpu_user_annotation
}

impl Ev {
    fn end(&self) -> i64 {
        self.ts + self.dur
    }
    fn is_op(&self) -> bool {
        self.cat == "cpu_op" || self.cat == "Operator"
    }
}

/// `ts`/`dur` in ns: [`read`] rewrote their decimal µs text into `"ns:<integer>"` strings
/// (an f64 cannot hold 1712195495519689.047 µs to the nanosecond).
fn ns(v: &serde_json::Value) -> Option<i64> {
    v.as_str()?.strip_prefix("ns:")?.parse().ok()
}

/// Rewrites every `"ts"`/`"dur"` number into exact integer nanoseconds.
fn exact_times(text: &str) -> String {
    let re = regex::Regex::new(r#""(ts|dur)"\s*:\s*(-?)(\d+)(?:\.(\d+))?"#).unwrap();
    re.replace_all(text, |c: &regex::Captures<'_>| {
        let whole: i64 = c[3].parse().unwrap();
        let frac = c.get(4).map_or("", |m| m.as_str());
        let frac: i64 = format!("{:0<3}", &frac[..frac.len().min(3)]).parse().unwrap();
        let v = whole * 1000 + frac;
        format!(r#""{}": "ns:{}{v}""#, &c[1], &c[2])
    })
    .into_owned()
}

fn int_arg(args: Option<&serde_json::Value>, key: &str) -> i64 {
    match args.and_then(|a| a.get(key)) {
        Some(serde_json::Value::Number(n)) => n.as_i64().unwrap_or(-1),
        Some(serde_json::Value::String(s)) => s.parse().unwrap_or(-1),
        _ => -1,
    }
}

fn place(cat: &str, stream: i64) -> char {
    let host = [
        "cpu_op",
        "Operator",
        "user_annotation",
        "python_function",
        "cuda_runtime",
        "cuda_driver",
        "Runtime",
    ];
    let device = ["kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"];
    if host.contains(&cat) || cat.ends_with("_runtime") {
        'h'
    } else if cat == "gpu_user_annotation" {
        'a'
    } else if device.contains(&cat) || stream >= 0 {
        'd'
    } else {
        'h'
    }
}

fn step_of(name: &str) -> Option<i64> {
    let rest = name
        .strip_prefix("ProfilerStep")?
        .trim_start()
        .strip_prefix('#')?
        .trim_start();
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// One trace file as the model sees it.
struct Model {
    rank: i64,
    ev: Vec<Ev>,
    iteration: Vec<i64>,
    launcher: Vec<Option<usize>>,
    device_self: Vec<i64>,
    device_total: Vec<i64>,
    host_self: Vec<i64>,
}

fn read(path: &Path) -> serde_json::Value {
    let bytes = std::fs::read(path).unwrap();
    let text = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut s = Vec::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_end(&mut s)
            .unwrap();
        s
    } else {
        bytes
    };
    serde_json::from_str(&exact_times(&String::from_utf8(text).unwrap())).unwrap()
}

fn model(path: &Path) -> Model {
    let doc = read(path);
    let rank = doc["distributedInfo"]["rank"].as_i64().unwrap_or(0);
    let mut ev = Vec::new();
    for e in doc["traceEvents"].as_array().unwrap() {
        let (Some(cat), Some(dur)) = (e.get("cat").and_then(|c| c.as_str()), e.get("dur").and_then(ns)) else {
            continue;
        };
        if cat == "Trace" {
            continue;
        }
        let args = e.get("args");
        ev.push(Ev {
            name: e["name"].as_str().unwrap_or("").to_string(),
            cat: cat.to_string(),
            thread: format!("{}/{}", e["pid"], e["tid"]),
            ts: ns(&e["ts"]).unwrap(),
            dur,
            corr: int_arg(args, "correlation"),
            place: place(cat, int_arg(args, "stream")),
        });
    }
    let steps: Vec<(i64, i64, i64)> = ev
        .iter()
        .filter_map(|e| step_of(&e.name).map(|n| (e.ts, e.end(), n)))
        .collect();
    let at = |ts: i64| steps.iter().rev().find(|s| s.0 <= ts && ts < s.1).map_or(-1, |s| s.2);
    let mut launch: HashMap<i64, usize> = HashMap::new();
    for (i, e) in ev.iter().enumerate() {
        if e.place == 'h' && e.corr != -1 {
            launch.insert(e.corr, i);
        }
    }
    let n = ev.len();
    let mut iteration = vec![-1; n];
    for i in 0..n {
        if ev[i].place == 'h' || ev[i].corr == -1 {
            iteration[i] = at(ev[i].ts);
        }
    }
    for i in 0..n {
        if ev[i].place != 'h' && ev[i].corr != -1 {
            iteration[i] = launch.get(&ev[i].corr).map_or(-1, |&l| iteration[l]);
        }
    }
    let (parent, host_total) = parents(&ev);
    let mut host_self = host_total.clone();
    for i in 0..n {
        if let Some(p) = parent[i] {
            host_self[p] -= host_total[i];
        }
    }
    let mut launcher = vec![None; n];
    let mut device_self = vec![0; n];
    let mut device_total = vec![0; n];
    for i in 0..n {
        if ev[i].place != 'd' {
            continue;
        }
        let Some(&l) = launch.get(&ev[i].corr) else { continue };
        let mut up = parent[l];
        while let Some(p) = up {
            if ev[p].is_op() {
                break;
            }
            up = parent[p];
        }
        let Some(op) = up else { continue };
        launcher[i] = Some(op);
        device_self[op] += ev[i].dur;
        let mut a = Some(op);
        while let Some(p) = a {
            device_total[p] += ev[i].dur;
            a = parent[p];
        }
    }
    Model {
        rank,
        ev,
        iteration,
        launcher,
        device_self,
        device_total,
        host_self,
    }
}

/// Per thread, in (ts, −dur, file order): the parent is the last open event (started, not ended)
/// that contains the event. An event ending at the file's last host timestamp (left open at
/// profiler stop) that outlasts the last open event is its child instead, cut to its end.
/// Returns the parents and each event's (cut) duration.
fn parents(ev: &[Ev]) -> (Vec<Option<usize>>, Vec<i64>) {
    let mut by_thread: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, e) in ev.iter().enumerate().filter(|(_, e)| e.place == 'h') {
        by_thread.entry(&e.thread).or_default().push(i);
    }
    let trace_end = ev
        .iter()
        .filter(|e| e.place == 'h')
        .map(Ev::end)
        .max()
        .unwrap_or(i64::MIN);
    let mut parent = vec![None; ev.len()];
    let mut dur: Vec<i64> = ev.iter().map(|e| e.dur).collect();
    for (_, mut list) in by_thread {
        list.sort_by_key(|&i| (ev[i].ts, -ev[i].dur, i));
        let mut open: Vec<usize> = Vec::new();
        for i in list {
            let ts = ev[i].ts;
            open.retain(|&p| ts < ev[p].ts + dur[p]);
            let end_of = |p: usize, dur: &[i64]| ev[p].ts + dur[p];
            if let Some(&last) = open.last()
                && ev[i].end() == trace_end
                && ev[i].end() > end_of(last, &dur)
            {
                dur[i] = end_of(last, &dur) - ts;
            }
            parent[i] = open
                .iter()
                .rev()
                .copied()
                .find(|&p| ev[p].ts <= ts && ts + dur[i] <= end_of(p, &dur));
            open.push(i);
        }
    }
    (parent, dur)
}

type OpRows = BTreeMap<String, [i64; 5]>;
type KernelRows = BTreeMap<(Option<String>, String), [i64; 4]>;

fn selected<'a>(files: &'a [Model], ranks: &[i64], iters: &Option<Vec<i64>>) -> Vec<(&'a Model, Vec<bool>)> {
    ranks
        .iter()
        .filter_map(|r| files.iter().find(|m| m.rank == *r))
        .map(|m| {
            let keep = m
                .iteration
                .iter()
                .map(|it| iters.as_ref().is_none_or(|v| v.contains(it)))
                .collect();
            (m, keep)
        })
        .collect()
}

fn op_rows(sel: &[(&Model, Vec<bool>)]) -> OpRows {
    let mut rows = OpRows::new();
    for (m, keep) in sel {
        for i in 0..m.ev.len() {
            if keep[i] && m.ev[i].is_op() {
                let r = rows.entry(m.ev[i].name.clone()).or_default();
                r[0] += 1;
                r[1] += m.host_self[i];
                r[2] += m.ev[i].dur;
                r[3] += m.device_self[i];
                r[4] += m.device_total[i];
            }
        }
    }
    rows
}

/// Whether a row is a non-ATen owner's (`gemm [python]`, docs/graphs.md#launch-owners).
/// A graph kernel's owner without its node ordinal (`replay [python] node 3` → `replay
/// [python]`).
fn without_node(owner: &str) -> &str {
    match owner.rsplit_once(" node ") {
        Some((base, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => owner,
    }
}

fn is_non_aten(name: &str) -> bool {
    [" [python]", " [triton]", " [annotation]", " [launch]"]
        .iter()
        .any(|t| name.ends_with(t))
}

fn kernel_rows(sel: &[(&Model, Vec<bool>)], by_op: bool) -> KernelRows {
    let mut rows = KernelRows::new();
    for (m, keep) in sel {
        for i in 0..m.ev.len() {
            if keep[i] && m.ev[i].place == 'd' {
                let op = by_op.then(|| m.launcher[i].map_or("(no operator)".to_string(), |o| m.ev[o].name.clone()));
                let r = rows
                    .entry((op, m.ev[i].name.clone()))
                    .or_insert([0, 0, i64::MAX, i64::MIN]);
                r[0] += 1;
                r[1] += m.ev[i].dur;
                r[2] = r[2].min(m.ev[i].dur);
                r[3] = r[3].max(m.ev[i].dur);
            }
        }
    }
    rows
}

/// Σ over windows of the union of the spans inside each.
fn busy(spans: &[(i64, i64)], windows: &[(i64, i64)]) -> i64 {
    let mut total = 0;
    for &(ws, we) in windows {
        let mut cut: Vec<(i64, i64)> = spans
            .iter()
            .map(|&(s, e)| (s.max(ws), e.min(we)))
            .filter(|(s, e)| s < e)
            .collect();
        cut.sort();
        let mut reach = i64::MIN;
        for (s, e) in cut {
            let s = s.max(reach);
            if e > s {
                total += e - s;
            }
            reach = reach.max(e);
        }
    }
    total
}

/// A file's windows: its selected host ProfilerSteps, or the span of its events.
fn model_windows(m: &Model, iters: &Option<Vec<i64>>) -> Vec<(i64, i64)> {
    match iters {
        Some(its) => {
            m.ev.iter()
                .filter(|e| e.place == 'h' && step_of(&e.name).is_some_and(|n| its.contains(&n)))
                .map(|e| (e.ts, e.end()))
                .collect()
        }
        None if m.ev.is_empty() => vec![],
        None => vec![(
            m.ev.iter().map(|e| e.ts).min().unwrap(),
            m.ev.iter().map(|e| e.end()).max().unwrap(),
        )],
    }
}

/// (steps, mean step ns, gpu busy per step ns, utilization, host busy per step ns)
type OverviewModel = (usize, Option<i64>, Option<i64>, Option<f64>, Option<i64>);

fn overview_model(sel: &[(&Model, Vec<bool>)], iters: &Option<Vec<i64>>) -> OverviewModel {
    let (mut windows, mut window_ns, mut gpu, mut host, mut has_gpu, mut has_ops) =
        (0i64, 0i64, 0i64, 0i64, false, false);
    for (m, _) in sel {
        let w = model_windows(m, iters);
        let spans = |f: &dyn Fn(&Ev) -> bool| -> Vec<(i64, i64)> {
            m.ev.iter().filter(|e| f(e)).map(|e| (e.ts, e.end())).collect()
        };
        has_gpu |= m.ev.iter().any(|e| e.place == 'd');
        has_ops |= m.ev.iter().any(Ev::is_op);
        gpu += busy(&spans(&|e| e.place == 'd'), &w);
        // Operators, never the step itself (an `Operator` in older traces).
        host += busy(&spans(&|e| e.is_op() && step_of(&e.name).is_none()), &w);
        windows += w.len() as i64;
        window_ns += w.iter().map(|(s, e)| e - s).sum::<i64>();
    }
    let per = |x: i64| (windows > 0).then(|| x / windows);
    (
        iters.as_ref().map_or(0, Vec::len),
        iters.as_ref().and_then(|_| per(window_ns)),
        if has_gpu { per(gpu) } else { None },
        (has_gpu && window_ns > 0).then(|| gpu as f64 / window_ns as f64),
        if has_ops { per(host) } else { None },
    )
}

/// The breakdown's class of a device event, written from the rule's words: 0 compute,
/// 1 communication, 2 memory.
fn class_model(e: &Ev) -> usize {
    let memory_cat = matches!(e.cat.as_str(), "gpu_memcpy" | "gpu_memset" | "Memcpy" | "Memset");
    let n = e.name.as_str();
    let memory_name = ["Memcpy", "Memset", "hipMemcpy", "hipMemset", "dma"]
        .iter()
        .any(|p| n.starts_with(p));
    let lower = n.to_lowercase();
    let comm = ["nccl", "rccl", "hccl"].iter().any(|p| lower.starts_with(p)) || lower.contains("ncclkernel");
    if memory_cat || memory_name {
        2
    } else if comm {
        1
    } else {
        0
    }
}

/// Per window, by a sweep over the event edges (not by merging spans as the library does):
/// [compute, comm_total, comm_overlapped, comm_exposed, memory_exposed, idle].
fn breakdown_model(m: &Model, (ws, we): (i64, i64)) -> [i64; 6] {
    let mut edges: Vec<(i64, usize, i64)> = Vec::new();
    for e in m.ev.iter().filter(|e| e.place == 'd') {
        let (s, t) = (e.ts.max(ws), e.end().min(we));
        if s < t {
            let c = class_model(e);
            edges.push((s, c, 1));
            edges.push((t, c, -1));
        }
    }
    edges.sort();
    let mut open = [0i64; 3];
    let mut out = [0i64; 6];
    let mut at = ws;
    for (x, c, d) in edges {
        let len = x - at;
        let [cp, cm, mem] = open.map(|n| n > 0);
        if cp {
            out[0] += len;
        }
        if cm {
            out[1] += len;
        }
        if cm && cp {
            out[2] += len;
        }
        if cm && !cp {
            out[3] += len;
        }
        if mem && !cp && !cm {
            out[4] += len;
        }
        if !cp && !cm && !mem {
            out[5] += len;
        }
        open[c] += d;
        at = x;
    }
    out[5] += we - at;
    out
}

/// The mean breakdown of a side: sums over its windows, divided by their number; idle takes
/// the rounding so the parts add up to the mean step.
fn breakdown_mean_model(sel: &[(&Model, Vec<bool>)], iters: &Option<Vec<i64>>) -> Option<[i64; 7]> {
    if !sel.iter().any(|(m, _)| m.ev.iter().any(|e| e.place == 'd')) {
        return None;
    }
    let (mut sum, mut step, mut n) = ([0i64; 6], 0i64, 0i64);
    for (m, _) in sel {
        for w in model_windows(m, iters) {
            let b = breakdown_model(m, w);
            assert_eq!(b[0] + b[3] + b[4] + b[5], w.1 - w.0, "parts of a window add up to it");
            for k in 0..6 {
                sum[k] += b[k];
            }
            step += w.1 - w.0;
            n += 1;
        }
    }
    let n = n.max(1);
    let mean = sum.map(|x| x / n);
    let step = step / n;
    Some([
        step,
        mean[0],
        mean[1],
        mean[2],
        mean[3],
        mean[4],
        step - mean[0] - mean[3] - mean[4],
    ])
}

/// What the host was doing, for the idle causes, from the rule's words: 0 a host collective
/// (gloo, c10d, nccl, record_param_comms; one other than gloo's that makes a launch call on its
/// thread is an operator instead), 1 a synchronize or blocking copy, 2 any other runtime call, 3 the data
/// loader, 4 any other operator, annotation or Python frame; `None`: a step, or not host.
fn activity_model(e: &Ev, launches: &[(String, i64)]) -> Option<usize> {
    if e.place != 'h' {
        return None;
    }
    let runtime = matches!(e.cat.as_str(), "cuda_runtime" | "cuda_driver" | "Runtime") || e.cat.ends_with("_runtime");
    if runtime {
        let n = e.name.as_str();
        let blocking_copy = ["cudaMemcpy", "hipMemcpy", "cudaMemcpy2D", "cudaMemcpy3D", "hipMemcpy2D"].contains(&n)
            || n.starts_with("cudaMemcpyToSymbol")
            || n.starts_with("cudaMemcpyFromSymbol")
            || n == "cudaMemcpyPeer"
            || n == "hipMemcpyPeer"
            || (n.starts_with("cuMemcpy") && !n.contains("Async"));
        let sync = n.to_lowercase().contains("synchronize") || blocking_copy;
        return Some(if sync { 1 } else { 2 });
    }
    // A serving loop's step annotation (SGLang `step[DECODE bs=16]`, vLLM `execute_…`, ATOM
    // `prefill[…]`/`decode[…]`) covers everything, as ProfilerStep does.
    let n = e.name.as_str();
    let vllm = n.strip_prefix("execute_").is_some_and(|r| {
        r.starts_with("diffusion_")
            || r.trim_start_matches(|c: char| c.is_ascii_digit()).len() < r.len() && r.contains("_context_")
    });
    let sglang = n.strip_prefix("step[").is_some_and(|r| {
        let word: String = r.chars().take_while(char::is_ascii_uppercase).collect();
        !word.is_empty() && (r[word.len()..].starts_with(' ') || r[word.len()..].starts_with(']'))
    });
    let serving = vllm || sglang || n.starts_with("prefill[") || n.starts_with("decode[");
    let host = matches!(
        e.cat.as_str(),
        "cpu_op" | "Operator" | "user_annotation" | "python_function"
    );
    if !host || step_of(&e.name).is_some() || serving {
        return None;
    }
    if e.cat == "python_function" {
        return Some(4);
    }
    let n = e.name.as_str();
    if n.starts_with("gloo:") || n.starts_with("c10d::") || n.starts_with("nccl:") || n == "record_param_comms" {
        let launches_one = !n.starts_with("gloo:")
            && launches
                .iter()
                .any(|(t, ts)| *t == e.thread && e.ts <= *ts && *ts < e.end());
        return Some(if launches_one { 4 } else { 0 });
    }
    Some(if n.starts_with("enumerate(DataLoader)") { 3 } else { 4 })
}

/// Launch calls (runtime events whose name holds `Launch`): (thread, start); none where the
/// file has no communication kernel (named as NCCL's, RCCL's or HCCL's, not a copy or set),
/// so that no collective launched one.
fn launches_model(m: &Model) -> Vec<(String, i64)> {
    let comm = m.ev.iter().filter(|e| e.place == 'd').any(|e| {
        let n = e.name.to_lowercase();
        let memory = ["gpu_memcpy", "gpu_memset", "Memcpy", "Memset"].contains(&e.cat.as_str())
            || ["Memcpy", "Memset", "hipMemcpy", "hipMemset", "dma"]
                .iter()
                .any(|p| e.name.starts_with(p));
        (["nccl", "rccl", "hccl"].iter().any(|p| n.starts_with(p)) || n.contains("ncclkernel")) && !memory
    });
    m.ev.iter()
        .filter(|_| comm)
        .filter(|e| e.place == 'h' && e.name.contains("Launch"))
        .filter(|e| matches!(e.cat.as_str(), "cuda_runtime" | "cuda_driver" | "Runtime") || e.cat.ends_with("_runtime"))
        .map(|e| (e.thread.clone(), e.ts))
        .collect()
}

/// The idle causes of one window by a sweep over the edges of device work (−1) and host
/// activities (0–4): each stretch with no device work goes to the lowest activity open, else
/// to untraced (5). Also the host communication: where some host collective is open.
fn idle_model(m: &Model, launches: &[(String, i64)], (ws, we): (i64, i64)) -> ([i64; 6], i64) {
    let mut edges: Vec<(i64, i64, i64)> = Vec::new();
    for e in &m.ev {
        let class = if e.place == 'd' {
            Some(-1)
        } else {
            activity_model(e, launches).map(|k| k as i64)
        };
        let (s, t) = (e.ts.max(ws), e.end().min(we));
        if let Some(c) = class
            && s < t
        {
            edges.push((s, c, 1));
            edges.push((t, c, -1));
        }
    }
    edges.sort();
    let mut open = [0i64; 6]; // [device, 0..4]
    let (mut out, mut comm) = ([0i64; 6], 0);
    let mut at = ws;
    for (x, c, d) in edges.into_iter().chain([(we, -1, 0)]) {
        let len = x - at;
        if open[1] > 0 {
            comm += len;
        }
        if open[0] == 0 {
            let k = (1..6).find(|&k| open[k] > 0).map_or(5, |k| k - 1);
            out[k] += len;
        }
        open[(c + 1) as usize] += d;
        at = x;
    }
    (out, comm)
}

/// The mean idle causes of a side (untraced takes the rounding, as idle does) and its host
/// communication per window.
fn idle_mean_model(sel: &[(&Model, Vec<bool>)], iters: &Option<Vec<i64>>, idle_mean: i64) -> ([i64; 6], i64) {
    let (mut sum, mut comm, mut n) = ([0i64; 6], 0i64, 0i64);
    for (m, _) in sel {
        let launches = launches_model(m);
        for w in model_windows(m, iters) {
            let (parts, c) = idle_model(m, &launches, w);
            for k in 0..6 {
                sum[k] += parts[k];
            }
            comm += c;
            n += 1;
        }
    }
    let n = n.max(1);
    let mut mean = sum.map(|x| x / n);
    mean[5] = idle_mean - mean[..5].iter().sum::<i64>();
    (mean, comm / n)
}

/// (peak, avg, device) of the device with the largest peak, from `[memory]` instants: naive
/// per-window walk over every event of the device, in time order.
fn memory_model(paths: &[&Path], windows: &[Vec<(i64, i64)>]) -> (Option<i64>, Option<i64>, Option<String>) {
    let mut best: Option<(i64, i64, String)> = None;
    for (path, w) in paths.iter().zip(windows) {
        let doc = read(path);
        // (device type, id) -> [(ts, file position, Total Allocated, Bytes)]
        #[allow(clippy::type_complexity)]
        let mut per: BTreeMap<(i64, i64), Vec<(i64, usize, i64, i64)>> = BTreeMap::new();
        for (k, e) in doc["traceEvents"].as_array().unwrap().iter().enumerate() {
            if e["name"] != "[memory]" || e["ph"] != "i" {
                continue;
            }
            let a = &e["args"];
            // A missing `Total Allocated` is -1 here: a device none of whose events has one
            // is measured from the running sum of `Bytes` (below).
            let total = a["Total Allocated"].as_i64().unwrap_or(-1);
            let key = (
                a["Device Type"].as_i64().unwrap_or(0),
                a["Device Id"].as_i64().unwrap_or(0),
            );
            per.entry(key)
                .or_default()
                .push((ns(&e["ts"]).unwrap(), k, total, a["Bytes"].as_i64().unwrap_or(0)));
        }
        for ((t, id), mut evs) in per {
            evs.sort();
            let relative = evs.iter().all(|e| e.2 < 0);
            if relative {
                // Levels known up to a constant: the running sum from 0, each window measured
                // from the level at its start.
                let mut sum = 0i64;
                for e in evs.iter_mut() {
                    sum += e.3;
                    e.2 = sum;
                    e.3 = 0;
                }
                // The level before the first event is 0.
                if let Some(first) = evs.first_mut() {
                    first.3 = first.2;
                }
            } else {
                evs.retain(|e| e.2 >= 0);
            }
            if evs.is_empty() {
                continue;
            }
            let level_at = |x: i64| evs.iter().rfind(|e| e.0 <= x).map_or(evs[0].2 - evs[0].3, |e| e.2);
            let (mut peak, mut integral, mut len) = (i64::MIN, 0i128, 0i64);
            for &(ws, we) in w.iter().filter(|(s, e)| e > s) {
                let mut cuts: Vec<i64> = vec![ws];
                cuts.extend(evs.iter().map(|e| e.0).filter(|&x| ws < x && x < we));
                cuts.push(we);
                let base = if relative { level_at(ws) } else { 0 };
                for pair in cuts.windows(2) {
                    let l = level_at(pair[0]) - base;
                    peak = peak.max(l);
                    integral += i128::from(l) * i128::from(pair[1] - pair[0]);
                }
                len += we - ws;
            }
            if len > 0 && best.as_ref().is_none_or(|b| peak > b.0) {
                let name = [
                    "cpu",
                    "cuda",
                    "mkldnn",
                    "opengl",
                    "opencl",
                    "ideep",
                    "hip",
                    "fpga",
                    "maia",
                    "xla",
                    "vulkan",
                    "metal",
                    "xpu",
                    "mps",
                    "meta",
                    "hpu",
                    "ve",
                    "lazy",
                    "ipu",
                    "mtia",
                    "privateuseone",
                ]
                .get(t as usize)
                .map_or(format!("device type {t}"), |n| n.to_string());
                // PyTorch's spelling: `cuda:0`, and `cpu` for the CPU's id -1.
                let device = if id < 0 { name } else { format!("{name}:{id}") };
                best = Some((peak, (integral / i128::from(len)) as i64, device));
            }
        }
    }
    match best {
        Some((p, a, d)) => (Some(p), Some(a), Some(d)),
        None => (None, None, None),
    }
}

/// The device the kernels ran on (the most frequent `args.device` of kept events, lowest id on
/// ties) of the first file that names one, from `deviceProperties` (or its only entry).
fn device_model(paths: &[&Path]) -> (Option<String>, Option<u64>) {
    for p in paths {
        let doc = read(p);
        let mut uses: BTreeMap<i64, u64> = BTreeMap::new();
        for e in doc["traceEvents"].as_array().unwrap() {
            let kept = e.get("dur").is_some() && e.get("cat").and_then(|c| c.as_str()).is_some_and(|c| c != "Trace");
            if let Some(d) = e["args"]["device"].as_i64().filter(|_| kept) {
                *uses.entry(d).or_default() += 1;
            }
        }
        let props = doc["deviceProperties"].as_array().cloned().unwrap_or_default();
        let most = uses
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|(d, _)| *d);
        // The one device described stands for an undescribed id the events name.
        let only = if props.len() == 1 { props.first() } else { None };
        let chosen = match most {
            Some(d) => props.iter().find(|x| x["id"].as_i64() == Some(d)).or(only),
            None => only,
        };
        if let Some(x) = chosen {
            return (x["name"].as_str().map(String::from), x["totalGlobalMem"].as_u64());
        }
    }
    (None, None)
}

fn files_of(dir: &Path) -> Vec<PathBuf> {
    if dir.is_file() {
        return vec![dir.to_path_buf()];
    }
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".json.gz") || p.to_string_lossy().ends_with(".json"))
        .collect();
    v.sort();
    v
}

fn check_pair(control: &Path, test: &Path, all: bool) -> String {
    let mut req = CompareRequest::new(control, test);
    if all {
        for s in [&mut req.control_selection, &mut req.test_selection] {
            s.ranks = Pick::All;
            s.iterations = Pick::All;
        }
    }
    let ops = commands::operators(&req, &OperatorsOptions::default())
        .unwrap()
        .value
        .table;
    let kernels = |by_operator| -> ViewTable {
        let options = KernelsOptions {
            by_operator,
            ..KernelsOptions::default()
        };
        commands::kernels(&req, &options).unwrap().value.table
    };
    let (ks, kbo) = (kernels(false), kernels(true));
    // The overview over the ranks and steps the views resolved to (by default it takes every
    // step where the views take the first).
    let resolved: [Resolved; 2] = [ops.control.resolved.clone(), ops.test.resolved.clone()];
    let mut over = req.clone();
    for (s, r) in [&mut over.control_selection, &mut over.test_selection]
        .into_iter()
        .zip(&resolved)
    {
        s.ranks = Pick::List(r.ranks.clone());
        if let Some(steps) = &r.iterations {
            s.iterations = Pick::List(steps.clone());
        }
    }
    let ov = commands::overview(&over, &Default::default()).unwrap().value;
    let mut checked = 0;
    for (k, dir) in [control, test].into_iter().enumerate() {
        let models: Vec<Model> = files_of(dir).iter().map(|p| model(p)).collect();
        let res = &resolved[k];
        let sel = selected(&models, &res.ranks, &res.iterations);
        let side = |v: &[Option<i64>]| -> Vec<i64> { v.iter().map(|x| x.unwrap_or(0)).collect() };
        let want_ops = op_rows(&sel);
        let got_ops: OpRows = ops
            .rows
            .iter()
            .map(|r| r.name.clone())
            .zip(ops.rows.iter().map(|r| side(if k == 0 { &r.control } else { &r.test })))
            .filter(|(n, v)| v[0] > 0 && !is_non_aten(n))
            .map(|(n, v)| (n, [v[0], v[1], v[2], v[3], v[4]]))
            .collect();
        assert_eq!(got_ops, want_ops, "{} operators, side {k}", control.display());
        // The launches outside every ATen operator have rows of their owners (docs/graphs.md),
        // which this model leaves out; they hold no more than its `(no operator)` kernels.
        let non_aten: i64 = ops
            .rows
            .iter()
            .filter(|r| is_non_aten(&r.name))
            .map(|r| side(if k == 0 { &r.control } else { &r.test })[3])
            .sum();
        let unowned: i64 = kernel_rows(&sel, true)
            .iter()
            .filter(|((op, _), _)| op.as_deref() == Some("(no operator)"))
            .map(|(_, v)| v[1])
            .sum();
        assert!(non_aten <= unowned, "{} non-ATen rows, side {k}", control.display());
        for (table, by_op) in [(&ks, false), (&kbo, true)] {
            let want = kernel_rows(&sel, by_op);
            // A non-ATen owner (docs/graphs.md) is `(no operator)` in this model, and a graph
            // kernel's owner is its launching operator without the node ordinal the command
            // adds (`… node 3`, docs/graphs.md#launch-owners).
            let mut got = KernelRows::new();
            for r in &table.rows {
                let v = if k == 0 { &r.control } else { &r.test };
                if v[0] == Some(0) {
                    continue;
                }
                let op = r.operator.as_deref().map(|o| {
                    let o = without_node(o);
                    if is_non_aten(o) {
                        "(no operator)".to_string()
                    } else {
                        o.to_string()
                    }
                });
                let e = got.entry((op, r.name.clone())).or_insert([0, 0, i64::MAX, i64::MIN]);
                e[0] += v[0].unwrap();
                e[1] += v[1].unwrap();
                e[2] = e[2].min(v[3].unwrap());
                e[3] = e[3].max(v[4].unwrap());
            }
            assert_eq!(got, want, "{} kernels by_op={by_op}, side {k}", control.display());
            for r in &table.rows {
                let v = if k == 0 { &r.control } else { &r.test };
                if let (Some(c), Some(t)) = (v[0], v[1]) {
                    assert_eq!(v[2], (c > 0).then(|| t / c), "mean of {}", r.name);
                }
            }
        }
        let o = if k == 0 { &ov.control } else { &ov.test };
        let got = (
            o.steps,
            o.mean_step_time_ns,
            o.gpu_busy_per_step_ns,
            o.gpu_utilization,
            o.host_busy_per_step_ns,
        );
        assert_eq!(
            got,
            overview_model(&sel, &res.iterations),
            "{} overview side {k}",
            control.display()
        );
        let got = o.breakdown.map(|b| {
            [
                b.step_ns,
                b.compute_ns,
                b.comm_total_ns,
                b.comm_overlapped_ns,
                b.comm_exposed_ns,
                b.memory_exposed_ns,
                b.idle_ns,
            ]
        });
        let want = breakdown_mean_model(&sel, &res.iterations);
        assert_eq!(got, want, "{} breakdown side {k}", control.display());
        let (causes, comm) = idle_mean_model(&sel, &res.iterations, want.map_or(0, |w| w[6]));
        if let Some(b) = o.breakdown {
            let got = b.idle_causes.map(|c| c.parts().map(|(_, ns)| ns));
            assert_eq!(got, Some(causes), "{} idle causes side {k}", control.display());
        }
        let windows = sel
            .iter()
            .map(|(m, _)| model_windows(m, &res.iterations).len())
            .sum::<usize>();
        let want_comm = (windows > 0).then_some(comm);
        assert_eq!(
            o.host_comm_per_step_ns,
            want_comm,
            "{} host communication side {k}",
            control.display()
        );
        let files = files_of(dir);
        let paths: Vec<&Path> = res
            .ranks
            .iter()
            .filter_map(|r| {
                files
                    .iter()
                    .zip(&models)
                    .find(|(_, m)| m.rank == *r)
                    .map(|(p, _)| p.as_path())
            })
            .collect();
        let windows: Vec<Vec<(i64, i64)>> = sel.iter().map(|(m, _)| model_windows(m, &res.iterations)).collect();
        let mem = (o.peak_allocated_bytes, o.avg_allocated_bytes, o.memory_device.clone());
        assert_eq!(
            mem,
            memory_model(&paths, &windows),
            "{} memory side {k}",
            control.display()
        );
        let dev = (o.device_name.clone(), o.device_memory_bytes);
        assert_eq!(dev, device_model(&paths), "{} device side {k}", control.display());
        checked += want_ops.len();
    }
    format!("{} ({} op rows)", control.display(), checked)
}

#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn views_equal_the_independent_model_on_every_real_pair() {
    let Some(t) = traces() else { return };
    let mut pairs: Vec<(PathBuf, PathBuf)> = vec![
        (t.join("hta_trace_compare/base"), t.join("hta_trace_compare/test")),
        (t.join("hta_trace_diff/control"), t.join("hta_trace_diff/test")),
        (
            t.join("kineto_resnet50_workers/w0"),
            t.join("kineto_resnet50_workers/w4"),
        ),
        (
            t.join("tracelens_bert_small/h100"),
            t.join("tracelens_bert_small/mi300"),
        ),
    ];
    for s in [
        "fused_op",
        "identical",
        "linear_dims",
        "loss_fn",
        "multi_rank",
        "precision",
    ] {
        pairs.push((
            t.join(format!("torch_cpu/{s}/control")),
            t.join(format!("torch_cpu/{s}/test")),
        ));
    }
    for f in files_of(&t.join("edge")) {
        pairs.push((f.clone(), f));
    }
    for s in ["attention", "nomodules", "precision", "resnet", "vit_precision"] {
        pairs.push((
            t.join(format!("gpu_h100/{s}/control")),
            t.join(format!("gpu_h100/{s}/test")),
        ));
    }
    let two = files_of(&t.join("hta_two_ranks"));
    pairs.push((two[0].clone(), two[1].clone()));
    for (c, tt) in pairs {
        for all in [false, true] {
            eprintln!("checked {}", check_pair(&c, &tt, all));
        }
    }
}

/// The same check on the CPU traces of the design's scenarios that the repository ships
/// (PyTorch 2.15, `scripts/record_scenarios.py`): runs without `../shared`.
#[test]
fn views_equal_the_independent_model_on_the_recorded_scenarios() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/scenarios");
    for s in ["resnet", "attention", "precision", "nomodules"] {
        let (c, t) = (base.join(s).join("control"), base.join(s).join("test"));
        for all in [false, true] {
            eprintln!("checked {}", check_pair(&c, &t, all));
        }
    }
}
