//! Graphviz DOT export, for looking at a graph: `kiln dot graph.json | dot -Tsvg > g.svg`.

use crate::convert;
use crate::json;
use kiln_core::graph::Graph;
use kiln_core::value::Value;

/// Longest value text shown in a label before it is cut.
const MAX_VALUE_CHARS: usize = 40;

/// Escape text for a double-quoted DOT string (the caller adds the quotes). Line breaks
/// become DOT's `\n`.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

fn value_text(v: &Value) -> String {
    let j = convert::display(v);
    let mut s = String::new();
    json::compact(&j, &mut s);
    if s.chars().count() > MAX_VALUE_CHARS {
        let cut: String = s.chars().take(MAX_VALUE_CHARS - 3).collect();
        format!("{cut}...")
    } else {
        s
    }
}

/// The graph as Graphviz DOT: one box per node labelled with its id, op, params
/// (`name: value`) and inline constants (`port = value`); one edge per wire labelled
/// `output -> input`. Quotes, backslashes and line breaks in names and values are escaped.
pub fn to_dot(graph: &Graph) -> String {
    let mut out = String::from(
        "digraph kiln {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n  edge [fontname=\"monospace\", fontsize=10];\n",
    );
    for node in graph.nodes() {
        let mut label = format!("{}\\n{}", escape(node.id.as_str()), escape(&node.op));
        for (k, v) in &node.params {
            label.push_str(&format!("\\n{}: {}", escape(k), escape(&value_text(v))));
        }
        for (k, v) in &node.consts {
            label.push_str(&format!("\\n{} = {}", escape(k), escape(&value_text(v))));
        }
        out.push_str(&format!(
            "  \"{}\" [label=\"{label}\"];\n",
            escape(node.id.as_str())
        ));
    }
    for w in graph.wires() {
        out.push_str(&format!(
            "  \"{}\" -> \"{}\" [label=\"{} -> {}\"];\n",
            escape(w.from.node.as_str()),
            escape(w.to.node.as_str()),
            escape(&w.from.port),
            escape(&w.to.port)
        ));
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape(r#"a"b\c"#), r#"a\"b\\c"#);
        assert_eq!(escape("a\nb"), "a\\nb");
    }

    #[test]
    fn long_values_are_cut() {
        let s = value_text(&Value::str(&"x".repeat(100)));
        assert!(s.ends_with("...") && s.chars().count() == MAX_VALUE_CHARS);
    }
}
