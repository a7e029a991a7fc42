//! Property: on generated DAGs the lazy evaluator agrees with a direct reference
//! interpretation, executes each node at most once, and a repeat request executes nothing.

mod common;
use common::*;
use kiln_core::prelude::*;
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Gen {
    Num(f64),
    Add(usize, usize),
    Switch(usize, usize, usize, usize),
}

fn dag() -> impl Strategy<Value = Vec<Gen>> {
    (2usize..60).prop_flat_map(|n| {
        let nodes: Vec<BoxedStrategy<Gen>> = (0..n)
            .map(|i| {
                if i < 2 {
                    (-100i32..100).prop_map(|v| Gen::Num(v as f64 * 0.5)).boxed()
                } else {
                    prop_oneof![
                        3 => (-100i32..100).prop_map(|v| Gen::Num(v as f64 * 0.25)),
                        6 => (0..i, 0..i).prop_map(|(a, b)| Gen::Add(a, b)),
                        2 => (0..i, 0..i, 0..i, 0..i).prop_map(|(x, y, a, b)| Gen::Switch(x, y, a, b)),
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
        }
    }
    g
}

fn reference(spec: &[Gen]) -> Vec<f64> {
    let mut v: Vec<f64> = Vec::with_capacity(spec.len());
    for n in spec {
        let x = match n {
            Gen::Num(x) => *x,
            Gen::Add(a, b) => v[*a] + v[*b],
            Gen::Switch(x, y, a, b) => {
                if v[*x] > v[*y] {
                    v[*a]
                } else {
                    v[*b]
                }
            }
        };
        v.push(x);
    }
    v
}

proptest! {
    #[test]
    fn lazy_matches_reference(spec in dag(), pick in proptest::collection::vec(0usize..1000, 1..5)) {
        let e = env();
        let g = build(&spec);
        prop_assert!(validate(&g, &e.reg).is_empty());
        let want = reference(&spec);
        let names: Vec<String> = pick.iter().map(|p| format!("v{}", p % spec.len())).collect();
        let mut ev = LazyEvaluator::new(e.reg.clone());
        let out = ev.evaluate(&g, &Request::new(names.clone()), &EvalContext::new()).unwrap();
        for (name, v) in &out.values {
            let i: usize = name[1..].parse().unwrap();
            prop_assert_eq!(v.as_f64().unwrap().to_bits(), want[i].to_bits());
        }
        // Never more executions than nodes, and a repeat runs nothing.
        prop_assert!(out.stats.executed as usize <= g.len());
        prop_assert_eq!(e.count.total() as u64, out.stats.executed);
        let again = ev.evaluate(&g, &Request::new(names), &EvalContext::new()).unwrap();
        prop_assert_eq!(again.stats.executed, 0);
        for ((_, a), (_, b)) in out.values.iter().zip(&again.values) {
            prop_assert_eq!(a.content_hash(), b.content_hash());
        }
    }
}
