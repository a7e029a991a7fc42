//! Edits of a graph file as an editor makes them ([`FileEdit`], what the studio's page
//! sends), applied to the file's JSON: each changes the file as a person would in a text
//! editor, in the file's own syntax (see docs/graph-format.md), so whatever the file holds
//! besides (inline graphs, scopes, curves) is kept as it is. [`FileEdit::doc_edits`] says
//! the same edit as edits of the document ([`super::Edit`]), for a live plan.

use super::Edit;
use crate::document::Document;
pub use crate::graph_file::Section;
use kiln_core::graph::PortRef;
use serde::Deserialize;
use serde_json::{Map, Value as Json};

/// One edit of the graph file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FileEdit {
    /// Set param `param` of `node` (for a graph input, `default` sets its default).
    SetParam {
        /// The node.
        node: String,
        /// The param.
        param: String,
        /// The value, in the file's syntax.
        value: Json,
    },
    /// Give input `port` of `node` a constant (in the file's syntax; a string is a
    /// reference, so a string constant is `{"const": "text"}`).
    SetInput {
        /// The node.
        node: String,
        /// The input.
        port: String,
        /// The constant.
        value: Json,
    },
    /// Wire `from` (`node` or `node.port`) into input `port` of `node` (for a graph output,
    /// the port is `value`).
    Connect {
        /// The source port.
        from: String,
        /// The node fed.
        node: String,
        /// Its input.
        port: String,
    },
    /// Remove what feeds input `port` of `node` (a wire or a constant).
    Disconnect {
        /// The node.
        node: String,
        /// Its input.
        port: String,
    },
    /// Add a node of op `op` (its id made from the op's name unless `id` is given) at `at`.
    Add {
        /// The op.
        op: String,
        /// The id wanted.
        #[serde(default)]
        id: Option<String>,
        /// Where to draw it.
        #[serde(default)]
        at: Option<[i64; 2]>,
    },
    /// Delete `node` and every wire from it.
    Delete {
        /// The node.
        node: String,
    },
    /// Draw `node` at `at` (editor metadata).
    Move {
        /// The node.
        node: String,
        /// Where.
        at: [i64; 2],
    },
}

/// Why an edit could not be applied (the file is then unchanged).
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FileEditError {
    /// The file has no node of that id.
    #[error("the graph has no node `{0}`")]
    NoSuchNode(String),
    /// The edit does not fit the node (a param of a graph output, say).
    #[error("node `{node}`: {message}")]
    Refused {
        /// The node.
        node: String,
        /// Why.
        message: String,
    },
    /// The file's top level is not an object.
    #[error("the graph file is not a JSON object")]
    NotAGraph,
}

/// The section holding `node`, if any.
pub fn section_of(doc: &Json, node: &str) -> Option<Section> {
    [Section::Inputs, Section::Nodes, Section::Outputs]
        .into_iter()
        .find(|s| doc.get(s.key()).and_then(|m| m.get(node)).is_some())
}

fn object_at<'a>(doc: &'a mut Json, key: &str) -> Result<&'a mut Map<String, Json>, FileEditError> {
    let top = doc.as_object_mut().ok_or(FileEditError::NotAGraph)?;
    let entry = top
        .entry(key.to_string())
        .or_insert_with(|| Json::Object(Map::new()));
    if !entry.is_object() {
        *entry = Json::Object(Map::new());
    }
    entry.as_object_mut().ok_or(FileEditError::NotAGraph)
}

/// Whether a file's `inputs` value is a wire (a reference), not a constant (a `#colour`
/// string is a constant).
fn is_wire(v: &Json) -> bool {
    v.as_str().is_some_and(|s| !s.starts_with('#'))
}

fn node_entry<'a>(doc: &'a mut Json, node: &str) -> Result<(Section, &'a mut Json), FileEditError> {
    let s = section_of(doc, node).ok_or_else(|| FileEditError::NoSuchNode(node.into()))?;
    let entry = doc
        .get_mut(s.key())
        .and_then(|m| m.get_mut(node))
        .ok_or_else(|| FileEditError::NoSuchNode(node.into()))?;
    Ok((s, entry))
}

