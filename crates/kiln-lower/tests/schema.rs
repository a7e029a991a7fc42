//! The JSON Schema of the graph format (`schema/kiln-graph.schema.json`) accepts every
//! example graph and every graph that baking writes, checked by a JSON Schema validator.

mod domains;

use kiln_lower::flat_file::flat_file;

use kiln_doc::bake::{BakeOptions, bake, write_baked};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn validator() -> jsonschema::Validator {
    let path = repo().join("schema/kiln-graph.schema.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("the schema is invalid: {e}"))
}

/// The validator's messages for `text`, each with where in the document it applies.
fn violations(validator: &jsonschema::Validator, text: &str) -> Vec<String> {
    let doc: serde_json::Value = serde_json::from_str(text).expect("a graph file is JSON");
    validator
        .iter_errors(&doc)
        .map(|e| format!("at `{}`: {e}", e.instance_path()))
        .collect()
}

fn assert_valid(validator: &jsonschema::Validator, what: &str, text: &str) {
    let v = violations(validator, text);
    assert!(
        v.is_empty(),
        "{what} does not match the schema:\n{}",
        v.join("\n")
    );
}

/// Every `examples/*.json`, sorted.
fn example_paths() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(repo().join("examples"))
        .expect("the examples folder")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("json"))
        .collect();
    paths.sort();
    paths
}

#[test]
fn every_example_matches_the_schema() {
    let validator = validator();
    let paths = example_paths();
    assert!(paths.len() >= 7, "{paths:?}");
    for path in paths {
        let text = std::fs::read_to_string(&path).expect("reads");
        assert_valid(&validator, &path.display().to_string(), &text);
    }
}

/// Each example baked three ways (pure cones folded; inputs frozen too; the seed frozen as
/// well, which folds the noise into image blobs), written to disk as `kiln bake` writes it.
#[test]
fn every_baked_example_matches_the_schema() {
    let validator = validator();
    let reg = domains::every_domain();
    let dir = tempfile::tempdir().expect("temp dir");
    let ways = [
        ("folded", BakeOptions::default()),
        (
            "frozen",
            BakeOptions {
                freeze: true,
                ..BakeOptions::default()
            },
        ),
        (
            "seeded",
            BakeOptions {
                freeze: true,
                seed: Some(0),
                ..BakeOptions::default()
            },
        ),
    ];
    let mut blobs = 0;
    for path in example_paths() {
        // A graph with calls bakes as the plan writes it out.
        let doc = kiln_doc::assets::read_document(&path, &reg, &Default::default())
            .expect("the example loads");
        let file = flat_file(&doc, &reg, &kiln_core::context::EvalContext::new())
            .expect("the example plans")
            .file;
        // A step's or a flow's body has no codec and refuses the bake (tests/bake.rs shows it).
        if file
            .graph
            .nodes()
            .iter()
            .any(|n| n.op == "scope.step" || n.op == "scope.flow")
        {
            continue;
        }
        let stem = path.file_stem().expect("a name").to_string_lossy();
        for (way, options) in &ways {
            let baked = bake(&file, &reg, options)
                .unwrap_or_else(|e| panic!("{stem} ({way}) does not bake: {e}"));
            let out = dir.path().join(format!("{stem}-{way}.json"));
            let written = write_baked(&out, &baked.file, &reg).expect("writes");
            blobs += written.blobs_written + written.blobs_present;
            let text = std::fs::read_to_string(&out).expect("reads back");
            assert_valid(&validator, &format!("{stem} baked ({way})"), &text);
        }
    }
    // Some baked graph refers to blobs, so the schema's blob form was checked too.
    assert!(blobs > 0);
}

