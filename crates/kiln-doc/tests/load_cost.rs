//! Loading a graph file costs at most ~500 bytes of heap per node: the most bytes live at
//! once while `kiln_io` loads a generated file of many nodes (the text itself not counted:
//! it is the input), divided by its nodes. Measured by a counting allocator over this test
//! binary (bytes asked of the allocator, not its own overhead).

use std::fmt::Write;
use std::sync::atomic::Ordering;

#[path = "../../kiln-io/tests/alloc/counting.rs"]
mod counting;
use counting::{Counting, LIVE, PEAK};

#[global_allocator]
static ALLOC: Counting = Counting;

/// Nodes of the generated file: 200,000 in an optimised build, 50,000 in a debug build
/// (where parsing is slower; the cost per node does not depend on the count).
const NODES: usize = if cfg!(debug_assertions) {
    50_000
} else {
    200_000
};

/// The bound per node.
const PER_NODE: usize = 500;

/// A graph file of `n` nodes as people write them: a chain of additions, each reading the
/// one before and an inline constant, and a few params and outputs.
fn chain_file(n: usize) -> String {
    let mut s = String::from("{\n  \"kiln\": 1,\n  \"nodes\": {\n");
    s.push_str("    \"n0\": {\"op\": \"math.add\", \"inputs\": {\"a\": 1.0, \"b\": 2.0}}");
    for i in 1..n {
        let _ = write!(
            s,
            ",\n    \"n{i}\": {{\"op\": \"math.add\", \"inputs\": {{\"a\": \"n{}.out\", \"b\": {}.5}}}}",
            i - 1,
            i % 7
        );
    }
    let _ = write!(
        s,
        "\n  }},\n  \"outputs\": {{\"last\": \"n{}.out\"}}\n}}\n",
        n - 1
    );
    s
}

#[test]
fn loading_a_large_graph_file_costs_at_most_500_bytes_a_node() {
    let reg = kiln_image::registry();
    let text = chain_file(NODES);
    let base = LIVE.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let file = kiln_doc::load_graph(&text, &reg).unwrap();
    let peak = PEAK.load(Ordering::SeqCst) - base;
    let kept = LIVE.load(Ordering::SeqCst) - base;
    // Every node and the output node are there, wired as written.
    assert_eq!(file.graph.len(), NODES + 1);
    assert_eq!(file.graph.wires().len(), NODES);
    let per_node = peak / NODES;
    eprintln!(
        "{NODES} nodes, {} bytes of text: peak {peak} bytes ({per_node} a node), \
         kept {kept} bytes ({} a node)",
        text.len(),
        kept / NODES
    );
    assert!(
        per_node <= PER_NODE,
        "loading peaked at {per_node} bytes a node, over {PER_NODE}"
    );
}
