//! # kiln-bench
//!
//! Workloads shared by the `eval` benchmark and this crate's tests: each builds a Kiln
//! [`Graph`] together with the equivalent hand-written [`FlatProgram`], the "limit" a graph
//! engine is measured against — a `Vec<FlatOp>` in topological order run with one `match`
//! per op into a `Vec<f64>` of slots.
//!
//! Every node of a workload computes one `f64` with the same IEEE operation, in the same
//! operand order, as the Kiln op it mirrors (`math.add`, `math.mul`, `const`, `input.float`),
//! so Kiln's results and the flat program's are equal bit for bit; the tests below and the
//! benchmark's setup check it.
//!
//! [`heavy_branches`] builds the image graph of the `evaluators` benchmark's parallel
//! section: a few heavy nodes in two independent branches, with no flat program.
//!
//! [`mesh`] holds the workloads of the `mesh` benchmark (subdivision and normals, simplification,
//! copies), each beside the same work on plain vectors.
//!
//! [`summary`] is the machinery of the summary every benchmark prints after its criterion
//! groups: medians of interleaved repetitions, the load average and the verdicts.
#![deny(missing_docs)]

pub mod audio;
pub mod mesh;
pub mod salsa_peer;
pub mod session;
// Documented by its inner docs only: outer docs here would make rustdoc resolve the inner
// docs' links from this scope.
pub mod summary;

use kiln_core::graph::Graph;
use kiln_core::value::Value;

/// Number of nodes of the standard benchmark graphs.
pub const NODES: usize = 10_000;
/// The value of node 0 when it is a constant (and the default of the graph input).
pub const HEAD_VALUE: f64 = 1.0;
/// The name of the graph input when node 0 is a graph input.
pub const INPUT_NAME: &str = "x";
/// The seed of the standard random DAG.
pub const DAG_SEED: u64 = 0x6b69_6c6e_2d62_656e;

/// What node 0 of a workload is; every other node depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Head {
    /// A `const` node with `value` = [`HEAD_VALUE`]: every node is static, keys come from
    /// the plan.
    Const,
    /// An `input.float` node named [`INPUT_NAME`] (default [`HEAD_VALUE`]): every node's key
    /// depends on the context, so a new input value changes every key.
    Input,
}

/// One instruction of the flat interpreter. Operands are slot indices (earlier ops).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FlatOp {
    /// A constant.
    Const(f64),
    /// The graph input (the `x` argument of [`FlatProgram::run`]).
    Input,
    /// `slot[a] + slot[b]`.
    Add(u32, u32),
    /// `slot[a] * slot[b]`.
    Mul(u32, u32),
    /// `slot[a] + k` (Kiln: `math.add` with an inline constant `b`).
    AddK(u32, f64),
    /// `slot[a] * k` (Kiln: `math.mul` with an inline constant `b`).
    MulK(u32, f64),
}

/// A straight-line program: op `i` writes slot `i`; ops are in topological order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlatProgram {
    /// The ops, one per graph node, node `i` at index `i`.
    pub ops: Vec<FlatOp>,
}

impl FlatProgram {
    /// Number of ops (= graph nodes).
    pub fn len(&self) -> usize {
        self.ops.len()
    }
    /// Whether the program is empty.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
    /// Run every op with graph input `x`, leaving each op's value in `slots`; returns the
    /// last op's value (the workload's output). `slots` is reused between runs.
    #[inline(never)]
    pub fn run(&self, x: f64, slots: &mut Vec<f64>) -> f64 {
        slots.clear();
        slots.reserve(self.ops.len());
        for op in &self.ops {
            let v = match *op {
                FlatOp::Const(c) => c,
                FlatOp::Input => x,
                FlatOp::Add(a, b) => slots[a as usize] + slots[b as usize],
                FlatOp::Mul(a, b) => slots[a as usize] * slots[b as usize],
                FlatOp::AddK(a, k) => slots[a as usize] + k,
                FlatOp::MulK(a, k) => slots[a as usize] * k,
            };
            slots.push(v);
        }
        slots.last().copied().unwrap_or(f64::NAN)
    }
}

