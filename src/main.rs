use clap::Parser;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use tracediff::cli::{Cli, Env, run};
use tracediff::{Error, state};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with 0; usage errors to stderr with 2.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let stdout = std::io::stdout();
    let terminal_width = stdout
        .is_terminal()
        .then(|| comfy_table::Table::new().width().map(usize::from))
        .flatten();
    let mut out = stdout.lock();
    let mut err = std::io::stderr().lock();
    let mut env = Env {
        stdout: &mut out,
        stderr: &mut err,
        terminal_width,
        state_dir: state::state_dir(std::env::var(state::STATE_DIR_ENV).ok().as_deref()),
    };
    let result = run(cli, &mut env);
    let _ = out.flush();
    match result {
        Ok(code) => ExitCode::from(code as u8),
        // A closed pipe (`tracediff ... | head`) is not an error worth reporting.
        Err(Error::Output { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(err, "tracediff: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}