/// `map[key] = value`, keeping the keys sorted as the canonical form writes them.
fn insert_sorted(map: &mut Map<String, Json>, key: &str, value: Json) {
    if let Some(slot) = map.get_mut(key) {
        *slot = value;
        return;
    }
    let old = std::mem::take(map);
    let mut placed = false;
    for (k, v) in old {
        if !placed && k.as_str() > key {
            map.insert(key.to_string(), value.clone());
            placed = true;
        }
        map.insert(k, v);
    }
    if !placed {
        map.insert(key.to_string(), value);
    }
}

/// The object `node`'s entry holds, or the refusal naming it.
fn entry_object<'a>(
    entry: &'a mut Json,
    node: &str,
) -> Result<&'a mut Map<String, Json>, FileEditError> {
    entry.as_object_mut().ok_or_else(|| FileEditError::Refused {
        node: node.into(),
        message: "its entry is not an object".into(),
    })
}

fn sub_object<'a>(
    entry: &'a mut Json,
    key: &str,
    node: &str,
) -> Result<&'a mut Map<String, Json>, FileEditError> {
    let obj = entry_object(entry, node)?;
    let sub = obj
        .entry(key.to_string())
        .or_insert_with(|| Json::Object(Map::new()));
    if !sub.is_object() {
        *sub = Json::Object(Map::new());
    }
    sub.as_object_mut().ok_or(FileEditError::NotAGraph)
}

/// Drop `key` from `entry` when it became an empty object.
fn drop_if_empty(entry: &mut Json, key: &str) {
    if let Some(obj) = entry.as_object_mut()
        && obj
            .get(key)
            .and_then(Json::as_object)
            .is_some_and(Map::is_empty)
    {
        obj.shift_remove(key);
    }
}

/// The node a reference (`node` or `node.port`) names.
pub fn referenced_node(r: &str) -> &str {
    r.split_once('.').map_or(r, |(n, _)| n)
}

/// Apply `edit` to the file `doc`; on error `doc` is unchanged.
pub fn apply(doc: &mut Json, edit: &FileEdit) -> Result<(), FileEditError> {
    let mut next = doc.clone();
    apply_in_place(&mut next, edit)?;
    *doc = next;
    Ok(())
}

