//! Gray–Scott through a latch beside a hand-written double-buffer loop of the same step.
//!
//! The workload: a 256 × 256 Gray–Scott field (`sim.grayscott.init`, 10 spots), stepped
//! 1,000 times (one Euler step a tick, feed 0.055, kill 0.062, du 1, dv 0.5, dt 1).
//!
//! * `hand`: two `Vec<[f32; 2]>` swapped after each step, the step written out here from the
//!   equations with the same arithmetic order as `kiln_sim::gray_scott`, one thread; its
//!   edge cells wrap and the cells between index their neighbours directly.
//! * `kiln`: `init → latch → sim.grayscott.step → latch.signal` ticked 1,000 times by
//!   `Recurrent` on the incremental evaluator, on a Rayon pool of one thread (the same work
//!   as `hand`), requesting the step's output every tick.
//! * `kiln_threads`: the same on the default Rayon pool (one thread per core).
//!
//! Checks, before and after timing: the three give the same bits after 1,000 ticks. The
//! summary prints each variant's median time per run and ns per cell update, `kiln / hand`
//! (the goal: within 1.1×) and how many grid buffers Kiln allocated during the
//! timed runs (0 once the pool holds the double buffer).
//!
//! Particles: 100,000 live particles (a burst, living far longer than the run) under gravity
//! and drag, ten ticks a run: `particles_hand` updates a `Vec` of them in a plain loop (one
//! thread), `particles_kiln` ticks `sim.particles.init → latch → sim.particles.step` from a
//! restored state holding them (one thread). The summary prints ns per particle per tick
//! and how many particle buffers Kiln allocated afresh during the timed runs (each run's
//! first ticks, until the shelf holds the double buffer).
//!
//! Run: `cargo bench -p kiln-bench --bench sim`.

use criterion::Criterion;
use kiln_bench::summary::{Plan, bench_mode, loadavg, time_runs, verdict};
use kiln_core::prelude::*;
use kiln_core::recurrence::Recurrent;
use kiln_sim::Grid;
use std::time::Duration;

const SIDE: usize = 256;
const TICKS: u64 = 1_000;
const PLAN: Plan = Plan {
    reps: 7,
    target: Duration::from_millis(500),
    max_runs: 3,
    probes: 1,
};

fn graph() -> Graph {
    let mut g = Graph::new();
    g.add_node("seed", "sim.grayscott.init").unwrap();
    for k in ["width", "height"] {
        g.set_param("seed", k, Value::Int(SIDE as i64)).unwrap();
    }
    g.add_node("state", "latch").unwrap();
    g.add_node("sim", "sim.grayscott.step").unwrap();
    g.wire("seed.out", "state.init");
    g.wire("state.out", "sim.state");
    g.wire("sim.out", "state.signal");
    g
}

fn seed() -> Vec<[f32; 2]> {
    let g = kiln_sim::gray_scott::init(SIDE as u32, SIDE as u32, 0, 10, 4).unwrap();
    g.data().chunks(2).map(|c| [c[0], c[1]]).collect()
}

/// The hand-written loop: `TICKS` steps from the seed, double-buffered.
fn hand(ticks: u64) -> Vec<[f32; 2]> {
    let n = SIDE;
    let mut a = seed();
    let mut b = vec![[0.0f32; 2]; n * n];
    for _ in 0..ticks {
        for y in 0..n {
            let (yn, ys) = ((y + n - 1) % n, (y + 1) % n);
            let (north, mid, south) = (
                &a[yn * n..yn * n + n],
                &a[y * n..y * n + n],
                &a[ys * n..ys * n + n],
            );
            let out = &mut b[y * n..y * n + n];
            // The two edge cells wrap; the cells between index their neighbours directly.
            for x in [0, n - 1] {
                let (xw, xe) = ((x + n - 1) % n, (x + 1) % n);
                out[x] = cell(
                    [north[x], south[x], mid[xw], mid[xe]],
                    [north[xw], north[xe], south[xw], south[xe]],
                    mid[x],
                );
            }
            for x in 1..n - 1 {
                out[x] = cell(
                    [north[x], south[x], mid[x - 1], mid[x + 1]],
                    [north[x - 1], north[x + 1], south[x - 1], south[x + 1]],
                    mid[x],
                );
            }
        }
        std::mem::swap(&mut a, &mut b);
    }
    a
}

