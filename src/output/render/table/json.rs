//! A table's rows as JSON: a list of objects keyed by the columns' JSON keys, serialized one row
//! at a time into the document of the result that holds them.

use super::{Cell, Table};
use crate::output::render::Format;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// The rows of a table, to be serialized as the `rows` of a JSON document.
pub(crate) struct Rows<'t, 'a>(pub &'t Table<'a>);

impl Serialize for Rows<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let table = self.0;
        let shown = table.shown(Format::Json);
        let mut seq = s.serialize_seq(Some(table.len()))?;
        let mut cells = Vec::new();
        for i in 0..table.len() {
            table.row(i, &mut cells);
            seq.serialize_element(&Row(table, &shown, &cells))?;
        }
        seq.end()
    }
}

/// One row: the JSON columns' keys and values, in column order; an absent cell has no key.
struct Row<'r, 'a>(&'r Table<'a>, &'r [usize], &'r [Cell<'a>]);

impl Serialize for Row<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (table, shown, cells) = (self.0, self.1, self.2);
        let mut m = s.serialize_map(None)?;
        for &k in shown {
            if let Some(v) = cells[k].json() {
                m.serialize_entry(&table.columns[k].key, &v)?;
            }
        }
        m.end()
    }
}
