//! Every output file is written whole or not at all (docs/robustness.md#output-files): into a
//! temporary file beside its target, flushed and fsynced, then renamed over the target. A kill,
//! a full disk or an error mid-way leaves the previous file as it was and no half file under the
//! final name; the temporary file is removed on error, and on SIGINT or SIGTERM once
//! [`remove_temporaries_on_signal`] is on (the command line turns it on; only SIGKILL can leave
//! one, named `.NAME.XXXXXX.tmp`, never the target).

use crate::error::{Error, Result};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use tempfile::NamedTempFile;

/// A file being written; [`AtomicFile::commit`] puts it in place, dropping it discards it.
pub(crate) struct AtomicFile {
    path: PathBuf,
    out: BufWriter<Sink>,
    // Dropped after `out` (which removes the temporary file): the signal handler forgets it.
    _pending: Option<Pending>,
}

/// Where the bytes go: a temporary file beside a regular target, or the target itself when it
/// is not a regular file (`-o /dev/null`, a FIFO: there is nothing to tear, and renaming over a
/// device would replace it).
pub(crate) enum Sink {
    /// The temporary file, renamed over the target on commit.
    Temp(NamedTempFile),
    /// The target itself, written in place.
    Direct(File),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::Temp(f) => f.write(buf),
            Sink::Direct(f) => f.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Temp(f) => f.flush(),
            Sink::Direct(f) => f.flush(),
        }
    }
}

/// The temporary files being written now: what a SIGINT or SIGTERM removes.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Targets that are not regular files, opened once by [`check_writable`] and kept for
/// [`AtomicFile::create`]: a FIFO opened twice would give its reader an empty stream, then block
/// the second open forever.
static OPENED: Mutex<Vec<(PathBuf, File)>> = Mutex::new(Vec::new());

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A temporary file's entry in [`PENDING`], removed when dropped.
struct Pending(PathBuf);

impl Drop for Pending {
    fn drop(&mut self) {
        let mut pending = lock(&PENDING);
        if let Some(i) = pending.iter().position(|p| *p == self.0) {
            pending.swap_remove(i);
        }
    }
}

/// From now on a SIGINT or SIGTERM removes the temporary files being written, then ends the
/// process as the signal would have (the handler runs on a thread of its own, so it may take
/// locks and allocate). For a program's `main`: a library's host keeps its own handlers.
pub(crate) fn remove_temporaries_on_signal() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
            return;
        };
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                // Held to the end: no temporary file is created or renamed after this.
                let pending = lock(&PENDING);
                for path in pending.iter() {
                    let _ = std::fs::remove_file(path);
                }
                let _ = signal_hook::low_level::emulate_default_handler(signal);
            }
        });
    });
}

/// What a path names once symbolic links are followed (a link to a file is written through,
/// not replaced by a file), and whether that is something other than a regular file.
fn resolve(path: &Path) -> (PathBuf, bool) {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() && !m.is_dir() => (path.to_path_buf(), true),
        Ok(_) => (
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
            false,
        ),
        Err(_) => (path.to_path_buf(), false),
    }
}

/// The directory a file goes into (`.` for a bare name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

fn output_error(path: &Path, source: std::io::Error) -> Error {
    Error::Output {
        path: path.to_path_buf(),
        source,
    }
}

fn temp_beside(path: &Path) -> std::io::Result<NamedTempFile> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut b = tempfile::Builder::new();
    b.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // As `File::create` would: 0666 less the umask (a temporary file is 0600 otherwise).
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    b.tempfile_in(parent_dir(path))
}

/// A temporary file beside `path`, listed in [`PENDING`] (under the lock, so that a signal
/// cannot come between its creation and its listing).
fn pending_temp_beside(path: &Path) -> std::io::Result<(NamedTempFile, Pending)> {
    let mut pending = lock(&PENDING);
    let tmp = temp_beside(path)?;
    let path = tmp.path().to_path_buf();
    pending.push(path.clone());
    Ok((tmp, Pending(path)))
}

