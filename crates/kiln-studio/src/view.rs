//! What the page draws: the file's nodes with their typed ports, params and where they are
//! drawn, the wires, and the bodies of the graphs its calls call (read-only), as JSON.
//!
//! Values are shown as the file writes them; types, docs, defaults and ranges come from
//! the registry's op specs (for a call, from the interface of the graph it calls).

use crate::layout;
use kiln_core::op::{OpSpec, Rule};
use kiln_core::registry::Registry;
use kiln_core::value::{Value, ValueType};
use kiln_doc::document::{Asset, Document};
use kiln_doc::edit::referenced_node;
use serde_json::{Map, Value as Json, json};
use std::collections::{BTreeMap, HashSet};
use std::ops::Bound;
use std::sync::Arc;

/// The height of a node card without ports and preview.
const CARD_HEAD: i64 = 44;
/// The height of one port row.
const PORT_ROW: i64 = 18;
/// The height of a card's preview area.
const PREVIEW: i64 = 150;

/// A value as the page edits it (the file's syntax: colours as `#rrggbb(aa)`).
pub fn value_json(v: &Value) -> Json {
    let f = |x: f64| serde_json::Number::from_f64(x).map_or(Json::Null, Json::Number);
    match v {
        Value::Float(x) => f(*x),
        Value::Int(i) => json!(i),
        Value::Bool(b) => json!(b),
        Value::Vec2(a) => Json::Array(a.iter().map(|x| f(*x)).collect()),
        Value::Vec3(a) => Json::Array(a.iter().map(|x| f(*x)).collect()),
        Value::Vec4(a) => Json::Array(a.iter().map(|x| f(*x)).collect()),
        Value::Color(c) => {
            let bytes = c.map(|x| (x.clamp(0.0, 1.0) * 255.0).round() as u8);
            if bytes[3] == 255 {
                json!(format!("#{:02x}{:02x}{:02x}", bytes[0], bytes[1], bytes[2]))
            } else {
                json!(format!(
                    "#{:02x}{:02x}{:02x}{:02x}",
                    bytes[0], bytes[1], bytes[2], bytes[3]
                ))
            }
        }
        Value::Str(s) => json!(s.as_ref()),
        Value::List(items) => Json::Array(items.iter().map(value_json).collect()),
        _ => Json::Null,
    }
}

fn bound(b: Bound<f64>) -> Json {
    match b {
        Bound::Included(x) | Bound::Excluded(x) if x.is_finite() => json!(x),
        _ => Json::Null,
    }
}

/// The widget that edits a value of type `ty` under `rule`.
pub fn widget(ty: ValueType, rule: Option<&Rule>) -> Json {
    let name = ty.name();
    match (name, rule) {
        ("float" | "int", Some(Rule::Ints { min, max })) => {
            json!({"kind": "slider", "min": min, "max": max, "step": 1})
        }
        ("float" | "int", Some(Rule::Number { min, max })) => {
            json!({"kind": "slider", "min": bound(*min), "max": bound(*max),
                "step": if name == "int" { json!(1) } else { json!("any") }})
        }
        ("float" | "int" | "number" | "signal", _) => {
            json!({"kind": "slider", "min": Json::Null, "max": Json::Null,
                "step": if name == "int" { json!(1) } else { json!("any") }})
        }
        ("bool", _) => json!({"kind": "bool"}),
        ("color", _) => json!({"kind": "color"}),
        ("vec2", _) => json!({"kind": "vector", "size": 2}),
        ("vec3", _) => json!({"kind": "vector", "size": 3}),
        ("vec4", _) => json!({"kind": "vector", "size": 4}),
        ("string", Some(Rule::OneOf(options))) => json!({"kind": "enum", "options": options}),
        ("string", _) => json!({"kind": "text"}),
        _ => json!({"kind": "json"}),
    }
}

/// The op list the page searches: id, doc, and every port and param.
pub fn catalog(registry: &Registry) -> Json {
    let mut ops: Vec<&OpSpec> = registry.iter().map(|o| o.spec()).collect();
    ops.sort_by(|a, b| a.id.cmp(&b.id));
    Json::Array(ops.into_iter().map(op_json).collect())
}

