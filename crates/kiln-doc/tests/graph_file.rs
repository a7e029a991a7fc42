//! Loading, saving and the errors of graph files.

mod common;

use kiln_core::graph::{Graph, PortRef};
use kiln_core::registry::Registry;
use kiln_core::validate::{DiagnosticKind, validate};
use kiln_core::value::Value;
use kiln_doc::graph_file::{
    GraphMeta, LoadError, load_graph, load_graph_bytes, read_graph, save_graph,
    save_graph_with_meta, write_graph,
};

/// The example of the format docs, in canonical form.
const EXAMPLE: &str = r##"{
  "kiln": 1,
  "description": "optional free text",
  "inputs": {
    "scale": {"type": "float", "default": 4.0, "doc": "optional"}
  },
  "nodes": {
    "noise": {
      "op": "image.noise",
      "params": {
        "seed": 7,
        "width": 256
      },
      "inputs": {
        "offset": [0.25, 0.5],
        "scale": "scale.out"
      }
    },
    "tint": {
      "op": "image.ramp",
      "params": {
        "stops": [[0.0, "#001020"], [1.0, "#ffe0a0"]]
      },
      "inputs": {
        "image": "noise.out"
      }
    }
  },
  "outputs": {
    "image": "tint.out"
  }
}
"##;

/// A canonical file using only ops this test controls.
const CANONICAL: &str = r##"{
  "kiln": 1,
  "description": "every kind of value, in canonical form",
  "inputs": {
    "size": {"type": "float", "default": 2.0, "doc": "edge length"},
    "count": {"type": "int", "default": 3},
    "tint": {"type": "color", "default": "#ff800080"},
    "label": {"type": "string"},
    "at": {"type": "vec3", "default": [0.0, -1.5, 1e-7]}
  },
  "nodes": {
    "all": {
      "op": "test.all",
      "params": {
        "a": {"type": "vec2", "value": [1.0, 2.0]},
        "b": true,
        "c": [0.1, 0.2, 0.3],
        "f": -0.0,
        "i": -9223372036854775808,
        "l": [1, 2.5, "x", [true, null], {"type": "color", "value": "#000000"}],
        "n": 3,
        "s": "#not a colour",
        "v2": [1.0, 2.0],
        "v3": [1.0, 2.0, 3.0],
        "v4": {"type": "float", "value": "nan"}
      },
      "inputs": {
        "a": {"const": "a.b"},
        "c": "#abcdef",
        "f": "size.out",
        "i": "count.out",
        "l": [],
        "s": {"const": "text with \"quotes\" and \\ and \n"},
        "v3": "at.out",
        "v4": [1.0, 2.0, 3.0, 1.7976931348623157e308]
      }
    },
    "k": {
      "op": "const",
      "params": {
        "value": {"type": "color", "value": [0.5, 0.25, 1.0, 0.1]}
      }
    },
    "mystery": {
      "op": "no.such.op",
      "params": {
        "long": [
          "a string long enough to break the line",
          "and another one of those",
          1
        ]
      },
      "inputs": {
        "x": "all.out",
        "x": "k.out",
        "y": "#11223344"
      }
    }
  },
  "outputs": {
    "result": "all.out",
    "other": "mystery.foo"
  }
}
"##;

fn reg() -> Registry {
    common::registry()
}

fn load(text: &str) -> Result<kiln_doc::GraphFile, LoadError> {
    load_graph(text, &reg())
}