/// One cell's Euler step from its side and corner neighbours (north, south, west, east;
/// north-west, north-east, south-west, south-east).
#[inline(always)]
fn cell(sides: [[f32; 2]; 4], corners: [[f32; 2]; 4], c: [f32; 2]) -> [f32; 2] {
    let (f, k, du, dv, dt) = (0.055f32, 0.062f32, 1.0f32, 0.5f32, 1.0f32);
    let mut lap = [0.0f32; 2];
    for (ch, l) in lap.iter_mut().enumerate() {
        let s = sides[0][ch] + sides[1][ch] + sides[2][ch] + sides[3][ch];
        let q = corners[0][ch] + corners[1][ch] + corners[2][ch] + corners[3][ch];
        *l = s * 0.2 + q * 0.05 - c[ch];
    }
    let (u, v) = (c[0], c[1]);
    let uvv = u * v * v;
    [
        u + dt * (du * lap[0] - uvv + f * (1.0 - u)),
        v + dt * (dv * lap[1] + uvv - (f + k) * v),
    ]
}

/// Kiln: `ticks` ticks of the latch graph; the last state's floats.
fn kiln(g: &Graph, ticks: u64) -> Vec<f32> {
    let mut d = Recurrent::new(
        IncrementalEvaluator::new(kiln_sim::registry()),
        kiln_sim::registry(),
    );
    let req = Request::new(["sim"]);
    let ctx = EvalContext::new();
    let mut last = None;
    for _ in 0..ticks {
        last = d.tick(g, &req, &ctx).unwrap().get("sim").cloned();
    }
    last.and_then(|v| v.as_heavy::<Grid>().map(|g| g.data().to_vec()))
        .unwrap()
}

fn check(g: &Graph, one: &rayon::ThreadPool, when: &str) {
    let want: Vec<u32> = hand(TICKS).iter().flatten().map(|v| v.to_bits()).collect();
    let bits = |v: Vec<f32>| v.iter().map(|v| v.to_bits()).collect::<Vec<u32>>();
    assert!(
        bits(one.install(|| kiln(g, TICKS))) == want,
        "{when}: kiln (1 thread) differs from the hand loop"
    );
    assert!(
        bits(kiln(g, TICKS)) == want,
        "{when}: kiln (threads) differs from the hand loop"
    );
}

const PARTICLES: usize = 100_000;
const PARTICLE_TICKS: u64 = 10;

/// The particle graph and a state of `PARTICLES` particles to start it from.
fn particle_setup() -> (Graph, kiln_core::recurrence::Snapshot) {
    let mut g = Graph::new();
    g.add_node("none", "sim.particles.init").unwrap();
    g.add_node("state", "latch").unwrap();
    g.add_node("sim", "sim.particles.step").unwrap();
    g.set_const("sim", "rate", Value::Float(0.0)).unwrap();
    g.set_const("sim", "drag", Value::Float(0.5)).unwrap();
    g.set_const("sim", "life", Value::Float(1e9)).unwrap();
    g.wire("none.out", "state.init");
    g.wire("state.out", "sim.state");
    g.wire("sim.out", "state.signal");
    let items = (0..PARTICLES)
        .map(|i| kiln_sim::particles::Particle {
            pos: [i as f32 * 1e-3, 1.0, 0.0],
            vel: [1.0, 2.0, 0.5],
            age: 0.0,
            life: 1e9,
            hue: 0.0,
        })
        .collect();
    let mut snap = kiln_core::recurrence::Snapshot {
        tick: 1,
        ..Default::default()
    };
    snap.values.insert(
        "state".into(),
        kiln_sim::particles::Particles {
            items,
            ..Default::default()
        }
        .into_value(),
    );
    (g, snap)
}

/// The hand-written particle loop: gravity and drag, semi-implicit Euler.
fn particles_hand(p: &mut [([f32; 3], [f32; 3])], ticks: u64) {
    let (dt, drag, g) = (1.0f32 / 30.0, 0.5f32, -9.81f32);
    for _ in 0..ticks {
        for (pos, vel) in p.iter_mut() {
            let a = [-drag * vel[0], g - drag * vel[1], -drag * vel[2]];
            for c in 0..3 {
                vel[c] += a[c] * dt;
                pos[c] += vel[c] * dt;
            }
        }
    }
}