fn op_json(spec: &OpSpec) -> Json {
    json!({
        "id": spec.id,
        "doc": spec.doc,
        "inputs": spec.inputs.iter().map(|i| json!({"name": i.name, "ty": i.ty.name(),
            "doc": i.doc, "default": i.default.as_ref().map(value_json),
            "widget": widget(i.ty, i.rule.as_ref())})).collect::<Vec<_>>(),
        "outputs": spec.outputs.iter().map(|o| json!({"name": o.name, "ty": o.ty.name(),
            "doc": o.doc})).collect::<Vec<_>>(),
        "params": spec.params.iter().map(|p| json!({"name": p.name, "ty": p.ty.name(),
            "doc": p.doc, "default": p.default.as_ref().map(value_json),
            "widget": widget(p.ty, p.rule.as_ref())})).collect::<Vec<_>>(),
    })
}

/// A port or param of a node as drawn.
fn slot(name: &str, ty: &str, doc: &str, default: Option<Json>, widget: Json) -> Map<String, Json> {
    let mut m = Map::new();
    m.insert("name".into(), json!(name));
    m.insert("ty".into(), json!(ty));
    m.insert("doc".into(), json!(doc));
    m.insert("default".into(), default.unwrap_or(Json::Null));
    m.insert("widget".into(), widget);
    m
}

/// The `color` of a graph output or image input: one of `spaces` (the first the default),
/// its value the file's `color`.
fn colour_slot(spaces: &[&str], doc: &str, file: Option<&Json>) -> Map<String, Json> {
    let mut m = slot(
        "color",
        "string",
        doc,
        Some(json!(spaces[0])),
        json!({"kind": "enum", "options": spaces}),
    );
    m.insert("value".into(), file.cloned().unwrap_or(json!(spaces[0])));
    m
}

/// What feeds an input in the file: `(wire source, constant)`.
fn source_of(v: Option<&Json>) -> (Option<String>, Option<Json>) {
    match v {
        Some(Json::String(s)) if !s.starts_with('#') => (Some(s.clone()), None),
        Some(other) => (None, Some(other.clone())),
        None => (None, None),
    }
}

/// The drawing of one graph: its nodes (from a file's JSON) and wires.
struct Drawn {
    nodes: Vec<Json>,
    wires: Vec<Json>,
}

