//! Saving graph files in the canonical form.

use super::{GraphFile, GraphMeta, VERSION, input_type, param_type};
use kiln_core::graph::{Graph, Node, PortRef, Wire};
use kiln_core::registry::Registry;
use kiln_core::value::{Value, ValueType};
use kiln_io::blob::blob_json;
use kiln_io::convert::{self, ColorStyle, Ctx};
use kiln_io::json::{self, Doc, Json};
use kiln_io::values::{WriteError, write_atomic};
use kiln_std::graph_io::{INPUT_TYPES, LIST_INPUT_OP, OUTPUT_OP};
use std::collections::HashMap;
use std::path::Path;

/// Write `graph` in the canonical form, with no description or input docs.
///
/// See [`save_graph_with_meta`].
pub fn save_graph(graph: &Graph, registry: &Registry) -> String {
    save_graph_with_meta(graph, &GraphMeta::default(), registry)
}

/// A reference to `p` that [`PortRef::parse`] reads back as `p`: `node.port` where possible.
fn reference(p: &PortRef) -> String {
    let full = format!("{}.{}", p.node, p.port);
    if PortRef::parse(&full) != *p && p.port == "out" && PortRef::parse(p.node.as_str()) == *p {
        return p.node.to_string();
    }
    full
}

/// The type of a node that can be written as a graph input: a plain graph input op, or the
/// `input.<type>` op a domain registered for its heavy type (as the loader reads them).
fn as_graph_input(node: &Node, incoming: &[&Wire], registry: &Registry) -> Option<ValueType> {
    let heavy = || {
        let ty = registry.get(&node.op)?.spec().outputs.first()?.ty;
        match ty {
            ValueType::Heavy(n) if node.op.strip_prefix("input.") == Some(n) => Some(ty),
            _ => None,
        }
    };
    let list = || {
        (node.op == LIST_INPUT_OP).then(|| {
            node.params
                .get("type")
                .and_then(Value::as_str)
                .and_then(ValueType::parse_plain)
                .filter(ValueType::is_list)
                .unwrap_or(ValueType::List)
        })
    };
    let ty = INPUT_TYPES
        .iter()
        .find(|(op, _)| *op == node.op)
        .map(|(_, t)| *t)
        .or_else(heavy)
        .or_else(list)?;
    let named = node.params.get("name").and_then(Value::as_str) == Some(node.id.as_str());
    let only_known = node.params.keys().all(|k| {
        k == "name" || k == "default" || (ty.is_list() && (k == "type" || k == "collective"))
    });
    (named && only_known && node.consts.is_empty() && incoming.is_empty()).then_some(ty)
}

/// The source of a node that can be written as a graph output.
fn as_graph_output<'a>(node: &Node, incoming: &[&'a Wire]) -> Option<&'a Wire> {
    match incoming {
        [w] if node.op == OUTPUT_OP
            && node.params.is_empty()
            && node.consts.is_empty()
            && w.to.port == "value" =>
        {
            Some(w)
        }
        _ => None,
    }
}

/// Write `graph` and its metadata in the canonical form.
///
/// * Top-level keys in the order `kiln`, `description` (if any), `inputs` (if any), `nodes`,
///   `outputs` (if any), `editor` (if it holds positions); two-space indentation; a final newline.
/// * Nodes of op `input.<type>` whose `name` param is their id (and that have no other params,
///   no constants and no incoming wires) are written under `inputs`; nodes of op `output` with
///   exactly one wire, into `value`, and nothing else are written under `outputs` (as
///   `{"from": ..., "color": ...}` when the metadata gives the output a colour space); every other
///   node under `nodes`, in graph order. Reading the file back puts inputs first, then nodes,
///   then outputs.
/// * A node's params and inputs are sorted by name; references are written `node.port`.
/// * Each value is written in the form that reads back to exactly the same value for the
///   declared type of its param or port: floats always with a `.` or exponent, colours as
///   `#rrggbb`/`#rrggbbaa` when exact at 8 bits, and the typed form
///   `{"type": ..., "value": ...}` wherever the plain form would read back differently.
///
/// Not representable, hence not written: wires into nodes that do not exist, and heavy
/// values set as params or constants (written as `null`). Node ids are written as they are;
/// ids that are not valid names (see [`is_valid_name`](super::is_valid_name)) will not load back.
pub fn save_graph_with_meta(graph: &Graph, meta: &GraphMeta, registry: &Registry) -> String {
    save_graph_with(graph, meta, registry, &|_| None)
}

