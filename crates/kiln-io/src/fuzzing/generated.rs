//! The fuzz entry of evaluation: any bytes read as the choices that build a small graph from
//! a registry's own ops (which op, which params set to which value, which earlier output
//! feeds each input), then that graph evaluated by every evaluator, sequential and on
//! threads, twice each. Every run must give the same bits and the same failures, and no op
//! may panic (a caught panic is a finding too).

use kiln_core::eval::{
    CompiledEvaluator, EagerEvaluator, ErrorPolicy, Failure, IncrementalEvaluator, ParallelPolicy,
};
use kiln_core::op::{Op, OpSpec};
use kiln_core::prelude::*;
use std::sync::Arc;
use std::time::Duration;

/// The most nodes a generated graph has.
const MAX_NODES: usize = 12;

/// Ints a param takes: small sizes and counts, the edges of ranges, and 16, past what some
/// rules allow (a subdivision level) and within others (an image side). Sizes stay small
/// so that a run takes a millisecond or so: the fuzzer needs many (a level-5 icosphere
/// subdivided 5 times took a minute a run, and booleans of level-3 spheres subdivided 3
/// times held the fuzzer to 30 runs a second).
const INTS: [i64; 5] = [0, 1, 2, -1, 16];

/// Floats a param (or a component of one) takes.
const FLOATS: [f64; 12] = [
    0.0, 1.0, -1.0, 0.5, 2.0, 0.25, 3.0, -0.75, 10.0, 1e-6, 4.0, 1e9,
];

/// Ops whose output can be many times their input (a mesh copied onto the points of
/// another, or of itself; a mesh subdivided 4^levels times): two in a graph can square a
/// mesh twice, or subdivide a subdivided sphere, which reaches the size limits (50M points)
/// and takes a minute a run. Slow, not wrong, and the fuzzer needs many runs: a graph
/// holding more than one of them is skipped.
const SIZE_MULTIPLYING: [&str; 3] = [
    "mesh.copy_to_points",
    "mesh.copy_to_poses",
    "mesh.subdivide",
];

/// Ops slow enough on meshes of a few thousand faces (a boolean's intersection kernels) that
/// a graph holding more than one of them is skipped too.
const SLOW: [&str; 1] = ["mesh.boolean"];

/// Ops that are slow together: a boolean of an extruded mesh (closed, but cutting through
/// itself when every face of a sphere is extruded) takes boolmesh a second or more, twelve
/// times a run. Such graphs found a fault (vendor/boolmesh/KILN-PATCH.md, patch 3, kept as
/// the test `a_boolean_whose_result_is_not_closed_is_an_error_not_a_panic`), then held the
/// fuzzer to under 100 runs a second: a graph holding both is skipped.
const SLOW_TOGETHER: [(&str, &str); 1] = [("mesh.boolean", "mesh.extrude")];

/// Strings a param takes (besides its default).
const STRINGS: [&str; 4] = ["", "a", "x", "linear"];

/// Any bytes: a generated graph evaluated under every evaluator (see the module docs).
pub fn evaluate(bytes: &[u8], registry: &Registry) {
    let Some((graph, outputs)) = generate(bytes, registry) else {
        return;
    };
    if !validate(&graph, registry).is_empty() {
        return;
    }
    let holding = |ops: &[&str]| {
        graph
            .nodes()
            .iter()
            .filter(|n| ops.contains(&n.op.as_str()))
            .count()
    };
    if holding(&SIZE_MULTIPLYING) > 1 || holding(&SLOW) > 1 {
        return;
    }
    if SLOW_TOGETHER
        .iter()
        .any(|(a, b)| holding(&[a]) > 0 && holding(&[b]) > 0)
    {
        return;
    }
    let request = Request::new(outputs).with_errors(ErrorPolicy::Propagate);
    let mut ctx = EvalContext::new();
    ctx.time = 0.5;
    ctx.dt = 1.0 / 30.0;
    ctx.seed = 7;
    // An image whose size nothing gives is this small (the default is 256²).
    ctx.resolution = Some((8, 8));
    let mut first: Option<(&str, Summary)> = None;
    for (name, mut eval) in evaluators(registry) {
        for _ in 0..2 {
            let now = summarize(name, eval.evaluate(&graph, &request, &ctx));
            match &first {
                None => first = Some((name, now)),
                Some((was, then)) => assert!(
                    same(then, &now),
                    "{was} and {name} differ:\n{then:?}\n{now:?}"
                ),
            }
        }
    }
}

