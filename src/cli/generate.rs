//! `tracediff completions SHELL` and `tracediff man`: generated from the clap definition of the
//! command line itself (clap_complete, clap_mangen), so they never drift from the options.

use super::{Cli, Env};
use crate::error::{Error, Result};
use clap::{Args, Command, CommandFactory};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Help text of `tracediff completions`.
pub(crate) const COMPLETIONS_HELP: &str = "\
Writes the script to standard output. Install it where your shell looks for completions, e.g.
bash: tracediff completions bash > ~/.local/share/bash-completion/completions/tracediff
zsh:  tracediff completions zsh > ~/.zfunc/_tracediff   (with fpath+=~/.zfunc before compinit)
fish: tracediff completions fish > ~/.config/fish/completions/tracediff.fish";

/// Help text of `tracediff man`.
pub(crate) const MAN_HELP: &str = "\
The page covers tracediff and every subcommand. Read it with `tracediff man | man -l -`, or install
it: tracediff man -o ~/.local/share/man/man1/tracediff.1";

/// Arguments of `tracediff completions`.
#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Arguments of `tracediff man`.
#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// Write the page to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Writes the completion script of `args.shell` to standard output.
pub(crate) fn run_completions(args: CompletionsArgs, env: &mut Env<'_>) -> Result<i32> {
    // Rendered in memory first: clap_complete panics on a failed write (a closed pipe), and a
    // broken pipe must end the run quietly as every other command does.
    let mut script = Vec::new();
    let mut command = without_hidden_args(Cli::command());
    clap_complete::generate(args.shell, &mut command, "tracediff", &mut script);
    write_out(None, &script, env)
}

/// `command` without its hidden options, at every level. They are the options a command refuses
/// with a reason (`overview --include`, `gate --hta`), kept only to say why; clap_complete writes
/// hidden options into the scripts all the same (it honours `hide` on values, not on options),
/// and a completed option that is then refused is a trap. clap cannot remove an option, so a
/// subcommand that has some is built again from its parts without them.
fn without_hidden_args(command: Command) -> Command {
    let command = command.mut_subcommands(without_hidden_args);
    if !command.get_arguments().any(clap::Arg::is_hide_set) {
        return command;
    }
    let kept: Vec<&clap::Arg> = command.get_arguments().filter(|a| !a.is_hide_set()).collect();
    let is_kept = |id: &clap::Id| kept.iter().any(|a| a.get_id() == id);
    let visible: Vec<&str> = command.get_visible_aliases().collect();
    let mut fresh = Command::new(command.get_name().to_string());
    if let Some(about) = command.get_about() {
        fresh = fresh.about(about.clone());
    }
    if let Some(about) = command.get_long_about() {
        fresh = fresh.long_about(about.clone());
    }
    fresh = fresh
        .hide(command.is_hide_set())
        .visible_aliases(visible.iter().map(|a| a.to_string()))
        .aliases(
            command
                .get_all_aliases()
                .filter(|a| !visible.contains(a))
                .map(str::to_string),
        )
        .args(kept.iter().map(|a| (*a).clone()));
    for group in command.get_groups() {
        let ids: Vec<&clap::Id> = group.get_args().collect();
        if !ids.is_empty() && ids.iter().all(|id| is_kept(id)) {
            fresh = fresh.group(group.clone());
        }
    }
    fresh.subcommands(command.get_subcommands().cloned())
}

/// Writes the manual page (roff), to `-o FILE` or standard output.
pub(crate) fn run_man(args: ManArgs, env: &mut Env<'_>) -> Result<i32> {
    let mut page = Vec::new();
    render_man(&mut page).map_err(|e| Error::usage(format!("cannot render the manual page: {e}")))?;
    write_out(super::dash_is_stdout(args.output).as_deref(), &page, env)
}

fn write_out(path: Option<&Path>, bytes: &[u8], env: &mut Env<'_>) -> Result<i32> {
    let written = |path: &Path, source: std::io::Error| Error::Output {
        path: path.to_path_buf(),
        source,
    };
    match path {
        Some(path) => crate::atomic::write_atomically(path, |w| w.write_all(bytes))?,
        None => env
            .stdout
            .write_all(bytes)
            .and_then(|()| env.stdout.flush())
            .map_err(|e| written(Path::new("<stdout>"), e))?,
    }
    Ok(0)
}

/// One page for the whole program, so that `man tracediff` shows every subcommand's options too:
/// the top command's sections, then a section per subcommand holding that subcommand's own page
/// (clap_mangen's), its title dropped and its sections made subsections. No list of
/// `tracediff-SUBCOMMAND(1)` pages, since there are none.
fn render_man(out: &mut Vec<u8>) -> std::io::Result<()> {
    let mut command = Cli::command();
    command.build();
    let top = clap_mangen::Man::new(command.clone());
    top.render_title(out)?;
    top.render_name_section(out)?;
    top.render_synopsis_section(out)?;
    top.render_description_section(out)?;
    top.render_options_section(out)?;
    for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = sub.get_name();
        let mut page = Vec::new();
        clap_mangen::Man::new(sub.clone().bin_name(format!("tracediff {name}"))).render(&mut page)?;
        writeln!(out, ".SH \"TRACEDIFF {}\"", name.to_uppercase())?;
        for line in String::from_utf8_lossy(&page).lines() {
            if line.starts_with(".TH ") || line.starts_with(".ie ") || line.starts_with(".el ") {
                continue;
            }
            match line.strip_prefix(".SH ") {
                Some(heading) => writeln!(out, ".SS {heading}")?,
                None => writeln!(out, "{line}")?,
            }
        }
    }
    top.render_extra_section(out)?;
    top.render_version_section(out)
}
