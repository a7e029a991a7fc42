//! The text of a graph file the studio writes: the house style of Kiln's graph files
//! (two-space indentation, a graph and its sections `inputs`, `nodes`, `outputs`, `graphs`
//! and `editor` one entry per line, every other value on one line), keys in the order the
//! file holds them. A file in the canonical form stays byte for byte the same when an edit
//! leaves it unchanged, and an edit changes only the lines it touches.

use serde_json::Value as Json;

/// The sections of a graph written one entry per line.
const SECTIONS: [&str; 5] = ["inputs", "nodes", "outputs", "graphs", "editor"];

/// `doc` (a graph file's top-level object) as file text, with a final newline.
pub fn file_text(doc: &Json) -> String {
    let mut out = String::new();
    // A worklist of what to write: no recursion on the file's nesting.
    let mut work: Vec<Step<'_>> = vec![Step::Value(doc, Shape::Graph, 0)];
    while let Some(step) = work.pop() {
        match step {
            Step::Text(t) => out.push_str(t),
            Step::Owned(t) => out.push_str(&t),
            Step::Value(v, shape, indent) => match (v, shape) {
                (Json::Object(map), Shape::Graph | Shape::Section | Shape::Graphs)
                    if !map.is_empty() =>
                {
                    let pad = "  ".repeat(indent + 1);
                    let mut parts: Vec<Step<'_>> = vec![Step::Text("{\n")];
                    let n = map.len();
                    for (i, (k, child)) in map.iter().enumerate() {
                        parts.push(Step::Owned(format!("{pad}{}: ", quote(k))));
                        let child_shape = match shape {
                            Shape::Graph if SECTIONS.contains(&k.as_str()) => {
                                if k == "graphs" {
                                    Shape::Graphs
                                } else {
                                    Shape::Section
                                }
                            }
                            Shape::Graphs => Shape::Graph,
                            Shape::Section if k == "positions" => Shape::Section,
                            _ => Shape::Line,
                        };
                        parts.push(Step::Value(child, child_shape, indent + 1));
                        parts.push(Step::Text(if i + 1 < n { ",\n" } else { "\n" }));
                    }
                    parts.push(Step::Owned(format!("{}}}", "  ".repeat(indent))));
                    work.extend(parts.into_iter().rev());
                }
                (v, _) => out.push_str(&line(v)),
            },
        }
    }
    out.push('\n');
    out
}

/// How a value is laid out.
#[derive(Clone, Copy)]
enum Shape {
    /// A graph (the file, or an entry of `graphs`): one key per line.
    Graph,
    /// A section of a graph: one entry per line.
    Section,
    /// The `graphs` section: one graph per entry.
    Graphs,
    /// On one line.
    Line,
}

enum Step<'a> {
    Text(&'static str),
    Owned(String),
    Value(&'a Json, Shape, usize),
}

fn quote(s: &str) -> String {
    Json::String(s.to_string()).to_string()
}

/// A value on one line: `{"a": 1, "b": [1, 2]}`, with a space after each `:` and `,`.
pub fn line(v: &Json) -> String {
    let mut out = String::new();
    enum Item<'a> {
        V(&'a Json),
        T(&'static str),
        K(&'a str),
    }
    let mut work = vec![Item::V(v)];
    while let Some(item) = work.pop() {
        match item {
            Item::T(t) => out.push_str(t),
            Item::K(k) => {
                out.push_str(&quote(k));
                out.push_str(": ");
            }
            Item::V(Json::Array(items)) => {
                let mut parts = vec![Item::T("[")];
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        parts.push(Item::T(", "));
                    }
                    parts.push(Item::V(x));
                }
                parts.push(Item::T("]"));
                work.extend(parts.into_iter().rev());
            }
            Item::V(Json::Object(map)) => {
                let mut parts = vec![Item::T("{")];
                for (i, (k, x)) in map.iter().enumerate() {
                    if i > 0 {
                        parts.push(Item::T(", "));
                    }
                    parts.push(Item::K(k));
                    parts.push(Item::V(x));
                }
                parts.push(Item::T("}"));
                work.extend(parts.into_iter().rev());
            }
            Item::V(other) => out.push_str(&other.to_string()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_canonical_file_reads_back_to_the_same_bytes() {
        let text = r##"{
  "kiln": 1,
  "description": "d",
  "inputs": {
    "mix": {"type": "float", "default": 0.35}
  },
  "graphs": {
    "row": {
      "inputs": {
        "image": {"type": "image"}
      },
      "nodes": {
        "b": {"op": "@lib/brick", "for": {"items": [0.0, 1.0], "as": "col"}}
      },
      "outputs": {"painted": "b.painted"}
    }
  },
  "nodes": {
    "fill": {"op": "image.fill", "params": {"width": 256}, "inputs": {"color": "#cfc6b4"}}
  },
  "outputs": {
    "wall": "fill.out"
  },
  "editor": {
    "positions": {
      "fill": [10, -20]
    }
  }
}
"##;
        let doc: Json = serde_json::from_str(text).unwrap();
        // `outputs` of an inline graph is a section too: one entry per line.
        let expected = text.replace(
            r#"      "outputs": {"painted": "b.painted"}"#,
            "      \"outputs\": {\n        \"painted\": \"b.painted\"\n      }",
        );
        assert_eq!(file_text(&doc), expected);
    }

    #[test]
    fn floats_keep_their_point_and_empty_sections_stay_short() {
        let doc: Json = serde_json::from_str(r#"{"kiln": 1, "nodes": {}, "x": [1.0, 2]}"#).unwrap();
        assert_eq!(
            file_text(&doc),
            "{\n  \"kiln\": 1,\n  \"nodes\": {},\n  \"x\": [1.0, 2]\n}\n"
        );
    }
}
