//! Generated documents: a random body of arithmetic called once, over a `for` with a carry,
//! and by a `fold`, nested inside another graph; every evaluator must give the same bits as
//! the same arithmetic written directly in Rust.

use super::*;
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Step {
    Add(f64),
    Mul(f64),
    Min(f64),
}

impl Step {
    fn apply(&self, x: f64) -> f64 {
        match self {
            Step::Add(k) => x + k,
            Step::Mul(k) => x * k,
            Step::Min(k) => x.min(*k),
        }
    }
    fn op(&self) -> (&'static str, f64) {
        match self {
            Step::Add(k) => ("math.add", *k),
            Step::Mul(k) => ("math.mul", *k),
            Step::Min(k) => ("math.min", *k),
        }
    }
}

fn step() -> impl Strategy<Value = Step> {
    let k = (-8i32..8).prop_map(|i| i as f64 * 0.5);
    prop_oneof![
        k.clone().prop_map(Step::Add),
        k.clone().prop_map(Step::Mul),
        k.prop_map(Step::Min)
    ]
}

/// The body: `y = steps(x) + item` (item defaults to 0 outside a `for`).
fn body(steps: &[Step]) -> String {
    let mut nodes = vec![];
    let mut prev = "x".to_string();
    for (i, s) in steps.iter().enumerate() {
        let (op, k) = s.op();
        nodes.push(format!(
            r#""s{i}": {{"op": "{op}", "inputs": {{"a": "{prev}", "b": {k:?}}}}}"#
        ));
        prev = format!("s{i}");
    }
    nodes.push(format!(
        r#""plus": {{"op": "math.add", "inputs": {{"a": "{prev}", "b": "item"}}}}"#
    ));
    format!(
        r#"{{"inputs": {{"x": {{"type": "float", "default": 0.0}}, "item": {{"type": "float", "default": 0.0}}}},
           "nodes": {{{}}}, "outputs": {{"y": "plus"}}}}"#,
        nodes.join(", ")
    )
}

fn run_steps(steps: &[Step], x: f64, item: f64) -> f64 {
    steps.iter().fold(x, |x, s| s.apply(x)) + item
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]
    #[test]
    fn every_evaluator_gives_the_bits_of_the_direct_computation(
        steps in proptest::collection::vec(step(), 1..5),
        items in proptest::collection::vec((-4i32..4).prop_map(|i| i as f64), 0..6),
        passes in 0u32..5,
        x in (-3i32..3).prop_map(|i| i as f64),
    ) {
        let list: Vec<String> = items.iter().map(|v| format!("{v:?}")).collect();
        let text = format!(
            r#"{{"kiln": 1,
              "graphs": {{
                "body": {},
                "outer": {{
                  "inputs": {{"x": {{"type": "float", "default": 0.0}}}},
                  "nodes": {{
                    "once": {{"op": "@body", "inputs": {{"x": "x"}}}},
                    "each": {{"op": "@body", "for": {{"items": [{}], "carry": {{"x": "y"}}}}, "inputs": {{"x": "once.y"}}}},
                    "again": {{"op": "@body", "fold": {{"count": {passes}, "state": {{"x": "y"}}}}, "inputs": {{"x": "each.y"}}}}
                  }},
                  "outputs": {{"y": "again.y"}}
                }}
              }},
              "nodes": {{"top": {{"op": "@outer", "inputs": {{"x": {x:?}}}}}}},
              "outputs": {{"r": "top.y"}}}}"#,
            body(&steps),
            list.join(", ")
        );
        let mut want = run_steps(&steps, x, 0.0);
        for it in &items {
            want = run_steps(&steps, want, *it);
        }
        for _ in 0..passes {
            want = run_steps(&steps, want, 0.0);
        }
        let got = cook_all(&text, "r");
        prop_assert!(got.same_bits(&Value::Float(want)), "got {:?}, want {}", got, want);
    }
}
