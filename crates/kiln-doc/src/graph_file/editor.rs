//! The `editor` section of a graph file: what an editor keeps about the drawing of a graph
//! (for now where each node was drawn), read into [`GraphMeta::positions`] and written back
//! by the saver. Nothing evaluates it.
//!
//! ```json
//! "editor": {"positions": {"coarse": [40, 120], "fine": [40, 260]}}
//! ```
//!
//! [`GraphMeta::positions`]: super::GraphMeta::positions

use super::shape::{check_keys, get, object};
use super::{EDITOR_KEYS, LoadError};
use kiln_io::json::{Doc, Json};
use std::collections::BTreeMap;

/// The positions of the top-level `editor` section (none without one).
pub(super) fn positions(top: &[(String, Json)]) -> Result<BTreeMap<String, [i64; 2]>, LoadError> {
    let mut out = BTreeMap::new();
    let Some(editor) = get(top, "editor") else {
        return Ok(out);
    };
    let entries = object(editor, "editor", "`editor`")?;
    check_keys(entries, "editor", "`editor`", &EDITOR_KEYS)?;
    let Some(p) = get(entries, "positions") else {
        return Ok(out);
    };
    for (node, at) in object(p, "editor.positions", "`editor.positions`")? {
        let xy = match at {
            Json::Array(items) => match items.as_slice() {
                [Json::Int(x), Json::Int(y)] => Some([*x, *y]),
                _ => None,
            },
            _ => None,
        };
        let Some(xy) = xy else {
            return Err(LoadError::format(
                &format!("editor.positions.{node}"),
                format!("the position of `{node}` must be two whole numbers, [x, y]"),
                None,
            ));
        };
        out.insert(node.clone(), xy);
    }
    Ok(out)
}

/// The `editor` section for `positions`, `None` when there are none.
pub(super) fn editor_doc(positions: &BTreeMap<String, [i64; 2]>) -> Option<Doc> {
    if positions.is_empty() {
        return None;
    }
    let at = positions
        .iter()
        .map(|(node, [x, y])| {
            let xy = Json::Array(vec![Json::Int(*x), Json::Int(*y)]);
            (node.clone(), Doc::Value(xy))
        })
        .collect();
    Some(Doc::Block(vec![("positions".into(), Doc::Block(at))]))
}
