//! Changing a graph file, as an editor and a live plan both need it:
//!
//! * [`FileEdit`]: an edit as an editor makes it, in the file's own syntax, applied to the
//!   file's JSON ([`apply`]) so that whatever else the file holds is kept as written;
//! * [`Edit`]: the same change said of the [`Document`](crate::document::Document), with
//!   typed values ([`apply_edit`]); [`FileEdit::doc_edits`] translates one into the other,
//!   so a live plan follows an editor's edit without comparing two documents;
//! * [`EditedFile`]: the file's JSON with undo and redo, each change saying what it was;
//! * [`file_text`]: the house style the edited file is written in (the canonical form of
//!   [`save_graph`](crate::graph_file::save_graph) where the file holds nothing it cannot
//!   write, see [`text_for`]).

mod doc_edit;
mod file_edit;
mod history;
mod house_style;

pub use doc_edit::{Applied, Edit, EditError, apply_edit, apply_edit_digested};
pub use file_edit::{
    FileEdit, FileEditError, INPUT_COLOURS, OUTPUT_COLOURS, Section, apply, fresh_id,
    referenced_node, section_of,
};
pub use history::{Change, EditedFile, MAX_UNDO};
pub use house_style::{file_text, line};

use kiln_core::registry::Registry;
use serde_json::Value as Json;

/// The text an editor writes for `doc`: the canonical form of
/// [`save_graph_with_meta`](crate::graph_file::save_graph_with_meta) when the file holds
/// nothing it cannot write (inline graphs, scopes, curves, blobs: it reads the canonical text
/// back and compares), the house style of [`file_text`] otherwise.
pub fn text_for(doc: &Json, registry: &Registry) -> String {
    let house = file_text(doc);
    let Ok(file) = crate::graph_file::load_graph(&house, registry) else {
        return house;
    };
    if file.structure != Default::default() {
        return house;
    }
    let canonical = file.to_json(registry);
    match crate::graph_file::load_graph(&canonical, registry) {
        Ok(back) if back == file => canonical,
        _ => house,
    }
}