/// The graph `bytes` stand for in [`evaluate`] and the outputs it requests: to see what a
/// finding of the fuzzer is (`kiln_doc::fuzzing::generated_graph_file` writes it as a file).
pub fn generated_graph(bytes: &[u8], registry: &Registry) -> Option<(Graph, Vec<String>)> {
    generate(bytes, registry)
}

/// What one evaluation gave, comparable across evaluators.
#[derive(Debug)]
enum Summary {
    Values(Vec<(String, Value)>, Vec<Failure>),
    /// The plan refused the graph (a type that only the plan infers, say).
    Invalid,
    /// A node failed in a way that ended the request.
    Failed,
}

fn summarize(name: &str, result: Result<Outputs, EvalError>) -> Summary {
    match result {
        Ok(out) => {
            for f in &out.failures {
                if let EvalError::Panic { .. } = f.error {
                    panic!("{name}: a node panicked: {}", f.error);
                }
            }
            Summary::Values(out.values, out.failures)
        }
        Err(EvalError::Invalid(_)) => Summary::Invalid,
        Err(EvalError::Node { .. } | EvalError::Recurrence(_)) => Summary::Failed,
        Err(e) => panic!("{name}: {e}"),
    }
}

fn same(a: &Summary, b: &Summary) -> bool {
    match (a, b) {
        (Summary::Values(va, fa), Summary::Values(vb, fb)) => {
            va.len() == vb.len()
                && va
                    .iter()
                    .zip(vb)
                    .all(|((na, x), (nb, y))| na == nb && x.same_bits(y))
                && fa == fb
        }
        (Summary::Invalid, Summary::Invalid) | (Summary::Failed, Summary::Failed) => true,
        _ => false,
    }
}

/// Every evaluator as the command line builds them (lazy and incremental releasing
/// values), the lazy one also keeping everything, and the eager one on two threads.
fn evaluators(registry: &Registry) -> Vec<(&'static str, Box<dyn Evaluator>)> {
    let reg = || registry.clone();
    let threads = ParallelPolicy::Rayon {
        threads: Some(2),
        min_cost: Some(Duration::ZERO),
    };
    vec![
        ("lazy", Box::new(LazyEvaluator::new(reg()))),
        (
            "lazy+release",
            Box::new(LazyEvaluator::new(reg()).with_release(true)),
        ),
        ("eager", Box::new(EagerEvaluator::new(reg()))),
        (
            "compiled",
            Box::new(CompiledEvaluator::new(reg()).with_background(false)),
        ),
        (
            "incremental+release",
            Box::new(IncrementalEvaluator::new(reg()).with_release(true)),
        ),
        (
            "eager+threads",
            Box::new(EagerEvaluator::new(reg()).with_parallel(threads)),
        ),
    ]
}

/// The bytes as a stream of choices; past their end every choice is 0.
struct Choices<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Choices<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }
    fn pick(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            usize::from(self.byte()) % n
        }
    }
    fn left(&self) -> bool {
        self.at < self.bytes.len()
    }
    fn float(&mut self) -> f64 {
        FLOATS[self.pick(FLOATS.len())]
    }
}

/// The ops a generated graph may use: those every evaluator runs (no signal ops, which
/// only the streaming evaluator runs, and no latches, which need a recurrent driver).
fn usable(op: &Arc<dyn Op>, registry: &Registry) -> bool {
    let s = op.spec();
    let signal = |t: ValueType| t == ValueType::Signal;
    registry.signal(&s.id).is_none()
        && !s.delay
        && !s.inputs.iter().any(|i| signal(i.ty))
        && !s.outputs.iter().any(|o| signal(o.ty))
}

