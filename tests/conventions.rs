//! What a user expects of a command line: every subcommand's `--help` ends with examples that
//! run as typed on the shipped fixtures, shell completions and a manual page generated from the
//! same definition.

use crate::common;
use clap::CommandFactory;
use std::path::Path;
use std::process::Command;
use tracediff::cli::examples;

/// The subcommands, as the command line defines them.
fn subcommands() -> Vec<String> {
    let cli = tracediff::cli::Cli::command();
    cli.get_subcommands().map(|s| s.get_name().to_string()).collect()
}

#[test]
fn every_subcommand_has_examples_in_its_help() {
    for sub in subcommands() {
        let help = common::ok(&[&sub, "--help"]);
        let (_, listed) = help
            .split_once("\nExamples:\n")
            .unwrap_or_else(|| panic!("`tracediff {sub} --help` has no Examples: section:\n{help}"));
        let documented = examples::ALL.iter().find(|(name, _)| *name == sub);
        let (_, commands) = documented.unwrap_or_else(|| panic!("no examples for `{sub}` in cli::examples::ALL"));
        for example in *commands {
            assert!(
                listed.contains(example),
                "`tracediff {sub} --help` lacks the example {example}"
            );
            assert!(example.starts_with("tracediff "), "{example}");
        }
    }
}

/// Runs every example of every `--help`, in order (the `ops-diff` that reads the saved comparison
/// comes after a `compare`), in a scratch directory where `fixtures/` and `examples/` are the
/// repository's: they must all succeed (`gate` may fail its rules: exit 1 is its verdict).
#[test]
fn every_example_runs_as_typed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = assert_cmd::cargo::cargo_bin("tracediff");
    let scratch = tempfile::TempDir::new().unwrap();
    for dir in ["fixtures", "examples"] {
        std::os::unix::fs::symlink(root.join(dir), scratch.path().join(dir)).unwrap();
    }
    for (command, list) in examples::ALL {
        for example in *list {
            let line = example.replacen("tracediff", &format!("'{}'", bin.display()), 1);
            let out = Command::new("sh")
                .arg("-c")
                .arg(&line)
                .current_dir(scratch.path())
                .env_remove("TRACEDIFF_STATE_DIR")
                .output()
                .unwrap();
            let code = out.status.code().unwrap_or(-1);
            let allowed = if *command == "gate" {
                [0, 1].as_slice()
            } else {
                [0].as_slice()
            };
            assert!(
                allowed.contains(&code),
                "`{example}` exited {code}:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                !out.stdout.is_empty() || example.contains(" -o "),
                "`{example}` printed nothing"
            );
        }
    }
}

#[test]
fn bash_completions_know_the_subcommands() {
    let script = common::ok(&["completions", "bash"]);
    for sub in ["compare", "ops-diff", "modules", "report"] {
        assert!(script.contains(sub), "the bash script never mentions {sub}");
    }
    assert!(script.contains("--short-names"));
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        assert!(common::ok(&["completions", shell]).contains("compare"), "{shell}");
    }
    let wrong = common::run(&["completions", "tcsh"]);
    assert_eq!(wrong.code, 2, "{}", wrong.stderr);
}

#[test]
fn the_man_page_is_roff_with_every_subcommand() {
    let page = common::ok(&["man"]);
    assert!(
        page.lines().any(|l| l.starts_with(".TH tracediff ")),
        "no .TH title:\n{page}"
    );
    for sub in subcommands() {
        let heading = format!(".SH \"TRACEDIFF {}\"", sub.to_uppercase());
        assert!(page.contains(&heading), "no section {heading}");
    }
    assert!(page.contains("short\\-names"), "compare's options are missing");
    let dir = tempfile::TempDir::new().unwrap();
    let file = dir.path().join("tracediff.1");
    let r = common::run(&["man", "-o", file.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), page);
}
