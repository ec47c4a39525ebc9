//! The whole program behind `tracediff`: parse the arguments, run the command, report errors
//! and the exit code. `src/main.rs` and the Python package both call [`main_with_args`].

use crate::Error;
use crate::cli::{Cli, Env, run};
use crate::output::paint::Paint;
use crate::output::state;
use crate::output::visible::VisibleControls;
use clap::{CommandFactory, Parser};
use std::ffi::OsString;
use std::io::{IsTerminal, Write};

/// The width of a terminal that does not report its size.
const UNSIZED_TERMINAL_WIDTH: usize = 80;

/// A note on stderr when a run takes over a second on a terminal, so a long load of large traces
/// does not look like a hang. Nothing when stderr is redirected.
struct Progress {
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    fn start(on_terminal: bool) -> Progress {
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let thread = on_terminal.then(|| {
            let done = done.clone();
            std::thread::spawn(move || {
                let start = std::time::Instant::now();
                let wait = std::time::Duration::from_secs(1);
                // park_timeout may wake early (or be unparked by stop): loop on the clock.
                while start.elapsed() < wait {
                    if done.load(std::sync::atomic::Ordering::SeqCst) {
                        return;
                    }
                    std::thread::park_timeout(wait.saturating_sub(start.elapsed()));
                }
                if !done.load(std::sync::atomic::Ordering::SeqCst) {
                    eprintln!("tracediff: reading traces…");
                }
            })
        });
        Progress { done, thread }
    }

    fn stop(self) {
        self.done.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some(t) = self.thread {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

/// Runs the command line on `args` (the program name first, as `std::env::args_os` gives them)
/// and returns the exit code: what `tracediff` does, callable from another front end (the Python
/// package's `tracediff` command).
pub fn main_with_args<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let cli = match parse(&args) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    crate::atomic::remove_temporaries_on_signal();
    // A summary's Parquet decoder may panic on a corrupt file; the panic is caught and reported
    // as a one-line error, so its own message is not printed too.
    crate::analysis::summaries::read::quiet_decoder_panics();
    let stdout = std::io::stdout();
    let widths = Widths::of_this_process(stdout.is_terminal());
    // On a terminal every byte is shown safely (names and paths may hold escape sequences);
    // to a file or a pipe, CSV and JSON keep names exactly (docs/robustness.md).
    let on_terminal = stdout.is_terminal();
    let locked = stdout.lock();
    let color = cli.color.colors(
        on_terminal,
        std::env::var("NO_COLOR").ok().as_deref(),
        std::env::var("TERM").ok().as_deref(),
    );
    // The last writer turns a table's colour marks into escapes, or drops them.
    let painted = Paint::new(locked, color);
    let mut out: Box<dyn Write> = if on_terminal {
        Box::new(VisibleControls::new(painted))
    } else {
        Box::new(painted)
    };
    // Not locked for the whole run: the progress thread writes to stderr too, and main joins
    // it before exiting (a lock held here would make that join wait forever). Notes and errors
    // are text for people: their control characters are always shown escaped.
    let mut err = VisibleControls::new(std::io::stderr());
    let mut env = Env {
        stdout: &mut *out,
        stderr: &mut err,
        terminal_width: widths.terminal,
        table_width: widths.table,
        notes_width: widths.notes,
        state_dir: state::state_dir(std::env::var(state::STATE_DIR_ENV).ok().as_deref()),
        quiet: cli.quiet,
        full_names: false,
        color,
    };
    let progress = Progress::start(std::io::stderr().is_terminal() && !cli.quiet);
    let result = run(cli, &mut env);
    progress.stop();
    let _ = env.stdout.flush();
    match result {
        Ok(code) => u8::try_from(code).unwrap_or(1),
        // A closed pipe (`tracediff ... | head`) is not an error worth reporting.
        Err(Error::Output { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            let _ = writeln!(err, "tracediff: {e}");
            exit_code(&e)
        }
    }
}

/// The arguments parsed, or the exit code when they are not a command to run: help and version
/// (printed to stdout, 0) or a usage error (printed to stderr, 2).
fn parse(args: &[OsString]) -> Result<Cli, u8> {
    match Cli::try_parse_from(args) {
        Ok(cli) => Ok(cli),
        // Help and version go to stdout with 0.
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            Err(0)
        }
        Err(e) => {
            // Usage errors to stderr with 2. clap quotes the arguments it refuses: the error is
            // rendered again without styles, so every escape sequence left is the user's, and
            // shown escaped, never sent raw to a terminal.
            let plain = Cli::command()
                .styles(clap::builder::Styles::plain())
                .try_get_matches_from(args)
                .err();
            let suggested = plain
                .as_ref()
                .and_then(|plain| crate::cli::suggest::unknown_flag(plain, args, Cli::command()));
            let text = match (suggested, plain) {
                (Some(text), _) => text,
                (None, Some(plain)) => plain.render().ansi().to_string(),
                (None, None) => e.render().to_string(),
            };
            let _ = VisibleControls::new(std::io::stderr()).write_all(text.as_bytes());
            Err(2)
        }
    }
}

/// The widths output is fitted to.
struct Widths {
    /// Standard output's, where it is a terminal.
    terminal: Option<usize>,
    /// The tables': `COLUMNS`, else the terminal's.
    table: Option<usize>,
    /// The notes', where standard error is a terminal.
    notes: Option<usize>,
}

impl Widths {
    fn of_this_process(stdout_is_terminal: bool) -> Widths {
        // A terminal that reports no size (a pty nobody sized, `script` under some CI runners)
        // gets the conventional 80 columns rather than a table squeezed to nothing.
        let terminal = stdout_is_terminal.then(|| {
            comfy_table::Table::new()
                .width()
                .map(usize::from)
                .filter(|&w| w > 0)
                .unwrap_or(UNSIZED_TERMINAL_WIDTH)
        });
        // `COLUMNS` (a number) sets the width tables fit, on a terminal or not (as Python's
        // shutil.get_terminal_size reads it); without it a terminal's own width, and a pipe or a
        // file 160 columns (docs/commands.md#terminal-width).
        let columns = std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.trim().parse::<usize>().ok())
            .filter(|&c| c > 0);
        // Notes are wrapped where standard error is a terminal (to `COLUMNS`, else its width);
        // piped, each stays one line for grep, whatever `COLUMNS` says.
        let notes = std::io::stderr().is_terminal().then(|| {
            columns.unwrap_or_else(|| {
                terminal_size::terminal_size_of(std::io::stderr())
                    .map(|(w, _)| usize::from(w.0))
                    .filter(|&w| w > 0)
                    .unwrap_or(UNSIZED_TERMINAL_WIDTH)
            })
        });
        Widths {
            terminal,
            table: Some(columns.or(terminal).unwrap_or(crate::cli::fit::PIPE_WIDTH)),
            notes,
        }
    }
}

/// The exit code of an error, by its kind: each is bad usage or bad input (2). Exit code 1 is
/// a failed regression gate, which is a result, not an error.
fn exit_code(error: &Error) -> u8 {
    match error {
        Error::Trace(_) | Error::Output { .. } | Error::State(_) | Error::Render(_) => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_kind_exits_with_2() {
        let errors = [
            Error::usage("no such rank"),
            Error::input("trace.json", "invalid JSON"),
            Error::Output {
                path: "out.csv".into(),
                source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
            },
            Error::State("no saved comparison".into()),
            Error::Render("no font".into()),
        ];
        for e in &errors {
            assert_eq!(exit_code(e), 2, "{e}");
        }
    }
}