/// Draw the graph of the file JSON `doc`; `calls` resolves the assets of its calls.
fn draw(doc: &Json, registry: &Registry, calls: &dyn Fn(&str) -> Option<Arc<Asset>>) -> Drawn {
    let mut nodes: Vec<Map<String, Json>> = vec![];
    let empty = Map::new();
    let section = |k: &str| doc.get(k).and_then(Json::as_object).unwrap_or(&empty);
    for (id, def) in section("inputs") {
        let ty = def.get("type").and_then(Json::as_str).unwrap_or("float");
        let mut n = Map::new();
        n.insert("id".into(), json!(id));
        n.insert("kind".into(), json!("input"));
        n.insert("op".into(), json!(format!("input.{ty}")));
        n.insert(
            "doc".into(),
            def.get("doc").cloned().unwrap_or(json!("a graph input")),
        );
        let wty = kiln_io_type(ty);
        let mut p = slot(
            "default",
            ty,
            "the input's value",
            None,
            wty.map_or(json!({"kind": "json"}), |t| widget(t, None)),
        );
        p.insert(
            "value".into(),
            def.get("default").cloned().unwrap_or(Json::Null),
        );
        let mut params = vec![p];
        if ty == "image" {
            params.push(colour_slot(
                &kiln_doc::edit::INPUT_COLOURS,
                "how a PNG or JPEG file given for it is read: auto (as the file states), srgb, \
                 or data (the codes are the values)",
                def.get("color"),
            ));
        }
        n.insert("params".into(), json!(params));
        n.insert("inputs".into(), json!([]));
        n.insert("outputs".into(), json!([{"name": "out", "ty": ty}]));
        nodes.push(n);
    }
    for (id, def) in section("nodes") {
        let op = def.get("op").and_then(Json::as_str).unwrap_or("");
        let mut n = Map::new();
        n.insert("id".into(), json!(id));
        n.insert("op".into(), json!(op));
        let file_inputs = def.get("inputs").and_then(Json::as_object);
        let file_params = def.get("params").and_then(Json::as_object);
        let mut inputs: Vec<Map<String, Json>> = vec![];
        let mut params: Vec<Map<String, Json>> = vec![];
        let mut outputs: Vec<Json> = vec![];
        if let Some(name) = op.strip_prefix('@') {
            n.insert("kind".into(), json!("call"));
            let scope = ["for", "fold", "step"]
                .into_iter()
                .find(|k| def.get(*k).is_some());
            n.insert(
                "call".into(),
                json!({"graph": name, "scope": scope.unwrap_or("call"),
                "scope_def": scope.and_then(|k| def.get(k)).cloned()}),
            );
            if let Some(asset) = calls(id) {
                n.insert(
                    "doc".into(),
                    json!(asset.description.clone().unwrap_or_default()),
                );
                for p in &asset.interface.inputs {
                    let mut s = slot(
                        &p.name,
                        p.ty.name(),
                        p.doc.as_deref().unwrap_or(""),
                        p.default.as_ref().map(value_json),
                        widget(p.ty, None),
                    );
                    put_source(&mut s, file_inputs.and_then(|m| m.get(&p.name)));
                    inputs.push(s);
                }
                for p in &asset.interface.outputs {
                    outputs.push(json!({"name": p.name, "ty": p.ty.name()}));
                }
            } else {
                n.insert("doc".into(), json!(""));
            }
        } else if let Some(o) = registry.get(op) {
            let spec = o.spec();
            n.insert("kind".into(), json!("node"));
            n.insert("doc".into(), json!(spec.doc));
            if registry.signal(op).is_some() {
                n.insert("signal".into(), json!(true));
            }
            for i in &spec.inputs {
                let mut s = slot(
                    &i.name,
                    i.ty.name(),
                    &i.doc,
                    i.default.as_ref().map(value_json),
                    widget(i.ty, i.rule.as_ref()),
                );
                // A former param given under `params` (older files) is the input's constant.
                let given = file_inputs
                    .and_then(|m| m.get(i.name.as_ref()))
                    .or_else(|| {
                        file_params
                            .filter(|_| i.was_param)
                            .and_then(|m| m.get(i.name.as_ref()))
                    });
                put_source(&mut s, given);
                inputs.push(s);
            }
            for p in &spec.params {
                let mut s = slot(
                    &p.name,
                    p.ty.name(),
                    &p.doc,
                    p.default.as_ref().map(value_json),
                    widget(p.ty, p.rule.as_ref()),
                );
                // Every param is also an input port of its name: a wired one is drawn as a
                // port with its wire; a constant at its port is its value.
                let at_port = file_inputs
                    .filter(|_| spec.input_index(&p.name).is_none())
                    .and_then(|m| m.get(p.name.as_ref()));
                if let (Some(_), None) = source_of(at_port) {
                    put_source(&mut s, at_port);
                    inputs.push(s);
                    continue;
                }
                s.insert(
                    "value".into(),
                    file_params
                        .and_then(|m| m.get(p.name.as_ref()))
                        .or(at_port)
                        .cloned()
                        .unwrap_or(Json::Null),
                );
                params.push(s);
            }
            for o in &spec.outputs {
                outputs.push(json!({"name": o.name, "ty": o.ty.name()}));
            }
        } else {
            n.insert("kind".into(), json!("node"));
            n.insert("doc".into(), json!(format!("unknown op `{op}`")));
        }
        // What the file gives that the op does not declare is shown too (validation flags it);
        // a constant at a param's port is that param's value, shown with the params.
        for (k, v) in file_inputs.into_iter().flatten() {
            if !inputs.iter().any(|s| s["name"] == json!(k))
                && !params.iter().any(|s| s["name"] == json!(k))
            {
                let mut s = slot(
                    k,
                    "any",
                    "not an input of this op",
                    None,
                    json!({"kind": "json"}),
                );
                put_source(&mut s, Some(v));
                inputs.push(s);
            }
        }
        for (k, v) in file_params.into_iter().flatten() {
            if !params.iter().any(|s| s["name"] == json!(k)) {
                let mut s = slot(
                    k,
                    "any",
                    "not a param of this op",
                    None,
                    json!({"kind": "json"}),
                );
                s.insert("value".into(), v.clone());
                params.push(s);
            }
        }
        n.insert(
            "inputs".into(),
            Json::Array(inputs.into_iter().map(Json::Object).collect()),
        );
        n.insert(
            "params".into(),
            Json::Array(params.into_iter().map(Json::Object).collect()),
        );
        n.insert("outputs".into(), Json::Array(outputs));
        nodes.push(n);
    }
    for (id, src) in section("outputs") {
        let mut n = Map::new();
        n.insert("id".into(), json!(id));
        n.insert("kind".into(), json!("output"));
        n.insert("op".into(), json!("output"));
        n.insert("doc".into(), json!("a graph output"));
        let mut s = slot(
            "value",
            "any",
            "the value to output",
            None,
            json!({"kind": "json"}),
        );
        // An output written `{"from": ..., "color": ...}` is drawn from its `from`.
        put_source(&mut s, Some(src.get("from").unwrap_or(src)));
        n.insert("inputs".into(), json!([s]));
        let colour = colour_slot(
            &kiln_doc::edit::OUTPUT_COLOURS,
            "how an image is coded in an 8 or 16-bit PNG: srgb (sRGB-encoded) or data (the \
             values as they are: normal and height maps, masks)",
            src.get("color"),
        );
        n.insert("params".into(), json!([colour]));
        n.insert("outputs".into(), json!([]));
        nodes.push(n);
    }
    // Wires, and the layout of nodes without a stored position.
    let index: BTreeMap<String, usize> = nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| n["id"].as_str().map(|s| (s.to_string(), i)))
        .collect();
    let mut wires = vec![];
    let mut edges = vec![];
    for (to, n) in nodes.iter().enumerate() {
        for s in n["inputs"].as_array().into_iter().flatten() {
            if let Some(r) = s["source"].as_str() {
                let from = referenced_node(r);
                let port = r.split_once('.').map_or("out", |(_, p)| p);
                wires.push(
                    json!({"from": from, "from_port": port, "to": n["id"], "to_port": s["name"]}),
                );
                if let Some(&f) = index.get(from) {
                    edges.push((f, to));
                }
            }
        }
    }
    let sizes: Vec<(String, i64)> = nodes
        .iter()
        .map(|n| {
            let rows = n["inputs"]
                .as_array()
                .map_or(0, Vec::len)
                .max(n["outputs"].as_array().map_or(0, Vec::len));
            (
                n["id"].as_str().unwrap_or("").to_string(),
                CARD_HEAD + PORT_ROW * rows as i64 + PREVIEW,
            )
        })
        .collect();
    let auto = layout::layered(&sizes, &edges);
    let stored = doc
        .get("editor")
        .and_then(|e| e.get("positions"))
        .and_then(Json::as_object);
    for (i, n) in nodes.iter_mut().enumerate() {
        let id = n["id"].as_str().unwrap_or("").to_string();
        let at = stored
            .and_then(|p| p.get(&id))
            .and_then(|xy| Some([xy.get(0)?.as_i64()?, xy.get(1)?.as_i64()?]));
        n.insert("stored".into(), json!(at.is_some()));
        let [x, y] = at.unwrap_or(auto[i]);
        n.insert("x".into(), json!(x));
        n.insert("y".into(), json!(y));
    }
    Drawn {
        nodes: nodes.into_iter().map(Json::Object).collect(),
        wires,
    }
}