fn apply_in_place(doc: &mut Json, edit: &FileEdit) -> Result<(), FileEditError> {
    match edit {
        FileEdit::SetParam { node, param, value } => {
            let (s, entry) = node_entry(doc, node)?;
            match s {
                Section::Inputs if param == "default" => {
                    let obj = entry_object(entry, node)?;
                    obj.insert("default".into(), value.clone());
                }
                Section::Inputs if param == "color" => set_input_colour(entry, node, value)?,
                Section::Outputs if param == "color" => set_output_colour(entry, node, value)?,
                Section::Nodes => {
                    insert_sorted(sub_object(entry, "params", node)?, param, value.clone());
                    // A param's value is written in one place: a constant the file gave at
                    // its port (every param is also an input port) gives way to it.
                    if let Some(ins) = entry.get_mut("inputs").and_then(Json::as_object_mut)
                        && ins.get(param).is_some_and(|v| !is_wire(v))
                    {
                        ins.remove(param);
                        if ins.is_empty()
                            && let Some(obj) = entry.as_object_mut()
                        {
                            obj.remove("inputs");
                        }
                    }
                    reorder_node(entry);
                }
                _ => {
                    return Err(FileEditError::Refused {
                        node: node.clone(),
                        message: format!("it has no param `{param}` to set"),
                    });
                }
            }
        }
        FileEdit::SetInput { node, port, value } => {
            set_input(doc, node, port, value.clone())?;
        }
        FileEdit::Connect { from, node, port } => {
            if section_of(doc, referenced_node(from)).is_none() {
                return Err(FileEditError::NoSuchNode(referenced_node(from).into()));
            }
            set_input(doc, node, port, Json::String(from.clone()))?;
        }
        FileEdit::Disconnect { node, port } => {
            let (s, entry) = node_entry(doc, node)?;
            if s != Section::Nodes {
                return Err(FileEditError::Refused {
                    node: node.clone(),
                    message: "a graph input or output is deleted, not disconnected".into(),
                });
            }
            if let Some(ins) = entry.get_mut("inputs").and_then(Json::as_object_mut) {
                ins.shift_remove(port);
            }
            drop_if_empty(entry, "inputs");
        }
        FileEdit::Add { op, id, at } => {
            let id = match id {
                Some(id) => {
                    if section_of(doc, id).is_some() {
                        return Err(FileEditError::Refused {
                            node: id.clone(),
                            message: "a node of that id exists".into(),
                        });
                    }
                    id.clone()
                }
                None => fresh_id(doc, op),
            };
            let mut entry = Map::new();
            entry.insert("op".into(), Json::String(op.clone()));
            object_at(doc, "nodes")?.insert(id.clone(), Json::Object(entry));
            if let Some(at) = at {
                set_position(doc, &id, *at)?;
            }
        }
        FileEdit::Delete { node } => {
            let s = section_of(doc, node).ok_or_else(|| FileEditError::NoSuchNode(node.clone()))?;
            object_at(doc, s.key())?.shift_remove(node);
            // Every input fed from it loses its wire; outputs reading it go too.
            if let Some(nodes) = doc.get_mut("nodes").and_then(Json::as_object_mut) {
                for entry in nodes.values_mut() {
                    if let Some(ins) = entry.get_mut("inputs").and_then(Json::as_object_mut) {
                        ins.retain(|_, v| v.as_str().is_none_or(|r| referenced_node(r) != node));
                    }
                    drop_if_empty(entry, "inputs");
                }
            }
            if let Some(outs) = doc.get_mut("outputs").and_then(Json::as_object_mut) {
                outs.retain(|_, v| {
                    let from = v.get("from").unwrap_or(v);
                    from.as_str().is_none_or(|r| referenced_node(r) != node)
                });
            }
            if let Some(p) = doc
                .get_mut("editor")
                .and_then(|e| e.get_mut("positions"))
                .and_then(Json::as_object_mut)
            {
                p.shift_remove(node);
            }
        }
        FileEdit::Move { node, at } => {
            if section_of(doc, node).is_none() {
                return Err(FileEditError::NoSuchNode(node.clone()));
            }
            set_position(doc, node, *at)?;
        }
    }
    Ok(())
}

