//! The step solver (`scope.step`) on standard nodes: an orbit against a hand-written loop of
//! the same integrator, static body nodes cooked once, a paused clock running nothing, seeks
//! back and forth against fresh runs, changed args restarting, substeps against a finer dt,
//! and the run inputs (time, index, substep).

mod step_bodies;

use kiln_core::prelude::*;
use kiln_lower::solver::{self, StepBody, StepSettings};
use std::sync::atomic::Ordering;
use step_bodies::*;

#[test]
fn orbit_matches_the_hand_written_loop_bit_for_bit() {
    let s = setup();
    let dt = 0.01;
    let body = orbit(&s.reg, dt, 1);
    let g = sim_graph(body.clone(), orbit_args(1.0));
    let mut lazy = LazyEvaluator::new(s.reg.clone());
    let mut live = IncrementalEvaluator::new(s.reg.clone());
    for steps in [0u64, 1, 2, 157, 628] {
        let (p, v) = orbit_reference(steps, dt, 1.0);
        let t = steps as f64 * dt;
        for got in [state(&mut lazy, &g, t), state(&mut live, &g, t)] {
            assert_eq!(vec2_bits(&got[0]), p.map(f64::to_bits), "pos after {steps}");
            assert_eq!(vec2_bits(&got[1]), v.map(f64::to_bits), "vel after {steps}");
        }
    }
    // A circular orbit (gm = 1, r = 1, v = 1) stays near radius 1.
    let (p, _) = orbit_reference(628, dt, 1.0);
    assert!(((p[0] * p[0] + p[1] * p[1]).sqrt() - 1.0).abs() < 0.05);
}

#[test]
fn static_body_nodes_cook_once_over_a_thousand_steps() {
    let s = setup();
    let dt = 0.01;
    let g = sim_graph(spring(&s.reg, dt), spring_args(4.0));
    let mut eval = LazyEvaluator::new(s.reg.clone());
    // One call of 1000 steps, then 1000 calls of one step each.
    let got = state(&mut eval, &g, 1000.0 * dt);
    assert_eq!(bits(&got), spring_bits(1000, dt, 4.0));
    assert_eq!(s.static_count.load(Ordering::Relaxed), 1);
    assert_eq!(s.dynamic_count.load(Ordering::Relaxed), 1000);
    for n in 1001..=2000u64 {
        state(&mut eval, &g, n as f64 * dt);
    }
    assert_eq!(s.static_count.load(Ordering::Relaxed), 1);
    assert_eq!(s.dynamic_count.load(Ordering::Relaxed), 2000);
    assert_eq!(
        bits(&state(&mut eval, &g, 2000.0 * dt)),
        spring_bits(2000, dt, 4.0)
    );
}

#[test]
fn a_paused_clock_or_a_time_within_the_step_runs_nothing() {
    let s = setup();
    let dt = 0.1;
    let body = spring(&s.reg, dt);
    let g = sim_graph(body.clone(), spring_args(2.0));
    for mut eval in [
        Box::new(LazyEvaluator::new(s.reg.clone())) as Box<dyn Evaluator>,
        Box::new(IncrementalEvaluator::new(s.reg.clone())),
    ] {
        body_of(&body).clear_progress();
        let first = state(&mut eval, &g, 10.0 * dt);
        let runs = body_of(&body).runs();
        for t in [10.0 * dt, 10.0 * dt, 10.5 * dt, 10.99 * dt] {
            let out = eval.evaluate(&g, &Request::new(["sim"]), &at(t)).unwrap();
            assert_eq!(out.stats.executed, 0, "t = {t}");
            assert_eq!(out.get("sim").unwrap().as_list().unwrap(), &first[..]);
        }
        assert_eq!(body_of(&body).runs(), runs);
        // The next step runs exactly one body run.
        let next = state(&mut eval, &g, 11.0 * dt);
        assert_eq!(body_of(&body).runs(), runs + 1);
        assert_eq!(bits(&next), spring_bits(11, dt, 2.0));
    }
}

