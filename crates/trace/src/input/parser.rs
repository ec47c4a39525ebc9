//! How a trace is read and parsed, said in the signature: [`ParseOptions`] (the number of
//! parsing threads, where the file is read, the size of a block, the fast scan) and a
//! [`Parser`], a value that holds them and owns the threads that parse. Nothing about a parse
//! hides in a thread-local or a process-wide pool: the caller that reads a side's files makes
//! one `Parser` and hands it to each file's load.

use std::sync::OnceLock;

/// How one trace's text is read and parsed. The output is the same whatever these say (the
/// store, or the first error at its byte); they only change how the work is spread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseOptions {
    /// The threads that parse the blocks of `traceEvents` (at least 1). With 1, each block is
    /// parsed on the calling thread, where the blocks are merged; with more, on the
    /// [`Parser`]'s own pool while the calling thread merges.
    pub threads: usize,
    /// Whether the file is read (and decompressed) on the calling thread, a block when the
    /// parse asks, rather than on a thread of its own a few blocks ahead. For a file that has a
    /// core to itself beside others (files or sides read side by side, one per thread): a
    /// reading thread would only take turns with the parse on the same cores and hand every
    /// block across (the demo pair: -5.9% wall, -4.3% CPU, 50 interleaved runs).
    pub read_here: bool,
    /// The most text one block of events holds (`usize::MAX`: a whole read buffer,
    /// [`crate::input::json::split::READ_SIZE`]). Tests cut small blocks, so that a small text has
    /// many and the parsing threads' guesses of where an event starts go wrong.
    pub block_bytes: usize,
    /// Whether an event is read by the fast scan where it can decide (the default); with
    /// `false` every event goes the exact way, through serde_json, which tests compare the
    /// fast scan with. The scan is used only where no attribute is asked for.
    pub fast_scan: bool,
}

impl Default for ParseOptions {
    /// Every thread of the current rayon pool (`RAYON_NUM_THREADS`, or one per core), the
    /// file read ahead on a thread of its own, whole buffers, the fast scan.
    fn default() -> Self {
        ParseOptions {
            threads: rayon::current_num_threads().max(1),
            read_here: false,
            block_bytes: usize::MAX,
            fast_scan: true,
        }
    }
}

impl ParseOptions {
    /// One thread does it all: the file read and parsed on the calling thread (a file, or a
    /// side, read beside others on a core of its own).
    pub fn on_this_thread() -> Self {
        ParseOptions {
            threads: 1,
            read_here: true,
            ..ParseOptions::default()
        }
    }
}

/// Reads traces with one set of [`ParseOptions`], and owns the threads that parse them: made
/// when a file first needs them, kept for every file this `Parser` reads (the allocations of
/// parsing stay in the same threads' heaps from file to file), ended when it is dropped. Make
/// one per side or pair of sides, not one per file.
///
/// The pool is not rayon's global pool: files are loaded on that one, and a rayon worker that
/// waits for parse jobs queued on its own pool could wait forever.
#[derive(Debug, Default)]
pub struct Parser {
    options: ParseOptions,
    pool: OnceLock<Option<rayon::ThreadPool>>,
}

impl Parser {
    /// A parser that reads as `options` say.
    pub fn new(options: ParseOptions) -> Self {
        Parser {
            options,
            pool: OnceLock::new(),
        }
    }

    /// What it reads with.
    pub fn options(&self) -> &ParseOptions {
        &self.options
    }

    /// The threads that parse blocks: `None` with one thread (or where no thread could be
    /// made), and blocks are then parsed on the calling thread.
    pub(crate) fn pool(&self) -> Option<&rayon::ThreadPool> {
        if self.options.threads <= 1 {
            return None;
        }
        self.pool
            .get_or_init(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(self.options.threads)
                    .thread_name(|i| format!("tracediff-parse-{i}"))
                    .build()
                    .ok()
            })
            .as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_thread_makes_no_pool_and_more_make_one_of_that_size() {
        assert!(Parser::new(ParseOptions::on_this_thread()).pool().is_none());
        let parser = Parser::new(ParseOptions {
            threads: 3,
            ..ParseOptions::default()
        });
        assert_eq!(parser.pool().map(|p| p.current_num_threads()), Some(3));
        // Made once: the same pool for every file.
        let first = parser.pool().map(|p| p as *const _);
        assert_eq!(parser.pool().map(|p| p as *const _), first);
    }
}
