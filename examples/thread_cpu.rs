//! CPU time of each thread while traces are read as `compare` reads them (the parse for a
//! summary, then iterations and places), read from `/proc/self/task/*/stat`: the busiest
//! thread's CPU seconds per GB of JSON shows the serial part of the reading pipeline, whatever
//! the number of cores. With `--summary`, each trace is also summarised (`compare`'s map step).
//!
//! RAYON_NUM_THREADS=16 cargo run --release --example thread_cpu -- [--summary] BIG.json [MORE.json ...]
//!
//! A sampler thread reads every thread's CPU time every 10 ms and keeps the last value seen, so
//! threads that end before the process (the reading thread of each file) are counted too, less
//! at most one interval. Linux only. Plain JSON files: their size is the JSON's.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// (thread id → (name, CPU seconds)) of every thread of this process now.
fn threads_now(ticks: f64) -> Vec<(u32, String, f64)> {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in dir.flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ...`: the name may hold spaces, so fields are counted after `)`.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let name = stat[open + 1..close].to_string();
        let fields: Vec<&str> = stat[close + 2..].split(' ').collect();
        // utime and stime are fields 14 and 15 of the line, 12 and 13 after `) `.
        let (Some(u), Some(s)) = (fields.get(11), fields.get(12)) else {
            continue;
        };
        let (Ok(u), Ok(s)) = (u.parse::<f64>(), s.parse::<f64>()) else {
            continue;
        };
        let tid = entry.file_name().to_string_lossy().parse().unwrap_or(0);
        out.push((tid, name, (u + s) / ticks));
    }
    out
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let with_summary = args.iter().any(|a| a == "--summary");
    let paths: Vec<PathBuf> = args.iter().filter(|a| *a != "--summary").map(PathBuf::from).collect();
    if paths.is_empty() {
        return Err("usage: thread_cpu TRACE.json [MORE.json ...]".into());
    }
    let bytes: u64 = paths.iter().map(|p| std::fs::metadata(p).map_or(0, |m| m.len())).sum();
    // USER_HZ: 100 on every Linux this runs on.
    let ticks = 100.0;
    let seen: Arc<std::sync::Mutex<BTreeMap<u32, (String, f64)>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (seen, stop) = (Arc::clone(&seen), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let now = threads_now(ticks);
                if let Ok(mut seen) = seen.lock() {
                    for (tid, name, cpu) in now {
                        seen.insert(tid, (name, cpu));
                    }
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        })
    };
    let start = Instant::now();
    for path in &paths {
        if with_summary {
            let summary = tracediff_trace::input::load::summarize_trace(path, &tracediff::summarize_file)?;
            eprintln!("{}: {} steps", path.display(), summary.meta.steps.len());
        } else {
            let r = tracediff_trace::input::read::open(path)?;
            let mut t = tracediff_trace::input::parse::parse_trace_for_summary(r.inner, path, r.compression)?;
            let steps = tracediff_trace::model::iteration::assign_iterations(&t.strings, &mut t.events);
            eprintln!("{}: {} events, {} steps", path.display(), t.events.len(), steps.len());
        }
    }
    let wall = start.elapsed().as_secs_f64();
    // The last sample, taken now, for the threads still alive.
    if let Ok(mut seen) = seen.lock() {
        for (tid, name, cpu) in threads_now(ticks) {
            seen.insert(tid, (name, cpu));
        }
    }
    stop.store(true, Ordering::Relaxed);
    let _ = sampler.join();
    let gb = bytes as f64 / 1e9;
    let seen = seen.lock().map_err(|_| "sampler panicked")?;
    let mut rows: Vec<&(String, f64)> = seen.values().collect();
    rows.sort_by(|a, b| b.1.total_cmp(&a.1));
    let total: f64 = rows.iter().map(|r| r.1).sum();
    println!(
        "{:.0} MB of JSON in {wall:.2} s wall, {total:.2} CPU s over {} threads",
        bytes as f64 / 1e6,
        rows.len()
    );
    for (name, cpu) in rows.iter().take(6) {
        println!("  {name:<20} {cpu:7.2} CPU s  {:6.3} CPU s per GB", cpu / gb);
    }
    let busiest = rows.first().map_or(0.0, |r| r.1);
    println!("busiest thread: {:.3} CPU s per GB", busiest / gb);
    Ok(())
}
