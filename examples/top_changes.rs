//! Using tracediff as a library: compare two trace directories (or files) and print the five
//! GPU kernels whose total time grew the most, with short names.
//!
//! cargo run --example top_changes -- fixtures/basic/control fixtures/basic/test

use tracediff::analysis::aggregate::Naming;
use tracediff::analysis::compare::{CompareRequest, compare};
use tracediff::analysis::diff::{SortKey, sort_rows};
use tracediff::analysis::select::Device;
use tracediff::output::render::fmt_duration;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [control, test] = args.as_slice() else {
        return Err("usage: top_changes CONTROL TEST".into());
    };
    let mut request = CompareRequest::new(control, test);
    request.device = Device::Gpu;
    request.naming = Naming::ShortName;
    let (mut comparison, notes) = compare(&request)?;
    for note in notes {
        eprintln!("note: {note}");
    }
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
