//! Opening a trace file: plain JSON or gzip, told apart by the magic bytes, not the name.

use crate::error::{Error, Result, io_reason};
use crate::model::summary::SUMMARY_META_KEY;
use flate2::bufread::GzDecoder;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// How the bytes of a file are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain JSON text.
    None,
    /// gzip (`.gz`), one member or several.
    Gzip,
}

/// An open trace file: a reader of its JSON text.
pub struct TraceReader {
    /// How the file is stored (for error messages).
    pub compression: Compression,
    /// The JSON text, decompressed.
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
    // Decompression is read ahead on a thread of its own by the parser ([`ReadAhead`]).
    let inner: Box<dyn Read + Send> = match compression {
        Compression::Gzip => Box::new(GzMembers::new(BufReader::with_capacity(256 * 1024, raw))),
        Compression::None => Box::new(raw),
    };
    Ok(TraceReader { compression, inner })
}

/// The members of a gzip file, one after another (as `gzip -d` reads a concatenation), and an
/// error naming what it is when bytes that are not gzip follow the last member: flate2's
/// `MultiGzDecoder` reads them as the header of a member cut short ("truncated").
struct GzMembers<R: io::BufRead> {
    /// The member being read; `None` between members and at the end.
    member: Option<GzDecoder<R>>,
    /// The input between members.
    rest: Option<R>,
}

/// Bytes after the last gzip member that are not gzip (as [`describe_read_error`] words it).
#[derive(Debug)]
struct TrailingData {
    bytes: u64,
}

impl std::fmt::Display for TrailingData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = if self.bytes == 1 { "" } else { "s" };
        write!(f, "{} byte{s} of trailing data after the gzip stream", self.bytes)
    }
}

impl std::error::Error for TrailingData {}

impl<R: io::BufRead> GzMembers<R> {
    fn new(input: R) -> Self {
        GzMembers {
            member: Some(GzDecoder::new(input)),
            rest: None,
        }
    }
}

impl<R: io::BufRead> Read for GzMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(member) = &mut self.member {
                let n = member.read(buf)?;
                if n > 0 || buf.is_empty() {
                    return Ok(n);
                }
                self.rest = self.member.take().map(GzDecoder::into_inner);
            }
            let Some(mut rest) = self.rest.take() else { return Ok(0) };
            let head = rest.fill_buf()?;
            if head.is_empty() {
                return Ok(0);
            }
            if head[0] == GZIP_MAGIC[0] {
                // Another member (a wrong second byte is reported by its header check).
                self.member = Some(GzDecoder::new(rest));
                continue;
            }
            let bytes = io::copy(&mut rest, &mut io::sink())?;
            return Err(io::Error::new(io::ErrorKind::InvalidData, TrailingData { bytes }));
        }
    }
}

/// Bytes decompressed per block by [`ReadAhead`].
const BLOCK: usize = 256 * 1024;

/// Reads (and decompresses) on a thread of its own, a few blocks ahead of the parser: a file's
/// reading and decompression are serial, and this way they overlap with cutting and parsing the
/// text instead of adding to them. Data comes out in order, then the first error, then the end.
/// Where every core already carries a file of its own
/// ([`crate::input::parser::ParseOptions::read_here`]), the blocks are read on the parser's
/// thread instead, when it asks for them.
pub struct ReadAhead<'a> {
    source: Source<'a>,
    current: Vec<u8>,
    at: usize,
    done: bool,
}

/// Where [`ReadAhead`]'s blocks come from.
enum Source<'a> {
    /// A thread of their own, a few blocks ahead.
    Ahead {
        blocks: Receiver<io::Result<Vec<u8>>>,
        /// Used blocks go back to be filled again.
        spare: SyncSender<Vec<u8>>,
    },
    /// This thread, a block when asked: no thread to hand each block to, and a block is parsed
    /// on the core (and in the cache) it was decompressed in.
    Here {
        inner: Box<dyn Read + Send + 'a>,
        /// Used blocks, to be filled again.
        spare: std::cell::RefCell<Vec<Vec<u8>>>,
        /// The error that came after the last block's data, to be given next.
        pending: Option<io::Error>,
        ended: bool,
    },
}

impl<'a> ReadAhead<'a> {
    #[cfg(test)]
    fn new(inner: impl Read + Send + 'static) -> Self {
        let (ahead, pump) = Self::parts(rayon::current_num_threads());
        std::thread::spawn(move || pump.run(inner));
        ahead
    }

