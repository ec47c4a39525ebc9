//! Memory of the event store per kept event, for each attribute preset, on a real trace.
//!
//! cargo run --release --example store_memory -- ../shared/traces/hta_trace_diff/control/control.json.gz

use std::path::PathBuf;
use tracediff_trace::input::attrs::{AttrRequest, Preset};
use tracediff_trace::input::load::load_file;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path: PathBuf = std::env::args().nth(1).ok_or("usage: store_memory TRACE")?.into();
    println!(
        "{:<10} {:>10} {:>8} {:>14} {:>12}",
        "preset", "events", "columns", "store bytes", "bytes/event"
    );
    for (label, preset) in [
        ("none", Preset::None),
        ("default", Preset::Default),
        ("complete", Preset::Complete),
        ("all", Preset::All),
    ] {
        let file = load_file(&path, &AttrRequest::build(preset, &[], &[])?)?;
        let n = file.events.len().max(1);
        println!(
            "{label:<10} {:>10} {:>8} {:>14} {:>12.1}",
            file.events.len(),
            file.attrs.specs.len(),
            file.store_bytes(),
            file.store_bytes() as f64 / n as f64
        );
    }
    Ok(())
}
