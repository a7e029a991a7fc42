//! Graphviz export.

use kiln_core::graph::Graph;
use kiln_core::value::Value;
use kiln_doc::dot::to_dot;

#[test]
fn every_node_and_edge_appears() {
    let text = r##"{
      "kiln": 1,
      "inputs": { "size": {"type": "float", "default": 2.0} },
      "nodes": {
        "t": {"op": "clock.time"},
        "k": {"op": "const", "params": {"value": "#00ff00"}},
        "w": {"op": "no.such", "inputs": {"a": "t", "b": "size.out", "c": [1, 2], "d": {"const": "q\"uote\\"}}}
      },
      "outputs": { "result": "w.out" }
    }"##;
    let reg = kiln_image::registry();
    let g = kiln_doc::load_graph(text, &reg).unwrap().graph;
    let dot = to_dot(&g);
    assert!(
        dot.starts_with("digraph kiln {") && dot.ends_with("}\n"),
        "{dot}"
    );
    for n in g.nodes() {
        assert!(
            dot.contains(&format!("\"{}\" [label=\"{}\\n{}", n.id, n.id, n.op)),
            "{}: {dot}",
            n.id
        );
    }
    for (from, to, label) in [
        ("t", "w", "out -> a"),
        ("size", "w", "out -> b"),
        ("w", "result", "out -> value"),
    ] {
        assert!(
            dot.contains(&format!("\"{from}\" -> \"{to}\" [label=\"{label}\"];")),
            "{from} -> {to}: {dot}"
        );
    }
    assert_eq!(dot.matches(" -> \"").count(), g.wires().len());
    // Constants and params in labels, escaped.
    assert!(dot.contains("c = [1, 2]"), "{dot}");
    assert!(dot.contains(r#"d = \"q\\\"uote\\\\\""#), "{dot}");
    assert!(dot.contains(r#"default: 2.0"#), "{dot}");
}

#[test]
fn names_with_quotes_and_backslashes_are_escaped() {
    let mut g = Graph::new();
    g.add_node("a\"b\\c", "op\"x").unwrap();
    g.add_node("d", "y").unwrap();
    g.set_const("d", "p", Value::str("line\nbreak")).unwrap();
    g.wire("a\"b\\c", "d.p");
    let dot = to_dot(&g);
    assert!(
        dot.contains(r#""a\"b\\c" [label="a\"b\\c\nop\"x"];"#),
        "{dot}"
    );
    assert!(dot.contains(r#""a\"b\\c" -> "d""#), "{dot}");
    assert!(dot.contains(r#"p = \"line\\nbreak\""#), "{dot}");
    // Every quote in the output is either escaped or a delimiter: count delimiters per line.
    for line in dot.lines() {
        let unescaped = line
            .replace("\\\\", "")
            .replace("\\\"", "")
            .matches('"')
            .count();
        assert_eq!(unescaped % 2, 0, "{line}");
    }
}
