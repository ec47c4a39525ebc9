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
    use tracediff::input::split::Input;
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

fn time<F: FnMut() -> u64>(name: &str, bytes: usize, runs: usize, mut f: F) {
    let mut t = Vec::new();
    let mut h = 0;
    for _ in 0..runs {
        let s = Instant::now();
        h = f();
        t.push(s.elapsed().as_secs_f64());
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
    time("  sonic-rs per event (split done)", n, runs, || {
        spans
            .iter()
            .map(|&(a, b)| fold(&sonic_rs::from_slice::<Ev>(&text[a..b]).unwrap()))
            .fold(0u64, u64::wrapping_add)
    });
    time("tracediff today (parse_trace, no attrs)", n, runs, || {
        let req = tracediff::input::attrs::AttrRequest::default();
        let t = tracediff::input::parse::parse_trace(
            &text[..],
            std::path::Path::new("x"),
            tracediff::input::read::Compression::None,
            &req,
        )
        .unwrap();
        t.events.len() as u64
    });
}
