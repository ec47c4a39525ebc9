//! The second robustness audit's findings (docs/robustness.md): each test builds the hostile
//! input that showed the defect, small, and checks what the tool promises instead.

use crate::common;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// Writes `{"traceEvents": events}` (plus `extra` top-level keys) as `name` in `dir`.
fn write_trace(dir: &Path, name: &str, events: Vec<Value>, extra: Value) -> PathBuf {
    let mut doc = json!({ "traceEvents": events });
    if let (Some(d), Some(e)) = (doc.as_object_mut(), extra.as_object()) {
        d.extend(e.clone());
    }
    let path = dir.join(name);
    std::fs::write(&path, doc.to_string()).unwrap();
    path
}

/// A CPU op (times in µs).
fn op(name: &str, ts: f64, dur: f64) -> Value {
    json!({"ph": "X", "name": name, "cat": "cpu_op", "ts": ts, "dur": dur, "pid": 1, "tid": 1})
}

fn text(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The Parquet columns of `path`: (name, physical type) in order.
fn parquet_columns(path: &Path) -> Vec<(String, String)> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let schema = reader.metadata().file_metadata().schema_descr();
    schema
        .columns()
        .iter()
        .map(|c| (c.name().to_string(), c.physical_type().to_string()))
        .collect()
}

/// Attribute keys holding a tab, `;`, `,`, `}` or a line break panicked or failed the schema
/// parser; now they are column names like any other, read back exactly. Files of one run whose
/// attributes differ (a key only in one, a key int in one and float or text in another) write
/// one schema: the union, one type per column.
#[test]
fn parquet_events_take_any_attribute_key_and_the_union_of_a_runs_attributes() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let run = d.join("run");
    std::fs::create_dir(&run).unwrap();
    let hostile = ["a\tb;c", "x,y", "}z", "line\nbreak", "q\"uote"];
    let mut args = serde_json::Map::new();
    for (k, key) in hostile.iter().enumerate() {
        args.insert((*key).to_string(), json!(k));
    }
    args.insert("mixed".into(), json!(1));
    let mut e0 = op("aten::a", 10.0, 5.0);
    e0["args"] = Value::Object(args);
    let rank = |r: i64| json!({"distributedInfo": {"rank": r}});
    write_trace(&run, "rank0.json", vec![e0], rank(0));
    let mut e1 = op("aten::b", 10.0, 5.0);
    e1["args"] = json!({"mixed": 2.5, "only_here": "text", "x,y": "seven"});
    write_trace(&run, "rank1.json", vec![e1], rank(1));
    let out = d.join("e.parquet");
    let r = common::run(&["events", text(&run), "--args", "all", "-o", text(&out)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let cols = parquet_columns(&out);
    let attrs: Vec<(String, String)> = cols[14..].to_vec();
    let want = [
        ("a\tb;c", "INT64"),
        ("x,y", "BYTE_ARRAY"),
        ("}z", "INT64"),
        ("line\nbreak", "INT64"),
        ("q\"uote", "INT64"),
        ("mixed", "DOUBLE"),
        ("only_here", "BYTE_ARRAY"),
    ];
    let want: Vec<(String, String)> = want.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    assert_eq!(attrs, want);
    // Each rank alone writes its own columns; read together the set is one table.
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::RowAccessor;
    let reader = SerializedFileReader::new(std::fs::File::open(&out).unwrap()).unwrap();
    let rows: Vec<parquet::record::Row> = reader.get_row_iter(None).unwrap().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].get_double(19).unwrap(), 1.0);
    assert_eq!(rows[1].get_double(19).unwrap(), 2.5);
    assert_eq!(rows[0].get_string(15).unwrap(), "1");
    assert_eq!(rows[1].get_string(15).unwrap(), "seven");
}