impl FileEdit {
    /// This edit said as edits of the document (`before` is the file's JSON before it,
    /// `after` the document read from the file after it), so a live plan follows it without
    /// comparing documents. The values are read from `after`, typed as the file's reader
    /// typed them. `None` when the document's edits cannot say it (a call added, a colour
    /// or a constant taken away); the caller then gives the whole document instead.
    pub fn doc_edits(&self, before: &Json, after: &Document) -> Option<Vec<Edit>> {
        let g = &after.graph;
        match self {
            FileEdit::SetParam { node, param, .. } => {
                // A constant at the param's port that the edit took away is no document edit.
                let at_port = before
                    .get("nodes")
                    .and_then(|n| n.get(node.as_str()))
                    .and_then(|n| n.get("inputs"))
                    .and_then(|i| i.get(param.as_str()));
                if param == "color" || at_port.is_some_and(|v| !is_wire(v)) {
                    return None;
                }
                let n = g.node(node)?;
                // A former param the file still writes as one reads as an input constant.
                if let Some(value) = n.params.get(param) {
                    return Some(vec![Edit::Param {
                        node: node.clone(),
                        param: param.clone(),
                        value: value.clone(),
                    }]);
                }
                Some(vec![Edit::Const {
                    node: node.clone(),
                    port: param.clone(),
                    value: n.consts.get(param)?.clone(),
                }])
            }
            FileEdit::SetInput { node, port, .. } => {
                let value = g.node(node)?.consts.get(port)?.clone();
                Some(vec![Edit::Const {
                    node: node.clone(),
                    port: port.clone(),
                    value,
                }])
            }
            FileEdit::Connect { node, port, .. } => {
                let port = match section_of(before, node)? {
                    Section::Outputs => "value",
                    _ => port.as_str(),
                };
                let to = PortRef::new(node.as_str(), port);
                let wire = g.wires().iter().find(|w| w.to == to)?;
                Some(vec![Edit::Connect {
                    from: wire.from.clone(),
                    to,
                }])
            }
            FileEdit::Disconnect { node, port } => {
                // Only a wire is taken away by a document edit; a constant is not.
                let held = before.get("nodes")?.get(node)?.get("inputs")?.get(port)?;
                if !is_wire(held) {
                    return None;
                }
                Some(vec![Edit::Disconnect {
                    to: PortRef::new(node.as_str(), port),
                }])
            }
            FileEdit::Add { op, id, .. } => {
                if op.starts_with(crate::document::CALL_PREFIX) {
                    return None;
                }
                let id = id.clone().unwrap_or_else(|| fresh_id(before, op));
                Some(vec![Edit::AddNode {
                    node: id,
                    op: op.clone(),
                }])
            }
            FileEdit::Delete { node } => {
                // The graph outputs that read it go with it.
                let mut edits = vec![];
                if let Some(outs) = before.get("outputs").and_then(Json::as_object) {
                    for (out, v) in outs {
                        let from = v.get("from").unwrap_or(v);
                        if out != node && from.as_str().is_some_and(|r| referenced_node(r) == node)
                        {
                            edits.push(Edit::RemoveNode { node: out.clone() });
                        }
                    }
                }
                edits.push(Edit::RemoveNode { node: node.clone() });
                Some(edits)
            }
            // Where a node is drawn is not part of the document.
            FileEdit::Move { .. } => Some(vec![]),
        }
    }
}

/// The colour spaces a graph output is written in, the default first.
pub const OUTPUT_COLOURS: [&str; 2] = ["srgb", "data"];

/// How a file given for an image input may be read, the default first.
pub const INPUT_COLOURS: [&str; 3] = ["auto", "srgb", "data"];

/// `value` as one of `allowed`, or the refusal naming them.
fn one_of<'v>(value: &'v Json, allowed: &[&str], node: &str) -> Result<&'v str, FileEditError> {
    value
        .as_str()
        .filter(|v| allowed.contains(v))
        .ok_or_else(|| FileEditError::Refused {
            node: node.into(),
            message: format!("`color` is one of {}, not {value}", allowed.join(", ")),
        })
}

/// An image input's `color`: written when it is not the default (`auto`), dropped when it
/// is.
fn set_input_colour(entry: &mut Json, node: &str, value: &Json) -> Result<(), FileEditError> {
    let space = one_of(value, &INPUT_COLOURS, node)?;
    let obj = entry_object(entry, node)?;
    if obj.get("type").and_then(Json::as_str) != Some("image") {
        return Err(FileEditError::Refused {
            node: node.into(),
            message: "only an image input has a `color`".into(),
        });
    }
    if space == INPUT_COLOURS[0] {
        obj.shift_remove("color");
    } else {
        obj.insert("color".into(), Json::String(space.into()));
    }
    Ok(())
}