fn err(text: &str) -> String {
    match load(text) {
        Ok(_) => panic!("loaded:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn canonical_files_save_byte_identical() {
    for (name, registry) in [
        ("empty registry", Registry::new()),
        ("std registry", kiln_image::registry()),
        ("test registry", reg()),
    ] {
        let f = load_graph(CANONICAL, &registry).unwrap();
        assert_eq!(f.to_json(&registry), CANONICAL, "{name}");
    }
    // Image ops may or may not be registered; with no registry everything is inferred.
    let empty = Registry::new();
    let f = load_graph(EXAMPLE, &empty).unwrap();
    assert_eq!(f.to_json(&empty), EXAMPLE);
}

#[test]
fn example_builds_the_expected_graph() {
    let f = load_graph(EXAMPLE, &Registry::new()).unwrap();
    let g = &f.graph;
    let ids: Vec<&str> = g.nodes().iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, ["scale", "noise", "tint", "image"]);
    let scale = g.node("scale").unwrap();
    assert_eq!(scale.op, "input.float");
    assert_eq!(scale.params.get("name"), Some(&Value::str("scale")));
    assert_eq!(scale.params.get("default"), Some(&Value::Float(4.0)));
    assert_eq!(g.node("image").unwrap().op, "output");
    let wires: Vec<(String, String)> = g
        .wires()
        .iter()
        .map(|w| (w.from.to_string(), w.to.to_string()))
        .collect();
    assert_eq!(
        wires,
        [
            ("scale.out".to_string(), "noise.scale".to_string()),
            ("noise.out".into(), "tint.image".into()),
            ("tint.out".into(), "image.value".into()),
        ]
    );
    assert_eq!(f.meta.description.as_deref(), Some("optional free text"));
    assert_eq!(
        f.meta.input_docs.get("scale").map(String::as_str),
        Some("optional")
    );
}

#[test]
fn values_are_read_by_declared_type() {
    let text = r##"{
      "kiln": 1,
      "nodes": {
        "t": {
          "op": "test.all",
          "params": { "f": 3, "c": "#f00", "v3": [1, 2, 3], "l": [1, 2], "a": 7, "n": 1.5 },
          "inputs": { "f": 2, "c": [1, 0, 0, 0.5], "v2": [0, 1], "s": {"const": "#hi"}, "a": "#fff" }
        }
      }
    }"##;
    let g = load(text).unwrap().graph;
    let t = g.node("t").unwrap();
    let p = |k: &str| t.params.get(k).cloned().unwrap();
    let c = |k: &str| t.consts.get(k).cloned().unwrap();
    assert_eq!(p("f"), Value::Float(3.0));
    assert_eq!(p("c"), Value::Color([1.0, 0.0, 0.0, 1.0]));
    assert_eq!(p("v3"), Value::Vec3([1.0, 2.0, 3.0]));
    assert_eq!(
        p("l"),
        Value::List(vec![Value::Int(1), Value::Int(2)].into())
    );
    assert_eq!(p("a"), Value::Int(7));
    assert_eq!(p("n"), Value::Float(1.5));
    assert_eq!(c("f"), Value::Float(2.0));
    assert_eq!(c("c"), Value::Color([1.0, 0.0, 0.0, 0.5]));
    assert_eq!(c("v2"), Value::Vec2([0.0, 1.0]));
    assert_eq!(c("s"), Value::str("#hi"));
    assert_eq!(c("a"), Value::Color([1.0; 4]));
    assert!(
        validate(&g, &reg()).is_empty(),
        "{:?}",
        validate(&g, &reg())
    );
}

#[test]
fn shorthand_reference_means_port_out() {
    let text = r#"{"kiln": 1, "nodes": {
        "a": {"op": "clock.time"},
        "b": {"op": "test.all", "inputs": {"f": "a", "n": "a.out"}}
    }}"#;
    let g = load(text).unwrap().graph;
    assert_eq!(g.wires().len(), 2);
    assert!(g.wires().iter().all(|w| w.from == PortRef::new("a", "out")));
    // And it is written back in full.
    assert!(save_graph(&g, &reg()).contains("\"f\": \"a.out\""));
}

#[test]
fn duplicate_input_port_is_two_wires_and_validate_reports_it() {
    let text = r#"{"kiln": 1, "nodes": {
        "a": {"op": "clock.time"},
        "b": {"op": "clock.dt"},
        "sum": {"op": "test.all", "inputs": {"f": "a", "f": "b.out"}}
    }}"#;
    let g = load(text).unwrap().graph;
    assert_eq!(g.wires().len(), 2);
    let d = validate(&g, &reg());
    assert!(
        d.iter().any(|d| d.kind == DiagnosticKind::MultipleWires
            && d.node.as_ref().map(|n| n.as_str()) == Some("sum")),
        "{d:?}"
    );
    // A wire and a constant into one port, likewise.
    let text = r#"{"kiln": 1, "nodes": {
        "a": {"op": "clock.time"},
        "sum": {"op": "test.all", "inputs": {"f": 1.0, "f": "a"}}
    }}"#;
    let g = load(text).unwrap().graph;
    let d = validate(&g, &reg());
    assert!(
        d.iter().any(|d| d.kind == DiagnosticKind::MultipleWires),
        "{d:?}"
    );
    // Both survive a save.
    let saved = save_graph(&g, &reg());
    assert_eq!(saved.matches("\"f\": ").count(), 2, "{saved}");
    // Two constants cannot both be held: a load error naming the port.
    let e = err(r#"{"kiln": 1, "nodes": {"n": {"op": "test.all", "inputs": {"f": 1, "f": 2}}}}"#);
    assert!(
        e.contains("nodes.n.inputs.f") && e.contains("two constants"),
        "{e}"
    );
}