    /// Reads `inner` on a thread of `scope`, for `parsers` threads that parse its blocks. The
    /// thread ends at the end of the data, at an error, or when the reader is dropped.
    pub fn scoped<'scope>(
        scope: &'scope std::thread::Scope<'scope, '_>,
        inner: impl Read + Send + 'scope,
        parsers: usize,
    ) -> Self {
        let (ahead, pump) = Self::parts(parsers);
        scope.spawn(move || pump.run(inner));
        ahead
    }

    /// Reads `inner` on the calling thread, a block at a time as the parser asks.
    pub fn here(inner: impl Read + Send + 'a) -> Self {
        ReadAhead {
            source: Source::Here {
                inner: Box::new(inner),
                spare: Default::default(),
                pending: None,
                ended: false,
            },
            current: Vec::new(),
            at: 0,
            done: false,
        }
    }

    fn parts(parsers: usize) -> (Self, Pump) {
        let (blocks_tx, blocks) = sync_channel::<io::Result<Vec<u8>>>(AHEAD);
        // Room for every buffer there is, so that none given back is dropped (freed, then
        // allocated again with fresh pages: an mmap, zeroing and page faults for each block).
        let buffers = max_buffers(parsers);
        let (spare, spare_rx) = sync_channel::<Vec<u8>>(buffers);
        let ahead = ReadAhead {
            source: Source::Ahead { blocks, spare },
            current: Vec::new(),
            at: 0,
            done: false,
        };
        (
            ahead,
            Pump {
                blocks_tx,
                spare_rx,
                buffers,
            },
        )
    }
}

/// Blocks read ahead of the parser.
const AHEAD: usize = 4;

/// The most buffers the reading thread makes before it waits for one to be given back: those
/// read ahead, those in flight to the `parsers` parsing threads (two per thread), and a few in
/// hand.
fn max_buffers(parsers: usize) -> usize {
    AHEAD + 2 * parsers.max(1) + 4
}

/// Spare blocks kept by a [`ReadAhead`] that reads on its parser's thread.
const SPARE_HERE: usize = 4;

impl ReadAhead<'_> {
    /// The next block of text as it was read, not copied: what is left of the block `read`
    /// was taking from, else the next one. `None` at the end; the error after the data.
    pub fn next_block(&mut self) -> io::Result<Option<Vec<u8>>> {
        if self.at < self.current.len() {
            let rest = self.current[self.at..].to_vec();
            self.at = self.current.len();
            return Ok(Some(rest));
        }
        if self.done {
            return Ok(None);
        }
        match self.next_read() {
            Some(Ok(block)) => Ok(Some(block)),
            Some(Err(e)) => {
                self.done = true;
                Err(e)
            }
            None => {
                self.done = true;
                Ok(None)
            }
        }
    }

    /// The next block from the source: data in order, then the error, then `None`.
    fn next_read(&mut self) -> Option<io::Result<Vec<u8>>> {
        match &mut self.source {
            Source::Ahead { blocks, .. } => blocks.recv().ok(),
            Source::Here {
                inner,
                spare,
                pending,
                ended,
            } => {
                if let Some(e) = pending.take() {
                    return Some(Err(e));
                }
                if *ended {
                    return None;
                }
                let mut block = spare.get_mut().pop().unwrap_or_default();
                block.resize(BLOCK, 0);
                let (n, err) = fill(inner, &mut block);
                block.truncate(n);
                *ended = err.is_some() || n < BLOCK;
                *pending = err;
                if n > 0 {
                    Some(Ok(block))
                } else {
                    pending.take().map(Err)
                }
            }
        }
    }

    /// Gives a used block back to be filled again (no fresh pages); dropped when enough wait,
    /// or when it is smaller than a block (a copy of a few events: grown, it would take the
    /// place of a whole block and cost a fresh one anyway).
    pub fn recycle(&self, block: Vec<u8>) {
        if block.capacity() < BLOCK {
            return;
        }
        match &self.source {
            Source::Ahead { spare, .. } => {
                let _ = spare.try_send(block);
            }
            Source::Here { spare, .. } => {
                let mut spare = spare.borrow_mut();
                if spare.len() < SPARE_HERE {
                    spare.push(block);
                }
            }
        }
    }
}