/// A graph output's `color`: `{"from": ..., "color": "data"}`, or back to the plain source
/// for the default (`srgb`) when nothing else is in the entry.
fn set_output_colour(entry: &mut Json, node: &str, value: &Json) -> Result<(), FileEditError> {
    let space = one_of(value, &OUTPUT_COLOURS, node)?;
    let mut obj = match entry.take() {
        Json::Object(m) => m,
        from => {
            let mut m = Map::new();
            m.insert("from".into(), from);
            m
        }
    };
    if space == OUTPUT_COLOURS[0] {
        obj.shift_remove("color");
    } else {
        insert_sorted(&mut obj, "color", Json::String(space.into()));
    }
    *entry = if obj.len() == 1 && obj.contains_key("from") {
        obj.shift_remove("from").unwrap_or(Json::Null)
    } else {
        let mut sorted = Map::new();
        if let Some(from) = obj.shift_remove("from") {
            sorted.insert("from".into(), from);
        }
        sorted.extend(obj);
        Json::Object(sorted)
    };
    Ok(())
}

fn set_input(doc: &mut Json, node: &str, port: &str, value: Json) -> Result<(), FileEditError> {
    let (s, entry) = node_entry(doc, node)?;
    match s {
        Section::Nodes => {
            insert_sorted(sub_object(entry, "inputs", node)?, port, value);
            // A former param (an input like `octaves`, given under `params` by older files)
            // now has its value under `inputs`: one place, not two.
            if let Some(params) = entry.get_mut("params").and_then(Json::as_object_mut) {
                params.shift_remove(port);
            }
            drop_if_empty(entry, "params");
            reorder_node(entry);
            Ok(())
        }
        Section::Outputs if port == "value" && value.is_string() => {
            // An output written `{"from": ..., "color": ...}` keeps its colour.
            match entry.get_mut("from") {
                Some(from) => *from = value,
                None => *entry = value,
            }
            Ok(())
        }
        _ => Err(FileEditError::Refused {
            node: node.into(),
            message: if s == Section::Outputs {
                "a graph output is fed by a wire into `value`".into()
            } else {
                "a graph input has no inputs".into()
            },
        }),
    }
}

/// A node's keys in the canonical order: `op`, `params`, `inputs`, then the rest.
fn reorder_node(entry: &mut Json) {
    let Some(obj) = entry.as_object_mut() else {
        return;
    };
    let old = std::mem::take(obj);
    for key in ["op", "params", "inputs"] {
        if let Some(v) = old.get(key) {
            obj.insert(key.into(), v.clone());
        }
    }
    for (k, v) in old {
        if !obj.contains_key(&k) {
            obj.insert(k, v);
        }
    }
}

fn set_position(doc: &mut Json, node: &str, at: [i64; 2]) -> Result<(), FileEditError> {
    let editor = object_at(doc, "editor")?;
    let p = editor
        .entry("positions".to_string())
        .or_insert_with(|| Json::Object(Map::new()));
    if !p.is_object() {
        *p = Json::Object(Map::new());
    }
    if let Some(p) = p.as_object_mut() {
        insert_sorted(p, node, Json::from(vec![at[0], at[1]]));
    }
    // `editor` stays last, as the saver writes it.
    if let Some(top) = doc.as_object_mut()
        && let Some(e) = top.shift_remove("editor")
    {
        top.insert("editor".into(), e);
    }
    Ok(())
}

