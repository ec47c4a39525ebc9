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

/// The options overview, modules, flamegraph and gate refuse with a reason are hidden; the
/// scripts never offer them (clap_complete wrote hidden options too), and still offer each
/// command's own.
#[test]
fn completions_offer_no_option_the_command_refuses() {
    const REFUSED: [&str; 10] = [
        "--device",
        "--short-names",
        "--normalize-names",
        "--raw-names",
        "--python-frames",
        "--hta",
        "--group-by",
        "--arg-spec",
        "--include",
        "--exclude",
    ];
    let commands: [(&str, &[&str], &[&str]); 4] = [
        (
            "overview",
            &REFUSED,
            &["--per-step", "--rank", "--iteration", "--format"],
        ),
        ("modules", &REFUSED, &["--zoom", "--depth", "--no-run-shift", "--rank"]),
        (
            "flamegraph",
            &REFUSED,
            &["--widths", "--time", "--folded", "--iteration"],
        ),
        (
            "gate",
            &["--python-frames", "--hta"],
            &["--device", "--short-names", "--config"],
        ),
    ];
    let bash = common::ok(&["completions", "bash"]);
    let zsh = common::ok(&["completions", "zsh"]);
    let fish = common::ok(&["completions", "fish"]);
    for (command, refused, own) in commands {
        // bash: the `opts` line of the command's case; zsh: its `_arguments` block; fish: its lines.
        let case = format!("tracediff__subcmd__{command})");
        let bash_opts = bash[bash.find(&case).unwrap()..]
            .lines()
            .find(|l| l.contains("opts="))
            .unwrap();
        let block = &zsh[zsh.find(&format!("\n({command})\n")).unwrap()..];
        let zsh_block = &block[..block.find("&& ret=0").unwrap()];
        let tag = format!("__fish_tracediff_using_subcommand {command}\"");
        let fish_lines: Vec<&str> = fish.lines().filter(|l| l.contains(&tag)).collect();
        let offered = |flag: &str| {
            let long = flag.trim_start_matches("--");
            [
                bash_opts.split(['"', ' ']).any(|w| w == flag),
                zsh_block.contains(&format!("{flag}[")) || zsh_block.contains(&format!("{flag}=[")),
                fish_lines
                    .iter()
                    .any(|l| l.contains(&format!(" -l {long} ")) || l.ends_with(&format!(" -l {long}"))),
            ]
        };
        for flag in refused {
            assert_eq!(offered(flag), [false; 3], "{command} {flag} (bash, zsh, fish)");
        }
        for flag in own {
            assert_eq!(offered(flag), [true; 3], "{command} {flag} (bash, zsh, fish)");
        }
    }
    // compare takes them all.
    let compare = &bash[bash.find("tracediff__subcmd__compare)").unwrap()..];
    let opts = compare.lines().find(|l| l.contains("opts=")).unwrap();
    for flag in REFUSED {
        assert!(opts.split(['"', ' ']).any(|w| w == flag), "compare {flag}");
    }
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
