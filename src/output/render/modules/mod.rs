//! The module-aligned diff as a terminal tree, Markdown and JSON (docs/semantics.md#module-aligned-diff).
//!
//! By job: `view` holds what a view shows and the rows of siblings, `tree` draws the tree
//! (table, Markdown, CSV), `json` writes the JSON documents.

use super::{Format, TableStyle};
use std::io;

mod json;
mod tree;
mod view;

pub use self::json::write_flat_json;
pub(crate) use self::json::write_json;
pub(crate) use self::view::ModuleTime;
pub use self::view::{ModuleOrder, ModuleView};

/// The view written to `out` in `format` as it is made: the tree with both sides' times (table,
/// Markdown), a row per node with its path (CSV), or the nested nodes (JSON); the table fits
/// `style`. CSV and JSON name every node's full path, so
/// their text grows with the square of a tree's depth; they are written in pieces, never held
/// whole, so memory stays linear.
pub(crate) fn write(
    view: &ModuleView<'_>,
    format: Format,
    style: TableStyle,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    match format {
        Format::Json => write_json(view, out),
        Format::Markdown => out.write_all(tree::markdown(view).as_bytes()),
        Format::Csv => tree::csv(view, out),
        Format::Table => out.write_all(tree::table(view, style).as_bytes()),
    }
}
