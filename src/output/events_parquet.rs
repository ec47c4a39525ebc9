//! `tracediff events --format parquet`: the event table's columns with their types — integers as
//! int64, `ts`/`dur` as float64 microseconds plus `ts_ns`/`dur_ns` as int64 nanoseconds, text
//! dictionary-encoded, attribute columns typed as their specs say (nullable). Rows go out in
//! row groups of [`ROW_GROUP_ROWS`], so memory stays bounded whatever the number of events.

use crate::analysis::select::Resolved;
use crate::error::{Error, Result};
use crate::input::attrs::CORE_COLUMNS;
use crate::input::load::Side;
use crate::model::attrs::AttrType;
use crate::output::events::{Cell, EventFilter, columns, each_row};
use parquet::basic::Compression;
use parquet::basic::{LogicalType, Repetition, Type as PhysicalType};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::io::Write;
use std::sync::Arc;

/// Rows per row group.
pub(crate) const ROW_GROUP_ROWS: usize = 64 * 1024;

/// A column's Parquet type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int,
    Double,
    Text,
}

/// Values of one column in the current row group (`None`: null).
enum Values {
    Int(Vec<Option<i64>>),
    Double(Vec<Option<f64>>),
    Text(Vec<Option<ByteArray>>),
}

/// An output column: (name, kind, the event-table cell it comes from, whether nanoseconds).
type OutColumn = (String, Kind, usize, bool);

/// The event table's columns and the output columns made from them.
fn layout(side: &Side, resolved: &Resolved) -> (Vec<String>, Vec<OutColumn>) {
    let cols = columns(side, &resolved.ranks);
    let mut out = Vec::new();
    for (k, c) in cols.iter().enumerate() {
        match c.as_str() {
            "name" | "cat" | "pid" | "tid" => out.push((c.clone(), Kind::Text, k, false)),
            "ts" | "dur" => {
                out.push((c.clone(), Kind::Double, k, false));
                out.push((format!("{c}_ns"), Kind::Int, k, true));
            }
            _ if k < CORE_COLUMNS.len() => out.push((c.clone(), Kind::Int, k, false)),
            _ => {
                // One type for the column across every file (each file types its own
                // `--args all` columns by its values): int and float make a double; any text
                // makes text. So the files of one run share one schema.
                let kinds = resolved
                    .ranks
                    .iter()
                    .filter_map(|&r| side.file_of_rank(r))
                    .filter_map(|f| f.attrs.specs.iter().find(|s| &s.column == c).map(|s| s.ty));
                let kind = kinds.fold(None, |acc, ty| {
                    let this = match ty {
                        AttrType::Int => Kind::Int,
                        AttrType::Float => Kind::Double,
                        AttrType::String | AttrType::Object => Kind::Text,
                    };
                    Some(match (acc, this) {
                        (None, k) => k,
                        (Some(a), b) if a == b => a,
                        (Some(Kind::Text), _) | (_, Kind::Text) => Kind::Text,
                        _ => Kind::Double,
                    })
                });
                let kind = kind.unwrap_or(Kind::Text);
                out.push((c.clone(), kind, k, false));
            }
        }
    }
    unique_names(&mut out);
    (cols, out)
}

/// Parquet readers refuse two columns of one name: an attribute column named as one Parquet
/// adds (`ts_ns`, `dur_ns`: a key `ts_ns` with `--args all`) takes `_arg` after its name, as
/// the CSV's attribute columns do after a core column's.
fn unique_names(out: &mut [OutColumn]) {
    let mut seen: rustc_hash::FxHashSet<String> = rustc_hash::FxHashSet::default();
    for (name, _, k, _) in out.iter_mut() {
        if *k >= CORE_COLUMNS.len() {
            while seen.contains(name.as_str()) {
                name.push_str("_arg");
            }
        }
        seen.insert(name.clone());
    }
}

/// The Parquet schema, built field by field: a column name is whatever the attribute key made
/// it (a tab, `;`, `}` or a line break included), never parsed from text.
fn schema(layout: &[OutColumn]) -> parquet::errors::Result<Type> {
    let fields = layout
        .iter()
        .map(|(name, kind, k, _)| {
            let repetition = if *k < CORE_COLUMNS.len() {
                Repetition::REQUIRED
            } else {
                Repetition::OPTIONAL
            };
            let (physical, logical) = match kind {
                Kind::Int => (PhysicalType::INT64, None),
                Kind::Double => (PhysicalType::DOUBLE, None),
                Kind::Text => (PhysicalType::BYTE_ARRAY, Some(LogicalType::String)),
            };
            Type::primitive_type_builder(name, physical)
                .with_repetition(repetition)
                .with_logical_type(logical)
                .build()
                .map(Arc::new)
        })
        .collect::<parquet::errors::Result<Vec<_>>>()?;
    Type::group_type_builder("events").with_fields(fields).build()
}