/// The type named `name`, for the widget of a graph input.
fn kiln_io_type(name: &str) -> Option<ValueType> {
    [
        ValueType::Float,
        ValueType::Int,
        ValueType::Bool,
        ValueType::Vec2,
        ValueType::Vec3,
        ValueType::Vec4,
        ValueType::Color,
        ValueType::String,
    ]
    .into_iter()
    .find(|t| t.name() == name)
}

fn put_source(s: &mut Map<String, Json>, v: Option<&Json>) {
    let (wire, value) = source_of(v);
    s.insert("source".into(), wire.map_or(Json::Null, Json::String));
    s.insert("value".into(), value.unwrap_or(Json::Null));
}

/// The JSON of a document's graph for drawing a called graph's body (no file JSON: built
/// from the graph itself, values as the page shows them).
fn body_json(doc: &Document, registry: &Registry) -> Json {
    let mut file = Map::new();
    let mut inputs = Map::new();
    let mut nodes = Map::new();
    let mut outputs = Map::new();
    let mut incoming: BTreeMap<&str, Map<String, Json>> = BTreeMap::new();
    for w in doc.graph.wires() {
        incoming.entry(w.to.node.as_str()).or_default().insert(
            w.to.port.clone(),
            json!(format!("{}.{}", w.from.node, w.from.port)),
        );
    }
    for n in doc.graph.nodes() {
        let role = registry.get(&n.op).map(|o| o.spec().role);
        let id = n.id.to_string();
        let mut ins = incoming.remove(n.id.as_str()).unwrap_or_default();
        for (k, v) in &n.consts {
            ins.insert(k.clone(), value_json(v));
        }
        match role {
            Some(kiln_core::op::Role::GraphInput) => {
                let ty = n.op.strip_prefix("input.").unwrap_or("any");
                let mut d = Map::new();
                d.insert("type".into(), json!(ty));
                if let Some(v) = n.params.get("default") {
                    d.insert("default".into(), value_json(v));
                }
                inputs.insert(id, Json::Object(d));
            }
            Some(kiln_core::op::Role::GraphOutput) => {
                outputs.insert(id, ins.remove("value").unwrap_or(Json::Null));
            }
            _ => {
                let mut d = Map::new();
                d.insert("op".into(), json!(n.op));
                if let Some(call) = doc.calls.get(&n.id)
                    && call.scope != kiln_doc::document::Scope::Once
                {
                    d.insert(call.scope.kind().into(), json!({}));
                }
                if !n.params.is_empty() {
                    let p: Map<String, Json> = n
                        .params
                        .iter()
                        .map(|(k, v)| (k.clone(), value_json(v)))
                        .collect();
                    d.insert("params".into(), Json::Object(p));
                }
                if !ins.is_empty() {
                    d.insert("inputs".into(), Json::Object(ins));
                }
                nodes.insert(id, Json::Object(d));
            }
        }
    }
    file.insert("inputs".into(), Json::Object(inputs));
    file.insert("nodes".into(), Json::Object(nodes));
    file.insert("outputs".into(), Json::Object(outputs));
    let file = Json::Object(file);
    let calls = |id: &str| doc.calls.get(id).map(|c| c.asset.clone());
    let d = draw(&file, registry, &calls);
    json!({"nodes": d.nodes, "wires": d.wires})
}

