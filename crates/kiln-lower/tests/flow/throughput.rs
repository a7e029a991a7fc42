//! A measurement, not a check (ignored by default; no timed assertion): 100,000 entities
//! through a chain of 5 `math.add` nodes in a flow body, beside a hand-written loop over a
//! `Vec` doing the same additions. Run it with
//! `cargo test -p kiln-std --release --test flow throughput -- --ignored --nocapture`.

use super::*;
use std::time::Instant;

const N: usize = 100_000;
const CHAIN: usize = 5;

#[test]
#[ignore]
fn throughput_of_a_five_node_chain() {
    let mut r = reg();
    r.register(ListInput(
        OpSpec::new("t.input.list", "A list input.")
            .role(Role::GraphInput)
            .param(ParamSpec::new(
                "name",
                ValueType::String,
                Value::str("xs"),
                "name",
            ))
            .output(OutputSpec::new("out", ValueType::List, "the list")),
    ))
    .unwrap();
    let mut g = Graph::new();
    g.add_node("xs", "t.input.list").unwrap();
    g.set_param("xs", "name", Value::str("xs")).unwrap();
    let mut prev = "xs".to_string();
    for k in 0..CHAIN {
        let id = format!("add{k}");
        g.add_node(id.as_str(), "math.add").unwrap();
        g.set_const(&id, "b", Value::Float(1.0)).unwrap();
        g.wire(&prev, &format!("{id}.a"));
        prev = id;
    }
    g.add_node("o", "output").unwrap();
    g.wire(&prev, "o.value");
    let settings = FlowSettings {
        args: vec!["xs".into()],
        loops: vec![],
        limits: FlowLimits::default(),
    };
    let body = FlowBody::new(g, r, settings).unwrap();
    let xs: Vec<Value> = (0..N).map(|i| Value::Float(i as f64)).collect();
    let arg = Value::List(xs.into());
    let mut best_flow = f64::INFINITY;
    let mut best_loop = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        let run = body
            .run(std::slice::from_ref(&arg), &EvalContext::new())
            .unwrap();
        best_flow = best_flow.min(t.elapsed().as_secs_f64());
        assert_eq!(run.outputs[0].1.len(), N);
        assert_eq!(
            run.outputs[0].1.get(7),
            Some(Value::Float(7.0 + CHAIN as f64))
        );
        let t = Instant::now();
        let mut v: Vec<f64> = (0..N).map(|i| i as f64).collect();
        for _ in 0..CHAIN {
            for x in v.iter_mut() {
                *x += 1.0;
            }
        }
        std::hint::black_box(&v);
        best_loop = best_loop.min(t.elapsed().as_secs_f64());
    }
    let per = |s: f64| s * 1e9 / (N * CHAIN) as f64;
    println!(
        "flow: {:.1} ns per entity per node; hand loop: {:.2} ns; ratio {:.0}x",
        per(best_flow),
        per(best_loop),
        best_flow / best_loop
    );
}
