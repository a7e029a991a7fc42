//! The step solver (`scope.step`) on standard nodes: an orbit against a hand-written loop of
//! the same integrator, static body nodes cooked once, a paused clock running nothing, seeks
//! back and forth against fresh runs, changed args restarting, substeps against a finer dt,
//! the run inputs (time, index, substep), errors naming the inner node, cancellation, the
//! run limit, keys of equal bodies, and memory that does not grow with the step count.

use kiln_core::prelude::*;
use kiln_core::solver::{self, MAX_RUNS_PER_CALL, StepBody, StepBodyError, StepSettings};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Passes `x` through and counts its executions.
struct Count(OpSpec, Arc<AtomicUsize>);

impl Op for Count {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        self.1.fetch_add(1, Ordering::Relaxed);
        out[0] = call.inputs[0].clone();
        Ok(())
    }
    fn infer_outputs(
        &self,
        inputs: &[Option<ValueType>],
        _params: &[Value],
    ) -> Result<Vec<ValueType>, String> {
        Ok(vec![inputs[0].unwrap_or(ValueType::Any)])
    }
}

/// Makes a list of its two inputs (to feed `args` from graph inputs).
struct Pack2(OpSpec);

impl Op for Pack2 {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        out[0] = Value::List(call.inputs.to_vec().into());
        Ok(())
    }
}

/// The standard registry with the solver, `test.count` counting into `static_count` and
/// `test.count_dyn` into `dynamic_count`, and `test.pack2`.
struct Setup {
    reg: Registry,
    static_count: Arc<AtomicUsize>,
    dynamic_count: Arc<AtomicUsize>,
}

fn count_spec(id: &'static str) -> OpSpec {
    OpSpec::new(id, "Passes x through, counting executions.")
        .input(InputSpec::required("x", ValueType::Any, "value"))
        .output(OutputSpec::new("out", ValueType::Any, "the same value"))
}

fn setup() -> Setup {
    let mut reg = kiln_std::registry();
    solver::register(&mut reg).unwrap();
    let static_count = Arc::new(AtomicUsize::new(0));
    let dynamic_count = Arc::new(AtomicUsize::new(0));
    reg.register(Count(count_spec("test.count"), static_count.clone()))
        .unwrap();
    reg.register(Count(count_spec("test.count_dyn"), dynamic_count.clone()))
        .unwrap();
    reg.register(Pack2(
        OpSpec::new("test.pack2", "A list of a and b.")
            .input(InputSpec::required("a", ValueType::Any, "first"))
            .input(InputSpec::required("b", ValueType::Any, "second"))
            .output(OutputSpec::new("out", ValueType::List, "[a, b]")),
    ))
    .unwrap();
    Setup {
        reg,
        static_count,
        dynamic_count,
    }
}

/// Add a body input node `in_<name>` of op `input.<ty>` reading `name`.
fn input(g: &mut Graph, ty: &str, name: &str) {
    let id = format!("in_{name}");
    g.add_node(id.as_str(), &format!("input.{ty}")).unwrap();
    g.set_param(&id, "name", name).unwrap();
}

/// Add node `id` of `op` with wires `(from, port)` into it.
fn node(g: &mut Graph, id: &str, op: &str, wires: &[(&str, &str)]) {
    g.add_node(id, op).unwrap();
    for (from, port) in wires {
        g.wire(from, &format!("{id}.{port}"));
    }
}

/// Add output `name` wired from `from`.
fn output(g: &mut Graph, name: &str, from: &str) {
    node(g, name, "output", &[(from, "value")]);
}

/// An orbit around a point mass `gm` at the origin, semi-implicit Euler:
/// a = -gm · p / |p|³, v' = v + a · dt, p' = p + v' · dt.
fn orbit_body() -> Graph {
    let mut g = Graph::new();
    input(&mut g, "vec2", "pos");
    input(&mut g, "vec2", "vel");
    input(&mut g, "float", "gm");
    input(&mut g, "float", "dt");
    node(&mut g, "r", "vec.length", &[("in_pos", "v")]);
    node(&mut g, "r2", "math.mul", &[("r", "a"), ("r", "b")]);
    node(&mut g, "r3", "math.mul", &[("r2", "a"), ("r", "b")]);
    node(&mut g, "k", "math.div", &[("in_gm", "a"), ("r3", "b")]);
    node(&mut g, "nk", "math.neg", &[("k", "x")]);
    node(&mut g, "acc", "math.mul", &[("in_pos", "a"), ("nk", "b")]);
    node(&mut g, "dv", "math.mul", &[("acc", "a"), ("in_dt", "b")]);
    node(&mut g, "vel2", "math.add", &[("in_vel", "a"), ("dv", "b")]);
    node(&mut g, "dp", "math.mul", &[("vel2", "a"), ("in_dt", "b")]);
    node(&mut g, "pos2", "math.add", &[("in_pos", "a"), ("dp", "b")]);
    output(&mut g, "pos", "pos2");
    output(&mut g, "vel", "vel2");
    g
}