/// A benchmark graph in both forms.
#[derive(Debug)]
pub struct Workload {
    /// Short name (`chain`, `dag`).
    pub name: &'static str,
    /// The Kiln graph; node `i` has id `n{i}`.
    pub graph: Graph,
    /// The id of the single requested output, whose upstream cone is the whole graph.
    pub output: String,
    /// The equivalent flat program.
    pub flat: FlatProgram,
}

impl Workload {
    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.flat.len()
    }
}

/// The id of node `i`.
pub fn node_id(i: usize) -> String {
    format!("n{i}")
}

/// Builds a Kiln graph and its flat program node by node, keeping them in lockstep.
struct Builder {
    graph: Graph,
    flat: FlatProgram,
}

impl Builder {
    fn new() -> Self {
        Builder {
            graph: Graph::new(),
            flat: FlatProgram::default(),
        }
    }

    fn add(&mut self, op: FlatOp) -> u32 {
        let i = self.flat.ops.len();
        let id = node_id(i);
        let g = &mut self.graph;
        let (kiln_op, a, b) = match op {
            FlatOp::Const(_) => ("const", None, None),
            FlatOp::Input => ("input.float", None, None),
            FlatOp::Add(a, b) => ("math.add", Some(a), Some(Ok(b))),
            FlatOp::Mul(a, b) => ("math.mul", Some(a), Some(Ok(b))),
            FlatOp::AddK(a, k) => ("math.add", Some(a), Some(Err(k))),
            FlatOp::MulK(a, k) => ("math.mul", Some(a), Some(Err(k))),
        };
        g.add_node(id.as_str(), kiln_op).expect("fresh id");
        match op {
            FlatOp::Const(c) => g.set_param(&id, "value", Value::Float(c)).expect("node"),
            FlatOp::Input => {
                g.set_param(&id, "name", INPUT_NAME).expect("node");
                g.set_param(&id, "default", Value::Float(HEAD_VALUE))
                    .expect("node");
            }
            _ => {}
        }
        if let Some(a) = a {
            g.wire(&format!("n{a}.out"), &format!("{id}.a"));
        }
        match b {
            Some(Ok(b)) => g.wire(&format!("n{b}.out"), &format!("{id}.b")),
            Some(Err(k)) => g.set_const(&id, "b", Value::Float(k)).expect("node"),
            None => {}
        }
        self.flat.ops.push(op);
        i as u32
    }

    fn head(&mut self, head: Head) -> u32 {
        self.add(match head {
            Head::Const => FlatOp::Const(HEAD_VALUE),
            Head::Input => FlatOp::Input,
        })
    }

    fn finish(self, name: &'static str) -> Workload {
        let last = self.flat.ops.len() - 1;
        Workload {
            name,
            graph: self.graph,
            output: node_id(last),
            flat: self.flat,
        }
    }
}

/// A chain of `n` scalar nodes: node 0 is the head; node `i` is `math.add` (odd `i`, inline
/// `b` = 0.001) or `math.mul` (even `i`, inline `b` = 0.9999) of node `i - 1`. Values stay
/// near 10.
pub fn chain(n: usize, head: Head) -> Workload {
    assert!(n >= 1);
    let mut b = Builder::new();
    b.head(head);
    for i in 1..n {
        let prev = (i - 1) as u32;
        b.add(if i % 2 == 1 {
            FlatOp::AddK(prev, 0.001)
        } else {
            FlatOp::MulK(prev, 0.9999)
        });
    }
    b.finish("chain")
}

/// SplitMix64: a small deterministic generator.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `[0, n)`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        let u = (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        lo + (hi - lo) * u
    }
}

/// Seeds of the random DAG after the head: `math.mul` of node 0 by inline constants.
pub const DAG_SEEDS: usize = 3;
/// The window of recent nodes a random DAG node's first operand comes from.
pub const DAG_WINDOW: usize = 16;

