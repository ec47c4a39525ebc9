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
}
