//! Differential property test: generated graphs (random DAGs mixing arithmetic, lazy switches,
//! nodes that fail on some inputs, panics and clock reads) run through every evaluator and
//! parallel policy give bit-identical outputs and identical failure reports — on the first
//! request and after a sequence of edits and clock changes, each evaluator keeping its state.

mod common;
use common::*;
use kiln_core::cache::{KeepAll, Lru, Store};
use kiln_core::eval::{
    CompiledEvaluator, EagerEvaluator, ErrorPolicy, Failure, IncrementalEvaluator, ParallelPolicy,
};
use kiln_core::prelude::*;
use proptest::prelude::*;
use std::time::Duration;

#[derive(Clone, Debug)]
enum Gen {
    Num(f64),
    Add(usize, usize),
    Switch(usize, usize, usize, usize),
    /// Fails when its input exceeds the limit.
    Check(usize, f64),
    Time,
    Boom(usize),
    /// An op with a scalar kernel (`kadd` or `kmul`).
    Kernel(bool, usize, usize),
}

fn dag() -> impl Strategy<Value = Vec<Gen>> {
    (2usize..40).prop_flat_map(|n| {
        let nodes: Vec<BoxedStrategy<Gen>> = (0..n)
            .map(|i| {
                if i < 2 {
                    (-100i32..100).prop_map(|v| Gen::Num(v as f64 * 0.5)).boxed()
                } else {
                    prop_oneof![
                        3 => (-100i32..100).prop_map(|v| Gen::Num(v as f64 * 0.25)),
                        6 => (0..i, 0..i).prop_map(|(a, b)| Gen::Add(a, b)),
                        2 => (0..i, 0..i, 0..i, 0..i).prop_map(|(x, y, a, b)| Gen::Switch(x, y, a, b)),
                        2 => (0..i, -50i32..50).prop_map(|(a, l)| Gen::Check(a, l as f64)),
                        1 => Just(Gen::Time),
                        1 => (0..i).prop_map(Gen::Boom),
                        4 => (any::<bool>(), 0..i, 0..i).prop_map(|(m, a, b)| Gen::Kernel(m, a, b)),
                    ]
                    .boxed()
                }
            })
            .collect();
        nodes
    })
}

fn build(spec: &[Gen]) -> Graph {
    let mut g = Graph::new();
    for (i, n) in spec.iter().enumerate() {
        let id = format!("v{i}");
        match n {
            Gen::Num(v) => {
                g.add_node(id.as_str(), "num").unwrap();
                g.set_param(&id, "value", *v).unwrap();
            }
            Gen::Add(a, b) => {
                g.add_node(id.as_str(), "add").unwrap();
                g.wire(&format!("v{a}.out"), &format!("{id}.a"));
                g.wire(&format!("v{b}.out"), &format!("{id}.b"));
            }
            Gen::Switch(x, y, a, b) => {
                let c = format!("c{i}");
                g.add_node(c.as_str(), "gt").unwrap();
                g.wire(&format!("v{x}.out"), &format!("{c}.a"));
                g.wire(&format!("v{y}.out"), &format!("{c}.b"));
                g.add_node(id.as_str(), "sw").unwrap();
                g.wire(&format!("{c}.out"), &format!("{id}.cond"));
                g.wire(&format!("v{a}.out"), &format!("{id}.a"));
                g.wire(&format!("v{b}.out"), &format!("{id}.b"));
            }
            Gen::Check(a, limit) => {
                g.add_node(id.as_str(), "check").unwrap();
                g.set_param(&id, "limit", *limit).unwrap();
                g.wire(&format!("v{a}.out"), &format!("{id}.x"));
            }
            Gen::Time => {
                g.add_node(id.as_str(), "time").unwrap();
            }
            Gen::Kernel(mul, a, b) => {
                g.add_node(id.as_str(), if *mul { "kmul" } else { "kadd" })
                    .unwrap();
                g.wire(&format!("v{a}.out"), &format!("{id}.a"));
                g.wire(&format!("v{b}.out"), &format!("{id}.b"));
            }
            Gen::Boom(a) => {
                g.add_node(id.as_str(), "boom").unwrap();
                g.wire(&format!("v{a}.out"), &format!("{id}.x"));
            }
        }
    }
    g
}

/// Every evaluator × {no store, a store} × {sequential, rayon on 1, 2 and 4 threads}. The
/// stores alternate between keep-all and a small LRU budget (which evicts under load).
fn evaluators(reg: &Registry) -> Vec<(String, Box<dyn Evaluator>)> {
    let policies = [
        ("seq", ParallelPolicy::Sequential),
        ("par1", rayon(1)),
        ("par2", rayon(2)),
        ("par4", rayon(4)),
    ];
    let mut out: Vec<(String, Box<dyn Evaluator>)> = vec![];
    for (i, (pname, par)) in policies.iter().enumerate() {
        for with_store in [false, true] {
            let store = || {
                if i % 2 == 0 {
                    Store::new(KeepAll).shared()
                } else {
                    Store::new(Lru::new()).with_budget(2_000).shared()
                }
            };
            let tag = |e: &str| format!("{e}-{pname}{}", if with_store { "+store" } else { "" });
            let mut lazy = LazyEvaluator::new(reg.clone()).with_parallel(par.clone());
            let mut eager = EagerEvaluator::new(reg.clone()).with_parallel(par.clone());
            let mut compiled = CompiledEvaluator::new(reg.clone())
                .with_background(false)
                .with_parallel(par.clone());
            let mut incremental = IncrementalEvaluator::new(reg.clone()).with_parallel(par.clone());
            if with_store {
                lazy = lazy.with_store(store());
                eager = eager.with_store(store());
                compiled = compiled.with_store(store());
                incremental = incremental.with_store(store());
            }
            out.push((tag("lazy"), Box::new(lazy)));
            out.push((tag("eager"), Box::new(eager)));
            out.push((tag("compiled"), Box::new(compiled)));
            out.push((tag("incremental"), Box::new(incremental)));
        }
    }
    out
}