#[test]
fn type_mismatched_constant_is_reported_by_validate() {
    let text = r#"{"kiln": 1, "nodes": {
        "t": {"op": "test.all", "params": {"i": 1.5}, "inputs": {"v3": [1, 2], "b": {"const": "yes"}}}
    }}"#;
    let g = load(text).unwrap().graph;
    let d = validate(&g, &reg());
    let mismatch = |port: &str| {
        d.iter().any(|d| {
            d.kind == DiagnosticKind::TypeMismatch
                && d.node.as_ref().map(|n| n.as_str()) == Some("t")
                && d.port.as_deref().is_some_and(|p| p.contains(port))
        })
    };
    assert!(mismatch("param `i`"), "{d:?}");
    assert!(mismatch("input `v3`"), "{d:?}");
    assert!(mismatch("input `b`"), "{d:?}");
    let text: Vec<String> = d.iter().map(|d| d.to_string()).collect();
    assert!(
        text.iter().any(|t| t.contains("`t`") && t.contains("v3")),
        "{text:?}"
    );
}

#[test]
fn unknown_op_still_loads_and_validate_reports_it() {
    let text = r#"{"kiln": 1, "nodes": {"x": {"op": "math.nope", "params": {"p": 1}, "inputs": {"q": 2}}}}"#;
    let f = load(text).unwrap();
    assert_eq!(f.graph.node("x").map(|n| n.op.as_str()), Some("math.nope"));
    let d = validate(&f.graph, &reg());
    assert!(
        d.iter().any(|d| d.kind == DiagnosticKind::UnknownOp),
        "{d:?}"
    );
}

#[test]
fn empty_and_non_json_files() {
    assert!(matches!(load(""), Err(LoadError::Empty)));
    assert!(matches!(load("  \n\t "), Err(LoadError::Empty)));
    let e = load("{\n  \"kiln\": 1,\n  \"nodes\": {,}\n}").unwrap_err();
    match &e {
        LoadError::Json { line, column, .. } => {
            assert_eq!((*line, *column), (3, 13), "{e}");
        }
        other => panic!("{other:?}"),
    }
    let msg = e.to_string();
    assert!(msg.contains("line 3") && msg.contains("column 13"), "{msg}");
    assert!(
        !msg.contains("at line 3 column 13"),
        "position said twice: {msg}"
    );
    let e = err("{\"kiln\": 1, \"nodes\": {}");
    assert!(e.contains("invalid JSON") && e.contains("line 1"), "{e}");
    let e = err("{\"kiln\": 1} trailing");
    assert!(e.contains("trailing"), "{e}");
}

