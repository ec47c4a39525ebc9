//! The project's own documentation holds together: every `docs/PAGE.md#anchor` that the code,
//! the help, the notes, the tests or the pages refer to names a page of `docs/` and a heading on
//! it (help and notes point users there, so a renamed heading must not leave them at a dead link).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// GitHub's anchor of a heading: lower case, punctuation dropped (but `-` and `_`), spaces → `-`.
fn anchor_of(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown page's headings (outside fenced code blocks).
fn anchors(page: &str) -> BTreeSet<String> {
    let mut in_code = false;
    let mut found = BTreeSet::new();
    for line in page.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            found.insert(anchor_of(line.trim_start_matches('#')));
        }
    }
    found
}

/// Text files of the repository (sources, pages, scripts, snapshots), not build outputs.
fn text_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !name.starts_with('.') && !matches!(name.as_str(), "target" | "node_modules") {
                text_files(&path, out);
            }
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("rs" | "md" | "py" | "pyi" | "toml" | "sh" | "snap" | "html" | "js")
        ) {
            out.push(path);
        }
    }
}

/// Every `(page, anchor)` a file refers to: `docs/PAGE.md#anchor` anywhere, and in a page of
/// `docs/` also the relative links `(PAGE.md#anchor)` and `(#anchor)`.
fn references(path: &Path, text: &str) -> Vec<(String, String)> {
    let in_docs = path.parent().and_then(|p| p.file_name()).is_some_and(|n| n == "docs");
    let own_page = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let link = regex::Regex::new(r"(docs/|\()([a-z0-9_-]*\.md)?#([a-z0-9_-]+)").unwrap();
    let mut found = Vec::new();
    for m in link.captures_iter(text) {
        let page = m.get(2).map(|p| p.as_str().to_string());
        let anchor = m[3].to_string();
        match (&m[1], page) {
            ("docs/", Some(page)) => found.push((page, anchor)),
            ("(", Some(page)) if in_docs => found.push((page, anchor)),
            ("(", None) if in_docs => found.push((own_page.clone(), anchor)),
            _ => {}
        }
    }
    found
}

#[test]
fn every_docs_anchor_that_the_repository_refers_to_is_a_heading() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    text_files(root, &mut files);
    let mut missing = Vec::new();
    let mut checked = 0;
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for (page, anchor) in references(file, &text) {
            checked += 1;
            let page_text = std::fs::read_to_string(root.join("docs").join(&page)).unwrap_or_default();
            if !anchors(&page_text).contains(&anchor) {
                missing.push(format!(
                    "{}: docs/{page}#{anchor}",
                    file.strip_prefix(root).unwrap().display()
                ));
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(missing.is_empty(), "links to no heading:\n{}", missing.join("\n"));
    assert!(
        checked > 50,
        "only {checked} references found: is the scan looking in the right place?"
    );
}

#[test]
fn anchors_are_githubs() {
    assert_eq!(anchor_of(" Differences from HTA"), "differences-from-hta");
    assert_eq!(anchor_of("Module-aligned diff"), "module-aligned-diff");
    assert_eq!(anchor_of("`compare`"), "compare");
    assert_eq!(
        anchor_of("`summarize`: map/reduce over a cluster's traces"),
        "summarize-mapreduce-over-a-clusters-traces"
    );
}

/// The anchors that the code and the notes are written against (they must survive edits).
#[test]
fn the_semantics_page_has_its_sections() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/semantics.md")).unwrap();
    let have = anchors(&page);
    for want in [
        "command-line",
        "what-a-trace-means",
        "finding-traces",
        "which-events-count",
        "iterations",
        "host-and-device-events",
        "the-comparison-table",
        "short-names",
        "differences-from-hta",
        "defaults",
        "the-views",
        "the-call-tree",
        "operator-and-kernel-views",
        "overview",
        "module-aligned-diff",
        "report",
        "step-time-breakdown",
        "flame-graph",
    ] {
        assert!(have.contains(want), "docs/semantics.md has no heading #{want}");
    }
}

