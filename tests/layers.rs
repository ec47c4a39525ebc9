//! The layers only look down: the source is read as text and every `crate::…` / `tracediff::…`
//! path is checked against the order trace crate < root files (`error`, `text`, `atomic`) <
//! request < analysis < output < commands < cli (unit tests included: a test that needs an upper
//! layer is that layer's, or an integration test). A change that makes a lower layer reach up
//! fails here, before it grows into an import circle. The unit tests' own layout is checked
//! here too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, with its text before its `#[cfg(test)]` module (for the import
/// graph, where an inline test may use a sibling room; a `tests.rs` is read whole). Other
/// `#[cfg(test)]` items (a test-only helper in the middle of a file) do not end the code: what
/// follows them is checked.
fn sources(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                let test_module = text
                    .match_indices("#[cfg(test)]")
                    .find(|(i, m)| text[i + m.len()..].trim_start().starts_with("mod "));
                let code = match test_module {
                    Some((i, _)) => text[..i].to_string(),
                    None => text,
                };
                out.push((p, code));
            }
        }
    }
    out
}

/// Lines of `code` that are not comments and mention one of `needles`.
fn offending(code: &str, needles: &[&str]) -> Vec<String> {
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .filter(|l| needles.iter().any(|n| l.contains(n)))
        .map(|l| l.trim().to_string())
        .collect()
}

/// The lines of the files under `dir`, their unit tests included (a test of a lower layer uses
/// that layer's own functions), that mention one of `needles`.
fn check(dir: &str, needles: &[&str]) -> Vec<String> {
    whole_sources(&root().join(dir))
        .iter()
        .flat_map(|(p, code)| {
            offending(code, needles)
                .into_iter()
                .map(move |l| format!("{}: {l}", p.strip_prefix(root()).unwrap_or(p).display()))
        })
        .collect()
}

#[test]
fn the_trace_crate_knows_nothing_above_it() {
    let bad = check(
        "crates/trace/src",
        &[
            "tracediff::",
            "clap::",
            "plotters::",
            "parquet::",
            "comfy_table::",
            "pyo3::",
        ],
    );
    assert!(bad.is_empty(), "the trace crate reaches up:\n{}", bad.join("\n"));
}

#[test]
fn analysis_never_uses_output_or_cli() {
    let bad = check(
        "src/analysis",
        &["crate::output", "crate::commands", "crate::cli", "super::super::output"],
    );
    assert!(bad.is_empty(), "analysis reaches up:\n{}", bad.join("\n"));
}

#[test]
fn summaries_and_output_never_use_cli() {
    let mut bad = check("src/output", &["crate::cli", "crate::commands"]);
    // The summary format (every file of `analysis/summaries` but `summarize`, which makes a
    // summary from a loaded trace: its schema, writers and readers) reads and writes files with
    // the model's types, the trace crate's readers and the shared name normaliser alone.
    for (path, code) in whole_sources(&root().join("src/analysis/summaries")) {
        if path.ends_with("summarize.rs") {
            continue;
        }
        let shown = path.strip_prefix(root()).unwrap_or(&path).display().to_string();
        bad.extend(
            offending(
                &code,
                &["crate::cli", "crate::commands", "crate::output", "crate::analysis::"],
            )
            .into_iter()
            .filter(|l| !l.contains("crate::analysis::summaries::") && !l.contains("crate::analysis::names::"))
            .map(|l| format!("{shown}: {l}")),
        );
    }
    bad.extend(check("src/commands", &["crate::cli", "super::super::cli"]));
    assert!(bad.is_empty(), "a layer reaches up:\n{}", bad.join("\n"));
}

/// The shared files at the crate's root (the error, the number formats, the atomic writes) sit
/// below every layer: the summary writer in the analysis writes whole files with the same
/// helper as the output and the commands.
#[test]
fn the_root_files_use_no_layer() {
    let layers = [
        "crate::request",
        "crate::analysis",
        "crate::output",
        "crate::commands",
        "crate::cli",
    ];
    let mut bad = Vec::new();
    for file in ["atomic", "error", "text"] {
        let path = format!("src/{file}.rs");
        let text = std::fs::read_to_string(root().join(&path)).unwrap();
        bad.extend(offending(&text, &layers).into_iter().map(|l| format!("{path}: {l}")));
    }
    assert!(bad.is_empty(), "a root file reaches up:\n{}", bad.join("\n"));
}