#[test]
fn seeking_back_replays_and_gives_the_bits_of_a_fresh_run() {
    let s = setup();
    let dt = 1.0 / 60.0;
    let body = spring(&s.reg, dt);
    let g = sim_graph(body.clone(), spring_args(9.0));
    let mut eval = LazyEvaluator::new(s.reg.clone());
    let fresh = |steps: u64| {
        let g = sim_graph(spring(&s.reg, dt), spring_args(9.0));
        let mut e = LazyEvaluator::new(s.reg.clone());
        bits(&state(&mut e, &g, steps as f64 * dt))
    };
    state(&mut eval, &g, 200.0 * dt);
    assert_eq!(body_of(&body).runs(), 200);
    // Back to 50: replayed from step 0 (50 runs), same bits as a fresh run.
    let back = bits(&state(&mut eval, &g, 50.0 * dt));
    assert_eq!(body_of(&body).runs(), 250);
    assert_eq!(back, fresh(50));
    assert_eq!(back, spring_bits(50, dt, 9.0));
    // Forward to 120 continues from 50 (70 runs).
    let fwd = bits(&state(&mut eval, &g, 120.0 * dt));
    assert_eq!(body_of(&body).runs(), 320);
    assert_eq!(fwd, fresh(120));
    // Forward to 200: a memo hit in the lazy evaluator (the key of step 200 is known).
    assert_eq!(bits(&state(&mut eval, &g, 200.0 * dt)), fresh(200));
    assert_eq!(body_of(&body).runs(), 320);
}

#[test]
fn changed_args_restart_from_step_zero() {
    let s = setup();
    let dt = 0.05;
    let body = spring(&s.reg, dt);
    // The args constant edited in place (a data edit, as an editor would make).
    let mut g = sim_graph(body.clone(), spring_args(1.0));
    let mut eval = IncrementalEvaluator::new(s.reg.clone());
    assert_eq!(
        bits(&state(&mut eval, &g, 40.0 * dt)),
        spring_bits(40, dt, 1.0)
    );
    assert_eq!(body_of(&body).runs(), 40);
    g.set_const("sim", "args", spring_args(3.0)).unwrap();
    assert_eq!(
        bits(&state(&mut eval, &g, 40.0 * dt)),
        spring_bits(40, dt, 3.0)
    );
    assert_eq!(body_of(&body).runs(), 80, "a full replay of 40 steps");
    assert_eq!(
        bits(&state(&mut eval, &g, 41.0 * dt)),
        spring_bits(41, dt, 3.0)
    );
    assert_eq!(body_of(&body).runs(), 81);
}

#[test]
fn args_fed_from_graph_inputs_restart_when_an_input_changes() {
    let s = setup();
    let dt = 0.05;
    // A body with args [x, k] (no velocity): x' = x - k · x · dt (exponential decay).
    let mut b = Graph::new();
    input(&mut b, "float", "x");
    input(&mut b, "float", "k");
    input(&mut b, "float", "dt");
    node(&mut b, "kx", "math.mul", &[("in_k", "a"), ("in_x", "b")]);
    node(&mut b, "d", "math.mul", &[("kx", "a"), ("in_dt", "b")]);
    node(&mut b, "x2", "math.sub", &[("in_x", "a"), ("d", "b")]);
    output(&mut b, "x", "x2");
    let settings = StepSettings {
        args: vec!["x".into(), "k".into()],
        state: vec!["x".into()],
        dt,
        substeps: 1,
    };
    let body = StepBody::new(b, s.reg.clone(), settings)
        .unwrap()
        .into_value();
    let mut g = Graph::new();
    g.add_node("k", "input.float").unwrap();
    g.set_param("k", "name", "k").unwrap();
    g.add_node("args", "test.pack2").unwrap();
    g.set_const("args", "a", 1.0).unwrap();
    g.wire("k.out", "args.b");
    g.add_node("sim", solver::STEP_OP).unwrap();
    g.set_param("sim", "body", body.clone()).unwrap();
    g.wire("args.out", "sim.args");
    let reference = |steps: u64, k: f64| {
        let mut x = 1.0f64;
        for _ in 0..steps {
            x -= k * x * dt;
        }
        x.to_bits()
    };
    let mut eval = LazyEvaluator::new(s.reg.clone());
    let run = |eval: &mut LazyEvaluator, k: f64, steps: u64| {
        let mut c = at(steps as f64 * dt).with_input("k", k);
        c.frame = steps as i64;
        let out = eval.evaluate(&g, &Request::new(["sim"]), &c).unwrap();
        bits(out.get("sim").unwrap().as_list().unwrap())[0]
    };
    assert_eq!(run(&mut eval, 0.5, 30), reference(30, 0.5));
    assert_eq!(body_of(&body).runs(), 30);
    assert_eq!(run(&mut eval, 2.0, 30), reference(30, 2.0));
    assert_eq!(body_of(&body).runs(), 60);
    // Back to k = 0.5 at step 30: the lazy memo answers.
    assert_eq!(run(&mut eval, 0.5, 30), reference(30, 0.5));
    assert_eq!(body_of(&body).runs(), 60);
    // At step 31 with k = 0.5 the progress (at k = 2) does not fit: replay 31 steps.
    assert_eq!(run(&mut eval, 0.5, 31), reference(31, 0.5));
    assert_eq!(body_of(&body).runs(), 91);
}