/// The orbit integrator written out in Rust, with the body's operations in its order.
fn orbit_reference(steps: u64, dt: f64, gm: f64) -> ([f64; 2], [f64; 2]) {
    let (mut p, mut v) = ([1.0f64, 0.0], [0.0f64, 1.0]);
    for _ in 0..steps {
        let r = (p[0] * p[0] + p[1] * p[1]).sqrt();
        let r3 = r * r * r;
        let nk = -(gm / r3);
        let acc = [p[0] * nk, p[1] * nk];
        v = [v[0] + acc[0] * dt, v[1] + acc[1] * dt];
        p = [p[0] + v[0] * dt, p[1] + v[1] * dt];
    }
    (p, v)
}

fn orbit_args(gm: f64) -> Value {
    Value::List(
        vec![
            Value::Vec2([1.0, 0.0]),
            Value::Vec2([0.0, 1.0]),
            Value::Float(gm),
        ]
        .into(),
    )
}

fn orbit(reg: &Registry, dt: f64, substeps: u32) -> Value {
    let settings = StepSettings {
        args: vec!["pos".into(), "vel".into(), "gm".into()],
        state: vec!["pos".into(), "vel".into()],
        dt,
        substeps,
    };
    StepBody::new(orbit_body(), reg.clone(), settings)
        .unwrap()
        .into_value()
}

/// An outer graph: node `sim` of `scope.step` with `body` and constant `args`.
fn sim_graph(body: Value, args: Value) -> Graph {
    let mut g = Graph::new();
    g.add_node("sim", solver::STEP_OP).unwrap();
    g.set_param("sim", "body", body).unwrap();
    g.set_const("sim", "args", args).unwrap();
    g
}

fn at(t: f64) -> EvalContext {
    let mut c = EvalContext::new();
    c.time = t;
    c
}

fn state(eval: &mut impl Evaluator, g: &Graph, t: f64) -> Vec<Value> {
    let out = eval.evaluate(g, &Request::new(["sim"]), &at(t)).unwrap();
    out.get("sim").unwrap().as_list().unwrap().to_vec()
}

fn body_of(v: &Value) -> &StepBody {
    v.as_heavy::<StepBody>().unwrap()
}

fn vec2_bits(v: &Value) -> [u64; 2] {
    match v {
        Value::Vec2(a) => a.map(f64::to_bits),
        other => panic!("expected a vec2, found {other:?}"),
    }
}

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

/// A damped spring: x, v state; `stiff` = count(k) reads only the arg k (static);
/// `seen` = count_dyn(x) reads the state. a = -stiff · x, v' = v + a · dt, x' = x + v' · dt.
fn spring_body() -> Graph {
    let mut g = Graph::new();
    input(&mut g, "float", "x");
    input(&mut g, "float", "v");
    input(&mut g, "float", "k");
    input(&mut g, "float", "dt");
    node(&mut g, "stiff", "test.count", &[("in_k", "x")]);
    node(&mut g, "seen", "test.count_dyn", &[("in_x", "x")]);
    node(&mut g, "nstiff", "math.neg", &[("stiff", "x")]);
    node(&mut g, "a", "math.mul", &[("nstiff", "a"), ("seen", "b")]);
    node(&mut g, "dv", "math.mul", &[("a", "a"), ("in_dt", "b")]);
    node(&mut g, "v2", "math.add", &[("in_v", "a"), ("dv", "b")]);
    node(&mut g, "dx", "math.mul", &[("v2", "a"), ("in_dt", "b")]);
    node(&mut g, "x2", "math.add", &[("in_x", "a"), ("dx", "b")]);
    output(&mut g, "x", "x2");
    output(&mut g, "v", "v2");
    g
}

fn spring_reference(steps: u64, dt: f64, k: f64) -> (f64, f64) {
    let (mut x, mut v) = (1.0f64, 0.0f64);
    for _ in 0..steps {
        let a = -k * x;
        v += a * dt;
        x += v * dt;
    }
    (x, v)
}

fn spring(reg: &Registry, dt: f64) -> Value {
    let settings = StepSettings {
        args: vec!["x".into(), "v".into(), "k".into()],
        state: vec!["x".into(), "v".into()],
        dt,
        substeps: 1,
    };
    StepBody::new(spring_body(), reg.clone(), settings)
        .unwrap()
        .into_value()
}

fn spring_args(k: f64) -> Value {
    Value::List(vec![Value::Float(1.0), Value::Float(0.0), Value::Float(k)].into())
}

fn bits(v: &[Value]) -> Vec<u64> {
    v.iter().map(|x| x.as_f64().unwrap().to_bits()).collect()
}

fn spring_bits(steps: u64, dt: f64, k: f64) -> Vec<u64> {
    let (x, v) = spring_reference(steps, dt, k);
    vec![x.to_bits(), v.to_bits()]
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
