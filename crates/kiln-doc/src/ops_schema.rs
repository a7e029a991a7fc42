//! The JSON Schema of the ops' params: for each registered op, what its `params` section may
//! hold, made from the ops' own declarations (each param's type and rule, declared once with
//! the param), so an editor or a validator outside Kiln refuses what `kiln validate`
//! refuses. It sits beside `schema/kiln-graph.schema.json` (the file format): a graph file
//! must satisfy both. `kiln ops --schema` prints it.

use kiln_core::op::{OpSpec, ParamSpec, Rule};
use kiln_core::registry::Registry;
use kiln_core::value::ValueType;
use serde_json::{Value as Json, json};
use std::ops::Bound;

/// The schema of one param's value: its type, and its rule where JSON Schema can say it.
fn param_schema(p: &ParamSpec) -> Json {
    let mut s = serde_json::Map::new();
    s.insert("description".into(), Json::from(p.doc.to_string()));
    let ty = match p.ty {
        ValueType::Float => Some("number"),
        ValueType::Int => Some("integer"),
        ValueType::Bool => Some("boolean"),
        // A string param: a string (a colour or a vector is also written as text or a list).
        ValueType::String => Some("string"),
        _ => None,
    };
    if let Some(ty) = ty {
        // A float param takes an integer too (read as that float).
        s.insert("type".into(), Json::from(ty));
    }
    match p.rule {
        Some(Rule::Ints { min, max }) => {
            if min != i64::MIN {
                s.insert("minimum".into(), Json::from(min));
            }
            if max != i64::MAX {
                s.insert("maximum".into(), Json::from(max));
            }
        }
        Some(Rule::Number { min, max }) => {
            match min {
                Bound::Included(m) => s.insert("minimum".into(), json!(m)),
                Bound::Excluded(m) => s.insert("exclusiveMinimum".into(), json!(m)),
                Bound::Unbounded => None,
            };
            match max {
                Bound::Included(m) => s.insert("maximum".into(), json!(m)),
                Bound::Excluded(m) => s.insert("exclusiveMaximum".into(), json!(m)),
                Bound::Unbounded => None,
            };
        }
        Some(Rule::OneOf(choices)) => {
            s.insert("enum".into(), Json::from(choices.to_vec()));
        }
        Some(Rule::NotEmpty) if p.ty == ValueType::String => {
            s.insert("minLength".into(), Json::from(1));
        }
        _ => {}
    }
    // A param may also be animated by a curve (an object), which the file schema describes.
    json!({"if": {"type": "object"}, "else": Json::Object(s)})
}

/// The rule for the nodes of one op: its params by name, no others.
fn op_rule(spec: &OpSpec) -> Json {
    let mut params = serde_json::Map::new();
    for p in &spec.params {
        params.insert(p.name.to_string(), param_schema(p));
    }
    // A former param (an input that files may still set under `params`).
    for i in spec.inputs.iter().filter(|i| i.was_param) {
        params.insert(
            i.name.to_string(),
            json!({"description": i.doc.to_string()}),
        );
    }
    json!({
        "if": {"properties": {"op": {"const": spec.id.to_string()}}, "required": ["op"]},
        "then": {"properties": {"params": {
            "type": "object",
            "properties": params,
            "additionalProperties": false
        }}}
    })
}

/// The schema of every node's params, for the ops of `registry` (sorted by id): a node
/// (anywhere in a graph file: the top graph's nodes or an inline graph's) whose `op` is a
/// registered id may set under `params` only that op's params, each of its type and within
/// its range.
pub fn ops_schema(registry: &Registry) -> Json {
    let mut specs: Vec<&OpSpec> = registry.iter().map(|o| o.spec()).collect();
    specs.sort_by(|a, b| a.id.cmp(&b.id));
    let rules: Vec<Json> = specs.into_iter().map(op_rule).collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Kiln ops: the params of each op",
        "description": "Made by `kiln ops --schema` from the ops' declarations. A graph file satisfies this and schema/kiln-graph.schema.json.",
        "$defs": {
            "node": {"allOf": rules},
            "nodes": {"type": "object", "additionalProperties": {"$ref": "#/$defs/node"}},
            "graph": {
                "type": "object",
                "properties": {
                    "nodes": {"$ref": "#/$defs/nodes"},
                    "graphs": {"type": "object", "additionalProperties": {"$ref": "#/$defs/graph"}}
                }
            }
        },
        "$ref": "#/$defs/graph"
    })
}