/// A random DAG of exactly `n` `math.add` / `math.mul` nodes, deterministic in `seed`.
///
/// * Node 0 is the head; nodes `1..=DAG_SEEDS` multiply it by constants in `[0.5, 1.5)`.
/// * Each later node is, with equal odds, `math.add` of two earlier nodes or `math.mul` of
///   one earlier node by an inline constant. Operand `a` is one of the [`DAG_WINDOW`] most
///   recent nodes (so the graph is deep: over a thousand nodes on the longest path of the
///   standard DAG); `add`'s `b` is half of the time the oldest node nothing reads yet, else
///   a recent node or one uniform over all earlier nodes (width, long edges,
///   reconvergence). No two nodes have the same content (Kiln's content-keyed memo would
///   compute such twins once, the flat program twice).
/// * Multiplier constants are chosen from the operand's value (for `x = HEAD_VALUE`) to pull
///   it towards `[0.25, 4]`, so values stay finite and normal; every node is linear in the
///   head, so that holds for any head value near 1.
/// * Once the budget is nearly spent, a summing chain adds up every node nothing reads
///   (the sinks), so the last node depends on every node and a request for it covers the
///   whole graph. If one node is left over, a final `math.mul` by 0.5 uses it.
pub fn random_dag(n: usize, seed: u64, head: Head) -> Workload {
    assert!(n >= DAG_SEEDS + 2);
    let mut rng = SplitMix64::new(seed);
    let mut d = DagState {
        b: Builder::new(),
        val: vec![HEAD_VALUE],
        read: vec![false],
        sinks: 1,
    };
    d.b.head(head);
    for _ in 0..DAG_SEEDS {
        let k = rng.range(0.5, 1.5);
        d.push(FlatOp::MulK(0, k));
    }
    let mut adds = std::collections::HashSet::new();
    let mut oldest_unread = 0;
    let recent = |rng: &mut SplitMix64, m: usize| (m - 1 - rng.below(m.min(DAG_WINDOW))) as u32;
    let pick = |rng: &mut SplitMix64, m: usize| -> u32 {
        if rng.next_u64() & 1 == 0 {
            recent(rng, m)
        } else {
            rng.below(m) as u32
        }
    };
    loop {
        let m = d.val.len();
        // Finishing needs `sinks - 1` summing nodes; the next random node adds at most one
        // sink, so go on only while the total still fits.
        if m + d.sinks + 1 > n {
            break;
        }
        let op = if rng.next_u64() & 1 == 0 {
            // No two nodes may have equal content: Kiln's memo would share their result.
            loop {
                let x = recent(&mut rng, m);
                // Half of the time `b` is the oldest node nothing reads yet, so few
                // sinks are left for the final summing chain.
                while d.read.get(oldest_unread).is_some_and(|&r| r) {
                    oldest_unread += 1;
                }
                let y = if rng.below(2) == 0 && oldest_unread < m {
                    oldest_unread as u32
                } else {
                    pick(&mut rng, m)
                };
                if adds.insert((x, y)) {
                    break FlatOp::Add(x, y);
                }
            }
        } else {
            let a = recent(&mut rng, m);
            let v = d.val[a as usize];
            let k = if v > 2.0 {
                rng.range(0.25, 0.5)
            } else if v < 0.5 {
                rng.range(2.0, 4.0)
            } else {
                rng.range(0.5, 1.5)
            };
            FlatOp::MulK(a, k)
        };
        d.push(op);
    }
    let tail: Vec<u32> = (0..d.val.len())
        .filter(|&i| !d.read[i])
        .map(|i| i as u32)
        .collect();
    let mut acc = tail[0];
    for &s in &tail[1..] {
        acc = d.push(FlatOp::Add(acc, s));
    }
    if d.val.len() < n {
        d.push(FlatOp::MulK(acc, 0.5));
    }
    let (b, val) = (d.b, d.val);
    assert_eq!(val.len(), n, "random_dag sizing");
    b.finish("dag")
}