/// The README's "real output" is what the command it shows prints today (at 100 columns, as the
/// block is wide): a change of the table or its header must update the README too.
#[test]
fn the_readme_output_is_a_real_run() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let out = crate::common::ok(&["compare", "fixtures/basic/control", "fixtures/basic/test", "--no-save"]);
    assert!(
        readme.contains(&format!("```\n{out}```")),
        "README.md's output of `tracediff compare fixtures/basic/control fixtures/basic/test` is stale; today it is:\n{out}"
    );
    let (control, test) = ("fixtures/replicates/fused/control", "fixtures/replicates/fused/test");
    let runs = crate::common::ok(&["compare", control, test, "--no-save"]);
    assert!(
        readme.contains(&format!("$ tracediff compare {control} {test}\n{runs}```")),
        "README.md's output of `tracediff compare {control} {test}` is stale; today it is:\n{runs}"
    );
}

/// The `$ tracediff …` examples of a page: (the command's words after `tracediff`, the output
/// shown under it). A command continues over lines ending in `\`; its output runs to the next
/// `$ ` line or the end of the fenced block, less a blank line before the next command.
fn shown_examples(page: &str) -> Vec<(Vec<String>, String)> {
    let mut examples = Vec::new();
    let mut lines = page.lines().peekable();
    let mut in_code = false;
    while let Some(line) = lines.next() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        let Some(first) = line.strip_prefix("$ tracediff ").filter(|_| in_code) else {
            continue;
        };
        let mut command = first.to_string();
        while command.ends_with('\\') {
            command.pop();
            command.push(' ');
            command.push_str(lines.next().unwrap_or_default().trim());
        }
        let mut shown = Vec::new();
        while let Some(next) = lines.peek() {
            if next.starts_with("$ ") || next.starts_with("```") {
                break;
            }
            shown.push(lines.next().unwrap_or_default());
        }
        while shown.last() == Some(&"") {
            shown.pop();
        }
        let output: String = shown.iter().map(|l| format!("{l}\n")).collect();
        examples.push((shell_words(&command), output));
    }
    examples
}

/// Words of a command line as a shell splits them, for the pages' examples: spaces separate,
/// single quotes keep spaces and `|` literal.
fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut started) = (false, false);
    for c in command.chars() {
        match c {
            '\'' => (quoted, started) = (!quoted, true),
            ' ' if !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                }
                started = false;
            }
            _ => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// Every `$ tracediff …` example of docs/commands.md that prints a table on standard output is
/// what that command prints today at 100 columns (as the README's): a change of a table, a
/// header or a name cut must update the page too. Examples that write files (`-o`) or read
/// files the page makes first (`summaries_…`) are left out; those over `../shared` run when it
/// is there.
#[test]
fn the_commands_page_output_is_real_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/commands.md")).unwrap();
    let shared = root.join("../shared/traces").is_dir();
    if !shared {
        eprintln!("SKIPPED the docs/commands.md examples over ../shared: ../shared/traces not found");
    }
    let examples = shown_examples(&page);
    assert!(
        examples.len() >= 8,
        "the page's examples were found: {}",
        examples.len()
    );
    let mut stale = Vec::new();
    for (args, shown) in &examples {
        let writes_or_needs_files = args.iter().any(|a| a == "-o" || a.starts_with("summaries_"));
        let over_shared = args.iter().any(|a| a.starts_with("../shared/"));
        if writes_or_needs_files || (over_shared && !shared) {
            continue;
        }
        let words: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = crate::common::ok(&words);
        if &out != shown {
            stale.push(format!("$ tracediff {}\n{out}", args.join(" ")));
        }
    }
    assert!(
        stale.is_empty(),
        "docs/commands.md shows stale output; today it is:\n\n{}",
        stale.join("\n")
    );
}

#[test]
fn shell_words_keep_single_quoted_text_whole() {
    assert_eq!(
        shell_words("kernels a b --include 'gemm|conv'  --top 5"),
        ["kernels", "a", "b", "--include", "gemm|conv", "--top", "5"]
    );
    assert_eq!(shell_words("modules a --zoom ''"), ["modules", "a", "--zoom", ""]);
}
