//! Any bytes read as a summary give a summary or a one-line error naming the file, never a
//! panic; a corrupted copy of a real summary is refused or reads back unchanged (its checksum).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use std::sync::OnceLock;
use tracediff_trace::input::attrs::AttrRequest;
use tracediff_trace::input::load::load_file;
use tracediff_trace::model::summary::FileSummary;
use tracediff::read_summary_bytes;

/// A real summary (of the basic control fixture) and its bytes.
fn seed() -> &'static (FileSummary, Vec<u8>) {
    static SEED: OnceLock<(FileSummary, Vec<u8>)> = OnceLock::new();
    SEED.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/basic/control/trace.json");
        let file = load_file(&path, &AttrRequest::default()).expect("the fixture loads");
        let summary = tracediff::summarize_file(&file, &path);
        let mut bytes = Vec::new();
        tracediff::write_summary(&summary, &mut bytes).expect("writes");
        (summary, bytes)
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let path = Path::new("fuzz.parquet");
    if mode % 2 == 0 {
        // Raw bytes.
        if let Err(e) = read_summary_bytes(path, rest.to_vec()) {
            assert!(e.to_string().contains("fuzz.parquet"));
        }
        return;
    }
    // Edits of a real summary: (offset: u16, xor: u8) triples.
    let (summary, good) = seed();
    let mut bytes = good.clone();
    for edit in rest.chunks_exact(3) {
        let at = usize::from(u16::from_le_bytes([edit[0], edit[1]])) % bytes.len();
        bytes[at] ^= edit[2];
    }
    match read_summary_bytes(path, bytes) {
        Ok(s) => assert_eq!(&s, summary, "a corrupted summary read back different"),
        Err(e) => assert!(e.to_string().contains("fuzz.parquet")),
    }
});