/// The request (`src/request.rs` and `src/request/`) is plain data below the analysis: the
/// commands, the command line and Python build it, the analysis reads it, and it uses none of
/// them.
#[test]
fn the_request_uses_no_layer_above_it() {
    let above = ["crate::analysis", "crate::output", "crate::commands", "crate::cli"];
    let mut bad = check("src/request", &above);
    let text = std::fs::read_to_string(root().join("src/request.rs")).unwrap();
    bad.extend(
        offending(&text, &above)
            .into_iter()
            .map(|l| format!("src/request.rs: {l}")),
    );
    assert!(bad.is_empty(), "the request reaches up:\n{}", bad.join("\n"));
}

/// Inside the analysis the folders by concern stand on the shared pieces: what measures a side
/// (`measure/`) and the shared flat files (`diff`, `aggregate`, `names`, `intervals`, `idle`)
/// never use a view, the module tree, the gate, the report, the flame graph, the kernel
/// classes, the summaries or the comparison pipeline.
#[test]
fn the_shared_analysis_never_uses_a_concern_above_it() {
    let above = [
        "crate::analysis::views",
        "crate::analysis::modules",
        "crate::analysis::gate",
        "crate::analysis::report",
        "crate::analysis::flamegraph",
        "crate::analysis::classes",
        "crate::analysis::summaries",
        "crate::analysis::compare",
    ];
    let mut bad = check("src/analysis/measure", &above);
    for file in ["diff", "aggregate", "names", "intervals", "idle"] {
        let path = format!("src/analysis/{file}.rs");
        let text = std::fs::read_to_string(root().join(&path)).unwrap();
        let code = match text.find("#[cfg(test)]\nmod ") {
            Some(i) => &text[..i],
            None => &text[..],
        };
        bad.extend(offending(code, &above).into_iter().map(|l| format!("{path}: {l}")));
    }
    assert!(
        bad.is_empty(),
        "a shared piece of the analysis reaches up:\n{}",
        bad.join("\n")
    );
}

#[test]
fn python_uses_the_command_line_only_for_its_console_script() {
    let bad: Vec<String> = check("python/src", &["tracediff::cli"])
        .into_iter()
        .filter(|l| !l.contains("tracediff::cli::entry::main_with_args"))
        .collect();
    assert!(
        bad.is_empty(),
        "the Python bindings use the command line:\n{}",
        bad.join("\n")
    );
}

/// The module a file is (`analysis/views/mod.rs` → `analysis::views`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts.join("::")
}

/// Module → the modules of the same crate its code (not its tests) names.
fn import_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files = sources(src);
    let modules: BTreeSet<String> = files.iter().map(|(p, _)| module_of(src, p)).collect();
    let mut graph = BTreeMap::new();
    for (p, code) in &files {
        let me = module_of(src, p);
        let mut uses = BTreeSet::new();
        // Doc links name modules without depending on them.
        let code: String = code
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        for path in module_paths(&code, &me) {
            let parts: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
            // The longest prefix that is a module of this crate.
            if let Some(m) = (1..=parts.len())
                .rev()
                .map(|k| parts[..k].join("::"))
                .find(|m| modules.contains(m))
                && m != me
                && !me.starts_with(&format!("{m}::"))
            {
                uses.insert(m);
            }
        }
        graph.insert(me, uses);
    }
    graph
}

/// Every path that `code`, the code of module `me`, names from its own crate, written out from
/// the crate root: `crate::a::b`, `super::b` and `self::b` (resolved against `me`), with `{…}`
/// groups expanded (`use super::{views, render::plot}` names `…::views` and `…::render::plot`).
fn module_paths(code: &str, me: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        for (i, _) in code.match_indices(start) {
            // A whole word only: `my_crate::` or `Self::` are not paths of this crate.
            // A whole word, at the start of a path: not `my_crate::`, not the `super::` inside
            // `super::super::` (read with the first).
            if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_' || bytes[i - 1] == b':') {
                continue;
            }
            let mut base: Vec<&str> = if start == "crate::" {
                Vec::new()
            } else {
                me.split("::").filter(|s| !s.is_empty()).collect()
            };
            let mut rest = &code[i..];
            // `super::super::…` climbs once per word; `self::` stays.
            loop {
                if let Some(r) = rest.strip_prefix("super::") {
                    base.pop();
                    rest = r;
                } else if let Some(r) = rest.strip_prefix("self::") {
                    rest = r;
                } else if let Some(r) = rest.strip_prefix("crate::") {
                    rest = r;
                } else {
                    break;
                }
            }
            expand(rest, &base.join("::"), &mut out);
        }
    }
    out
}

