use std::process::ExitCode;

fn main() -> ExitCode {
    fixed_mmap_threshold();
    ExitCode::from(tracediff::cli::entry::main_with_args(std::env::args_os()))
}

/// Allocations from 128 KiB up (a trace's event columns, its chunks) always get pages of their
/// own from the system, as glibc does until the first such block is freed. Without this, glibc
/// raises the threshold to the size of the blocks it frees (up to 32 MB), so the second trace of
/// a comparison grows its columns inside the heap, copying and fragmenting it: 205 MB after its
/// parse instead of the first trace's 137 MB.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn fixed_mmap_threshold() {
    // SAFETY: mallopt only changes a tuning parameter of the allocator, before any thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn fixed_mmap_threshold() {}