/// The open target that [`check_writable`] kept for `path`, if any.
fn take_opened(path: &Path) -> Option<File> {
    let mut opened = lock(&OPENED);
    let i = opened.iter().position(|(p, _)| p == path)?;
    Some(opened.swap_remove(i).1)
}

impl AtomicFile {
    /// Starts writing `path` (nothing is visible there until [`AtomicFile::commit`]).
    pub(crate) fn create(path: &Path) -> Result<AtomicFile> {
        if path.is_dir() {
            return Err(output_error(path, std::io::Error::other("is a directory")));
        }
        let (target, special) = resolve(path);
        let (sink, pending) = if special {
            let file = match take_opened(&target) {
                Some(f) => f,
                None => File::create(&target).map_err(|e| output_error(path, e))?,
            };
            (Sink::Direct(file), None)
        } else {
            let (tmp, pending) = pending_temp_beside(&target).map_err(|e| output_error(path, e))?;
            (Sink::Temp(tmp), Some(pending))
        };
        Ok(AtomicFile {
            path: target,
            out: BufWriter::with_capacity(1 << 16, sink),
            _pending: pending,
        })
    }

    /// Where the bytes go.
    pub(crate) fn writer(&mut self) -> &mut BufWriter<Sink> {
        &mut self.out
    }

    /// Flushes and fsyncs the bytes: after this only the rename is left, which needs no space.
    fn prepare(&mut self) -> Result<()> {
        self.out.flush().map_err(|e| output_error(&self.path, e))?;
        if let Sink::Temp(tmp) = self.out.get_ref() {
            tmp.as_file().sync_all().map_err(|e| output_error(&self.path, e))?;
        }
        Ok(())
    }

    /// Flushes, fsyncs and renames the file into place (then fsyncs its directory, so the
    /// rename itself survives a crash).
    pub(crate) fn commit(mut self) -> Result<()> {
        self.prepare()?;
        self.rename()
    }

    /// The rename of a prepared file.
    fn rename(self) -> Result<()> {
        let AtomicFile { path, out, _pending } = self;
        let tmp = match out.into_inner().map_err(|e| output_error(&path, e.into_error()))? {
            Sink::Direct(_) => return Ok(()),
            Sink::Temp(tmp) => tmp,
        };
        {
            // Under the lock: a signal now waits until the name is the target's.
            let _signals = lock(&PENDING);
            tmp.persist(&path).map_err(|e| output_error(&path, e.error))?;
        }
        if let Ok(dir) = File::open(parent_dir(&path)) {
            // Best effort: some file systems refuse to sync a directory.
            let _ = dir.sync_all();
        }
        Ok(())
    }
}

/// Writes `path` whole with `fill`, or leaves it as it was.
pub(crate) fn write_atomically<T>(
    path: &Path,
    fill: impl FnOnce(&mut (dyn Write + Send)) -> std::io::Result<T>,
) -> Result<T> {
    let mut file = AtomicFile::create(path)?;
    let value = fill(file.writer()).map_err(|e| output_error(path, e))?;
    file.commit()?;
    Ok(value)
}

/// Writes several files as one unit: every one is written and fsynced before any is renamed
/// into place, so a full disk or an error leaves all of them as they were (a kill between two
/// renames, the only window left, is a matter of microseconds).
pub(crate) fn write_all_atomically(files: &[(&Path, &[u8])]) -> Result<()> {
    let mut ready = Vec::with_capacity(files.len());
    for (path, bytes) in files {
        let mut file = AtomicFile::create(path)?;
        file.writer().write_all(bytes).map_err(|e| output_error(path, e))?;
        file.prepare()?;
        ready.push(file);
    }
    ready.into_iter().try_for_each(AtomicFile::rename)
}

