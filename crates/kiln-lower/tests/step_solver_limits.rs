//! The step solver's keys, limits and failures: errors naming the inner node, cancellation,
//! the run limit, keys of equal bodies, refused settings, a body reading the seed, and
//! memory that does not grow with the step count.

mod step_bodies;

use kiln_core::prelude::*;
use kiln_lower::solver::{self, MAX_RUNS_PER_CALL, StepBody, StepBodyError, StepSettings};
use std::sync::atomic::Ordering;
use step_bodies::*;

#[test]
fn an_error_in_the_body_names_the_inner_node_and_port() {
    let s = setup();
    // n' = n + 1, q = 1 / (3 - n) in ints: fails at the step that sees n = 3.
    let mut b = Graph::new();
    input(&mut b, "int", "n");
    input(&mut b, "int", "q");
    node(&mut b, "next", "math.add", &[("in_n", "a")]);
    b.set_const("next", "b", 1i64).unwrap();
    node(&mut b, "d", "math.sub", &[("in_n", "b")]);
    b.set_const("d", "a", 3i64).unwrap();
    node(&mut b, "div", "math.div", &[("d", "b")]);
    b.set_const("div", "a", 1i64).unwrap();
    output(&mut b, "n", "next");
    output(&mut b, "q", "div");
    let settings = StepSettings {
        args: vec!["n".into(), "q".into()],
        state: vec!["n".into(), "q".into()],
        dt: 1.0,
        substeps: 1,
    };
    let body = StepBody::new(b, s.reg.clone(), settings)
        .unwrap()
        .into_value();
    let g = sim_graph(body, Value::List(vec![Value::Int(0), Value::Int(0)].into()));
    let mut eval = LazyEvaluator::new(s.reg.clone());
    assert_eq!(state(&mut eval, &g, 3.0)[0], Value::Int(3));
    let err = eval
        .evaluate(&g, &Request::new(["sim"]), &at(10.0))
        .unwrap_err();
    let EvalError::Node {
        node, op, message, ..
    } = &err
    else {
        panic!("expected a node error, found {err:?}");
    };
    assert_eq!(node.as_str(), "sim");
    assert_eq!(op, solver::STEP_OP);
    for part in [
        "step 3",
        "`div`",
        "math.div",
        "input `b`",
        "division by zero",
    ] {
        assert!(message.contains(part), "{part:?} missing from {message:?}");
    }
}

#[test]
fn cancellation_stops_the_steps() {
    let s = setup();
    let g = sim_graph(spring(&s.reg, 0.01), spring_args(1.0));
    let mut eval = LazyEvaluator::new(s.reg.clone());
    let c = at(1000.0);
    c.cancel.cancel();
    let err = eval.evaluate(&g, &Request::new(["sim"]), &c).unwrap_err();
    assert_eq!(err, EvalError::Cancelled);
}

#[test]
fn too_many_runs_fail_clearly_instead_of_hanging() {
    let s = setup();
    let dt = 1e-6;
    let g = sim_graph(spring(&s.reg, dt), spring_args(1.0));
    let mut eval = LazyEvaluator::new(s.reg.clone());
    // 10^9 steps > the limit of 10^7 runs per call.
    let err = eval
        .evaluate(&g, &Request::new(["sim"]), &at(1000.0))
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains(&MAX_RUNS_PER_CALL.to_string()) && msg.contains("limit"),
        "{msg}"
    );
    assert!(msg.contains("sim"), "{msg}");
}

#[test]
fn equal_bodies_key_equal_and_settings_enter_the_key() {
    let s = setup();
    let hash = |v: &Value| match v {
        Value::Heavy(h) => h.content_hash(),
        _ => panic!("not heavy"),
    };
    assert_eq!(hash(&spring(&s.reg, 0.1)), hash(&spring(&s.reg, 0.1)));
    assert_ne!(hash(&spring(&s.reg, 0.1)), hash(&spring(&s.reg, 0.2)));
    assert_ne!(hash(&orbit(&s.reg, 0.1, 1)), hash(&orbit(&s.reg, 0.1, 2)));
    let mut edited = spring_body();
    edited.set_param("in_k", "default", 2.0).unwrap();
    let settings = body_of(&spring(&s.reg, 0.1)).settings().clone();
    let other = StepBody::new(edited, s.reg.clone(), settings)
        .unwrap()
        .into_value();
    assert_ne!(hash(&spring(&s.reg, 0.1)), hash(&other));
}

