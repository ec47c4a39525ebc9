//! Attribute columns of a trace file: the `args` values the user asked for, one column per
//! attribute. A column stores only the rows that have a value (sorted row numbers beside the
//! values); every other row reads the column's default, so a rare attribute costs nothing for
//! the events that lack it.

use crate::model::table::{NameId, StringTable};
use serde::{Deserialize, Serialize};
use std::fmt;

/// How an attribute's values are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AttrType {
    /// A whole number; decimals are truncated, decimal strings are read.
    Int,
    /// A floating-point number; numeric strings are read.
    Float,
    /// Text; numbers and other JSON keep their JSON text.
    String,
    /// Any JSON value, kept as compact JSON text (`[[64,128],[128]]`).
    Object,
}

impl AttrType {
    /// The type named `s` (`int`, `float`, `string` or `str`, `object` or `json`; any case,
    /// spaces around ignored), or `None` for any other name.
    pub fn parse(s: &str) -> Option<AttrType> {
        match s.trim().to_ascii_lowercase().as_str() {
            "int" => Some(AttrType::Int),
            "float" => Some(AttrType::Float),
            "string" | "str" => Some(AttrType::String),
            "object" | "json" => Some(AttrType::Object),
            _ => None,
        }
    }
}

impl fmt::Display for AttrType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AttrType::Int => "int",
            AttrType::Float => "float",
            AttrType::String => "string",
            AttrType::Object => "object",
        })
    }
}

/// One attribute: the column it becomes, the key it comes from in `args`, its type, and the
/// value of events that lack it (written as text, e.g. `-1`, `0.0`, `[]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttrSpec {
    /// The column's name in outputs (`input_dims`).
    pub column: String,
    /// The key in the event's `args` (`Input Dims`).
    pub raw_key: String,
    /// How the values are stored.
    pub ty: AttrType,
    /// The value of events without the key, as text in the type's syntax.
    pub default: String,
}

/// A stored attribute value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AttrValue {
    /// Of an [`AttrType::Int`] column.
    Int(i64),
    /// Of an [`AttrType::Float`] column.
    Float(f64),
    /// Of a [`AttrType::String`] or [`AttrType::Object`] column: text in the file's string table.
    Text(NameId),
}

/// The stored values of a column, all of one type.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// Whole numbers.
    Int(Vec<i64>),
    /// Floating-point numbers.
    Float(Vec<f64>),
    /// Strings and compact JSON, interned in the file's string table.
    Text(Vec<NameId>),
}

impl Values {
    fn get(&self, k: usize) -> AttrValue {
        match self {
            Values::Int(v) => AttrValue::Int(v[k]),
            Values::Float(v) => AttrValue::Float(v[k]),
            Values::Text(v) => AttrValue::Text(v[k]),
        }
    }

    fn len(&self) -> usize {
        match self {
            Values::Int(v) => v.len(),
            Values::Float(v) => v.len(),
            Values::Text(v) => v.len(),
        }
    }

    /// Stores `value` at `k` (== len to append); a value of another type is dropped.
    fn put(&mut self, k: usize, value: AttrValue) {
        fn put<T>(v: &mut Vec<T>, k: usize, x: T) {
            if k == v.len() {
                v.push(x);
            } else {
                v[k] = x;
            }
        }
        match (self, value) {
            (Values::Int(v), AttrValue::Int(x)) => put(v, k, x),
            (Values::Float(v), AttrValue::Float(x)) => put(v, k, x),
            (Values::Text(v), AttrValue::Text(x)) => put(v, k, x),
            _ => {}
        }
    }

    fn shrink_to_fit(&mut self) {
        match self {
            Values::Int(v) => v.shrink_to_fit(),
            Values::Float(v) => v.shrink_to_fit(),
            Values::Text(v) => v.shrink_to_fit(),
        }
    }
}

/// One attribute column of a trace file, stored sparsely.
#[derive(Debug, Clone, PartialEq)]
pub struct AttrColumn {
    /// Rows that hold a value, increasing.
    rows: Vec<u32>,
    values: Values,
    /// The value of the rows not listed.
    pub default: AttrValue,
    /// Rows before `before.0` that are not listed read `before.1` (the default the column had
    /// before its type was widened), not `default`.
    before: Option<(u32, AttrValue)>,
    /// Rows in all (the file's kept events).
    len: usize,
}

impl AttrColumn {
    /// An empty column of values like `default`.
    pub fn new(default: AttrValue) -> Self {
        let values = match default {
            AttrValue::Int(_) => Values::Int(Vec::new()),
            AttrValue::Float(_) => Values::Float(Vec::new()),
            AttrValue::Text(_) => Values::Text(Vec::new()),
        };
        AttrColumn {
            rows: Vec::new(),
            values,
            default,
            before: None,
            len: 0,
        }
    }

    /// The value of `row`: the one stored for it, else the default it reads.
    pub fn get(&self, row: usize) -> AttrValue {
        match u32::try_from(row).map(|r| self.rows.binary_search(&r)) {
            Ok(Ok(k)) => self.values.get(k),
            _ => match self.before {
                Some((until, v)) if row < until as usize => v,
                _ => self.default,
            },
        }
    }