/// Random-DAG construction state: the builder, each node's value for `x = HEAD_VALUE`
/// (used only to pick multipliers), whether some later node reads it, and how many nodes
/// nothing reads yet.
struct DagState {
    b: Builder,
    val: Vec<f64>,
    read: Vec<bool>,
    sinks: usize,
}

impl DagState {
    fn mark(&mut self, i: u32) {
        if !self.read[i as usize] {
            self.read[i as usize] = true;
            self.sinks -= 1;
        }
    }

    fn push(&mut self, op: FlatOp) -> u32 {
        let v = match op {
            FlatOp::Add(x, y) => {
                self.mark(x);
                self.mark(y);
                self.val[x as usize] + self.val[y as usize]
            }
            FlatOp::MulK(x, k) => {
                self.mark(x);
                self.val[x as usize] * k
            }
            _ => unreachable!("random_dag only adds Add and MulK after the head"),
        };
        self.val.push(v);
        self.read.push(false);
        self.sinks += 1;
        self.b.add(op)
    }
}

/// The standard chain workload ([`NODES`] nodes).
pub fn standard_chain(head: Head) -> Workload {
    chain(NODES, head)
}

/// The standard random DAG workload ([`NODES`] nodes, [`DAG_SEED`]).
pub fn standard_dag(head: Head) -> Workload {
    random_dag(NODES, DAG_SEED, head)
}

/// The longest path (in nodes) through a flat program: its critical dependency chain.
pub fn depth(flat: &FlatProgram) -> usize {
    let mut d: Vec<usize> = Vec::with_capacity(flat.len());
    for op in &flat.ops {
        let x = match *op {
            FlatOp::Const(_) | FlatOp::Input => 0,
            FlatOp::Add(a, b) | FlatOp::Mul(a, b) => d[a as usize].max(d[b as usize]),
            FlatOp::AddK(a, _) | FlatOp::MulK(a, _) => d[a as usize],
        };
        d.push(x + 1);
    }
    d.into_iter().max().unwrap_or(0)
}

/// Side, in pixels, of the images of the standard [`heavy_branches`] workload.
pub const HEAVY_SIZE: u32 = 512;

/// A graph of a few heavy image nodes, for the parallel benchmarks (it has no flat program).
#[derive(Debug)]
pub struct ImageWorkload {
    /// Short name (`heavy_branches`).
    pub name: &'static str,
    /// The Kiln graph.
    pub graph: Graph,
    /// The id of the single requested output, whose upstream cone is the whole graph.
    pub output: String,
    /// The last node of each independent branch (`a_clamp`, `b_clamp`).
    pub branches: [String; 2],
    /// Width and height of every image in the graph.
    pub size: u32,
}

/// Two independent, equally heavy image branches joined at the end: 7 nodes.
///
/// Branch `p` (`a` or `b`) is `image.noise` (`{p}_noise`, `size` × `size`, 5 fBm octaves,
/// its own seed, scale and offset) → `image.gain` (`{p}_gain`, its own gain and bias) →
/// `image.clamp` (`{p}_clamp`); `image.mix` (`mix`, `t` = 0.5) joins `a_clamp` and
/// `b_clamp`. Nothing in one branch reads the other, so each level of the schedule below
/// `mix` holds two independent nodes of about equal cost (the noise dominates: tens of
/// milliseconds at 512 × 512, against about a millisecond for each per-pixel op). The ideal
/// speedup on two threads is therefore close to 2, less the sequential `mix`.
pub fn heavy_branches(size: u32) -> ImageWorkload {
    assert!(size >= 1, "images are at least 1 × 1");
    let mut g = Graph::new();
    let side = Value::Int(i64::from(size));
    // (prefix, seed, scale, offset, gain, bias)
    let branches = [
        ("a", 1_i64, 4.0, [0.0, 0.0], 0.8, 0.1),
        ("b", 2_i64, 7.0, [3.0, 1.0], 1.2, -0.1),
    ];
    for (p, seed, scale, offset, gain, bias) in branches {
        let noise = format!("{p}_noise");
        g.add_node(noise.as_str(), "image.noise").expect("fresh id");
        g.set_param(&noise, "width", side.clone()).expect("node");
        g.set_param(&noise, "height", side.clone()).expect("node");
        g.set_param(&noise, "seed", Value::Int(seed)).expect("node");
        g.set_const(&noise, "scale", Value::Float(scale))
            .expect("node");
        g.set_const(&noise, "offset", Value::Vec2(offset))
            .expect("node");
        let gain_id = format!("{p}_gain");
        g.add_node(gain_id.as_str(), "image.gain")
            .expect("fresh id");
        g.wire(&format!("{noise}.out"), &format!("{gain_id}.image"));
        g.set_const(&gain_id, "gain", Value::Float(gain))
            .expect("node");
        g.set_const(&gain_id, "bias", Value::Float(bias))
            .expect("node");
        let clamp = format!("{p}_clamp");
        g.add_node(clamp.as_str(), "image.clamp").expect("fresh id");
        g.wire(&format!("{gain_id}.out"), &format!("{clamp}.image"));
    }
    g.add_node("mix", "image.mix").expect("fresh id");
    g.wire("a_clamp.out", "mix.a");
    g.wire("b_clamp.out", "mix.b");
    g.set_const("mix", "t", Value::Float(0.5)).expect("node");
    ImageWorkload {
        name: "heavy_branches",
        graph: g,
        output: "mix".to_string(),
        branches: ["a_clamp".to_string(), "b_clamp".to_string()],
        size,
    }
}