/// The validator does reject what the format does not allow, with messages naming the place.
#[test]
fn the_schema_rejects_malformed_graphs() {
    let validator = validator();
    let cases = [
        (r#"{"nodes": {}}"#, ""),
        (r#"{"kiln": 2}"#, "/kiln"),
        (r#"{"kiln": 1, "node": {}}"#, ""),
        (r#"{"kiln": 1, "nodes": {"a": {"params": {}}}}"#, "/nodes/a"),
        (r#"{"kiln": 1, "nodes": {"1a": {"op": "x"}}}"#, "/nodes"),
        (
            r#"{"kiln": 1, "inputs": {"x": {"type": "matrix"}}}"#,
            "/inputs/x/type",
        ),
        (
            r##"{"kiln": 1, "nodes": {"a": {"op": "x", "inputs": {"c": "#12"}}}}"##,
            "/nodes/a/inputs/c",
        ),
    ];
    for (text, place) in cases {
        let v = violations(&validator, text);
        assert!(!v.is_empty(), "accepted: {text}");
        assert!(
            v.iter().any(|m| m.starts_with(&format!("at `{place}`"))),
            "{text}: {v:?}"
        );
    }
}

/// Calls, inline graphs, scopes and animated values are accepted in the forms the loader
/// reads, and the malformed ones are rejected where they are wrong.
#[test]
fn the_schema_covers_calls_and_scopes() {
    let validator = validator();
    let good = r#"{
      "kiln": 1,
      "graphs": {
        "pass": {
          "inputs": {"h": {"type": "image"}, "x": {"type": "float", "default": 0.0}},
          "nodes": {"c": {"op": "image.clamp", "inputs": {"image": "h"}}},
          "outputs": {"h2": "c"},
          "graphs": {"inner": {"nodes": {}}}
        }
      },
      "nodes": {
        "n": {"op": "image.fill", "params": {"width": 4, "height": 4}},
        "a": {"op": "@pass", "fold": {"count": 3, "state": {"h": "h2"}}, "inputs": {"h": "n"}},
        "b": {"op": "@pass", "fold": {"until": "changed", "max": 10, "state": {"h": "h2"}}, "inputs": {"h": "n"}},
        "c": {"op": "@lib/brick", "for": {"items": [1.0, 2.0], "as": "col", "carry": {"image": "painted"}}},
        "d": {"op": "@std/remap", "for": [0.0, 0.5]},
        "e": {"op": "@std/remap", "for": "list.out"},
        "f": {"op": "@pass", "step": {"dt": 0.1, "substeps": 2, "state": {"h": "h2"}}},
        "g": {"op": "math.add", "inputs": {"a": {"curve": [[0.0, 1.0], [1.0, 2.0]], "interp": "step"}, "b": 1.0}}
      }
    }"#;
    assert_valid(&validator, "a graph with calls and scopes", good);
    let node = |n: &str| format!(r#"{{"kiln": 1, "nodes": {{"a": {n}}}}}"#);
    let cases = [
        node(r#"{"op": "@x", "fold": {"max": 3}}"#),
        node(r#"{"op": "@x", "fold": {"count": 2, "until": 3}}"#),
        node(r#"{"op": "@x", "for": {"as": "col"}}"#),
        node(r#"{"op": "@x", "for": [1], "fold": {"count": 2}}"#),
        node(r#"{"op": "@x", "step": {"substeps": 2}}"#),
        node(r#"{"op": "@../x"}"#),
        node(r#"{"op": "@x", "for": {"items": [1], "carry": {"a": 1}}}"#),
        node(r#"{"op": "math.add", "inputs": {"a": {"curve": [], "interp": "linear"}}}"#),
        node(r#"{"op": "math.add", "inputs": {"a": {"curve": [[0, 1]], "interp": "cubic"}}}"#),
    ];
    for text in &cases {
        let v = violations(&validator, text);
        assert!(!v.is_empty(), "accepted: {text}");
        assert!(
            v.iter().any(|m| m.starts_with("at `/nodes/a")),
            "{text}: {v:?}"
        );
    }
    let inline = r#"{"kiln": 1, "graphs": {"g": {"kiln": 1}}}"#;
    assert!(
        !violations(&validator, inline).is_empty(),
        "accepted: {inline}"
    );
}

/// The validator of the ops' params schema (`kiln ops --schema`), made from every domain's
/// declarations.
fn ops_validator() -> jsonschema::Validator {
    let schema = kiln_doc::ops_schema::ops_schema(&domains::every_domain());
    jsonschema::draft202012::new(&schema)
        .unwrap_or_else(|e| panic!("the ops schema is invalid: {e}"))
}

/// Issue 29: a param's range, declared once with the param, is the JSON Schema's too. Every
/// example's params fit it; a param out of its range, of the wrong type, or unknown to its
/// op is refused by a real validator, as `kiln validate` refuses it.
#[test]
fn the_ops_schema_holds_every_example_and_refuses_what_validation_refuses() {
    let validator = ops_validator();
    for path in example_paths() {
        let text = std::fs::read_to_string(&path).expect("reads");
        assert_valid(&validator, &path.display().to_string(), &text);
    }
    let node = |params: &str| {
        format!(
            r#"{{"kiln": 1, "nodes": {{"g": {{"op": "mesh.grid", "params": {params}}}}}, "outputs": {{"o": "g"}}}}"#
        )
    };
    assert_valid(
        &validator,
        "in range",
        &node(r#"{"cols": 100000, "rows": 1}"#),
    );
    for (what, params, word) in [
        ("above the range", r#"{"cols": 100001}"#, "100000"),
        ("below the range", r#"{"rows": 0}"#, "minimum"),
        ("a float for an int", r#"{"rows": 2.5}"#, "integer"),
        ("an unknown param", r#"{"colls": 4}"#, "colls"),
    ] {
        let v = violations(&validator, &node(params));
        assert!(v.iter().any(|m| m.contains(word)), "{what}: {v:?}");
    }
    // Inside an inline graph, and a choice among names.
    let nested = r#"{"kiln": 1, "graphs": {"g": {"nodes": {"b": {"op": "image.blend", "params": {"mode": "glow"}}}, "outputs": {"o": "b"}}},
        "nodes": {"c": {"op": "@g"}}, "outputs": {"o": "c"}}"#;
    let v = violations(&validator, nested);
    assert!(v.iter().any(|m| m.contains("glow")), "{v:?}");
}
