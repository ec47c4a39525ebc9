//! Parses the `traceEvents` of one trace with each candidate and prints MB/s (best and median of
//! RUNS). Every candidate reads the same fields: name, cat, ts, dur, pid, tid, args.stream,
//! args.correlation, and skips (validating) the rest.
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
#[allow(unused_imports)]
use std::borrow::Cow;
use std::fmt;
use std::time::Instant;

#[derive(Default, Clone, Copy)]
struct LooseInt(i64);
impl<'de> Deserialize<'de> for LooseInt {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LooseInt;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("int")
            }
            fn visit_i64<E>(self, v: i64) -> Result<LooseInt, E> {
                Ok(LooseInt(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<LooseInt, E> {
                Ok(LooseInt(v as i64))
            }
            fn visit_f64<E>(self, v: f64) -> Result<LooseInt, E> {
                Ok(LooseInt(v as i64))
            }
            fn visit_str<E>(self, v: &str) -> Result<LooseInt, E> {
                Ok(LooseInt(v.parse().unwrap_or(-1)))
            }
            fn visit_unit<E>(self) -> Result<LooseInt, E> {
                Ok(LooseInt(-1))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<LooseInt, A::Error> {
                while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LooseInt(-1))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<LooseInt, A::Error> {
                while s.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LooseInt(-1))
            }
            fn visit_bool<E>(self, _: bool) -> Result<LooseInt, E> {
                Ok(LooseInt(-1))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize)]
struct Args {
    stream: Option<LooseInt>,
    correlation: Option<LooseInt>,
}

#[derive(Deserialize)]
struct Ev<'a> {
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    cat: Option<Cow<'a, str>>,
    ts: Option<f64>,
    dur: Option<f64>,
    pid: Option<LooseInt>,
    tid: Option<LooseInt>,
    args: Option<Args>,
}

#[derive(Deserialize)]
struct RawEv<'a> {
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    cat: Option<Cow<'a, str>>,
    #[serde(borrow)]
    ts: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow)]
    dur: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow)]
    pid: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow)]
    tid: Option<&'a serde_json::value::RawValue>,
    args: Option<Args>,
}

/// The fields tracediff reads, every one as raw text (as the product reads them: numbers kept
/// digit for digit, strings decoded later), the rest skipped.
#[derive(Deserialize)]
struct RawArgs<'a> {
    #[serde(borrow)]
    stream: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow)]
    correlation: Option<&'a serde_json::value::RawValue>,
}

#[derive(Deserialize)]
struct AllRawEv<'a> {
    #[serde(borrow)]
    name: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow)]
    cat: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow)]
    ts: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow)]
    dur: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow)]
    pid: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow)]
    tid: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow)]
    args: Option<RawArgs<'a>>,
}

/// The same with sonic-rs's raw values.
#[derive(Deserialize)]
struct LazyArgs<'a> {
    #[serde(borrow)]
    stream: Option<sonic_rs::LazyValue<'a>>,
    #[serde(borrow)]
    correlation: Option<sonic_rs::LazyValue<'a>>,
}

#[derive(Deserialize)]
struct LazyEv<'a> {
    #[serde(borrow)]
    name: Option<sonic_rs::LazyValue<'a>>,
    #[serde(borrow)]
    cat: Option<sonic_rs::LazyValue<'a>>,
    #[serde(borrow)]
    ts: Option<sonic_rs::LazyValue<'a>>,
    #[serde(borrow)]
    dur: Option<sonic_rs::LazyValue<'a>>,
    #[serde(borrow)]
    pid: Option<sonic_rs::LazyValue<'a>>,
    #[serde(borrow)]
    tid: Option<sonic_rs::LazyValue<'a>>,
    #[serde(borrow)]
    args: Option<LazyArgs<'a>>,
}

fn fold_all_raw(e: &AllRawEv) -> u64 {
    let mut h = 0;
    for r in [e.name, e.cat, e.ts, e.dur, e.pid, e.tid].into_iter().flatten() {
        h += r.get().len() as u64;
    }
    if let Some(a) = &e.args {
        for r in [a.stream, a.correlation].into_iter().flatten() {
            h += r.get().len() as u64;
        }
    }
    h
}

fn fold_lazy(e: &LazyEv) -> u64 {
    let mut h = 0;
    for r in [&e.name, &e.cat, &e.ts, &e.dur, &e.pid, &e.tid].into_iter().flatten() {
        h += r.as_raw_str().len() as u64;
    }
    if let Some(a) = &e.args {
        for r in [&a.stream, &a.correlation].into_iter().flatten() {
            h += r.as_raw_str().len() as u64;
        }
    }
    h
}

