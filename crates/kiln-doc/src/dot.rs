//! Graphviz DOT export, for looking at a graph: `kiln dot graph.json | dot -Tsvg > g.svg`.

use kiln_core::graph::Graph;
use kiln_core::value::Value;
use kiln_io::convert;
use kiln_io::json;

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
/// The nodes a call was written out into (ids `call/...`, see [`kiln_lower::lower`]) sit in one
/// cluster per call, nested as the calls are.
pub fn to_dot(graph: &Graph) -> String {
    let mut out = String::from(
        "digraph kiln {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n  edge [fontname=\"monospace\", fontsize=10];\n",
    );
    // Each node under the call path its id starts with, in path order, so that a walk opens
    // and closes the clusters as a walk of folders would.
    let mut by_call: std::collections::BTreeMap<Vec<&str>, Vec<String>> = Default::default();
    for node in graph.nodes() {
        let mut label = format!("{}\\n{}", escape(node.id.as_str()), escape(&node.op));
        for (k, v) in &node.params {
            label.push_str(&format!("\\n{}: {}", escape(k), escape(&value_text(v))));
        }
        for (k, v) in &node.consts {
            label.push_str(&format!("\\n{} = {}", escape(k), escape(&value_text(v))));
        }
        let mut path: Vec<&str> = node.id.as_str().split('/').collect();
        path.pop();
        by_call.entry(path).or_default().push(format!(
            "\"{}\" [label=\"{label}\"];\n",
            escape(node.id.as_str())
        ));
    }
    let mut open: Vec<&str> = Vec::new();
    for (path, lines) in &by_call {
        let shared = open.iter().zip(path).take_while(|(a, b)| a == b).count();
        while open.len() > shared {
            open.pop();
            out.push_str(&format!("{}}}\n", "  ".repeat(open.len() + 1)));
        }
        while open.len() < path.len() {
            let name = path[..=open.len()].join("/");
            open.push(path[open.len()]);
            let pad = "  ".repeat(open.len());
            out.push_str(&format!(
                "{pad}subgraph \"cluster_{}\" {{\n{pad}  label=\"{}\";\n",
                escape(&name),
                escape(&name)
            ));
        }
        for l in lines {
            out.push_str(&format!("{}{l}", "  ".repeat(open.len() + 1)));
        }
    }
    while !open.is_empty() {
        open.pop();
        out.push_str(&format!("{}}}\n", "  ".repeat(open.len() + 1)));
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
    fn the_nodes_of_each_call_sit_in_a_cluster_nested_as_the_calls_are() {
        let mut g = Graph::new();
        for id in ["top", "w/a", "w/b", "w/in[0]/x", "w/in[1]/x", "v/y"] {
            g.add_node(id, "const").unwrap();
        }
        let dot = to_dot(&g);
        let at = |s: &str| {
            dot.find(s)
                .unwrap_or_else(|| panic!("{s} missing in\n{dot}"))
        };
        // `w`'s cluster holds its nodes and the clusters of its copies, and closes before `v`.
        let (w, w0, w1, v) = (
            at("cluster_w\""),
            at("cluster_w/in[0]\""),
            at("cluster_w/in[1]\""),
            at("cluster_v\""),
        );
        assert!(w < w0 && w0 < w1 && v < w, "{dot}");
        assert!(at("\"w/in[0]/x\"") > w0 && at("\"w/in[0]/x\"") < w1);
        assert_eq!(dot.matches("subgraph").count(), 4);
        assert_eq!(dot.matches('{').count(), dot.matches('}').count());
        // The top graph's own nodes are in no cluster.
        assert!(at("\"top\" [label") < v);
    }

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
