use super::*;
use crate::output::render::Format;

/// A table of two rows: a name, a count, a signed duration, a percent and a mark.
fn sample() -> Table<'static> {
    let columns = vec![
        Column::new("name", "name", "name").left(),
        Column::new("control_calls", "base_calls", "base\ncalls"),
        Column::new("diff_time", "diff_time", "Δ\ntime").signed(),
        Column::new("diff_pct", "", "Δ %")
            .blank("")
            .only(Formats::TERMINAL | Formats::JSON),
        Column::new("significant", "significant", "sig").only(Formats::CSV | Formats::JSON),
    ];
    type Sample = (&'static str, Cell<'static>, i64, Option<&'static str>, Option<bool>);
    let rows: [Sample; 2] = [
        ("aten::mm, fused", Cell::Int(3), 1500, Some("+1.0%"), Some(true)),
        ("x|y", Cell::Empty, -2000, None, None),
    ];
    let mut t = Table::new(columns, rows.len(), move |i, cells| {
        let (name, calls, ns, pct, sig) = rows[i].clone();
        cells.extend([
            Cell::Name(name.into()),
            calls,
            Cell::Duration(ns),
            pct.map_or(Cell::Empty, |p| Cell::Percent(p.to_string())),
            Cell::Mark(sig),
        ]);
    });
    t.title.push(Line::new("a_side"));
    t.notes.push(Line::terminal("2 rows"));
    t
}

fn text(write: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> String {
    let mut out = Vec::new();
    write(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn a_cell_reads_its_own_way_in_each_format() {
    let signed = Column::new("d", "d", "d").signed();
    let plain = Column::new("v", "v", "v");
    assert_eq!(Cell::Duration(1500).text(&signed, Format::Table), "+1.50 µs");
    assert_eq!(Cell::Duration(1500).text(&signed, Format::Csv), "1.5");
    assert_eq!(Cell::Int(3).text(&signed, Format::Markdown), "+3");
    assert_eq!(Cell::Int(3).text(&signed, Format::Csv), "3");
    assert_eq!(Cell::Rate(0.004).text(&signed, Format::Table), "0");
    assert_eq!(Cell::Rate(1.5).text(&signed, Format::Table), "+1.5");
    assert_eq!(Cell::Empty.text(&plain, Format::Table), "-");
    assert_eq!(Cell::Empty.text(&plain, Format::Csv), "");
    assert_eq!(Cell::Share(0.1234).text(&plain, Format::Table), "12.3%");
    assert_eq!(Cell::Share(0.1234).text(&plain, Format::Csv), "0.1234");
    assert_eq!(Cell::Mark(Some(false)).text(&plain, Format::Table), "");
    assert_eq!(Cell::Mark(Some(false)).text(&plain, Format::Csv), "false");
    assert_eq!(Cell::Absent.json(), None);
    assert_eq!(Cell::Mark(None).json(), Some(serde_json::Value::Null));
    assert_eq!(Cell::Duration(2500).json(), Some(serde_json::json!(2.5)));
}

#[test]
fn each_format_keeps_its_columns() {
    let t = sample();
    assert_eq!(
        text(|o| csv::write(&t, o)),
        "name,base_calls,diff_time,significant\n\"aten::mm, fused\",3,1.5,true\nx|y,,-2,\n"
    );
    let json = serde_json::to_string(&json::Rows(&t)).unwrap();
    assert_eq!(
        json,
        r#"[{"name":"aten::mm, fused","control_calls":3,"diff_time":1.5,"diff_pct":"+1.0%","significant":true},{"name":"x|y","control_calls":null,"diff_time":-2,"diff_pct":null,"significant":null}]"#
    );
    assert_eq!(
        text(|o| markdown::write(&t, o)),
        "- a\\_side\n\n| name | base calls | Δ time |\n|---|---:|---:|\n| `aten::mm, fused` | 3 | +1.50 µs |\n| `x\\|y` | - | -2.00 µs |\n"
    );
}

#[test]
fn the_terminal_cuts_names_to_fit_and_drops_columns_in_order() {
    let t = sample();
    let cut = |names: &[&str], w: usize| crate::output::render::distinct_cuts(names, w);
    let wide = terminal::Layout {
        color: false,
        width: usize::MAX,
        fit: terminal::Fit::Drop {
            drop_order: &[],
            cut: Some(&cut),
            widen_to_header: true,
        },
    };
    let rule = "─".repeat(44);
    assert_eq!(
        text(|o| terminal::write(&t, &wide, o)),
        format!(
            "a_side\n name               base          Δ     Δ %\n                   calls       time\n{}\n \
         aten::mm, fused       3   +1.50 µs   +1.0%\n x|y                   -   -2.00 µs\n2 rows\n",
            rule
        )
    );
    let narrow = terminal::Layout {
        color: false,
        width: 30,
        fit: terminal::Fit::Drop {
            drop_order: &[&[0], &[2]],
            cut: Some(&cut),
            widen_to_header: true,
        },
    };
    let out = text(|o| terminal::write(&t, &narrow, o));
    assert!(out.lines().all(|l| l.chars().count() <= 30), "{out}");
    assert!(!out.contains("calls"), "the first group goes first: {out}");
    let empty = Table::new(Vec::new(), 0, |_, _| {});
    assert_eq!(text(|o| terminal::write(&empty, &wide, o)), "(no rows)\n");
}

#[test]
fn plain_verdict_and_tree_cells_read_their_own_way() {
    let plain = Column::new("v", "v", "v");
    assert_eq!(Cell::Verdict(false).text(&plain, Format::Table), "FAIL");
    assert_eq!(Cell::Verdict(false).text(&plain, Format::Csv), "fail");
    assert_eq!(Cell::Verdict(true).text(&plain, Format::Markdown), "pass");
    assert_eq!(Cell::Verdict(true).json(), Some(serde_json::json!(true)));
    assert_eq!(Cell::Plain("> 10%".into()).text(&plain, Format::Csv), "> 10%");
    let columns = vec![
        Column::new("node", "node", "").left().markdown_bare(),
        Column::new("rule", "rule", "rule").left_in_markdown(),
        Column::new("verdict", "verdict", "verdict"),
    ];
    let t = Table::new(columns, 2, |i, cells| {
        cells.extend([
            Cell::Tree(["top", "  ├─ a_b"][i].into()),
            Cell::Plain(["> 10%", "x, y"][i].into()),
            Cell::Verdict(i == 0),
        ]);
    });
    assert_eq!(
        text(|o| markdown::write_rows(&t, o)),
        "| | rule | verdict |\n|---|---|---:|\n| top | > 10% | pass |\n| \u{a0}\u{a0}├─\u{a0}a\\_b | x, y | **FAIL** |\n"
    );
    assert_eq!(
        text(|o| csv::write(&t, o)),
        "node,rule,verdict\ntop,> 10%,pass\n  ├─ a_b,\"x, y\",fail\n"
    );
    // The terminal lines a Markdown-left column up on the right.
    let wide = terminal::Layout {
        color: false,
        width: usize::MAX,
        fit: terminal::Fit::Drop {
            drop_order: &[],
            cut: None,
            widen_to_header: true,
        },
    };
    let out = text(|o| terminal::write(&t, &wide, o));
    assert!(out.lines().any(|l| l.ends_with(" x, y      FAIL")), "{out}");
}