fn particles_kiln(g: &Graph, snap: &kiln_core::recurrence::Snapshot, ticks: u64) -> usize {
    let mut d = Recurrent::new(
        IncrementalEvaluator::new(kiln_sim::registry()),
        kiln_sim::registry(),
    );
    d.restore(snap.clone());
    let req = Request::new(["sim"]);
    let ctx = EvalContext::new();
    let mut n = 0;
    for _ in 0..ticks {
        let out = d.tick(g, &req, &ctx).unwrap();
        n = out
            .get("sim")
            .and_then(|v| v.as_heavy::<kiln_sim::particles::Particles>())
            .map_or(0, |p| p.items.len());
    }
    n
}

fn main() {
    let g = graph();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    check(&g, &one, "setup");
    let mut c = Criterion::default().configure_from_args().sample_size(10);
    {
        let mut group = c.benchmark_group("grayscott_256_100_ticks");
        group.bench_function("hand", |b| b.iter(|| hand(100)));
        group.bench_function("kiln", |b| b.iter(|| one.install(|| kiln(&g, 100))));
        group.bench_function("kiln_threads", |b| b.iter(|| kiln(&g, 100)));
        group.finish();
    }
    c.final_summary();
    if !bench_mode() {
        return;
    }
    let load = loadavg();
    let fresh_before = kiln_sim::pool::fresh_allocations();
    let particles_fresh_before = kiln_sim::particle_pool::fresh_allocations();
    let (pg, snap) = particle_setup();
    let mut hand_particles: Vec<([f32; 3], [f32; 3])> = (0..PARTICLES)
        .map(|i| ([i as f32 * 1e-3, 1.0, 0.0], [1.0, 2.0, 0.5]))
        .collect();
    assert_eq!(one.install(|| particles_kiln(&pg, &snap, 1)), PARTICLES);
    let medians = PLAN.medians(5, |i, n| match i {
        0 => time_runs(n, || hand(TICKS)),
        1 => time_runs(n, || one.install(|| kiln(&g, TICKS))),
        2 => time_runs(n, || kiln(&g, TICKS)),
        3 => time_runs(n, || particles_hand(&mut hand_particles, PARTICLE_TICKS)),
        _ => time_runs(n, || {
            one.install(|| particles_kiln(&pg, &snap, PARTICLE_TICKS))
        }),
    });
    let runs_fresh = kiln_sim::pool::fresh_allocations() - fresh_before;
    let particles_fresh = kiln_sim::particle_pool::fresh_allocations() - particles_fresh_before;
    check(&g, &one, "after summary");
    PLAN.print_opening(&load, "");
    let cells = (SIDE * SIDE) as f64 * TICKS as f64;
    println!("| variant | ms per {TICKS} ticks | ns per cell update |");
    println!("|---|---|---|");
    for (name, m) in ["hand", "kiln (1 thread)", "kiln (threads)"]
        .iter()
        .zip(&medians)
    {
        println!("| {name} | {:.1} | {:.2} |", m / 1e6, m / cells);
    }
    let ratio = medians[1] / medians[0];
    println!();
    println!(
        "kiln / hand (1 thread): {ratio:.3} (goal: within 1.1, {}); kiln (threads) / hand: {:.3}",
        verdict(ratio <= 1.1),
        medians[2] / medians[0]
    );
    let per = (PARTICLES as f64) * PARTICLE_TICKS as f64;
    println!(
        "particles ({PARTICLES}, {PARTICLE_TICKS} ticks, 1 thread): hand {:.2} ns, kiln {:.2} ns per particle per tick (kiln / hand {:.2}; kiln writes each tick into recycled storage, hashes each new system for its key and restores its state once a run)",
        medians[3] / per,
        medians[4] / per,
        medians[4] / medians[3]
    );
    println!(
        "grid buffers allocated afresh during the summary: {runs_fresh} (each run's seed and the first ticks' buffers until the pool holds them)"
    );
    println!(
        "particle buffers allocated afresh during the summary: {particles_fresh} (all runs together; \
         each run restores a system and ticks it {PARTICLE_TICKS} times)"
    );
}