    /// Whether `row` holds a value of its own (its event had the key), rather than reading a
    /// default.
    pub fn holds(&self, row: usize) -> bool {
        u32::try_from(row).is_ok_and(|r| self.rows.binary_search(&r).is_ok())
    }

    /// Sets the value of `row`, which is the last row set or a later one.
    pub fn set(&mut self, row: u32, value: AttrValue) {
        if self.rows.last() == Some(&row) {
            self.values.put(self.rows.len() - 1, value);
        } else if std::mem::discriminant(&value) == std::mem::discriminant(&self.default) {
            self.rows.push(row);
            self.values.put(self.rows.len() - 1, value);
        }
    }

    /// The stored rows and their values, in row order.
    pub fn stored(&self) -> impl Iterator<Item = (u32, AttrValue)> + '_ {
        self.rows.iter().enumerate().map(|(k, &r)| (r, self.values.get(k)))
    }

    /// Replaces every value (stored, default and earlier default) by `f` of it: the column's
    /// type changes. Rows before `from` that hold no value keep reading the old default.
    pub fn convert(&mut self, from: u32, new_default: AttrValue, mut f: impl FnMut(AttrValue) -> AttrValue) {
        let old: Vec<AttrValue> = (0..self.values.len()).map(|k| self.values.get(k)).collect();
        let earlier = match self.before {
            Some((until, v)) if until >= from => (until, f(v)),
            _ => (from, f(self.default)),
        };
        let mut values = AttrColumn::new(new_default).values;
        for (k, v) in old.into_iter().enumerate() {
            values.put(k, f(v));
        }
        self.values = values;
        self.before = (earlier.0 > 0 && earlier.1 != new_default).then_some(earlier);
        self.default = new_default;
    }

    /// Ends the column at `rows` rows and gives back spare capacity.
    pub fn finish(&mut self, rows: usize) {
        self.len = rows;
        self.rows.shrink_to_fit();
        self.values.shrink_to_fit();
    }

    /// Number of rows (every kept event of the file, with a value or not).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the column has no row.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes the column holds.
    pub fn bytes(&self) -> usize {
        let width = match self.values {
            Values::Int(_) | Values::Float(_) => 8,
            Values::Text(_) => 4,
        };
        self.rows.capacity() * 4 + self.values.len() * width
    }
}

/// The attribute columns of a trace file, parallel to its event table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AttrTable {
    /// What each column holds, in the order asked for.
    pub specs: Vec<AttrSpec>,
    /// The values, parallel to `specs`.
    pub columns: Vec<AttrColumn>,
    /// Per column, whether it was made from the data (`--args all`): there an event without
    /// the key has no value (null), where a declared column reads its default.
    pub inferred: Vec<bool>,
}

impl AttrTable {
    /// The position and spec of the column named `name`, if the table has it.
    pub fn column(&self, name: &str) -> Option<(usize, &AttrSpec)> {
        self.specs.iter().enumerate().find(|(_, s)| s.column == name)
    }

    /// Whether column `col` has a value at `row`: always for a declared column (its default
    /// where the event lacks the key), only where the event has the key for an inferred one.
    pub fn has_value(&self, col: usize, row: usize) -> bool {
        !self.inferred.get(col).copied().unwrap_or(false) || self.columns[col].holds(row)
    }

    /// The value of column `col` at `row` as text (JSON text for objects).
    pub fn text(&self, col: usize, row: usize, strings: &StringTable) -> String {
        value_text(self.columns[col].get(row), strings)
    }
}

/// A value as text: numbers as [`format_float`] and `to_string` write them, text (and JSON)
/// as stored in `strings`.
pub fn value_text(v: AttrValue, strings: &StringTable) -> String {
    match v {
        AttrValue::Int(i) => i.to_string(),
        AttrValue::Float(f) => format_float(f),
        AttrValue::Text(id) => strings.resolve(id).to_string(),
    }
}

/// Floats print in their shortest round-trip form, with a `.0` for whole values.
pub fn format_float(f: f64) -> String {
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{f:.1}")
    } else {
        format!("{f}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_rows_read_the_default_and_widening_keeps_earlier_defaults() {
        let mut c = AttrColumn::new(AttrValue::Int(-1));
        c.set(2, AttrValue::Int(7));
        c.set(2, AttrValue::Int(8));
        c.set(5, AttrValue::Int(9));
        c.finish(7);
        assert_eq!(
            (0..7).map(|r| c.get(r)).collect::<Vec<_>>(),
            [-1, -1, 8, -1, -1, 9, -1].map(AttrValue::Int)
        );
        assert_eq!((c.len(), c.bytes()), (7, 2 * 4 + 2 * 8));
        // Widened at row 4: rows 0-3 without a value read the old default, converted.
        c.convert(4, AttrValue::Float(0.5), |v| match v {
            AttrValue::Int(i) => AttrValue::Float(i as f64),
            other => other,
        });
        assert_eq!(c.get(0), AttrValue::Float(-1.0));
        assert_eq!(c.get(2), AttrValue::Float(8.0));
        assert_eq!(c.get(4), AttrValue::Float(0.5));
        assert_eq!(c.get(6), AttrValue::Float(0.5));
    }
}
