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

fn gzip(text: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Level::default());
    enc.write_all(text).unwrap();
    enc.finish().unwrap()
}

/// Reads `bytes` as a trace file: the text, or the error as the parser words it.
fn read_gz(bytes: &[u8]) -> std::result::Result<String, String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.json.gz");
    std::fs::write(&path, bytes).unwrap();
    let mut r = open(&path).unwrap();
    let mut s = String::new();
    r.inner
        .read_to_string(&mut s)
        .map(|_| s)
        .map_err(|e| describe_read_error(&e, r.compression))
}

#[test]
fn gzip_members_are_read_in_turn_and_trailing_data_is_named() {
    let mut two = gzip(b"{\"traceEvents\": ");
    two.extend(gzip(b"[]}"));
    assert_eq!(read_gz(&two).unwrap(), "{\"traceEvents\": []}");
    let mut trailing = gzip(b"{}");
    trailing.extend(b"garbage\n");
    assert_eq!(
        read_gz(&trailing).unwrap_err(),
        "8 bytes of trailing data after the gzip stream, which is not gzip"
    );
    let mut zero = gzip(b"{}");
    zero.push(0);
    assert_eq!(
        read_gz(&zero).unwrap_err(),
        "1 byte of trailing data after the gzip stream, which is not gzip"
    );
    // A stream cut short is still what it is.
    let whole = gzip(b"{\"traceEvents\": []}");
    assert_eq!(read_gz(&whole[..whole.len() - 4]).unwrap_err(), "truncated gzip stream");
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

/// Gives `data` in pieces of up to 1,000 bytes, then `fail` as an error if set.
struct Pieces {
    data: Vec<u8>,
    at: usize,
    fail: Option<io::ErrorKind>,
}

impl Read for Pieces {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at == self.data.len() {
            return match self.fail.take() {
                Some(kind) => Err(io::Error::new(kind, "broken")),
                None => Ok(0),
            };
        }
        let n = buf.len().min(1000).min(self.data.len() - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[test]
fn read_ahead_gives_every_byte_in_order_then_the_error() {
    // Ahead on a thread of its own and here on the caller's, at a block's end and not.
    for (len, here) in [(3 * BLOCK + 123, false), (3 * BLOCK + 123, true), (2 * BLOCK, true)] {
        let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        reads_in_order_then_the_error(&data, here);
    }
}

#[test]
fn blocks_read_here_come_whole_then_the_error() {
    let data: Vec<u8> = (0..2 * BLOCK + 5).map(|i| (i % 251) as u8).collect();
    let mut r = ReadAhead::here(Pieces {
        data: data.clone(),
        at: 0,
        fail: Some(io::ErrorKind::UnexpectedEof),
    });
    let mut got = Vec::new();
    let err = loop {
        match r.next_block() {
            Ok(Some(block)) => {
                got.extend_from_slice(&block);
                r.recycle(block);
            }
            Ok(None) => break None,
            Err(e) => break Some(e.kind()),
        }
    };
    assert_eq!(got, data);
    assert_eq!(err, Some(io::ErrorKind::UnexpectedEof));
    assert!(r.next_block().unwrap().is_none());
}

fn reads_in_order_then_the_error(data: &[u8], here: bool) {
    for fail in [None, Some(io::ErrorKind::UnexpectedEof)] {
        let pieces = Pieces {
            data: data.to_vec(),
            at: 0,
            fail,
        };
        let mut r = if here {
            ReadAhead::here(pieces)
        } else {
            ReadAhead::new(pieces)
        };
        let mut got = Vec::new();
        let mut buf = vec![0u8; 7777];
        let end = loop {
            match r.read(&mut buf) {
                Ok(0) => break None,
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) => break Some(e.kind()),
            }
        };
        assert_eq!(got, data);
        assert_eq!(end, fail);
        // After the end or the error, the reader stays at its end.
        assert_eq!(r.read(&mut buf).unwrap(), 0);
    }
}

#[test]
fn missing_file_is_an_input_error() {
    let err = open(Path::new("/nonexistent/x.json")).err().unwrap();
    assert_eq!(
        err.to_string(),
        "cannot open: no such file or directory (/nonexistent/x.json)"
    );
}