/// JSONTestSuite's documents (DIR/test_parsing) as an event member, a `name` and an `args`
/// value: which documents serde_json (as tracediff reads events) and sonic-rs (raw values)
/// judge differently.
fn suite_check(dir: &str) {
    let mut entries: Vec<_> = std::fs::read_dir(format!("{dir}/test_parsing"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    let (mut docs, mut differ) = (0, Vec::new());
    let places: [(&[u8], &[u8]); 3] = [(br#"{"ph": "X", "k": "#, b"}"), (br#"{"name": "#, b"}"), (br#"{"args": {"k": "#, b"}}")];
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let doc = std::fs::read(&path).unwrap();
        docs += 1;
        for (head, tail) in places {
            let text = [head, &doc[..], tail].concat();
            let serde = serde_json::from_slice::<AllRawEv>(&text).is_ok();
            // sonic-rs 0.5 skips nested values recursively, with no limit: these two (100,000
            // and 50,000 open brackets) overflow the stack and abort the process.
            if name.contains("100000_opening_arrays") || name.contains("open_array_object") {
                differ.push(format!("{name} ({}: sonic-rs overflows the stack)", String::from_utf8_lossy(head)));
                continue;
            }
            let sonic = sonic_rs::from_slice::<LazyEv>(&text).is_ok();
            if serde != sonic {
                differ.push(format!("{name} ({}: serde_json {serde}, sonic-rs {sonic})", String::from_utf8_lossy(head)));
            }
        }
    }
    println!("JSONTestSuite: {docs} documents at 3 places, {} judged differently:", differ.len());
    for d in &differ {
        println!("  {d}");
    }
    let cases: [(&str, &[u8]); 3] = [
        ("lone surrogate in name", br#"{"name": "a\ud800b", "ts": 1}"#),
        ("huge number", br#"{"ts": 123456789012345678901234567890.123456789e2}"#),
        ("number past f64", br#"{"ts": 1e400}"#),
    ];
    for (what, text) in cases {
        let s = serde_json::from_slice::<AllRawEv>(text).map(|e| e.ts.map(|r| r.get().to_string()));
        let l = sonic_rs::from_slice::<LazyEv>(text).map(|e| e.ts.map(|r| r.as_raw_str().to_string()));
        println!("  {what}: serde_json {:?}, sonic-rs {:?}", s.map_err(|e| e.to_string()), l.map_err(|e| e.to_string()));
    }
}

fn fold_raw(e: &RawEv) -> u64 {
    let mut h = e.name.as_ref().map_or(0, |s| s.len() as u64);
    h += e.cat.as_ref().map_or(0, |s| s.len() as u64);
    for r in [e.ts, e.dur, e.pid, e.tid].into_iter().flatten() {
        h += r.get().len() as u64;
    }
    if let Some(a) = &e.args {
        h += a.stream.unwrap_or_default().0 as u64 + a.correlation.unwrap_or_default().0 as u64;
    }
    h
}

fn fold(e: &Ev) -> u64 {
    let mut h = e.name.as_ref().map_or(0, |s| s.len() as u64);
    h += e.cat.as_ref().map_or(0, |s| s.len() as u64);
    h += e.ts.unwrap_or(0.0) as u64 + e.dur.unwrap_or(0.0) as u64;
    h += e.pid.unwrap_or_default().0 as u64 + e.tid.unwrap_or_default().0 as u64;
    if let Some(a) = &e.args {
        h += a.stream.unwrap_or_default().0 as u64 + a.correlation.unwrap_or_default().0 as u64;
    }
    h
}

struct Events(u64);
impl<'de> Deserialize<'de> for Events {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Events;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("events")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Events, A::Error> {
                let mut h = 0u64;
                while let Some(e) = s.next_element::<Ev>()? {
                    h = h.wrapping_add(fold(&e));
                }
                Ok(Events(h))
            }
        }
        d.deserialize_seq(V)
    }
}

#[derive(Deserialize)]
struct Trace {
    #[serde(rename = "traceEvents")]
    events: Events,
}

/// The number of events in traceEvents, cut by tracediff's own splitter (`input::split::Input`,
/// reading the text through its buffer as it reads a file).
fn split_tracediff(text: &[u8]) -> u64 {
    use tracediff_trace::input::split::Input;
    let start = memchr::memmem::find(text, b"\"traceEvents\"").unwrap() + 13;
    let open = start + memchr::memchr(b'[', &text[start..]).unwrap() + 1;
    let mut input = Input::new(&text[open..]);
    let mut count = 0;
    let mut at = 0;
    while let Some((i, b)) = input.skip_ws(at).unwrap() {
        match b {
            b']' => break,
            b',' => at = i + 1,
            _ => {
                let end = input.value_end(i, 2).unwrap();
                count += 1;
                input.consume(end);
                at = 0;
            }
        }
    }
    count
}

/// The extent of every event of the traceEvents array (a minimal splitter: strings, escapes, depth).
fn split(text: &[u8]) -> Vec<(usize, usize)> {
    let start = memchr::memmem::find(text, b"\"traceEvents\"").unwrap() + 13;
    let mut i = start + memchr::memchr(b'[', &text[start..]).unwrap() + 1;
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut ev_start = 0;
    while i < text.len() {
        let b = text[i];
        match b {
            b'"' => {
                i += 1;
                loop {
                    let k = memchr::memchr2(b'"', b'\\', &text[i..]).unwrap();
                    if text[i + k] == b'\\' {
                        i += k + 2;
                    } else {
                        i += k;
                        break;
                    }
                }
            }
            b'{' | b'[' => {
                if depth == 0 {
                    ev_start = i;
                }
                depth += 1;
            }
            b'}' | b']' => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
                if depth == 0 {
                    out.push((ev_start, i + 1));
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// CPU seconds of the calling thread: steadier than wall time on a busy machine.
fn thread_cpu() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec for clock_gettime to write.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Times `f` RUNS times: MB per second of the calling thread's CPU time (`CLOCK=wall` for wall
/// time; the last candidate, tracediff's parse, uses other threads too: run it with
/// RAYON_NUM_THREADS=1).
fn time<F: FnMut() -> u64>(name: &str, bytes: usize, runs: usize, mut f: F) {
    let wall = std::env::var("CLOCK").is_ok_and(|c| c == "wall");
    let now = || if wall { Instant::now().elapsed().as_secs_f64() } else { thread_cpu() };
    let start_wall = Instant::now();
    let mut t = Vec::new();
    let mut h = 0;
    for _ in 0..runs {
        let s = if wall { start_wall.elapsed().as_secs_f64() } else { now() };
        h = f();
        let e = if wall { start_wall.elapsed().as_secs_f64() } else { now() };
        t.push(e - s);
    }
    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let mb = bytes as f64 / 1e6;
    println!(
        "{name:<46} median {:7.0} MB/s  best {:7.0} MB/s  ({runs} runs, check {h})",
        mb / t[runs / 2],
        mb / t[0]
    );
}

fn main() {
    if let Ok(dir) = std::env::var("JSON_TEST_SUITE") {
        suite_check(&dir);
    }
    let path = std::env::args().nth(1).expect("path");
    let runs: usize = std::env::var("RUNS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let text = std::fs::read(&path).unwrap();
    let n = text.len();
    println!("{path}: {} MB", n / 1_000_000);
    time("serde_json, fields, whole document", n, runs, || {
        serde_json::from_slice::<Trace>(&text).unwrap().events.0
    });
    time("sonic-rs, fields, whole document", n, runs, || {
        sonic_rs::from_slice::<Trace>(&text).unwrap().events.0
    });
    time("serde_json, IgnoredAny", n, runs, || {
        serde_json::from_slice::<IgnoredAny>(&text).unwrap();
        0
    });
    time("splitter alone (event extents)", n, runs, || split(&text).len() as u64);
    time("tracediff's splitter (split::Input)", n, runs, || split_tracediff(&text));
    let spans = split(&text);
    time("splitter + serde_json per event", n, runs, || {
        split(&text)
            .iter()
            .map(|&(a, b)| fold(&serde_json::from_slice::<Ev>(&text[a..b]).unwrap()))
            .fold(0u64, u64::wrapping_add)
    });
    time("  serde_json per event (split done)", n, runs, || {
        spans
            .iter()
            .map(|&(a, b)| fold(&serde_json::from_slice::<Ev>(&text[a..b]).unwrap()))
            .fold(0u64, u64::wrapping_add)
    });
    time("  serde_json per event, RawValue numbers", n, runs, || {
        spans
            .iter()
            .map(|&(a, b)| fold_raw(&serde_json::from_slice::<RawEv>(&text[a..b]).unwrap()))
            .fold(0u64, u64::wrapping_add)
    });
    time("  serde_json per event, all raw (tracediff's way)", n, runs, || {
        spans
            .iter()
            .map(|&(a, b)| fold_all_raw(&serde_json::from_slice::<AllRawEv>(&text[a..b]).unwrap()))
            .fold(0u64, u64::wrapping_add)
    });
    time("  sonic-rs per event, all raw (LazyValue)", n, runs, || {
        spans
            .iter()
            .map(|&(a, b)| fold_lazy(&sonic_rs::from_slice::<LazyEv>(&text[a..b]).unwrap()))
            .fold(0u64, u64::wrapping_add)
    });
    time("  sonic-rs per event (split done)", n, runs, || {
        spans
            .iter()
            .map(|&(a, b)| fold(&sonic_rs::from_slice::<Ev>(&text[a..b]).unwrap()))
            .fold(0u64, u64::wrapping_add)
    });
    time("tracediff today (parse_trace, no attrs)", n, runs, || {
        let req = tracediff_trace::input::attrs::AttrRequest::default();
        let t = tracediff_trace::input::parse::parse_trace(
            &text[..],
            std::path::Path::new("x"),
            tracediff_trace::input::read::Compression::None,
            &req,
        )
        .unwrap();
        t.events.len() as u64
    });
}