/// The whole view of the file JSON `file` whose document is `doc` (when it loads).
pub fn view(file: &Json, doc: Option<&Document>, registry: &Registry) -> Json {
    let calls = |id: &str| doc.and_then(|d| d.calls.get(id)).map(|c| c.asset.clone());
    let d = draw(file, registry, &calls);
    // The bodies of every graph reached through calls, each once, by name (a worklist).
    let mut bodies = Map::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut work: Vec<Arc<Asset>> = doc
        .map(|d| d.calls.values().map(|c| c.asset.clone()).collect())
        .unwrap_or_default();
    while let Some(a) = work.pop() {
        if !seen.insert(a.name.clone()) {
            continue;
        }
        let mut b = body_json(&a.doc, registry);
        b["origin"] = json!(a.origin);
        b["description"] = json!(a.description);
        bodies.insert(a.name.clone(), b);
        work.extend(a.doc.calls.values().map(|c| c.asset.clone()));
    }
    json!({
        "description": file.get("description"),
        "nodes": d.nodes,
        "wires": d.wires,
        "bodies": bodies,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every param is also an input port (issue 29): a wired one is drawn as a port with its
    /// wire, a constant at its port is shown as its value, the others stay params.
    #[test]
    fn a_wired_param_is_drawn_as_a_port_with_its_wire() {
        let file: Json = serde_json::from_str(
            r#"{"kiln": 1,
              "inputs": {"seed": {"type": "int", "default": 3}},
              "nodes": {"cells": {"op": "image.cells", "params": {"cells": 6.0},
                                  "inputs": {"seed": "seed", "jitter": 0.5}}},
              "outputs": {"o": "cells"}}"#,
        )
        .unwrap();
        let v = view(&file, None, &kiln::registry());
        let cells = v["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["id"] == "cells")
            .unwrap();
        let names = |k: &str| -> Vec<String> {
            cells[k]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["name"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(names("inputs"), ["seed"]);
        assert!(names("params").contains(&"jitter".to_string()));
        assert!(!names("params").contains(&"seed".to_string()));
        let jitter = cells["params"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "jitter")
            .unwrap();
        assert_eq!(jitter["value"], json!(0.5));
        assert!(
            v["wires"]
                .as_array()
                .unwrap()
                .iter()
                .any(|w| w["to"] == "cells" && w["to_port"] == "seed"),
            "{}",
            v["wires"]
        );
    }
}