/// The paths of the `use` tree at the start of `text` (a path, maybe ending in a `{…}` group),
/// each prefixed with `prefix`; returns how many bytes of `text` the tree took.
fn expand(text: &str, prefix: &str, out: &mut Vec<String>) -> usize {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':';
    let head_len = text.find(|c: char| !word(c)).unwrap_or(text.len());
    let head = text[..head_len].trim_end_matches(':');
    let full = match (prefix.is_empty(), head.is_empty()) {
        (true, _) => head.to_string(),
        (false, true) => prefix.to_string(),
        (false, false) => format!("{prefix}::{head}"),
    };
    let mut used = head_len;
    if text[head_len..].starts_with('{') {
        used += 1;
        loop {
            let rest = &text[used..];
            let skip = rest.len() - rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',').len();
            used += skip;
            if used >= text.len() || text[used..].starts_with('}') {
                return used + 1;
            }
            let took = expand(&text[used..], &full, out);
            if took == 0 {
                // Something this reader does not follow (`self as x`, a glob): skip a character.
                used += text[used..].chars().next().map_or(1, char::len_utf8);
            } else {
                used += took;
            }
        }
    }
    out.push(full);
    used
}

/// The import circles of `graph`: each strongly connected set of more than one module.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Kosaraju, iteratively: finishing order on the graph, then sets on its reverse.
    let names: Vec<&String> = graph.keys().collect();
    let mut seen = BTreeSet::new();
    let mut order = Vec::new();
    for &start in &names {
        if !seen.insert(start.clone()) {
            continue;
        }
        let mut stack = vec![(start.clone(), graph[start].iter().cloned().collect::<Vec<_>>())];
        while let Some((node, next)) = stack.last_mut() {
            match next.pop() {
                Some(n) if graph.contains_key(&n) && seen.insert(n.clone()) => {
                    let children = graph[&n].iter().cloned().collect();
                    stack.push((n, children));
                }
                Some(_) => {}
                None => {
                    order.push(node.clone());
                    stack.pop();
                }
            }
        }
    }
    let mut reverse: BTreeMap<&String, Vec<&String>> = BTreeMap::new();
    for (from, tos) in graph {
        for to in tos {
            if let Some((key, _)) = graph.get_key_value(to) {
                reverse.entry(key).or_default().push(from);
            }
        }
    }
    let mut assigned = BTreeSet::new();
    let mut out = Vec::new();
    for node in order.iter().rev() {
        if !assigned.insert(node.clone()) {
            continue;
        }
        let mut set = vec![node.clone()];
        let mut stack = vec![node.clone()];
        while let Some(n) = stack.pop() {
            for &m in reverse.get(&n).into_iter().flatten() {
                if assigned.insert(m.clone()) {
                    set.push(m.clone());
                    stack.push(m.clone());
                }
            }
        }
        if set.len() > 1 {
            set.sort();
            out.push(set);
        }
    }
    out
}

#[test]
fn no_import_circles_in_the_library() {
    let found = circles(&import_graph(&root().join("src")));
    assert!(found.is_empty(), "import circles: {found:?}");
}

/// The analysis' folders and shared files in layers, the ground first: each uses only rooms of
/// the layers below it (docs/architecture.md draws them), so no arrow runs back up and a new
/// room must be given its place here.
const ANALYSIS_LAYERS: [&[&str]; 9] = [
    &["classes", "cost", "intervals", "memory", "names", "select"],
    &["aggregate", "idle"],
    &["breakdown", "measure"],
    &["diff", "summaries"],
    &["load"],
    &["compare", "modules"],
    &["flamegraph", "gate", "views"],
    &["explain", "history"],
    &["report"],
];

