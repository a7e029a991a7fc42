//! Workloads of the `session` benchmark (issue 5): a graph of about 5,000 nodes kept cooked
//! by a [`Session`](kiln_lower::session::Session), re-presented after one param edit, beside
//! the cook time of exactly the edited param's downstream cone.
//!
//! The graph ([`chains`]) is [`CHAINS`] independent chains of [`CHAIN_LEN`] nodes joined by a
//! binary reduction tree: 50 × 100 + 49 = 5,049 nodes in the standard form. Each chain
//! starts at a param-bearing node (its *head*); the edit of the benchmark sets that param.
//! Two variants have the same shape:
//!
//! * [`Nodes::Scalar`]: cheap `f64` nodes. The head is a `const` (param `value`), chain node
//!   `i` is `math.add(prev, 0.001)` (odd `i`) or `math.mul(prev, 0.9999)` (even `i`), with
//!   inline constants, and the tree nodes are `math.add`.
//! * [`Nodes::Image`]: small images (standard: 32 × 32), so each node costs microseconds.
//!   The head is `image.noise` (param `seed`, 3 octaves), chain node `i` is `image.gain`
//!   (odd `i`: gain 0.98, bias 0.01; even `i`: gain 1.01, bias -0.005; both keep the values
//!   near 0.5 without flattening them), and the tree nodes are `image.mix` with `t` = 0.5.
//!
//! Every chain has its own head value (or seed), so no two nodes have the same content: a
//! content-keyed store would otherwise cook twins once. The two values an edit alternates
//! between ([`ChainsWorkload::head_value`]) change every node downstream, so no early cutoff
//! stops the cone short: re-presenting cooks exactly the cone.
//!
//! [`downstream_cone`] finds a node's cone from the graph's wires, and [`cone_only`] builds
//! the graph of just that cone, each wire from outside replaced by an inline constant of the
//! value it carries: evaluating it cooks exactly the nodes a re-present must cook.

use kiln_core::context::EvalContext;
use kiln_core::eval::{EvalError, Evaluator, LazyEvaluator, Request};
use kiln_core::graph::{Graph, PortRef};
use kiln_core::registry::Registry;
use kiln_core::value::Value;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Chains in the standard graph.
pub const CHAINS: usize = 50;
/// Nodes per chain in the standard graph, the head included.
pub const CHAIN_LEN: usize = 100;
/// Side, in pixels, of the images of the standard [`Nodes::Image`] graph.
pub const IMAGE_SIZE: u32 = 32;
/// fBm octaves of the `image.noise` heads.
pub const NOISE_OCTAVES: i64 = 3;
/// Added to a chain's seed by the alternate edit of an image head.
const SEED_SHIFT: i64 = 1_000;

/// What the nodes of a [`ChainsWorkload`] compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nodes {
    /// Cheap scalar math (`const`, `math.add`, `math.mul`).
    Scalar,
    /// Small images (`image.noise`, `image.gain`, `image.mix`).
    Image,
}

impl Nodes {
    /// A short name (`scalar`, `image`).
    pub fn name(self) -> &'static str {
        match self {
            Nodes::Scalar => "scalar",
            Nodes::Image => "image",
        }
    }
}

/// Chains joined by a reduction tree (see the module docs).
#[derive(Debug)]
pub struct ChainsWorkload {
    /// The variant.
    pub kind: Nodes,
    /// The graph.
    pub graph: Graph,
    /// The id of the tree's root, the single output, whose upstream cone is the whole graph.
    pub output: String,
    /// The head of each chain, by chain.
    pub heads: Vec<String>,
    /// Nodes per chain.
    pub chain_len: usize,
    /// Side of the images (image variant).
    pub size: u32,
}

impl ChainsWorkload {
    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.graph.len()
    }

    /// The param of a head the edit sets: `value` (scalar) or `seed` (image).
    pub fn head_param(&self) -> &'static str {
        match self.kind {
            Nodes::Scalar => "value",
            Nodes::Image => "seed",
        }
    }

    /// The value of chain `chain`'s head param: the one it was built with (`alt` false) or
    /// the alternate (`alt` true). Every chain's two values differ from each other and from
    /// every other chain's.
    pub fn head_value(&self, chain: usize, alt: bool) -> Value {
        match self.kind {
            Nodes::Scalar => {
                let base = 1.0 + chain as f64 / 64.0;
                Value::Float(if alt { base + 0.5 } else { base })
            }
            Nodes::Image => {
                let base = chain as i64;
                Value::Int(if alt { base + SEED_SHIFT } else { base })
            }
        }
    }
}