#[test]
fn four_substeps_equal_a_quarter_dt_and_four_times_the_steps() {
    let s = setup();
    let coarse = orbit(&s.reg, 0.1, 4);
    let fine = orbit(&s.reg, 0.1 / 4.0, 1);
    let mut eval = LazyEvaluator::new(s.reg.clone());
    for t in [0.0, 0.1, 0.5, 2.0, 3.7] {
        let a = state(&mut eval, &sim_graph(coarse.clone(), orbit_args(1.0)), t);
        let n = solver::steps_at(t, 0.1);
        let b = state(
            &mut eval,
            &sim_graph(fine.clone(), orbit_args(1.0)),
            (4 * n) as f64 * (0.1 / 4.0),
        );
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(vec2_bits(x), vec2_bits(y), "t = {t}");
        }
        let (p, v) = orbit_reference(4 * n, 0.1 / 4.0, 1.0);
        assert_eq!(vec2_bits(&a[0]), p.map(f64::to_bits));
        assert_eq!(vec2_bits(&a[1]), v.map(f64::to_bits));
    }
}

/// A body recording what each run sees: `t` = the run's time input, `sum` += index,
/// `subs` += substep, `runs` += 1, `clock` = the context clock's time.
fn probe_body() -> Graph {
    let mut g = Graph::new();
    input(&mut g, "float", "t");
    input(&mut g, "int", "sum");
    input(&mut g, "int", "subs");
    input(&mut g, "int", "runs");
    input(&mut g, "float", "time");
    input(&mut g, "int", "index");
    input(&mut g, "int", "substep");
    node(
        &mut g,
        "sum2",
        "math.add",
        &[("in_sum", "a"), ("in_index", "b")],
    );
    node(
        &mut g,
        "subs2",
        "math.add",
        &[("in_subs", "a"), ("in_substep", "b")],
    );
    node(&mut g, "runs2", "math.add", &[("in_runs", "a")]);
    g.set_const("runs2", "b", 1i64).unwrap();
    output(&mut g, "t", "in_time");
    output(&mut g, "sum", "sum2");
    output(&mut g, "subs", "subs2");
    output(&mut g, "runs", "runs2");
    g
}

#[test]
fn each_run_sees_its_time_index_and_substep() {
    let s = setup();
    let dt = 0.5;
    let names = ["t", "sum", "subs", "runs"].map(String::from).to_vec();
    let settings = StepSettings {
        args: names.clone(),
        state: names,
        dt,
        substeps: 4,
    };
    let body = StepBody::new(probe_body(), s.reg.clone(), settings)
        .unwrap()
        .into_value();
    let args = Value::List(
        vec![
            Value::Float(-1.0),
            Value::Int(0),
            Value::Int(0),
            Value::Int(0),
        ]
        .into(),
    );
    let g = sim_graph(body, args);
    let mut eval = LazyEvaluator::new(s.reg.clone());
    // Before the first step: the initial values.
    let got = state(&mut eval, &g, 0.25);
    assert_eq!(got[0], Value::Float(-1.0));
    assert_eq!(got[3], Value::Int(0));
    // After n = 3 steps of 4 substeps: 12 runs; the last ran at (2·4 + 3) · 0.5/4 = 1.375;
    // index summed over runs: 4·(0 + 1 + 2) = 12; substep summed: 3·(0 + 1 + 2 + 3) = 18.
    let got = state(&mut eval, &g, 1.5);
    assert_eq!(got[0], Value::Float(1.375));
    assert_eq!(got[1], Value::Int(12));
    assert_eq!(got[2], Value::Int(18));
    assert_eq!(got[3], Value::Int(12));
}