/// The standard [`heavy_branches`] workload ([`HEAVY_SIZE`] × [`HEAVY_SIZE`] images).
pub fn standard_heavy_branches() -> ImageWorkload {
    heavy_branches(HEAVY_SIZE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_core::context::EvalContext;
    use kiln_core::eval::{Evaluator, LazyEvaluator, Request};

    fn workloads(head: Head) -> Vec<Workload> {
        vec![standard_chain(head), standard_dag(head)]
    }

    fn ctx_for(head: Head, x: f64) -> EvalContext {
        match head {
            Head::Const => EvalContext::new(),
            Head::Input => EvalContext::new().with_input(INPUT_NAME, x),
        }
    }

    /// Every node's Kiln value equals the flat program's slot, bit for bit.
    #[test]
    fn kiln_matches_flat_bit_for_bit_on_every_node() {
        for head in [Head::Const, Head::Input] {
            for w in workloads(head) {
                let xs: &[f64] = match head {
                    Head::Const => &[HEAD_VALUE],
                    Head::Input => &[HEAD_VALUE, 1.000_123, 0.75],
                };
                let ids: Vec<String> = (0..w.nodes()).map(node_id).collect();
                let req = Request::new(ids.iter().cloned());
                let mut ev = LazyEvaluator::new(kiln_image::registry());
                for &x in xs {
                    let mut slots = vec![];
                    let last = w.flat.run(x, &mut slots);
                    let out = ev.evaluate(&w.graph, &req, &ctx_for(head, x)).unwrap();
                    for (i, (name, v)) in out.values.iter().enumerate() {
                        let Value::Float(k) = v else {
                            panic!("{} {name}: not a float: {v:?}", w.name)
                        };
                        assert_eq!(
                            k.to_bits(),
                            slots[i].to_bits(),
                            "{} {head:?} x={x} {name}: kiln {k} flat {}",
                            w.name,
                            slots[i]
                        );
                    }
                    assert_eq!(out.values.last().unwrap().1, Value::Float(last));
                }
            }
        }
    }

    /// Requesting only the output executes every node once (the cone is the whole graph),
    /// and the answer matches the flat program bit for bit.
    #[test]
    fn single_output_covers_the_whole_graph() {
        for head in [Head::Const, Head::Input] {
            for w in workloads(head) {
                assert_eq!(w.nodes(), NODES);
                let mut ev = LazyEvaluator::new(kiln_image::registry());
                let req = Request::new([w.output.as_str()]);
                let x = if head == Head::Input {
                    1.25
                } else {
                    HEAD_VALUE
                };
                let out = ev.evaluate(&w.graph, &req, &ctx_for(head, x)).unwrap();
                assert_eq!(out.stats.executed, NODES as u64, "{} {head:?}", w.name);
                let want = w.flat.run(x, &mut vec![]);
                assert_eq!(out.get(&w.output), Some(&Value::Float(want)));
            }
        }
    }

    #[test]
    fn values_stay_finite_and_normal() {
        for w in workloads(Head::Input) {
            for x in [0.5, HEAD_VALUE, 2.0] {
                let mut slots = vec![];
                w.flat.run(x, &mut slots);
                for (i, v) in slots.iter().enumerate() {
                    assert!(v.is_normal(), "{} n{i} = {v} at x = {x}", w.name);
                    assert!(v.abs() < 1e12, "{} n{i} = {v} at x = {x}", w.name);
                }
            }
        }
    }

    #[test]
    fn dag_is_deterministic_deep_and_wide() {
        let a = standard_dag(Head::Const);
        let b = standard_dag(Head::Const);
        assert_eq!(a.flat, b.flat);
        // Every node but the last is read by some later node.
        let mut read = vec![false; a.nodes()];
        for op in &a.flat.ops {
            match *op {
                FlatOp::Add(x, y) | FlatOp::Mul(x, y) => {
                    read[x as usize] = true;
                    read[y as usize] = true;
                }
                FlatOp::AddK(x, _) | FlatOp::MulK(x, _) => read[x as usize] = true,
                _ => {}
            }
        }
        assert!(read[..a.nodes() - 1].iter().all(|&r| r));
        let d = depth(&a.flat);
        assert!(d > 500 && d < a.nodes() / 2, "depth {d}");
        assert_eq!(depth(&standard_chain(Head::Const).flat), NODES);
    }

    /// The heavy-branches graph validates, every image has the requested size, the two
    /// branches are independent (each branch's cone is its own 3 nodes) and differ, and a
    /// parallel evaluation gives the same bits as a sequential one.
    #[test]
    fn heavy_branches_are_independent_and_parallel_safe() {
        use kiln_core::eval::{CompiledEvaluator, ParallelPolicy};
        use std::time::Duration;
        let w = heavy_branches(24);
        assert_eq!(w.graph.len(), 7);
        let ctx = EvalContext::new();
        let mut seq = CompiledEvaluator::new(kiln_image::registry()).with_background(false);
        let mut par = CompiledEvaluator::new(kiln_image::registry())
            .with_background(false)
            .with_parallel(ParallelPolicy::Rayon {
                threads: Some(2),
                min_cost: Some(Duration::ZERO),
            });
        let req = Request::new([w.output.as_str()]);
        let a = seq.evaluate(&w.graph, &req, &ctx).unwrap();
        assert_eq!(a.stats.executed, 7);
        assert_eq!(a.stats.parallel, 0);
        let b = par.evaluate(&w.graph, &req, &ctx).unwrap();
        assert_eq!(b.stats.executed, 7);
        assert!(b.stats.parallel >= 2, "{:?}", b.stats);
        let (va, vb) = (&a.values[0].1, &b.values[0].1);
        assert!(va.same_bits(vb), "parallel result differs from sequential");
        let Value::Heavy(h) = va else {
            panic!("not an image: {va:?}")
        };
        let img = h.downcast::<kiln_image::image::Image>().expect("an image");
        assert_eq!((img.width, img.height), (24, 24));
        // Each branch alone: its own three nodes, nothing of the other branch.
        let mut ends = vec![];
        for end in &w.branches {
            let mut ev = CompiledEvaluator::new(kiln_image::registry()).with_background(false);
            let out = ev
                .evaluate(&w.graph, &Request::new([end.as_str()]), &ctx)
                .unwrap();
            assert_eq!(out.stats.executed, 3, "{end}");
            ends.push(out.values[0].1.clone());
        }
        assert!(
            !ends[0].same_bits(&ends[1]),
            "the branches compute the same image"
        );
        assert_eq!(standard_heavy_branches().size, HEAVY_SIZE);
    }
}