/// A graph of up to [`MAX_NODES`] nodes chosen by `bytes`, and the outputs to request;
/// `None` when the registry has no usable op.
fn generate(bytes: &[u8], registry: &Registry) -> Option<(Graph, Vec<String>)> {
    let ops: Vec<&OpSpec> = registry
        .iter()
        .filter(|op| usable(op, registry))
        .map(|op| op.spec())
        .collect();
    let mut c = Choices { bytes, at: 0 };
    let mut g = Graph::new();
    // The outputs made so far: `node.port` and type.
    let mut made: Vec<(String, ValueType)> = Vec::new();
    let mut requested = Vec::new();
    let mut last: Vec<String> = Vec::new();
    for n in 0..MAX_NODES {
        if n > 0 && !c.left() {
            break;
        }
        // Only ops whose required inputs something made so far can feed.
        let feasible: Vec<&OpSpec> = ops
            .iter()
            .copied()
            .filter(|s| {
                s.inputs
                    .iter()
                    .filter(|i| i.default.is_none())
                    .all(|i| made.iter().any(|(_, t)| i.ty.accepts(*t)))
            })
            .collect();
        let spec = *feasible.get(c.pick(feasible.len()))?;
        let id = format!("n{n}");
        g.add_node(id.as_str(), &spec.id).ok()?;
        for p in &spec.params {
            // An int default past the table (a grid side, a count) is always replaced, so
            // that sizes stay small.
            let large = matches!(p.default, Some(Value::Int(d)) if d > 16);
            if p.default.is_some() && !large && c.byte().is_multiple_of(3) {
                continue;
            }
            if let Some(v) = param_value(p.ty, &mut c) {
                g.set_param(&id, &p.name, v).ok()?;
            }
        }
        for input in &spec.inputs {
            let sources: Vec<&String> = made
                .iter()
                .filter(|(_, t)| input.ty.accepts(*t))
                .map(|(name, _)| name)
                .collect();
            let wire = input.default.is_none() || !c.byte().is_multiple_of(4);
            if wire && !sources.is_empty() {
                let from = sources[c.pick(sources.len())];
                g.wire(from, &format!("{id}.{}", input.name));
            }
        }
        last = spec
            .outputs
            .iter()
            .map(|o| format!("{id}.{}", o.name))
            .collect();
        let ask = c.byte().is_multiple_of(2);
        for o in &spec.outputs {
            let name = format!("{id}.{}", o.name);
            if ask {
                requested.push(name.clone());
            }
            made.push((name, o.ty));
        }
    }
    for name in last {
        if !requested.contains(&name) {
            requested.push(name);
        }
    }
    Some((g, requested))
}

/// A value of type `ty` from the tables above; `None` for types only wires give (lists,
/// heavy values, the constraints).
fn param_value(ty: ValueType, c: &mut Choices<'_>) -> Option<Value> {
    let f32s = |c: &mut Choices<'_>| [c.float(), c.float(), c.float(), c.float()];
    Some(match ty {
        ValueType::Int => Value::Int(INTS[c.pick(INTS.len())]),
        ValueType::Float | ValueType::Number => Value::Float(c.float()),
        ValueType::Bool => Value::Bool(c.byte() % 2 == 1),
        ValueType::Vec2 => Value::Vec2([c.float(), c.float()]),
        ValueType::Vec3 => Value::Vec3([c.float(), c.float(), c.float()]),
        ValueType::Vec4 => Value::Vec4(f32s(c)),
        ValueType::Color => {
            let [r, g, b, a] = f32s(c);
            Value::Color([r as f32, g as f32, b as f32, a as f32])
        }
        ValueType::String => Value::str(STRINGS[c.pick(STRINGS.len())]),
        _ => return None,
    })
}