#[test]
fn bad_settings_are_refused_with_typed_errors() {
    let s = setup();
    let settings = |dt: f64, substeps: u32, args: &[&str], state: &[&str]| StepSettings {
        args: args.iter().map(|a| a.to_string()).collect(),
        state: state.iter().map(|a| a.to_string()).collect(),
        dt,
        substeps,
    };
    let make = |st: StepSettings| StepBody::new(spring_body(), s.reg.clone(), st).err();
    let ok = ["x", "v", "k"];
    assert_eq!(
        make(settings(0.0, 1, &ok, &["x"])),
        Some(StepBodyError::BadDt(0.0))
    );
    assert!(matches!(
        make(settings(f64::NAN, 1, &ok, &["x"])),
        Some(StepBodyError::BadDt(_))
    ));
    assert_eq!(
        make(settings(0.1, 0, &ok, &["x"])),
        Some(StepBodyError::BadSubsteps(0))
    );
    assert_eq!(
        make(settings(0.1, 1, &["x", "x"], &["x"])),
        Some(StepBodyError::DuplicateArg("x".into()))
    );
    assert_eq!(
        make(settings(0.1, 1, &["x", "dt"], &["x"])),
        Some(StepBodyError::ReservedName("dt".into()))
    );
    assert_eq!(
        make(settings(0.1, 1, &ok, &["nope"])),
        Some(StepBodyError::StateNotInput("nope".into()))
    );
    // `k` is an input but no output.
    assert_eq!(
        make(settings(0.1, 1, &ok, &["k"])),
        Some(StepBodyError::StateNotOutput("k".into()))
    );
    assert_eq!(
        make(settings(0.1, 1, &["v", "k"], &["x"])),
        Some(StepBodyError::StateNotInArgs("x".into()))
    );
    let mut broken = spring_body();
    broken.add_node("bad", "no.such.op").unwrap();
    let err = StepBody::new(broken, s.reg.clone(), settings(0.1, 1, &ok, &["x"])).err();
    assert!(matches!(err, Some(StepBodyError::Invalid(_))), "{err:?}");
}

#[test]
fn wrong_args_fail_naming_the_input() {
    let s = setup();
    let g = sim_graph(
        spring(&s.reg, 0.1),
        Value::List(vec![Value::Float(1.0)].into()),
    );
    let mut eval = LazyEvaluator::new(s.reg.clone());
    let err = eval
        .evaluate(&g, &Request::new(["sim"]), &at(1.0))
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("input `args`") && msg.contains("x, v, k"),
        "{msg}"
    );
}

#[test]
fn a_body_reading_the_seed_is_keyed_by_it() {
    let s = setup();
    // x' = x + seed.
    let mut b = Graph::new();
    input(&mut b, "float", "x");
    node(&mut b, "seed", "clock.seed", &[]);
    node(&mut b, "x2", "math.add", &[("in_x", "a"), ("seed", "b")]);
    output(&mut b, "x", "x2");
    let settings = StepSettings {
        args: vec!["x".into()],
        state: vec!["x".into()],
        dt: 1.0,
        substeps: 1,
    };
    let body = StepBody::new(b, s.reg.clone(), settings).unwrap();
    assert!(body.context_reads().has(Reads::SEED));
    let g = sim_graph(
        body.into_value(),
        Value::List(vec![Value::Float(0.0)].into()),
    );
    let mut eval = LazyEvaluator::new(s.reg.clone());
    for seed in [2u64, 5, 2] {
        let mut c = at(3.0);
        c.seed = seed;
        let out = eval.evaluate(&g, &Request::new(["sim"]), &c).unwrap();
        let x = out.get("sim").unwrap().as_list().unwrap()[0].clone();
        assert_eq!(x, Value::Float(3.0 * seed as f64));
    }
}

#[test]
fn memory_does_not_grow_with_the_step_count() {
    let s = setup();
    let dt = 0.001;
    let body = spring(&s.reg, dt);
    let g = sim_graph(body.clone(), spring_args(1.0));
    let mut eval = IncrementalEvaluator::new(s.reg.clone());
    state(&mut eval, &g, 1000.0 * dt);
    let early = body_of(&body).memory_report();
    let got = state(&mut eval, &g, 200_000.0 * dt);
    let late = body_of(&body).memory_report();
    assert_eq!(early.total_bytes(), late.total_bytes());
    assert_eq!(early.total_entries(), late.total_entries());
    assert_eq!(bits(&got), spring_bits(200_000, dt, 1.0));
    assert_eq!(s.static_count.load(Ordering::Relaxed), 1);
}
