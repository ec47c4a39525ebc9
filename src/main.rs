use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(tracediff::cli::entry::main_with_args(std::env::args_os()))
}