/// The id of node `i` of chain `c` (node 0 is the head).
pub fn chain_node_id(c: usize, i: usize) -> String {
    format!("c{c}_{i}")
}

/// `chains` chains of `len` nodes (at least 1 of each) joined by a binary reduction tree of
/// `chains - 1` nodes (see the module docs); `size` is the images' side (image variant).
///
/// The tree pairs neighbours level by level (`t{level}_{j}` joins items `2j` and `2j + 1`
/// of the level below); an odd last item goes up a level unchanged.
pub fn chains(kind: Nodes, chains: usize, len: usize, size: u32) -> ChainsWorkload {
    assert!(chains >= 1 && len >= 1 && size >= 1);
    let mut w = ChainsWorkload {
        kind,
        graph: Graph::new(),
        output: String::new(),
        heads: vec![],
        chain_len: len,
        size,
    };
    let mut tails = Vec::with_capacity(chains);
    for c in 0..chains {
        let head = chain_node_id(c, 0);
        add_head(&mut w, c, &head);
        let mut prev = head.clone();
        for i in 1..len {
            let id = chain_node_id(c, i);
            add_chain_node(&mut w.graph, kind, &id, &prev, i);
            prev = id;
        }
        w.heads.push(head);
        tails.push(prev);
    }
    let mut level = tails;
    let mut depth = 0;
    while level.len() > 1 {
        depth += 1;
        let mut next = Vec::with_capacity(level.len().div_ceil(2));
        for (j, pair) in level.chunks(2).enumerate() {
            match pair {
                [a, b] => {
                    let id = format!("t{depth}_{j}");
                    add_join(&mut w.graph, kind, &id, a, b);
                    next.push(id);
                }
                [a] => next.push(a.clone()),
                _ => unreachable!("chunks of 2"),
            }
        }
        level = next;
    }
    w.output = level.pop().expect("at least one chain");
    w
}

/// The standard graph of a variant: [`CHAINS`] × [`CHAIN_LEN`] plus the tree (5,049 nodes),
/// images of [`IMAGE_SIZE`].
pub fn standard_chains(kind: Nodes) -> ChainsWorkload {
    chains(kind, CHAINS, CHAIN_LEN, IMAGE_SIZE)
}

fn add_head(w: &mut ChainsWorkload, c: usize, id: &str) {
    let value = w.head_value(c, false);
    let param = w.head_param();
    let g = &mut w.graph;
    match w.kind {
        Nodes::Scalar => {
            g.add_node(id, "const").expect("fresh id");
        }
        Nodes::Image => {
            g.add_node(id, "image.noise").expect("fresh id");
            let side = Value::Int(i64::from(w.size));
            g.set_param(id, "width", side.clone()).expect("node");
            g.set_param(id, "height", side).expect("node");
            g.set_const(id, "octaves", Value::Int(NOISE_OCTAVES))
                .expect("node");
        }
    }
    g.set_param(id, param, value).expect("node");
}

fn add_chain_node(g: &mut Graph, kind: Nodes, id: &str, prev: &str, i: usize) {
    let odd = i % 2 == 1;
    match kind {
        Nodes::Scalar => {
            let (op, b) = if odd {
                ("math.add", 0.001)
            } else {
                ("math.mul", 0.9999)
            };
            g.add_node(id, op).expect("fresh id");
            g.wire(&format!("{prev}.out"), &format!("{id}.a"));
            g.set_const(id, "b", Value::Float(b)).expect("node");
        }
        Nodes::Image => {
            let (gain, bias) = if odd { (0.98, 0.01) } else { (1.01, -0.005) };
            g.add_node(id, "image.gain").expect("fresh id");
            g.wire(&format!("{prev}.out"), &format!("{id}.image"));
            g.set_const(id, "gain", Value::Float(gain)).expect("node");
            g.set_const(id, "bias", Value::Float(bias)).expect("node");
        }
    }
}

