use std::process::ExitCode;

fn main() -> ExitCode {
    fixed_mmap_threshold();
    tracediff_trace::input::load::set_after_trace_dropped(release_free_memory);
    ExitCode::from(tracediff::cli::entry::main_with_args(std::env::args_os()))
}

/// Allocations from 1 MiB up (a trace's event columns) always get pages of their own from the
/// system. glibc's default starts at 128 KiB and raises the threshold to the size of the blocks
/// it frees (up to 32 MB), so the second trace of a comparison grew its columns inside the heap,
/// copying and fragmenting it: 205 MB after its parse instead of the first trace's 137 MB.
/// Below 1 MiB (the 256 KiB blocks of text read ahead, a chunk's columns) blocks stay in the
/// heap, where a freed one is taken again without fresh pages: the demo pair's page faults
/// 5,206 -> 4,060, its CPU time -2.3% (docs/performance.md).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn fixed_mmap_threshold() {
    // SAFETY: mallopt only changes a tuning parameter of the allocator, before any thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1024 * 1024);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn fixed_mmap_threshold() {}

/// Gives the free pages of the heap back to the system, after each summarised trace's events are
/// dropped: glibc keeps freed memory in its heaps, where the summaries kept since pin it; without
/// this, the peak grows with every file read (16 ranks a side: +60%).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn release_free_memory() {
    // SAFETY: malloc_trim only releases memory the allocator holds free; it has no
    // preconditions and touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn release_free_memory() {}