#[test]
fn invalid_utf8_is_reported_with_its_position() {
    let e = load_graph_bytes(b"{\n  \"kiln\": \xff1}", &reg()).unwrap_err();
    assert!(
        matches!(
            e,
            LoadError::NotUtf8 {
                line: 2,
                column: 11
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("not UTF-8"), "{e}");
    // A byte-order mark is fine.
    assert!(load_graph_bytes(b"\xef\xbb\xbf{\"kiln\": 1}", &reg()).is_ok());
}

#[test]
fn wrong_top_level_type() {
    for (text, kind) in [
        ("[]", "an array"),
        ("\"x\"", "a string"),
        ("3", "a number"),
        ("null", "null"),
    ] {
        let e = err(text);
        assert!(
            e.contains("must be a JSON object") && e.contains(kind),
            "{text}: {e}"
        );
    }
}

#[test]
fn version_errors() {
    let e = load(r#"{"nodes": {}}"#).unwrap_err();
    assert!(matches!(e, LoadError::MissingVersion));
    assert!(e.to_string().contains("\"kiln\": 1"), "{e}");
    let e = load(r#"{"kiln": 2, "layers": []}"#).unwrap_err();
    assert!(matches!(e, LoadError::UnsupportedVersion { .. }));
    let msg = e.to_string();
    assert!(
        msg.contains("version 2") && msg.contains("reads version 1") && msg.contains("upgrade"),
        "{msg}"
    );
    for v in ["0", "1.0", "\"1\"", "-1"] {
        let msg = err(&format!(r#"{{"kiln": {v}}}"#));
        assert!(
            msg.contains("unsupported") && msg.contains("write \"kiln\": 1"),
            "{v}: {msg}"
        );
    }
}

#[test]
fn format_errors_name_their_location() {
    let cases: &[(&str, &str, &str)] = &[
        (r#"{"kiln": 1, "nodes": []}"#, "nodes", "must be an object"),
        (r#"{"kiln": 1, "inputs": 3}"#, "inputs", "must be an object"),
        (
            r#"{"kiln": 1, "outputs": "x"}"#,
            "outputs",
            "must be an object",
        ),
        (
            r#"{"kiln": 1, "description": 3}"#,
            "description",
            "must be a string",
        ),
        (
            r#"{"kiln": 1, "nodes": {"9lives": {"op": "const"}}}"#,
            "nodes",
            "invalid node name `9lives`",
        ),
        (
            r#"{"kiln": 1, "nodes": {"a.b": {"op": "const"}}}"#,
            "nodes",
            "invalid node name `a.b`",
        ),
        (
            r#"{"kiln": 1, "nodes": {"": {"op": "const"}}}"#,
            "nodes",
            "invalid node name ``",
        ),
        (
            r#"{"kiln": 1, "nodes": {"a": {"op": "const"}, "a": {"op": "const"}}}"#,
            "nodes.a",
            "defined twice",
        ),
        (
            r#"{"kiln": 1, "nodes": {"a": {"params": {}}}}"#,
            "nodes.a",
            "has no `op`",
        ),
        (
            r#"{"kiln": 1, "nodes": {"a": {"op": 3}}}"#,
            "nodes.a.op",
            "must be a string",
        ),
        (
            r#"{"kiln": 1, "nodes": {"a": 3}}"#,
            "nodes.a",
            "must be an object",
        ),
        (
            r#"{"kiln": 1, "nodes": {"a": {"op": "x", "parms": {}}}}"#,
            "nodes.a.parms",
            "did you mean `params`",
        ),
        (
            r#"{"kiln": 1, "nodes": {"a": {"op": "x", "op": "y"}}}"#,
            "nodes.a.op",
            "appears twice",
        ),
        (
            r#"{"kiln": 1, "nodes": {"a": {"op": "x", "params": {"p": 1, "p": 2}}}}"#,
            "nodes.a.params.p",
            "set twice",
        ),
        (
            r#"{"kiln": 1, "nodes": {"a": {"op": "x", "params": []}}}"#,
            "nodes.a.params",
            "must be an object",
        ),
        (
            r#"{"kiln": 1, "nodes": {"a": {"op": "x", "inputs": 1}}}"#,
            "nodes.a.inputs",
            "must be an object",
        ),
        (
            r##"{"kiln": 1, "nodes": {"a": {"op": "x", "inputs": {"p": "#nope"}}}}"##,
            "nodes.a.inputs.p",
            "not a colour",
        ),
        (
            r#"{"kiln": 1, "nodes": {"a": {"op": "x", "params": {"p": {"type": "vec3", "value": [1]}}}}}"#,
            "nodes.a.params.p.value",
            "vec3",
        ),
        (
            r#"{"kiln": 1, "nodes": {"a": {"op": "x", "params": {"p": {"x": 1}}}}}"#,
            "nodes.a.params.p",
            "unexpected key `x`",
        ),
        (r#"{"kiln": 1, "node": {}}"#, "node", "did you mean `nodes`"),
        (r#"{"kiln": 1, "kiln": 1}"#, "kiln", "appears twice"),
        (
            r#"{"kiln": 1, "inputs": {"x": {"type": "matrix"}}}"#,
            "inputs.x.type",
            "cannot have type `matrix`",
        ),
        (
            r#"{"kiln": 1, "inputs": {"x": {}}}"#,
            "inputs.x",
            "has no `type`",
        ),
        (
            r#"{"kiln": 1, "inputs": {"x": {"type": "int", "deflt": 1}}}"#,
            "inputs.x.deflt",
            "allowed keys: type, default, doc",
        ),
        (
            r#"{"kiln": 1, "inputs": {"x": {"type": "int", "doc": 1}}}"#,
            "inputs.x.doc",
            "must be a string",
        ),
        (
            r#"{"kiln": 1, "inputs": {"x": "float"}}"#,
            "inputs.x",
            "must be an object",
        ),
        (
            r#"{"kiln": 1, "outputs": {"x": 3}}"#,
            "outputs.x",
            "must name a port",
        ),
        (
            r#"{"kiln": 1, "outputs": {"x": "a"}, "nodes": {"x": {"op": "const"}}}"#,
            "outputs.x",
            "output `x` has the same name as node `x`",
        ),
        (
            r#"{"kiln": 1, "inputs": {"x": {"type": "int"}}, "nodes": {"x": {"op": "const"}}}"#,
            "nodes.x",
            "node `x` has the same name as input `x`",
        ),
    ];
    for (text, path, needle) in cases {
        let e = load(text).unwrap_err();
        assert_eq!(e.location(), Some(*path), "{text}: {e}");
        let msg = e.to_string();
        assert!(msg.contains(needle), "{text}: {msg}");
        assert!(msg.starts_with(&format!("at {path}: ")), "{msg}");
    }
    // Unknown keys come with the list of allowed ones.
    let e = err(r#"{"kiln": 1, "nodes": {"a": {"op": "x", "doc": "?"}}}"#);
    assert!(e.contains("allowed keys: op, params, inputs"), "{e}");
    assert!(!e.contains("did you mean"), "far-fetched suggestion: {e}");
}

#[test]
fn random_bytes_give_readable_errors() {
    // xorshift64*: deterministic, no dependency.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let mut bytes = Vec::with_capacity(4 << 20);
    while bytes.len() < 4 << 20 {
        bytes.extend_from_slice(&next().to_le_bytes());
    }
    let e = load_graph_bytes(&bytes, &reg()).unwrap_err();
    assert!(!e.to_string().is_empty());
    // Random ASCII, and random JSON punctuation, are not JSON either.
    let alphabet = b"{}[]\":,0123456789.eE+- \ntruefalsnkil";
    for size in [1usize, 7, 100, 5000, 1 << 20] {
        let text: Vec<u8> = (0..size)
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
            .collect();
        match load_graph_bytes(&text, &reg()) {
            Ok(_) => {}
            Err(e) => assert!(!e.to_string().is_empty()),
        }
        let ascii: Vec<u8> = (0..size).map(|_| (next() % 128) as u8).collect();
        if let Err(e) = load_graph_bytes(&ascii, &reg()) {
            assert!(!e.to_string().is_empty());
        }
    }
    // Deep nesting hits serde_json's recursion limit, not the stack.
    let deep = format!(
        "{{\"kiln\": 1, \"nodes\": {{\"a\": {{\"op\": \"x\", \"params\": {{\"p\": {}}}}}}}}}",
        "[".repeat(1 << 20)
    );
    assert!(err(&deep).contains("invalid JSON"));
}

#[test]
fn io_errors_name_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing.json");
    let e = read_graph(&path, &reg()).unwrap_err();
    assert!(matches!(e, LoadError::Io { .. }));
    assert!(e.to_string().contains("missing.json"), "{e}");
}

#[test]
fn write_and_read_back_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.kiln.json");
    let f = load(CANONICAL).unwrap();
    write_graph(&path, &f, &reg()).unwrap();
    let back = read_graph(&path, &reg()).unwrap();
    assert_eq!(back.to_json(&reg()), CANONICAL);
    assert_eq!(back.meta, f.meta);
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn save_sorts_and_groups() {
    let r = reg();
    let mut g = Graph::new();
    g.add_node("out", "output").unwrap();
    g.add_node("t", "test.all").unwrap();
    g.set_param("t", "i", 2i64).unwrap();
    g.set_param("t", "f", 2.0).unwrap();
    g.set_const("t", "c", Value::Color([1.0, 1.0, 1.0, 1.0]))
        .unwrap();
    g.add_node("x", "input.vec2").unwrap();
    g.set_param("x", "name", "x").unwrap();
    g.wire("x", "t.v2");
    g.wire("t", "out.value");
    let meta = GraphMeta {
        description: Some("d".into()),
        input_docs: [("x".to_string(), "position".to_string())].into(),
        ..GraphMeta::default()
    };
    let s = save_graph_with_meta(&g, &meta, &r);
    let expected = r##"{
  "kiln": 1,
  "description": "d",
  "inputs": {
    "x": {"type": "vec2", "doc": "position"}
  },
  "nodes": {
    "t": {
      "op": "test.all",
      "params": {
        "f": 2.0,
        "i": 2
      },
      "inputs": {
        "c": "#ffffff",
        "v2": "x.out"
      }
    }
  },
  "outputs": {
    "out": "t.out"
  }
}
"##;
    assert_eq!(s, expected);
    let back = load_graph(&s, &r).unwrap();
    assert_eq!(back.meta, meta);
    assert_eq!(save_graph_with_meta(&back.graph, &back.meta, &r), s);
}

#[test]
fn nodes_that_do_not_fit_inputs_or_outputs_stay_nodes() {
    let r = reg();
    let mut g = Graph::new();
    // An input node whose name param differs from its id.
    g.add_node("a", "input.float").unwrap();
    g.set_param("a", "name", "other").unwrap();
    // An output with a constant instead of a wire.
    g.add_node("o", "output").unwrap();
    g.set_const("o", "value", 1.0).unwrap();
    // An output with two wires.
    g.add_node("p", "output").unwrap();
    g.wire("a", "p.value");
    g.wire("a", "p.value");
    let s = save_graph(&g, &r);
    assert!(!s.contains("\"inputs\": {\n    \"a\""), "{s}");
    assert!(!s.contains("\"outputs\""), "{s}");
    let back = load_graph(&s, &r).unwrap().graph;
    assert_eq!(back, g);
}

#[test]
fn list_inputs_records_and_wire_lists_load_and_save_back() {
    let text = r#"{"kiln": 1,
  "inputs": {
    "parts": {"type": "list<float>", "default": [1, 2.5], "collective": true}
  },
  "nodes": {
    "r": {"op": "const", "params": {"value": {"record": {"size": 2.0, "name": {"const": "a"}}}}},
    "all": {"op": "list.make", "inputs": {"items": {"wires": ["r", "parts"]}}}
  },
  "outputs": {"out": "all"}
}"#;
    let reg = reg();
    let g = load(text).unwrap().graph;
    let parts = g.node("parts").unwrap();
    assert_eq!(parts.op, "input.list");
    assert_eq!(parts.params.get("type"), Some(&Value::str("list<float>")));
    // Read as `list<float>`: the int 1 is the float 1.0.
    assert_eq!(
        parts.params.get("default"),
        Some(&Value::list([Value::Float(1.0), Value::Float(2.5)]))
    );
    assert_eq!(parts.params.get("collective"), Some(&Value::Bool(true)));
    let rec = g.node("r").unwrap().params.get("value").unwrap();
    assert_eq!(
        rec,
        &Value::record([("name", Value::str("a")), ("size", Value::Float(2.0))])
    );
    assert_eq!(
        g.wires()
            .iter()
            .filter(|w| w.to.node.as_str() == "all")
            .count(),
        2
    );
    let saved = save_graph(&g, &reg);
    assert!(saved.contains(r#""type": "list<float>""#), "{saved}");
    assert!(saved.contains(r#""collective": true"#), "{saved}");
    assert!(
        saved.contains(r#"{"record": {"name": "a", "size": 2.0}}"#),
        "{saved}"
    );
    let again = load(&saved).unwrap().graph;
    assert_eq!(save_graph(&again, &reg), saved);
    // A collective input that is not a list, and a bad wire list, are load errors.
    let e =
        err(r#"{"kiln": 1, "inputs": {"x": {"type": "float", "collective": true}}, "nodes": {}}"#);
    assert!(e.contains("collective"), "{e}");
    let e = err(
        r#"{"kiln": 1, "nodes": {"n": {"op": "list.make", "inputs": {"items": {"wires": [1]}}}}}"#,
    );
    assert!(e.contains("wires[0]"), "{e}");
}

#[test]
fn an_image_inputs_colour_loads_as_its_param_and_saves_back() {
    let reg = reg();
    let text = r#"{"kiln": 1,
  "inputs": {"normal": {"type": "image", "color": "data"}, "albedo": {"type": "image"}},
  "nodes": {},
  "outputs": {"n": "normal", "a": "albedo"}
}"#;
    let g = load(text).unwrap().graph;
    let color = |id: &str| g.node(id).unwrap().params.get("color").cloned();
    assert_eq!(color("normal"), Some(Value::str("data")));
    assert_eq!(color("albedo"), None, "auto is the op's default, not set");
    let saved = save_graph(&g, &reg);
    assert!(saved.contains(r#""color": "data""#), "{saved}");
    assert_eq!(saved.matches(r#""color""#).count(), 1, "{saved}");
    assert_eq!(save_graph(&load(&saved).unwrap().graph, &reg), saved);
    let e = err(r#"{"kiln": 1, "inputs": {"n": {"type": "image", "color": 3}}, "nodes": {}}"#);
    assert!(e.contains("`color` must be a string"), "{e}");
}
