//! Using tracediff as a library: compare two trace directories (or files) and print the five
//! GPU kernels whose total time grew the most, with short names.
//!
//! cargo run --example top_changes -- fixtures/basic/control fixtures/basic/test

use tracediff::Device;
use tracediff::Naming;
use tracediff::commands::{CompareOptions, CompareRequest, compare};
use tracediff::fmt_duration;
use tracediff::{SortKey, sort_rows};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [control, test] = args.as_slice() else {
        return Err("usage: top_changes CONTROL TEST".into());
    };
    let mut request = CompareRequest::new(control, test);
    request.device = Device::Gpu;
    request.naming = Naming::ShortName;
    let outcome = compare(&request, &CompareOptions::default())?;
    for note in &outcome.notes {
        eprintln!("{note}");
    }
    let mut comparison = outcome.value;
    sort_rows(&mut comparison.rows, SortKey::DiffDuration);
    for row in comparison.rows.iter().take(5) {
        println!(
            "{:>12}  {} ({} -> {} launches)",
            fmt_duration(row.diff_dur_ns(), true),
            row.name,
            row.control.count,
            row.test.count
        );
    }
    Ok(())
}