fn rayon(threads: usize) -> ParallelPolicy {
    ParallelPolicy::Rayon {
        threads: Some(threads),
        min_cost: Some(Duration::ZERO),
    }
}

/// A comparable summary of one evaluation.
#[derive(Debug, PartialEq)]
enum Summary {
    Ok(Vec<(String, Value)>, Vec<Failure>),
    Err,
}

fn same(a: &Summary, b: &Summary) -> bool {
    match (a, b) {
        (Summary::Ok(va, fa), Summary::Ok(vb, fb)) => {
            va.len() == vb.len()
                && va
                    .iter()
                    .zip(vb)
                    .all(|((na, x), (nb, y))| na == nb && x.same_bits(y))
                && fa == fb
        }
        (Summary::Err, Summary::Err) => true,
        _ => false,
    }
}

fn run_all(
    evs: &mut [(String, Box<dyn Evaluator>)],
    g: &Graph,
    req: &Request,
    ctx: &EvalContext,
) -> Result<(), TestCaseError> {
    let mut first: Option<(&str, Summary)> = None;
    for (name, ev) in evs.iter_mut() {
        let s = match ev.evaluate(g, req, ctx) {
            Ok(o) => Summary::Ok(o.values, o.failures),
            Err(EvalError::Node { .. } | EvalError::Panic { .. }) => Summary::Err,
            Err(e) => return Err(TestCaseError::fail(format!("{name}: unexpected {e}"))),
        };
        match &first {
            None => first = Some((name, s)),
            Some((n0, s0)) => prop_assert!(
                same(s0, &s),
                "{} and {} differ under {:?}:\n{:?}\n{:?}",
                n0,
                name,
                req.errors,
                s0,
                s
            ),
        }
    }
    Ok(())
}

#[derive(Clone, Debug)]
enum Edit {
    Param(usize, f64),
    Time(f64),
    /// A structural edit: rewire input `a` of node n (when it has one) to an earlier node.
    Rewire(usize, usize),
    /// A structural edit that changes nothing reachable: a new unwired node.
    Grow,
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    proptest::collection::vec(
        prop_oneof![
            3 => (0usize..1000, -100i32..100).prop_map(|(n, v)| Edit::Param(n, v as f64 * 0.5)),
            1 => (0i32..4).prop_map(|t| Edit::Time(t as f64)),
            1 => (0usize..1000, 0usize..1000).prop_map(|(n, m)| Edit::Rewire(n, m)),
            1 => Just(Edit::Grow),
        ],
        0..5,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn every_evaluator_gives_the_same_bits(
        spec in dag(),
        pick in proptest::collection::vec(0usize..1000, 1..5),
        edits in edits(),
    ) {
        quiet_panics();
        let mut e = env();
        add_kernel_ops(&mut e.reg);
        let mut g = build(&spec);
        prop_assert!(validate(&g, &e.reg).is_empty());
        let names: Vec<String> = pick.iter().map(|p| format!("v{}", p % spec.len())).collect();
        let policies = [
            ErrorPolicy::FailFast,
            ErrorPolicy::Propagate,
            ErrorPolicy::fallback(|_, _| Value::Float(-1.0)),
        ];
        // One set of evaluators per policy, each kept across the edits.
        let mut sets: Vec<_> = policies.iter().map(|_| evaluators(&e.reg)).collect();
        let mut ctx = EvalContext::new();
        for step in 0..=edits.len() {
            if step > 0 {
                match &edits[step - 1] {
                    Edit::Param(n, v) => {
                        let i = n % spec.len();
                        match &spec[i] {
                            Gen::Num(_) => g.set_param(&format!("v{i}"), "value", *v).unwrap(),
                            Gen::Check(..) => g.set_param(&format!("v{i}"), "limit", *v).unwrap(),
                            _ => {}
                        }
                    }
                    Edit::Time(t) => ctx.time = *t,
                    Edit::Rewire(n, m) => {
                        let i = n % spec.len();
                        if i > 0 && matches!(spec[i], Gen::Add(..) | Gen::Kernel(..)) {
                            let to = PortRef::new(format!("v{i}"), "a");
                            g.disconnect(&to).unwrap();
                            g.wire(&format!("v{}.out", m % i), &format!("v{i}.a"));
                        }
                    }
                    Edit::Grow => {
                        let id = format!("grown{step}");
                        g.add_node(id.as_str(), "num").unwrap();
                    }
                }
            }
            for (policy, evs) in policies.iter().zip(sets.iter_mut()) {
                let req = Request::new(names.clone()).with_errors(policy.clone());
                run_all(evs, &g, &req, &ctx)?;
            }
        }
    }
}

fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info
                .location()
                .is_some_and(|l| l.file().ends_with("common.rs"))
            {
                default(info)
            }
        }))
    });
}
