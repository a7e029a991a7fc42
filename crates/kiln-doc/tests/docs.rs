//! The format documentation and the JSON Schema agree with the code.

use kiln_core::registry::Registry;
use kiln_doc::graph_file::load_graph;
use std::path::PathBuf;

fn repo_file(rel: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_documented_example_loads_and_is_canonical() {
    let doc = repo_file("docs/graph-format.md");
    let start = doc.find("```json\n").expect("a json block") + "```json\n".len();
    let len = doc[start..].find("```").expect("closed");
    let example = &doc[start..start + len];
    let empty = Registry::new();
    let f = load_graph(example, &empty).unwrap();
    assert_eq!(f.to_json(&empty), example);
    assert_eq!(f.graph.len(), 4);
    assert_eq!(f.graph.wires().len(), 3);
    load_graph(example, &kiln_image::registry()).unwrap();
}

#[test]
fn the_schema_is_json_and_lists_the_input_types() {
    let schema: serde_json::Value =
        serde_json::from_str(&repo_file("schema/kiln-graph.schema.json")).unwrap();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    // The named types, then typed lists (`list<T>`, by pattern).
    let input_type = &schema["$defs"]["graphInput"]["properties"]["type"]["anyOf"];
    assert_eq!(input_type[1]["$ref"], "#/$defs/listType");
    let types: Vec<&str> = input_type[0]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    // The plain types of kiln-std, then the heavy types whose domain registers an input op
    // (`input.audio` in kiln-audio, `input.image` in kiln-image, `input.mesh` in kiln-mesh).
    let mut expected: Vec<&str> = kiln_std::graph_io::INPUT_TYPES
        .iter()
        .map(|(_, t)| t.name())
        .collect();
    expected.extend(["audio", "image", "mesh", "list"]);
    assert_eq!(types, expected);
    let top: Vec<&str> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(top, kiln_doc::graph_file::TOP_LEVEL_KEYS);
    let node: Vec<&str> = schema["$defs"]["node"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(node, kiln_doc::graph_file::NODE_KEYS);
    assert_eq!(
        schema["$defs"]["name"]["pattern"],
        "^[A-Za-z_][A-Za-z0-9_-]*$"
    );
}