/// An id for a new node of `op`: the op's last name part (letters, digits, `_`), then the
/// first number that makes it unused.
pub fn fresh_id(doc: &Json, op: &str) -> String {
    let base: String = op
        .trim_start_matches('@')
        .rsplit(['.', '/'])
        .next()
        .unwrap_or("node")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let base = match base.chars().next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => base,
        _ => format!("n{base}"),
    };
    (1..)
        .map(|i| format!("{base}{i}"))
        .find(|id| section_of(doc, id).is_none())
        .unwrap_or(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_set_takes_the_place_of_its_former_param_and_outputs_keep_their_colour() {
        let mut d: Json = serde_json::from_str(
            r#"{"kiln": 1,
                "nodes": {"n": {"op": "image.noise", "params": {"octaves": 3, "seed": 1}}},
                "outputs": {"h": {"from": "n.out", "color": "data"}}}"#,
        )
        .unwrap();
        let set = FileEdit::SetInput {
            node: "n".into(),
            port: "octaves".into(),
            value: Json::from(6),
        };
        apply(&mut d, &set).unwrap();
        assert_eq!(d["nodes"]["n"]["inputs"]["octaves"], 6);
        assert!(d["nodes"]["n"]["params"].get("octaves").is_none());
        assert_eq!(d["nodes"]["n"]["params"]["seed"], 1);
        let wire = FileEdit::Connect {
            from: "n.out".into(),
            node: "h".into(),
            port: "value".into(),
        };
        apply(&mut d, &wire).unwrap();
        assert_eq!(d["outputs"]["h"]["color"], "data");
        assert_eq!(d["outputs"]["h"]["from"], "n.out");
    }

    #[test]
    fn colours_of_outputs_and_image_inputs_are_written_as_the_file_format_says() {
        let mut d: Json = serde_json::from_str(
            r#"{"kiln": 1,
                "inputs": {"src": {"type": "image"}, "k": {"type": "float", "default": 1}},
                "nodes": {"n": {"op": "image.gain", "inputs": {"image": "src"}}},
                "outputs": {"h": "n.out"}}"#,
        )
        .unwrap();
        let colour = |node: &str, v: &str| FileEdit::SetParam {
            node: node.into(),
            param: "color".into(),
            value: Json::from(v),
        };
        apply(&mut d, &colour("h", "data")).unwrap();
        assert_eq!(
            d["outputs"]["h"],
            serde_json::json!({"from": "n.out", "color": "data"})
        );
        apply(&mut d, &colour("h", "srgb")).unwrap();
        assert_eq!(d["outputs"]["h"], "n.out");
        apply(&mut d, &colour("src", "data")).unwrap();
        assert_eq!(d["inputs"]["src"]["color"], "data");
        apply(&mut d, &colour("src", "auto")).unwrap();
        assert!(d["inputs"]["src"].get("color").is_none());
        // Refused, the file unchanged: a space that is none, and a colour on a float input.
        let before = d.clone();
        let e = apply(&mut d, &colour("h", "linear")).unwrap_err();
        assert!(e.to_string().contains("srgb, data"), "{e}");
        let e = apply(&mut d, &colour("src", "linear")).unwrap_err();
        assert!(e.to_string().contains("auto, srgb, data"), "{e}");
        let e = apply(&mut d, &colour("k", "data")).unwrap_err();
        assert!(e.to_string().contains("only an image input"), "{e}");
        assert_eq!(d, before);
    }

    fn doc() -> Json {
        serde_json::from_str(
            r#"{"kiln": 1,
                "inputs": {"mix": {"type": "float", "default": 0.5}},
                "nodes": {
                  "a": {"op": "image.noise", "params": {"seed": 1}},
                  "b": {"op": "image.mix", "inputs": {"a": "a.out", "t": "mix"}}
                },
                "outputs": {"out": "b.out"}}"#,
        )
        .unwrap()
    }

    /// Every param is also an input port (issue 29): setting a param whose constant the
    /// file gave at its port replaces that constant; a wire into another param stays.
    #[test]
    fn setting_a_param_takes_the_constant_at_its_port_away() {
        let mut d: Json = serde_json::from_str(
            r#"{"kiln": 1,
                "inputs": {"s": {"type": "int", "default": 3}},
                "nodes": {"c": {"op": "image.cells", "inputs": {"jitter": 0.5, "seed": "s"}}},
                "outputs": {"out": "c"}}"#,
        )
        .unwrap();
        let before = d.clone();
        let edit = FileEdit::SetParam {
            node: "c".into(),
            param: "jitter".into(),
            value: Json::from(0.25),
        };
        apply(&mut d, &edit).unwrap();
        assert_eq!(d["nodes"]["c"]["params"]["jitter"], Json::from(0.25));
        assert_eq!(d["nodes"]["c"]["inputs"], serde_json::json!({"seed": "s"}));
        // The document's edits cannot say a constant taken away: the whole document instead.
        let after = crate::document::Document::from_graph(kiln_core::graph::Graph::new());
        assert!(edit.doc_edits(&before, &after).is_none());
    }

    #[test]
    fn params_and_inputs_land_sorted_in_their_node() {
        let mut d = doc();
        let set = |p: &str| FileEdit::SetParam {
            node: "a".into(),
            param: p.into(),
            value: Json::from(3),
        };
        apply(&mut d, &set("octaves")).unwrap();
        apply(&mut d, &set("width")).unwrap();
        let keys: Vec<&String> = d["nodes"]["a"]["params"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys, ["octaves", "seed", "width"]);
        apply(
            &mut d,
            &FileEdit::SetInput {
                node: "a".into(),
                port: "scale".into(),
                value: Json::from(2.5),
            },
        )
        .unwrap();
        let keys: Vec<&String> = d["nodes"]["a"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["op", "params", "inputs"]);
        apply(
            &mut d,
            &FileEdit::SetParam {
                node: "mix".into(),
                param: "default".into(),
                value: Json::from(0.25),
            },
        )
        .unwrap();
        assert_eq!(d["inputs"]["mix"]["default"], Json::from(0.25));
    }

    #[test]
    fn deleting_a_node_removes_its_wires_and_outputs() {
        let mut d = doc();
        apply(
            &mut d,
            &FileEdit::Move {
                node: "a".into(),
                at: [1, 2],
            },
        )
        .unwrap();
        apply(&mut d, &FileEdit::Delete { node: "a".into() }).unwrap();
        assert!(d["nodes"].get("a").is_none());
        assert_eq!(d["nodes"]["b"]["inputs"], serde_json::json!({"t": "mix"}));
        assert!(d["editor"]["positions"].get("a").is_none());
        apply(&mut d, &FileEdit::Delete { node: "b".into() }).unwrap();
        assert_eq!(d["outputs"], serde_json::json!({}));
    }

    #[test]
    fn connect_add_and_refusals() {
        let mut d = doc();
        apply(
            &mut d,
            &FileEdit::Add {
                op: "image.blur".into(),
                id: None,
                at: Some([5, 6]),
            },
        )
        .unwrap();
        assert_eq!(d["nodes"]["blur1"], serde_json::json!({"op": "image.blur"}));
        assert_eq!(d["editor"]["positions"]["blur1"], serde_json::json!([5, 6]));
        apply(
            &mut d,
            &FileEdit::Connect {
                from: "b.out".into(),
                node: "blur1".into(),
                port: "image".into(),
            },
        )
        .unwrap();
        assert_eq!(d["nodes"]["blur1"]["inputs"]["image"], "b.out");
        apply(
            &mut d,
            &FileEdit::Connect {
                from: "blur1".into(),
                node: "out".into(),
                port: "value".into(),
            },
        )
        .unwrap();
        assert_eq!(d["outputs"]["out"], "blur1");
        let before = d.clone();
        let e = apply(
            &mut d,
            &FileEdit::Connect {
                from: "ghost.out".into(),
                node: "b".into(),
                port: "a".into(),
            },
        );
        assert_eq!(e, Err(FileEditError::NoSuchNode("ghost".into())));
        let e = apply(
            &mut d,
            &FileEdit::SetParam {
                node: "out".into(),
                param: "x".into(),
                value: Json::from(1),
            },
        );
        assert!(matches!(e, Err(FileEditError::Refused { .. })));
        assert_eq!(d, before);
        apply(
            &mut d,
            &FileEdit::Disconnect {
                node: "blur1".into(),
                port: "image".into(),
            },
        )
        .unwrap();
        assert_eq!(d["nodes"]["blur1"], serde_json::json!({"op": "image.blur"}));
    }
}
