//! Graphs of one simulation wired through a latch, and runs of them.
#![allow(dead_code)]

pub mod fixture;

use kiln_core::prelude::*;
use kiln_core::recurrence::Recurrent;
use kiln_sim::Grid;

/// The latch and the step after a node `seed` that gives the first state:
/// `seed → latch.init`, `latch → sim.state → latch.signal`.
fn wire_step(g: &mut Graph, step: &str, step_params: &[(&str, Value)]) {
    g.add_node("state", "latch").unwrap();
    g.add_node("sim", step).unwrap();
    for (k, v) in step_params {
        g.set_param("sim", k, v.clone()).unwrap();
    }
    g.wire("seed.out", "state.init");
    g.wire("state.out", "sim.state");
    g.wire("sim.out", "state.signal");
}

/// `init → latch → step → latch.signal`, with the step's output named `sim`.
pub fn latch_graph(
    init: &str,
    init_params: &[(&str, Value)],
    step: &str,
    step_params: &[(&str, Value)],
) -> Graph {
    let mut g = Graph::new();
    g.add_node("seed", init).unwrap();
    for (k, v) in init_params {
        g.set_param("seed", k, v.clone()).unwrap();
    }
    wire_step(&mut g, step, step_params);
    g
}

/// Every evaluator, by name.
pub fn evaluators() -> Vec<(&'static str, Box<dyn Evaluator>)> {
    let r = kiln_sim::registry;
    vec![
        ("lazy", Box::new(LazyEvaluator::new(r()))),
        ("eager", Box::new(EagerEvaluator::new(r()))),
        ("compiled", Box::new(CompiledEvaluator::new(r()))),
        ("incremental", Box::new(IncrementalEvaluator::new(r()))),
    ]
}

/// The output `sim` of each of `ticks` ticks.
pub fn run<E: Evaluator>(driver: &mut Recurrent<E>, g: &Graph, ticks: u64) -> Vec<Value> {
    let req = Request::new(["sim"]);
    let ctx = EvalContext::new();
    (0..ticks)
        .map(|_| {
            driver
                .tick(g, &req, &ctx)
                .unwrap()
                .get("sim")
                .unwrap()
                .clone()
        })
        .collect()
}

/// The grid a value holds.
pub fn grid(v: &Value) -> &Grid {
    v.as_heavy::<Grid>().expect("a grid")
}

/// Whether two grids hold the same bits.
pub fn same_bits(a: &Grid, b: &Grid) -> bool {
    (a.width(), a.height(), a.channels()) == (b.width(), b.height(), b.channels())
        && a.data()
            .iter()
            .zip(b.data())
            .all(|(x, y)| x.to_bits() == y.to_bits())
}

/// `const → latch → step → latch.signal`: a run from the state `start` (a `const` node's
/// value), the step's output named `sim`.
pub fn seeded_graph(start: Value, step: &str, step_params: &[(&str, Value)]) -> Graph {
    let mut g = Graph::new();
    g.add_node("seed", "const").unwrap();
    g.set_param("seed", "value", start).unwrap();
    wire_step(&mut g, step, step_params);
    g
}

/// The seed's value and the output `sim` of each of `ticks` ticks, by the lazy evaluator.
pub fn run_lazy(g: &Graph, ticks: u64) -> (Value, Vec<Value>) {
    let mut driver = Recurrent::new(
        LazyEvaluator::new(kiln_sim::registry()),
        kiln_sim::registry(),
    );
    let req = Request::new(["seed", "sim"]);
    let ctx = EvalContext::new();
    let mut seed = Value::Empty;
    let mut outs = vec![];
    for _ in 0..ticks {
        let o = driver.tick(g, &req, &ctx).unwrap();
        seed = o.get("seed").unwrap().clone();
        outs.push(o.get("sim").unwrap().clone());
    }
    (seed, outs)
}

/// Particle settings under which nothing emits, moves or dies: a test sets what it looks at.
pub fn still_particles() -> kiln_sim::particle_step::ParticleSettings {
    kiln_sim::particle_step::ParticleSettings {
        dt: 0.1,
        seed: 1,
        emitter: [0.0; 3],
        spread: [0.0; 3],
        rate: 0.0,
        burst_every: 0.0,
        burst: 0,
        speed: 0.0,
        life: 1e9,
        life_jitter: 0.0,
        gravity: [0.0; 3],
        wind: [0.0; 3],
        drag: 0.0,
        noise: 0.0,
        noise_scale: 1.0,
        vortex: 0.0,
        vortex_center: [0.0; 3],
        floor_on: false,
        floor: 0.0,
        sphere_center: [0.0; 3],
        sphere_radius: 0.0,
        bounce: 0.5,
    }
}
