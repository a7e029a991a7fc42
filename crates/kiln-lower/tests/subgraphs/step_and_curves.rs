//! `step` scopes written out as one solver node, and animated values.

use super::*;
use kiln_core::value::Value;

fn orbit() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/orbit.json"
    ))
    .unwrap()
}

fn at(eval: &mut LazyEvaluator, g: &Graph, t: f64) -> (Value, u64) {
    let mut ctx = EvalContext::new();
    ctx.time = t;
    let out = eval.evaluate(g, &Request::new(["position"]), &ctx).unwrap();
    (out.get("position").cloned().unwrap(), out.stats.executed)
}

/// The same integrator written out in Rust: semi-implicit Euler, substeps of dt/4.
fn hand_orbit(steps: usize) -> [f64; 2] {
    let (mut p, mut v) = ([1.0f64, 0.0], [0.0f64, 1.2]);
    let h = 0.01 / 4.0;
    for _ in 0..steps * 4 {
        let r = (p[0] * p[0] + p[1] * p[1]).sqrt();
        let r3 = r.powf(3.0);
        for k in 0..2 {
            v[k] += -p[k] / r3 * h;
        }
        for k in 0..2 {
            p[k] += v[k] * h;
        }
    }
    p
}

#[test]
fn a_step_scope_integrates_to_the_clock_pauses_and_seeks_back_to_a_fresh_run() {
    let d = document(&orbit());
    let l = plan(&d.doc, &EvalContext::new()).unwrap();
    assert_eq!(l.report.scopes[0].kind, "step");
    let mut eval = LazyEvaluator::new(registry());
    let (p, _) = at(&mut eval, &l.graph, 1.5);
    let Value::Vec2(p) = p else { panic!("{p:?}") };
    let want = hand_orbit(150);
    assert!(
        (p[0] - want[0]).abs() < 1e-12 && (p[1] - want[1]).abs() < 1e-12,
        "{p:?} vs {want:?}"
    );
    // A paused clock, or a time within the same step, cooks nothing.
    assert_eq!(at(&mut eval, &l.graph, 1.5).1, 0);
    assert_eq!(at(&mut eval, &l.graph, 1.505).1, 0);
    // Forward, then back: the same bits as a fresh evaluator at that time.
    let later = at(&mut eval, &l.graph, 3.0).0;
    let back = at(&mut eval, &l.graph, 0.7).0;
    let fresh = at(&mut LazyEvaluator::new(registry()), &l.graph, 0.7).0;
    assert!(back.same_bits(&fresh));
    assert!(!later.same_bits(&back));
}

#[test]
fn a_step_state_without_its_input_or_output_is_refused_by_name() {
    let text = orbit().replace(r#""vel": "next_vel""#, r#""vel": "nowhere""#);
    let e = plan(&document(&text).doc, &EvalContext::new()).unwrap_err();
    assert!(e.contains("step `planet`") && e.contains("nowhere"), "{e}");
}

fn animated(curve: &str) -> String {
    format!(
        r#"{{"kiln": 1, "nodes": {{
            "c": {{"op": "test.count", "inputs": {{"x": {curve}}}}},
            "twice": {{"op": "math.mul", "inputs": {{"a": "c", "b": 2.0}}}}
          }}, "outputs": {{"r": "twice"}}}}"#
    )
}

fn value_at(eval: &mut LazyEvaluator, g: &Graph, t: f64) -> Value {
    let mut ctx = EvalContext::new();
    ctx.time = t;
    eval.evaluate(g, &Request::new(["r"]), &ctx)
        .unwrap()
        .get("r")
        .cloned()
        .unwrap()
}

#[test]
fn an_animated_input_is_sampled_at_the_clock_and_a_held_stretch_cooks_nothing() {
    // Holds 1 until t = 1, ramps to 3 at t = 2, holds 3 after.
    let text = animated(r#"{"curve": [[0.0, 1.0], [1.0, 1.0], [2.0, 3.0]], "interp": "linear"}"#);
    let l = plan(&document(&text).doc, &EvalContext::new()).unwrap();
    let mut eval = LazyEvaluator::new(registry());
    counting::take();
    assert_eq!(value_at(&mut eval, &l.graph, 0.0), Value::Float(2.0));
    assert_eq!(counting::take(), 1);
    for t in [0.25, 0.5, 0.9] {
        assert_eq!(value_at(&mut eval, &l.graph, t), Value::Float(2.0));
    }
    assert_eq!(
        counting::take(),
        0,
        "the curve holds still: nothing downstream cooks"
    );
    // Halfway up the ramp: 2, doubled.
    assert_eq!(value_at(&mut eval, &l.graph, 1.5), Value::Float(4.0));
    assert_eq!(counting::take(), 1);
}

#[test]
fn an_animated_param_is_sampled_when_the_plan_is_made_and_the_plan_stands_on_the_clock() {
    let text = r#"{"kiln": 1, "nodes": {
        "k": {"op": "const", "params": {"value": {"curve": [[0.0, 0.0], [2.0, 10.0]]}}}
      }, "outputs": {"r": "k"}}"#;
    let d = document(text);
    let mut p = Lowerer::new(registry());
    let mut ctx = EvalContext::new();
    ctx.time = 0.5;
    let a = planned(&mut p, &d, &ctx);
    assert_eq!(
        a.graph.node("k").unwrap().params.get("value"),
        Some(&Value::Float(2.5))
    );
    ctx.time = 1.0;
    let b = planned(&mut p, &d, &ctx);
    assert_eq!(
        b.graph.node("k").unwrap().params.get("value"),
        Some(&Value::Float(5.0))
    );
    assert_eq!(p.counts().made, 2);
}