/// The reading thread's ends of [`ReadAhead`]'s channels.
struct Pump {
    blocks_tx: SyncSender<io::Result<Vec<u8>>>,
    spare_rx: Receiver<Vec<u8>>,
    /// Buffers to make before waiting for spare ones.
    buffers: usize,
}

impl Pump {
    fn run(self, mut inner: impl Read) {
        let mut made = 0;
        loop {
            let mut block = self.next_buffer(&mut made);
            block.resize(BLOCK, 0);
            let (n, err) = fill(&mut inner, &mut block);
            block.truncate(n);
            if n > 0 && self.blocks_tx.send(Ok(block)).is_err() {
                return;
            }
            if let Some(e) = err {
                let _ = self.blocks_tx.send(Err(e));
                return;
            }
            if n < BLOCK {
                return;
            }
        }
    }

    /// A buffer to read into: a spare one, a new one while fewer than `buffers` are made, else
    /// the next spare one given back. A buffer the parser keeps (or drops) is not waited for
    /// long: after a while a new one is made, so that this never waits on a buffer that will
    /// not come back.
    fn next_buffer(&self, made: &mut usize) -> Vec<u8> {
        if let Ok(block) = self.spare_rx.try_recv() {
            return block;
        }
        if *made >= self.buffers
            && let Ok(block) = self.spare_rx.recv_timeout(std::time::Duration::from_millis(20))
        {
            return block;
        }
        *made += 1;
        // Zeroed by the allocator (fresh pages are zero already): no pass over it to fill it.
        vec![0; BLOCK]
    }
}

/// Reads until `buf` is full, the data ends or an error comes: the bytes read, and the error.
fn fill(r: &mut impl Read, buf: &mut [u8]) -> (usize, Option<io::Error>) {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return (n, Some(e)),
        }
    }
    (n, None)
}

impl Read for ReadAhead<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.current.len() {
            if self.done {
                return Ok(0);
            }
            match self.next_read() {
                Some(Ok(block)) => {
                    let used = std::mem::replace(&mut self.current, block);
                    self.recycle(used);
                    self.at = 0;
                }
                Some(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                None => self.done = true,
            }
        }
        let n = buf.len().min(self.current.len() - self.at);
        buf[..n].copy_from_slice(&self.current[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    match fill(r, buf) {
        (_, Some(e)) => Err(e),
        (n, None) => Ok(n),
    }
}

/// Describes an error that came out of reading (and maybe decompressing) a trace.
pub fn describe_read_error(e: &io::Error, compression: Compression) -> String {
    if let Some(trailing) = e.get_ref().and_then(|x| x.downcast_ref::<TrailingData>()) {
        return format!("{trailing}, which is not gzip");
    }
    match (compression, e.kind()) {
        (Compression::Gzip, io::ErrorKind::UnexpectedEof) => "truncated gzip stream".to_string(),
        (Compression::Gzip, io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData) => {
            format!("corrupt gzip data: {}", io_reason(e))
        }
        _ => format!("cannot read: {}", io_reason(e)),
    }
}

/// The first bytes of every Parquet file.
pub const PARQUET_MAGIC: &[u8; 4] = b"PAR1";

/// Whether the Parquet file at `path` looks like a tracediff summary: its footer (where Parquet
/// keeps the key-value metadata) names the summary's metadata key. Only chooses which error
/// message a command that needs events gives; reading a summary checks it properly.
pub fn is_tracediff_summary(path: &Path) -> bool {
    use std::io::{Seek, SeekFrom};
    let footer = || -> io::Result<Vec<u8>> {
        let mut f = File::open(path)?;
        let len = f.seek(SeekFrom::End(0))?;
        if len < 12 {
            return Ok(Vec::new());
        }
        let mut tail = [0u8; 8];
        f.seek(SeekFrom::End(-8))?;
        f.read_exact(&mut tail)?;
        let footer_len = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
        if &tail[4..] != PARQUET_MAGIC || footer_len + 8 > len || footer_len > 64 << 20 {
            return Ok(Vec::new());
        }
        let mut footer = vec![0u8; footer_len as usize];
        f.seek(SeekFrom::End(-8 - footer_len as i64))?;
        f.read_exact(&mut footer)?;
        Ok(footer)
    };
    footer().is_ok_and(|f| memchr::memmem::find(&f, SUMMARY_META_KEY.as_bytes()).is_some())
}

#[cfg(test)]
mod tests;