/// [`save_graph_with_meta`], writing each param or constant for which `blob` gives a
/// reference as the blob reference `{"type": ..., "blob": reference}` (see
/// [blobs](mod@crate::blob)).
pub(crate) fn save_graph_with(
    graph: &Graph,
    meta: &GraphMeta,
    registry: &Registry,
    blob: &dyn Fn(&Value) -> Option<String>,
) -> String {
    let mut incoming: HashMap<&str, Vec<&Wire>> = HashMap::new();
    for w in graph.wires() {
        incoming.entry(w.to.node.as_str()).or_default().push(w);
    }
    let mut inputs = vec![];
    let mut nodes = vec![];
    let mut outputs = vec![];
    for node in graph.nodes() {
        let id = node.id.to_string();
        let into: &[&Wire] = incoming.get(node.id.as_str()).map_or(&[], |v| v);
        if let Some(ty) = as_graph_input(node, into, registry) {
            let mut def = vec![("type".to_string(), Json::Str(ty.name().into()))];
            if let Some(d) = node.params.get("default") {
                let j = convert::encode(d, Some(ty), Ctx::Param, ColorStyle::Hex);
                def.push(("default".into(), j));
            }
            if node.params.get("collective") == Some(&Value::Bool(true)) {
                def.push(("collective".into(), Json::Bool(true)));
            }
            match node
                .params
                .get(kiln_image::INPUT_COLOR_PARAM)
                .and_then(Value::as_str)
            {
                Some(c) if c != "auto" && ty == kiln_image::image::IMAGE_TYPE => {
                    def.push(("color".into(), Json::Str(c.into())));
                }
                _ => {}
            }
            if let Some(doc) = meta.input_docs.get(&id) {
                def.push(("doc".into(), Json::Str(doc.clone())));
            }
            inputs.push((id, Doc::Value(Json::Object(def))));
        } else if let Some(w) = as_graph_output(node, into) {
            let from = Json::Str(reference(&w.from));
            let entry = match meta.output_colors.get(&id) {
                Some(space) => Json::Object(vec![
                    ("from".into(), from),
                    ("color".into(), Json::Str(space.name().into())),
                ]),
                None => from,
            };
            outputs.push((id, Doc::Value(entry)));
        } else {
            nodes.push((id, node_doc(node, into, registry, blob)));
        }
    }
    let mut top = vec![("kiln".to_string(), Doc::Value(Json::Int(VERSION)))];
    if let Some(d) = &meta.description {
        top.push(("description".into(), Doc::Value(Json::Str(d.clone()))));
    }
    if !inputs.is_empty() {
        top.push(("inputs".into(), Doc::Block(inputs)));
    }
    top.push(("nodes".into(), Doc::Block(nodes)));
    if !outputs.is_empty() {
        top.push(("outputs".into(), Doc::Block(outputs)));
    }
    if let Some(editor) = super::editor::editor_doc(&meta.positions) {
        top.push(("editor".into(), editor));
    }
    let mut out = String::new();
    json::write_doc(&Doc::Block(top), 0, &mut out);
    out.push('\n');
    out
}

/// A node under `nodes`: its op, then its params and inputs sorted by name.
fn node_doc(
    node: &Node,
    incoming: &[&Wire],
    registry: &Registry,
    blob: &dyn Fn(&Value) -> Option<String>,
) -> Doc {
    let mut entries = vec![("op".to_string(), Doc::Value(Json::Str(node.op.clone())))];
    if !node.params.is_empty() {
        let params = node
            .params
            .iter()
            .map(|(k, v)| {
                let j = match blob(v) {
                    Some(r) => blob_json(v, r),
                    None => convert::encode(
                        v,
                        param_type(registry, &node.op, k),
                        Ctx::Param,
                        ColorStyle::Hex,
                    ),
                };
                (k.clone(), Doc::Value(j))
            })
            .collect();
        entries.push(("params".into(), Doc::Block(params)));
    }
    // Several wires into one port (a collective input) are written as the port listed once
    // per wire, which loads back as the same wires in the same order.
    let mut ins: Vec<(String, Json)> = incoming
        .iter()
        .map(|w| (w.to.port.clone(), Json::Str(reference(&w.from))))
        .collect();
    ins.extend(node.consts.iter().map(|(port, v)| {
        let j = match blob(v) {
            Some(r) => blob_json(v, r),
            None => convert::encode(
                v,
                input_type(registry, &node.op, port),
                Ctx::Input,
                ColorStyle::Hex,
            ),
        };
        (port.clone(), j)
    }));
    // Stable: several sources for one port keep their order (wires, then the constant).
    ins.sort_by(|a, b| a.0.cmp(&b.0));
    if !ins.is_empty() {
        entries.push((
            "inputs".into(),
            Doc::Block(ins.into_iter().map(|(k, j)| (k, Doc::Value(j))).collect()),
        ));
    }
    Doc::Block(entries)
}

/// Write a graph file atomically (see [`write_atomic`]).
pub fn write_graph(path: &Path, file: &GraphFile, registry: &Registry) -> Result<(), WriteError> {
    write_atomic(path, file.to_json(registry).as_bytes())
}