fn add_join(g: &mut Graph, kind: Nodes, id: &str, a: &str, b: &str) {
    let op = match kind {
        Nodes::Scalar => "math.add",
        Nodes::Image => "image.mix",
    };
    g.add_node(id, op).expect("fresh id");
    g.wire(&format!("{a}.out"), &format!("{id}.a"));
    g.wire(&format!("{b}.out"), &format!("{id}.b"));
    if kind == Nodes::Image {
        g.set_const(id, "t", Value::Float(0.5)).expect("node");
    }
}

/// The downstream cone of `node`: it and every node a path of wires reaches from it, in the
/// graph's node order. Empty when `graph` has no such node.
pub fn downstream_cone(graph: &Graph, node: &str) -> Vec<String> {
    let Some(start) = graph.index_of(node) else {
        return vec![];
    };
    let mut succs: HashMap<&str, Vec<&str>> = HashMap::new();
    for w in graph.wires() {
        succs
            .entry(w.from.node.as_str())
            .or_default()
            .push(w.to.node.as_str());
    }
    let mut seen: HashSet<&str> = HashSet::new();
    let first = graph.nodes()[start].id.as_str();
    seen.insert(first);
    let mut stack = vec![first];
    while let Some(u) = stack.pop() {
        for &v in succs.get(u).map_or(&[][..], Vec::as_slice) {
            if seen.insert(v) {
                stack.push(v);
            }
        }
    }
    graph
        .nodes()
        .iter()
        .filter(|n| seen.contains(n.id.as_str()))
        .map(|n| n.id.to_string())
        .collect()
}

/// The graph of a cone alone: its nodes (same ids, ops, params and constants) and the wires
/// between them; each wire from outside into the cone becomes an inline constant of the
/// value it carries, as evaluated in `graph` under `ctx`.
#[derive(Debug)]
pub struct ConeGraph {
    /// The cone's nodes, in the source graph's node order.
    pub nodes: Vec<String>,
    /// The cone alone.
    pub graph: Graph,
    /// The outside sources (`node.port`) that became constants, in wire order.
    pub outside: Vec<String>,
}

