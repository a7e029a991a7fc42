//! Step bodies and helpers shared by the step solver tests: counting ops, an orbit and a
//! spring body with their hand-written Rust loops, and the outer graph of one `scope.step`.
#![allow(dead_code)]

use kiln_core::prelude::*;
use kiln_lower::solver::{self, StepBody, StepSettings};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Passes `x` through and counts its executions.
pub struct Count(OpSpec, Arc<AtomicUsize>);

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
pub struct Pack2(OpSpec);

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
pub struct Setup {
    pub reg: Registry,
    pub static_count: Arc<AtomicUsize>,
    pub dynamic_count: Arc<AtomicUsize>,
}

pub fn count_spec(id: &'static str) -> OpSpec {
    OpSpec::new(id, "Passes x through, counting executions.")
        .input(InputSpec::required("x", ValueType::Any, "value"))
        .output(OutputSpec::new("out", ValueType::Any, "the same value"))
}

pub fn setup() -> Setup {
    let mut reg = kiln_std::registry();
    kiln_lower::register(&mut reg).unwrap();
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
pub fn input(g: &mut Graph, ty: &str, name: &str) {
    let id = format!("in_{name}");
    g.add_node(id.as_str(), &format!("input.{ty}")).unwrap();
    g.set_param(&id, "name", name).unwrap();
}

/// Add node `id` of `op` with wires `(from, port)` into it.
pub fn node(g: &mut Graph, id: &str, op: &str, wires: &[(&str, &str)]) {
    g.add_node(id, op).unwrap();
    for (from, port) in wires {
        g.wire(from, &format!("{id}.{port}"));
    }
}

/// Add output `name` wired from `from`.
pub fn output(g: &mut Graph, name: &str, from: &str) {
    node(g, name, "output", &[(from, "value")]);
}

/// An orbit around a point mass `gm` at the origin, semi-implicit Euler:
/// a = -gm · p / |p|³, v' = v + a · dt, p' = p + v' · dt.
pub fn orbit_body() -> Graph {
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
pub fn orbit_reference(steps: u64, dt: f64, gm: f64) -> ([f64; 2], [f64; 2]) {
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

pub fn orbit_args(gm: f64) -> Value {
    Value::List(
        vec![
            Value::Vec2([1.0, 0.0]),
            Value::Vec2([0.0, 1.0]),
            Value::Float(gm),
        ]
        .into(),
    )
}

pub fn orbit(reg: &Registry, dt: f64, substeps: u32) -> Value {
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
pub fn sim_graph(body: Value, args: Value) -> Graph {
    let mut g = Graph::new();
    g.add_node("sim", solver::STEP_OP).unwrap();
    g.set_param("sim", "body", body).unwrap();
    g.set_const("sim", "args", args).unwrap();
    g
}

pub fn at(t: f64) -> EvalContext {
    let mut c = EvalContext::new();
    c.time = t;
    c
}

pub fn state(eval: &mut impl Evaluator, g: &Graph, t: f64) -> Vec<Value> {
    let out = eval.evaluate(g, &Request::new(["sim"]), &at(t)).unwrap();
    out.get("sim").unwrap().as_list().unwrap().to_vec()
}

pub fn body_of(v: &Value) -> &StepBody {
    v.as_heavy::<StepBody>().unwrap()
}

pub fn vec2_bits(v: &Value) -> [u64; 2] {
    match v {
        Value::Vec2(a) => a.map(f64::to_bits),
        other => panic!("expected a vec2, found {other:?}"),
    }
}

/// A damped spring: x, v state; `stiff` = count(k) reads only the arg k (static);
/// `seen` = count_dyn(x) reads the state. a = -stiff · x, v' = v + a · dt, x' = x + v' · dt.
pub fn spring_body() -> Graph {
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

pub fn spring_reference(steps: u64, dt: f64, k: f64) -> (f64, f64) {
    let (mut x, mut v) = (1.0f64, 0.0f64);
    for _ in 0..steps {
        let a = -k * x;
        v += a * dt;
        x += v * dt;
    }
    (x, v)
}

pub fn spring(reg: &Registry, dt: f64) -> Value {
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

pub fn spring_args(k: f64) -> Value {
    Value::List(vec![Value::Float(1.0), Value::Float(0.0), Value::Float(k)].into())
}

pub fn bits(v: &[Value]) -> Vec<u64> {
    v.iter().map(|x| x.as_f64().unwrap().to_bits()).collect()
}

pub fn spring_bits(steps: u64, dt: f64, k: f64) -> Vec<u64> {
    let (x, v) = spring_reference(steps, dt, k);
    vec![x.to_bits(), v.to_bits()]
}