/// Checks, before any work, that `path` can be written: not a directory, and a file can be
/// created beside it (a missing or read-only directory fails here, not after the traces load).
/// A target that is not a regular file (a FIFO, a device) is opened here and kept for
/// [`AtomicFile::create`]: it is opened once.
pub(crate) fn check_writable(path: &Path) -> Result<()> {
    if path.is_dir() {
        return Err(output_error(path, std::io::Error::other("is a directory")));
    }
    let (target, special) = resolve(path);
    if special {
        if lock(&OPENED).iter().any(|(p, _)| *p == target) {
            return Ok(());
        }
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&target)
            .map_err(|e| output_error(path, e))?;
        lock(&OPENED).push((target, file));
        return Ok(());
    }
    let dir = parent_dir(&target);
    if !dir.is_dir() {
        return Err(output_error(
            path,
            std::io::Error::new(std::io::ErrorKind::NotFound, format!("no directory {}", dir.display())),
        ));
    }
    // The probe is removed when dropped, and listed while it exists: a signal that lands
    // between its creation and its removal removes it too.
    pending_temp_beside(&target)
        .map(drop)
        .map_err(|e| output_error(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_previous_file_and_no_temporary() {
        let dir = tempfile::TempDir::new().unwrap();
        let path = dir.path().join("out.csv");
        std::fs::write(&path, "previous\n").unwrap();
        let r: Result<()> = write_atomically(&path, |w| {
            w.write_all(b"half a file")?;
            Err(std::io::Error::other("disk full"))
        });
        assert_eq!(
            r.unwrap_err().to_string(),
            format!("cannot write {}: disk full", path.display())
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "previous\n");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("out.csv")]);
    }

    #[test]
    fn files_written_as_one_unit_are_all_kept_or_all_old() {
        let dir = tempfile::TempDir::new().unwrap();
        let (a, b) = (dir.path().join("a.svg"), dir.path().join("b.svg"));
        std::fs::write(&a, "old a").unwrap();
        std::fs::write(&b, "old b").unwrap();
        write_all_atomically(&[(&a, b"new a"), (&b, b"new b")]).unwrap();
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "new a");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "new b");
        // The second cannot be written: the first stays as it was.
        let missing = dir.path().join("no/c.svg");
        assert!(write_all_atomically(&[(&a, b"newer a"), (&missing, b"c")]).is_err());
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "new a");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        assert!(lock(&PENDING).iter().all(|p| !p.starts_with(dir.path())));
    }

    #[test]
    fn a_complete_write_replaces_the_file() {
        let dir = tempfile::TempDir::new().unwrap();
        let path = dir.path().join("out.csv");
        std::fs::write(&path, "previous\n").unwrap();
        write_atomically(&path, |w| w.write_all(b"new\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_path_that_cannot_be_written_is_refused_up_front() {
        let dir = tempfile::TempDir::new().unwrap();
        assert!(check_writable(&dir.path().join("x.csv")).is_ok());
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "the probe is removed"
        );
        let missing = dir.path().join("no/such/x.csv");
        assert!(
            check_writable(&missing)
                .unwrap_err()
                .to_string()
                .contains("no such file or directory")
        );
        assert!(
            check_writable(dir.path())
                .unwrap_err()
                .to_string()
                .contains("is a directory")
        );
    }

    #[test]
    fn a_device_is_written_in_place_never_replaced() {
        check_writable(Path::new("/dev/null")).unwrap();
        write_atomically(Path::new("/dev/null"), |w| w.write_all(b"x")).unwrap();
        let m = std::fs::metadata("/dev/null").unwrap();
        assert!(!m.is_file(), "/dev/null is still a device");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_written_through() {
        let dir = tempfile::TempDir::new().unwrap();
        let real = dir.path().join("real.csv");
        let link = dir.path().join("link.csv");
        std::fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomically(&link, |w| w.write_all(b"new")).unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
    }

    /// A full disk (`/dev/full` refuses every write): the error names the file.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_full_device_fails_with_an_error() {
        let r = write_atomically(Path::new("/dev/full"), |w| w.write_all(&[0u8; 1 << 17]));
        assert!(r.unwrap_err().to_string().starts_with("cannot write /dev/full"));
    }
}