#[test]
fn the_analysis_rooms_only_look_down() {
    let graph = import_graph(&root().join("src"));
    let room = |module: &str| -> Option<String> {
        let rest = module
            .strip_prefix("analysis::")
            .or((module == "analysis").then_some(""))?;
        rest.split("::").next().filter(|r| !r.is_empty()).map(str::to_string)
    };
    let layer = |r: &str| ANALYSIS_LAYERS.iter().position(|l| l.contains(&r));
    let mut bad = BTreeSet::new();
    for (from, uses) in &graph {
        let Some(me) = room(from) else { continue };
        let Some(mine) = layer(&me) else {
            bad.insert(format!("{from}: the room `{me}` has no layer in ANALYSIS_LAYERS"));
            continue;
        };
        for used in uses.iter().filter_map(|u| room(u)).filter(|u| *u != me) {
            match layer(&used) {
                Some(theirs) if theirs < mine => {}
                _ => {
                    bad.insert(format!("{from} (layer {mine}) uses analysis::{used}"));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "an analysis room reaches sideways or up:\n{}",
        bad.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn the_trace_crate_has_no_import_circle() {
    let found = circles(&import_graph(&root().join("crates/trace/src")));
    assert!(found.is_empty(), "import circles in the trace crate: {found:?}");
}

#[test]
fn circles_are_found_when_there_are_some() {
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    g.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    g.insert("d".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(
        circles(&g),
        vec![vec!["a".to_string(), "b".to_string(), "c".to_string()]]
    );
}

/// The whole check on a crate of its own: a circle made only of `super::` and `self::` paths
/// (`a` uses `b` through `super::b`, `b` uses `a` through a `self::`-relative group of its
/// parent) is found, and a path inside a module to its own child is not a circle.
#[test]
fn a_circle_through_super_and_self_paths_fails() {
    let dir = tempfile::TempDir::new().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("a")).unwrap();
    let files = [
        ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
        ("a/mod.rs", "mod inner;\nuse self::inner::Z;\nuse super::b::X;\n"),
        ("a/inner.rs", "pub struct Z;\n"),
        ("b.rs", "use super::{a::Y, c};\npub struct X;\n"),
        ("c.rs", "pub fn f() {}\n"),
    ];
    for (path, text) in files {
        std::fs::write(src.join(path), text).unwrap();
    }
    let graph = import_graph(src);
    assert!(graph["a"].contains("b") && graph["b"].contains("a"), "{graph:?}");
    assert_eq!(circles(&graph), vec![vec!["a".to_string(), "b".to_string()]]);
    // Without `b`'s path back to `a` there is none.
    std::fs::write(src.join("b.rs"), "use super::c;\npub struct X;\n").unwrap();
    assert!(circles(&import_graph(src)).is_empty());
}

#[test]
fn relative_paths_and_groups_are_read() {
    let code = "use super::{views, Format};\nuse self::inner::x;\nuse super::super::state::{self, save};\nlet y = crate::text::fmt(Self::A, my_super::z);";
    let mut found = module_paths(code, "output::render::breakdown");
    found.sort();
    assert_eq!(
        found,
        [
            "output::render::Format",
            "output::render::breakdown::inner::x",
            "output::render::views",
            "output::state::save",
            "output::state::self",
            "text::fmt",
        ]
    );
}

/// Every `.rs` file under `dir`, whole (its tests included).
fn whole_sources(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for p in std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().path()) {
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push((p.clone(), std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Whether the first lines of a test's `body` skip it when `../shared` is absent by hand: a
/// look for a directory of it, and a `return`.
fn returns_without_shared(body: &[&str]) -> bool {
    body.iter()
        .any(|l| l.contains("shared") && (l.contains("is_dir()") || l.contains("read_dir(")))
        && body.iter().any(|l| l.trim() == "return;")
}

#[test]
fn a_hand_made_skip_without_shared_is_seen() {
    let body = [
        "let shared = repo().join(\"../shared/traces\");",
        "if !shared.is_dir() {",
        "    eprintln!(\"skipped\");",
        "    return;",
        "}",
    ];
    assert!(returns_without_shared(&body));
    // Looking without skipping the test (it runs the rest) is no skip.
    assert!(!returns_without_shared(&body[..3]));
}

/// The tests of a source's `lines`: the line of each `#[test]` and of the `fn` it marks.
fn test_fns(lines: &[&str]) -> Vec<(usize, usize)> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, line)| line.trim() == "#[test]")
        .filter_map(|(i, _)| {
            let f = (i + 1..lines.len()).find(|&j| lines[j].trim_start().starts_with("fn "))?;
            Some((i, f))
        })
        .collect()
}

/// A test that needs `../shared` or a browser carries the mark that lists it as ignored where
/// they are absent (build.rs, and the trace crate's own), so that it never passes in no time:
/// its first statement is the `let Some(…) = … else` that would skip it, or a look for
/// `../shared` that returns. The integration tests and the trace crate's unit tests are read.
#[test]
fn tests_that_need_shared_data_or_a_browser_are_marked() {
    let needs = [
        ("common::traces(", "tracediff_no_shared"),
        ("common::shared(", "tracediff_no_shared"),
        ("= traces()", "tracediff_no_shared"),
        ("= suite()", "tracediff_no_shared"),
        ("= browser()", "tracediff_no_browser"),
        ("= open_report(", "tracediff_no_browser"),
    ];
    let mut bad = Vec::new();
    let mut files = whole_sources(&root().join("tests"));
    files.extend(whole_sources(&root().join("crates/trace/src")));
    for (path, code) in files {
        let lines: Vec<&str> = code.lines().collect();
        for (i, f) in test_fns(&lines) {
            // The first statement, or the second after a temporary directory.
            let body = lines[f + 1..].iter().take(2).map(|l| l.trim());
            let skip = body
                .filter(|l| l.starts_with("let Some("))
                .find_map(|l| needs.iter().find(|(call, _)| l.contains(call)).map(|n| n.1));
            let first: Vec<&str> = lines[f + 1..].iter().take(8).copied().collect();
            let skip = skip.or_else(|| returns_without_shared(&first).then_some("tracediff_no_"));
            if let Some(flag) = skip
                && !lines[i.saturating_sub(3)..f].iter().any(|l| l.contains(flag))
            {
                bad.push(format!("{}: {}", path.display(), lines[f].trim()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "tests that skip without an ignore mark:\n{}",
        bad.join("\n")
    );
}

/// A test that runs a command on a pseudo-terminal (util-linux `script`, directly or through
/// `trust.rs`'s `under_pty`) carries the `tracediff_no_script` mark, and one that drives a
/// browser anywhere in its body the `tracediff_no_browser` mark, so that it is listed as ignored
/// where they are missing rather than passing with a part skipped; no test prints that it
/// skipped and passes.
#[test]
fn tests_that_need_a_terminal_are_marked_and_none_skips_by_hand() {
    let mut bad = Vec::new();
    for (path, code) in whole_sources(&root().join("tests")) {
        if path.ends_with("layers.rs") {
            continue;
        }
        let lines: Vec<&str> = code.lines().collect();
        for (i, f) in test_fns(&lines) {
            let end = (f + 1..lines.len()).find(|&j| lines[j] == "}").unwrap_or(lines.len());
            let body = &lines[f + 1..end];
            let terminal = body
                .iter()
                .any(|l| l.contains("under_pty(") || l.contains("Command::new(\"script\")"));
            let marked = lines[i.saturating_sub(4)..f]
                .iter()
                .any(|l| l.contains("tracediff_no_script"));
            // A browser, asked for anywhere in the test: the mark, or a part run only where the
            // tests were built with one (`cfg!(not(tracediff_no_browser))`).
            let browser = body.iter().any(|l| {
                l.contains("browser()") || l.contains("open_report") || l.contains("three_levels_down_and_back(")
            });
            let browser_marked = lines[i.saturating_sub(4)..f]
                .iter()
                .chain(body)
                .any(|l| l.contains("tracediff_no_browser"));
            let hand_skip = body
                .iter()
                .any(|l| l.contains("println!(\"skipped") || l.contains("eprintln!(\"skipped"));
            if terminal && !marked || browser && !browser_marked || hand_skip {
                bad.push(format!("{}: {}", path.display(), lines[f].trim()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "tests that need a terminal or a browser without the mark, or that skip by hand:\n{}",
        bad.join("\n")
    );
}

/// The most lines an inline unit-test module (`#[cfg(test)] mod tests { … }`) may have; a longer
/// one lives out of line (docs/architecture.md).
const INLINE_TESTS_MAX: usize = 150;

/// Where the unit tests of `files` (paths relative to the crate roots' parent, with their text)
/// break the one layout: a test module is inline while it is short, else in `foo/tests.rs`
/// declared by `foo.rs` (or `foo/mod.rs`) as `#[cfg(test)] mod tests;`; never a `foo_tests.rs`
/// nor a `#[path]`.
fn test_layout_faults(files: &[(PathBuf, String)]) -> Vec<String> {
    let mut bad = Vec::new();
    let texts: BTreeMap<&Path, &str> = files.iter().map(|(p, t)| (p.as_path(), t.as_str())).collect();
    for (path, text) in files {
        let shown = path.display();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.ends_with("_tests.rs") {
            bad.push(format!(
                "{shown}: named `*_tests.rs`; the tests of foo.rs are foo/tests.rs"
            ));
        }
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let line = line.trim_start();
            if line.starts_with("#[path") {
                bad.push(format!("{shown}:{}: a `#[path]` module", i + 1));
            }
            if line == "#[cfg(test)]"
                && let Some(next) = lines.get(i + 1)
                && next.trim_start().starts_with("mod ")
                && next.trim_end().ends_with('{')
            {
                let indent = &next[..next.len() - next.trim_start().len()];
                let close = format!("{indent}}}");
                let end = (i + 2..lines.len()).find(|&j| lines[j] == close).unwrap_or(lines.len());
                let len = end + 1 - i;
                if len > INLINE_TESTS_MAX {
                    bad.push(format!(
                        "{shown}:{}: an inline test module of {len} lines (over {INLINE_TESTS_MAX}): move it to tests.rs in the module's folder",
                        i + 1
                    ));
                }
            }
        }
        if name == "tests.rs" {
            let dir = path.parent().unwrap_or(Path::new(""));
            let owners = [dir.join("mod.rs"), dir.join("lib.rs"), dir.with_extension("rs")];
            let declared = owners
                .iter()
                .filter_map(|o| texts.get(o.as_path()))
                .any(|t| t.contains("#[cfg(test)]\nmod tests;"));
            if !declared {
                bad.push(format!(
                    "{shown}: not declared as `#[cfg(test)] mod tests;` by the module it tests"
                ));
            }
        }
    }
    bad
}

#[test]
fn unit_tests_take_one_form() {
    let mut files = Vec::new();
    for dir in ["src", "crates/trace/src", "python/src"] {
        for (path, text) in whole_sources(&root().join(dir)) {
            let rel = path.strip_prefix(root()).unwrap_or(&path).to_path_buf();
            files.push((rel, text));
        }
    }
    let bad = test_layout_faults(&files);
    assert!(bad.is_empty(), "unit tests out of the one layout:\n{}", bad.join("\n"));
}

#[test]
fn test_layout_faults_are_found() {
    let long_inline = format!(
        "fn f() {{}}\n\n#[cfg(test)]\nmod tests {{\n{}}}\n",
        "    #[test]\n    fn t() {}\n".repeat(INLINE_TESTS_MAX)
    );
    let file = |p: &str, t: &str| (PathBuf::from(p), t.to_string());
    let files = [
        file("src/a.rs", &long_inline),
        file("src/b.rs", "#[cfg(test)]\n#[path = \"b_tests.rs\"]\nmod tests;\n"),
        file("src/b_tests.rs", "#[test]\nfn t() {}\n"),
        file("src/c/tests.rs", "#[test]\nfn t() {}\n"),
        file("src/d.rs", "#[cfg(test)]\nmod tests;\n"),
        file("src/d/tests.rs", "#[test]\nfn t() {}\n"),
        file(
            "src/e/mod.rs",
            "#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n",
        ),
    ];
    let bad = test_layout_faults(&files);
    assert_eq!(bad.len(), 4, "{bad:#?}");
    for (fault, path) in bad
        .iter()
        .zip(["src/a.rs:3", "src/b.rs:2", "src/b_tests.rs", "src/c/tests.rs"])
    {
        assert!(fault.starts_with(path), "{fault}");
    }
}
