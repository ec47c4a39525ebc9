//! Files read side by side: one file per worker, each worker a thread of its own.
//!
//! A rayon worker that waits (in `install` into another pool, or in a `join` whose other half
//! was stolen) runs other jobs of its pool on its own stack meanwhile. Loading files with
//! `par_iter` on rayon's pool therefore stacked one file's load on top of another's, one more
//! for every file a waiting worker picked up: a directory of a few hundred rank files
//! overflowed the stack. Here each worker is a plain thread that owns a one-thread rayon pool:
//! it takes the next file, loads it inside its own pool (so the parse, the merge and every
//! `par_iter` of that file run on that one thread, and nothing else can be picked up while it
//! waits), and only then takes the next. The stack holds one file at a time, whatever the
//! number of files; results come back in the files' order, whatever the scheduling.

use crate::input::parser::{ParseOptions, Parser};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The stack of a worker's thread: what the main thread has on Linux, whatever
/// `RUST_MIN_STACK` says (one file's load never needs more; the stack is only address space
/// until it is used).
const WORKER_STACK_BYTES: usize = 8 << 20;

/// The number of files loaded at once by [`try_map_files`]: the threads of the current rayon
/// pool (`RAYON_NUM_THREADS`, or one per core), at least one, at most `files`.
pub fn workers_for(files: usize) -> usize {
    rayon::current_num_threads().max(1).min(files.max(1))
}

/// Whether `files` files are better read side by side (one per thread, each parsed on that
/// thread alone) than one at a time on every thread: when there are more files than threads.
pub fn files_side_by_side(files: usize) -> bool {
    files > rayon::current_num_threads().max(1)
}

/// Applies `f` to every item, [`workers_for`] items at a time, each on a worker of its own (see
/// the module's documentation), and returns the results in the items' order. The first error
/// in the items' order is returned; items after an error that are not yet started are not.
///
/// `f` is given the [`Parser`] to read its file with: each worker's own, which reads and
/// parses on the worker's thread ([`ParseOptions::on_this_thread`]); `parser`, the caller's,
/// where the items are taken in order here (one worker).
pub fn try_map_files<T, R, E>(
    parser: &Parser,
    items: &[T],
    f: impl Fn(&Parser, &T) -> Result<R, E> + Sync,
) -> Result<Vec<R>, E>
where
    T: Sync,
    R: Send,
    E: Send,
{
    let workers = workers_for(items.len());
    if workers <= 1 || items.len() <= 1 {
        // One thread: in order, here (inside a one-thread pool already, or with no other to use).
        return items.iter().map(|item| f(parser, item)).collect();
    }
    let next = AtomicUsize::new(0);
    // The lowest index that failed: items after it are not started.
    let failed = AtomicUsize::new(usize::MAX);
    let slots: Vec<Mutex<Option<Result<R, E>>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let work = |parser: &Parser| {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= items.len() || i > failed.load(Ordering::Relaxed) {
                break;
            }
            let out = f(parser, &items[i]);
            if out.is_err() {
                failed.fetch_min(i, Ordering::Relaxed);
            }
            if let Ok(mut slot) = slots[i].lock() {
                *slot = Some(out);
            }
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .stack_size(WORKER_STACK_BYTES)
                .thread_name(|_| "tracediff-file".to_string())
                .build();
            scope.spawn(|| match pool {
                Ok(pool) => pool.install(|| work(&Parser::new(ParseOptions::on_this_thread()))),
                // No pool to be had: the worker still loads one file at a time, with the
                // caller's parser.
                Err(_) => work(parser),
            });
        }
    });
    let mut out = Vec::with_capacity(items.len());
    for slot in slots {
        match slot.into_inner().ok().flatten() {
            Some(Ok(r)) => out.push(r),
            Some(Err(e)) => return Err(e),
            // Not started: an earlier item failed, and its error comes first.
            None => break,
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn squares(threads: usize, n: usize, fail_at: Option<usize>) -> Result<Vec<usize>, usize> {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let items: Vec<usize> = (0..n).collect();
        pool.install(|| {
            try_map_files(&Parser::default(), &items, |_, &i| {
                if Some(i) == fail_at || fail_at.is_some_and(|f| i == f + 3) {
                    Err(i)
                } else {
                    // Work that itself runs on rayon, as a parse does.
                    use rayon::prelude::*;
                    Ok((0..=i).into_par_iter().map(|_| i).sum::<usize>() / (i + 1) * i)
                }
            })
        })
    }

    #[test]
    fn results_come_in_order_at_any_thread_count() {
        let want: Vec<usize> = (0..500).map(|i| i * i).collect();
        for threads in [1, 2, 16] {
            assert_eq!(squares(threads, 500, None), Ok(want.clone()), "{threads} threads");
        }
    }

    #[test]
    fn the_first_error_in_order_wins() {
        for threads in [1, 2, 16] {
            assert_eq!(squares(threads, 200, Some(37)), Err(37), "{threads} threads");
        }
    }

    #[test]
    fn nothing_to_do() {
        assert_eq!(squares(4, 0, None), Ok(Vec::new()));
        assert_eq!(squares(4, 1, None), Ok(vec![0]));
    }
}
