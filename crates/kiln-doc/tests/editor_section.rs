//! The `editor` section of a graph file: node positions an editor keeps, read into the
//! metadata and written back in the canonical form; nothing else may be in it.

use kiln_doc::graph_file::{load_graph, save_graph_with_meta};

const TEXT: &str = r#"{
  "kiln": 1,
  "nodes": {
    "a": {
      "op": "math.add",
      "inputs": {
        "a": 1.0,
        "b": 2.0
      }
    }
  },
  "outputs": {
    "sum": "a.out"
  },
  "editor": {
    "positions": {
      "a": [40, -120],
      "sum": [300, 0]
    }
  }
}
"#;

#[test]
fn positions_load_into_the_metadata_and_save_back_unchanged() {
    let reg = kiln_image::registry();
    let file = load_graph(TEXT, &reg).unwrap();
    assert_eq!(file.meta.positions.get("a"), Some(&[40, -120]));
    assert_eq!(file.meta.positions.get("sum"), Some(&[300, 0]));
    assert_eq!(save_graph_with_meta(&file.graph, &file.meta, &reg), TEXT);
    // The positions are not part of the graph.
    let bare = load_graph(&TEXT.replace("[40, -120]", "[1, 1]"), &reg).unwrap();
    assert_eq!(bare.graph, file.graph);
}

#[test]
fn anything_else_in_the_editor_section_is_refused() {
    let reg = kiln_image::registry();
    for (bad, needle) in [
        (TEXT.replace("\"positions\"", "\"zoom\""), "zoom"),
        (TEXT.replace("[40, -120]", "[40.5, 1]"), "two whole numbers"),
        (TEXT.replace("[40, -120]", "[40]"), "two whole numbers"),
        (
            TEXT.replace("\"editor\": {", "\"editor\": 3, \"x\": {"),
            "editor",
        ),
    ] {
        let e = load_graph(&bad, &reg).unwrap_err().to_string();
        assert!(e.contains(needle), "{e}");
    }
}