fn cell_value(cell: Option<&Cell>, kind: Kind, ns: bool) -> Values {
    match kind {
        Kind::Int => Values::Int(vec![cell.and_then(|c| match c {
            Cell::Int(v) => Some(*v),
            Cell::Micros(v) if ns => Some(*v),
            Cell::Float(f) => Some(*f as i64),
            _ => None,
        })]),
        Kind::Double => Values::Double(vec![cell.and_then(|c| match c {
            Cell::Micros(v) => Some(*v as f64 / 1000.0),
            Cell::Float(f) => Some(*f),
            Cell::Int(v) => Some(*v as f64),
            _ => None,
        })]),
        Kind::Text => Values::Text(vec![cell.map(|c| ByteArray::from(c.plain().into_bytes()))]),
    }
}

fn parquet_io(e: parquet::errors::ParquetError) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

/// Writes the selected events of `side` as Parquet to `out`. Returns the number of rows.
pub(crate) fn write_events_parquet<W: Write + Send>(
    side: &Side,
    resolved: &Resolved,
    filter: &EventFilter,
    out: W,
) -> Result<u64> {
    let (cols, layout) = layout(side, resolved);
    let io = |e: std::io::Error| Error::Output {
        path: "<output>".into(),
        source: e,
    };
    let message = schema(&layout).map_err(|e| Error::usage(format!("events schema: {e}")))?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .build();
    let mut writer =
        SerializedFileWriter::new(out, Arc::new(message), Arc::new(props)).map_err(|e| io(parquet_io(e)))?;
    let fresh = || -> Vec<Values> {
        layout
            .iter()
            .map(|(_, kind, _, ns)| cell_value(None, *kind, *ns))
            .map(clear)
            .collect()
    };
    let nullable: Vec<bool> = layout.iter().map(|(_, _, k, _)| *k >= CORE_COLUMNS.len()).collect();
    let mut group = fresh();
    let mut pending = 0usize;
    let rows = each_row(side, resolved, filter, &cols, &mut |_, cells| {
        for ((_, kind, k, ns), values) in layout.iter().zip(group.iter_mut()) {
            push(values, cell_value(cells[*k].as_ref(), *kind, *ns));
        }
        pending += 1;
        if pending == ROW_GROUP_ROWS {
            write_group(&mut writer, &group, &nullable)?;
            group = fresh();
            pending = 0;
        }
        Ok(())
    })
    .map_err(io)?;
    if pending > 0 || rows == 0 {
        write_group(&mut writer, &group, &nullable).map_err(io)?;
    }
    writer.close().map_err(|e| io(parquet_io(e)))?;
    Ok(rows)
}

fn clear(v: Values) -> Values {
    match v {
        Values::Int(_) => Values::Int(Vec::with_capacity(ROW_GROUP_ROWS)),
        Values::Double(_) => Values::Double(Vec::with_capacity(ROW_GROUP_ROWS)),
        Values::Text(_) => Values::Text(Vec::with_capacity(ROW_GROUP_ROWS)),
    }
}

fn push(into: &mut Values, one: Values) {
    match (into, one) {
        (Values::Int(a), Values::Int(b)) => a.extend(b),
        (Values::Double(a), Values::Double(b)) => a.extend(b),
        (Values::Text(a), Values::Text(b)) => a.extend(b),
        _ => {}
    }
}

/// The non-null values and, for a nullable column, the definition levels.
fn split<T: Clone>(v: &[Option<T>], nullable: bool) -> (Vec<T>, Option<Vec<i16>>) {
    let values: Vec<T> = v.iter().flatten().cloned().collect();
    let levels = nullable.then(|| v.iter().map(|x| i16::from(x.is_some())).collect());
    (values, levels)
}

fn write_group<W: Write + Send>(
    writer: &mut SerializedFileWriter<W>,
    group: &[Values],
    nullable: &[bool],
) -> std::io::Result<()> {
    let mut rg = writer.next_row_group().map_err(parquet_io)?;
    let mut k = 0;
    while let Some(mut col) = rg.next_column().map_err(parquet_io)? {
        let nullable = nullable[k];
        let written = match &group[k] {
            Values::Int(v) => {
                let (vals, levels) = split(v, nullable);
                col.typed::<Int64Type>().write_batch(&vals, levels.as_deref(), None)
            }
            Values::Double(v) => {
                let (vals, levels) = split(v, nullable);
                col.typed::<DoubleType>().write_batch(&vals, levels.as_deref(), None)
            }
            Values::Text(v) => {
                let (vals, levels) = split(v, nullable);
                col.typed::<ByteArrayType>().write_batch(&vals, levels.as_deref(), None)
            }
        };
        written.map_err(parquet_io)?;
        col.close().map_err(parquet_io)?;
        k += 1;
    }
    rg.close().map_err(parquet_io)?;
    Ok(())
}
