//! Opening a trace file: plain JSON or gzip, told apart by the magic bytes, not the name.

use crate::error::{Error, Result};
use flate2::read::MultiGzDecoder;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// How the bytes of a file are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
}

/// An open trace file: a reader of its JSON text.
pub struct TraceReader {
    pub compression: Compression,
    pub inner: Box<dyn Read + Send>,
}

/// Opens `path` and returns a reader of its decompressed JSON text.
pub fn open(path: &Path) -> Result<TraceReader> {
    let mut file = File::open(path).map_err(|e| Error::input(path, format!("cannot open: {}", io_reason(&e))))?;
    let mut magic = [0u8; 2];
    let got =
        read_up_to(&mut file, &mut magic).map_err(|e| Error::input(path, format!("cannot read: {}", io_reason(&e))))?;
    let head = io::Cursor::new(magic[..got].to_vec());
    let compression = if got == 2 && magic == GZIP_MAGIC {
        Compression::Gzip
    } else {
        Compression::None
    };
    let raw = head.chain(file);
    let inner: Box<dyn Read + Send> = match compression {
        Compression::Gzip => Box::new(MultiGzDecoder::new(BufReader::with_capacity(256 * 1024, raw))),
        Compression::None => Box::new(raw),
    };
    Ok(TraceReader { compression, inner })
}

fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The reason of an I/O error without the "(os error N)" noise.
pub fn io_reason(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_string(),
                None => s,
            }
        }
    }
}

/// Describes an error that came out of reading (and maybe decompressing) a trace.
pub fn describe_read_error(e: &io::Error, compression: Compression) -> String {
    match (compression, e.kind()) {
        (Compression::Gzip, io::ErrorKind::UnexpectedEof) => "truncated gzip stream".to_string(),
        (Compression::Gzip, io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData) => {
            format!("corrupt gzip data: {}", io_reason(e))
        }
        _ => format!("cannot read: {}", io_reason(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::Compression as Level;
    use flate2::write::GzEncoder;
    use std::io::Write;

    #[test]
    fn gzip_is_recognised_by_magic_not_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("looks_plain.json");
        let mut enc = GzEncoder::new(Vec::new(), Level::default());
        enc.write_all(b"{\"traceEvents\": []}").unwrap();
        std::fs::write(&path, enc.finish().unwrap()).unwrap();
        let mut r = open(&path).unwrap();
        assert_eq!(r.compression, Compression::Gzip);
        let mut s = String::new();
        r.inner.read_to_string(&mut s).unwrap();
        assert_eq!(s, "{\"traceEvents\": []}");
    }

    #[test]
    fn plain_file_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.json.gz");
        std::fs::write(&path, b"{}").unwrap();
        let mut r = open(&path).unwrap();
        assert_eq!(r.compression, Compression::None);
        let mut s = String::new();
        r.inner.read_to_string(&mut s).unwrap();
        assert_eq!(s, "{}");
    }

    #[test]
    fn missing_file_is_an_input_error() {
        let err = open(Path::new("/nonexistent/x.json")).err().unwrap();
        assert_eq!(
            err.to_string(),
            "cannot open: no such file or directory (/nonexistent/x.json)"
        );
    }
}