/// The [`ConeGraph`] of `node`'s downstream cone in `graph`. The outside values are
/// evaluated with a [`LazyEvaluator`] over `registry` under `ctx`.
pub fn cone_only(
    graph: &Graph,
    registry: &Registry,
    node: &str,
    ctx: &EvalContext,
) -> Result<ConeGraph, EvalError> {
    let nodes = downstream_cone(graph, node);
    let inside: HashSet<&str> = nodes.iter().map(String::as_str).collect();
    let mut outside: Vec<String> = vec![];
    for w in graph.wires() {
        if inside.contains(w.to.node.as_str()) && !inside.contains(w.from.node.as_str()) {
            let s = w.from.to_string();
            if !outside.contains(&s) {
                outside.push(s);
            }
        }
    }
    let values: BTreeMap<String, Value> = if outside.is_empty() {
        BTreeMap::new()
    } else {
        let mut ev = LazyEvaluator::new(registry.clone());
        ev.evaluate(graph, &Request::new(outside.iter().cloned()), ctx)?
            .values
            .into_iter()
            .collect()
    };
    let mut g = Graph::new();
    for id in &nodes {
        let n = graph.node(id).expect("a node of the cone");
        g.add_node(id.as_str(), &n.op).expect("cone ids are unique");
        for (k, v) in &n.params {
            g.set_param(id, k, v.clone()).expect("node");
        }
        for (k, v) in &n.consts {
            g.set_const(id, k, v.clone()).expect("node");
        }
    }
    for w in graph.wires() {
        if !inside.contains(w.to.node.as_str()) {
            continue;
        }
        if inside.contains(w.from.node.as_str()) {
            g.connect(w.from.clone(), w.to.clone());
        } else {
            let v = values
                .get(&w.from.to_string())
                .cloned()
                .expect("every outside source was evaluated");
            let PortRef { node, port } = &w.to;
            g.set_const(node.as_str(), port, v).expect("node");
        }
    }
    Ok(ConeGraph {
        nodes,
        graph: g,
        outside,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_core::eval::CompiledEvaluator;
    use kiln_lower::session::{Clock, Session};

    #[test]
    fn standard_shape_and_cone_sizes() {
        let w = standard_chains(Nodes::Scalar);
        assert_eq!(w.nodes(), CHAINS * CHAIN_LEN + CHAINS - 1);
        assert_eq!(w.heads.len(), CHAINS);
        // The whole graph is upstream of the output: the cone of every node holds it.
        for (c, head) in w.heads.iter().enumerate() {
            let cone = downstream_cone(&w.graph, head);
            // The whole chain, then the tree nodes on its way up to the root: at most
            // ceil(log2(50)) = 6, fewer for the chains an odd pairing carries up a level.
            let own = format!("c{c}_");
            let chain = cone.iter().filter(|n| n.starts_with(&own)).count();
            let tree = cone.iter().filter(|n| n.starts_with('t')).count();
            assert_eq!(chain, CHAIN_LEN, "chain {c}");
            assert!((1..=6).contains(&tree), "chain {c}: {cone:?}");
            assert_eq!(chain + tree, cone.len(), "chain {c}: {cone:?}");
            assert!(cone.contains(&w.output));
        }
        assert!(downstream_cone(&w.graph, "nope").is_empty());
        let one = chains(Nodes::Scalar, 1, 3, 1);
        assert_eq!(one.output, chain_node_id(0, 2));
        assert_eq!(downstream_cone(&one.graph, &one.heads[0]).len(), 3);
    }

    /// A session re-presenting after one head edit cooks exactly that head's cone, and the
    /// cone-only graph gives the session's output, bit for bit, with exactly that many
    /// nodes executed; for every chain, alternating values.
    fn check_cones(w: &ChainsWorkload, chains_to_edit: &[usize]) {
        let reg = kiln_image::registry();
        let mut s = Session::new(reg.clone(), w.graph.clone(), [w.output.as_str()]);
        let first = s.present(Clock::default()).expect("present");
        assert_eq!(first.cooked, w.nodes() as u64, "{first}");
        // Contexts of the session's present and of the cone evaluation agree on everything
        // the nodes read (seed 0, no inputs).
        let ctx = EvalContext::new();
        for &c in chains_to_edit {
            for alt in [true, false] {
                let v = w.head_value(c, alt);
                s.set_param(&w.heads[c], w.head_param(), v).expect("head");
                let r = s.present(Clock::default()).expect("present");
                let cone = cone_only(s.graph(), &reg, &w.heads[c], &ctx).expect("cone");
                assert_eq!(
                    r.cooked,
                    cone.nodes.len() as u64,
                    "{} chain {c} alt {alt}: {r}",
                    w.kind.name()
                );
                assert_eq!(r.cut_off, 0, "{r}");
                assert!(!r.planned, "a param edit does not replan: {r}");
                assert_eq!(cone.graph.len(), cone.nodes.len());
                // One outside source per tree level on the way up.
                assert_eq!(cone.outside.len(), cone.nodes.len() - w.chain_len);
                let frame = s.frame().expect("a frame");
                let want = frame.get(&w.output).expect("the output");
                let mut ev = CompiledEvaluator::new(reg.clone()).with_background(false);
                let req = Request::new([w.output.as_str()]);
                for _ in 0..2 {
                    let out = ev
                        .evaluate(&cone.graph, &req, &ctx)
                        .expect("cone evaluates");
                    assert_eq!(out.stats.executed, cone.nodes.len() as u64);
                    assert!(
                        out.values[0].1.same_bits(want),
                        "{} chain {c}: cone {:?} != session {want:?}",
                        w.kind.name(),
                        out.values[0].1
                    );
                }
                // And the full graph, evaluated from scratch, agrees too.
                let mut lazy = LazyEvaluator::new(reg.clone());
                let full = lazy.evaluate(s.graph(), &req, &ctx).expect("full");
                assert!(full.values[0].1.same_bits(want));
            }
        }
    }

    #[test]
    fn scalar_re_present_cooks_exactly_the_cone() {
        let w = standard_chains(Nodes::Scalar);
        check_cones(&w, &[0, 1, CHAINS / 2, CHAINS - 1]);
        let small = chains(Nodes::Scalar, 7, 10, 1);
        check_cones(&small, &(0..7).collect::<Vec<_>>());
    }

    #[test]
    fn image_re_present_cooks_exactly_the_cone() {
        let w = chains(Nodes::Image, 9, 12, 8);
        assert_eq!(w.nodes(), 9 * 12 + 8);
        check_cones(&w, &(0..9).collect::<Vec<_>>());
    }
}
