//! Any bytes given to the parser give a trace or an error naming the file, never a panic; the
//! result does not depend on how the reads are cut.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Read;
use std::path::Path;
use tracediff_trace::input::attrs::{AttrRequest, Preset};
use tracediff_trace::input::parse::parse_trace;
use tracediff_trace::input::read::Compression;

/// A reader that hands out at most `n` bytes per call.
struct Pieces<'a>(&'a [u8], usize);

impl Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = self.1.min(buf.len()).min(self.0.len());
        buf[..k].copy_from_slice(&self.0[..k]);
        self.0 = &self.0[k..];
        Ok(k)
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, text)) = data.split_first() else {
        return;
    };
    let request = match mode % 3 {
        0 => AttrRequest::default(),
        1 => AttrRequest::build(Preset::All, &[], &[]).unwrap(),
        _ => AttrRequest::build(Preset::Complete, &[], &[]).unwrap(),
    };
    let path = Path::new("fuzz.json");
    let whole = parse_trace(text, path, Compression::None, &request);
    let pieces = parse_trace(
        Pieces(text, 1 + usize::from(mode / 3)),
        path,
        Compression::None,
        &request,
    );
    match (whole, pieces) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.events.ts_ns, b.events.ts_ns);
            assert_eq!(a.total_events, b.total_events);
        }
        (Err(a), Err(b)) => {
            assert!(a.to_string().contains("fuzz.json"));
            assert_eq!(a.to_string(), b.to_string());
        }
        (a, b) => panic!("reads cut differently disagree: {a:?} vs {b:?}"),
    }
});
