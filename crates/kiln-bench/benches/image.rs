//! The image domain beside hand-written code and noise crates, in one run.
//!
//! The workload of issue 14: a 1024 x 1024 image of 4-octave fBm (Kiln's improved Perlin,
//! 4 noise cells across) → gain (×1.3, −0.15) → clamp to [0, 1] → a three-stop colour ramp.
//!
//! * `chain_unfused`: the four nodes, each making its own image (a fresh `LazyEvaluator` per
//!   run, so nothing is memoized; the registry is built once for all runs).
//! * `chain_fused`: the same graph after [`kiln_image::fuse::fuse`]: one `image.fused` node,
//!   one pass, one image.
//! * `chain_hand`: a hand-written loop calling the same noise function
//!   ([`Perlin::fbm_lanes`] over each row) and the same ramp, writing one image.
//! * `fbm_kiln`: Kiln's fBm alone (`image.noise`, 1024², 4 octaves) as a node.
//! * `fbm_noise_rs`, `fbm_fastnoise_lite`, `fbm_simdnoise`: the `noise` crate's
//!   `Fbm<Perlin>`, fastnoise-lite's Perlin FBm and simdnoise's `fbm_2d`, each filling
//!   1024² samples (4 octaves, lacunarity 2, gain 0.5) into a buffer.
//!
//! All run on a one-thread rayon pool; `chain_fused_2t` runs the fused chain on two threads.
//! Run: `cargo bench -p kiln-bench --bench image`. Criterion groups first, then a summary
//! measured in the same process (medians of interleaved repetitions,
//! [`kiln_bench::summary`]) that prints the ratios the issue sets targets for: fused chain
//! ÷ hand loop (goal ≤ 1.1), Kiln fBm ÷ fastnoise-lite (goal ≤ 1, stretch: ÷ simdnoise ≤ 1),
//! 1 thread ÷ 2 threads (goal ≥ 1.8).
//!
//! Checks before timing: fused and unfused images are the same bits, and the hand loop's
//! image equals them.

use criterion::Criterion;
use kiln_bench::summary::{Plan, bench_mode, loadavg, time_runs, verdict};
use kiln_core::prelude::*;
use kiln_image::image::Image;
use kiln_image::noise::{Fbm, Perlin, mix_seed};
use kiln_image::ramp::{Ramp, luminance};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

const SIDE: u32 = 1024;
const OCTAVES: i64 = 4;
const SCALE: f64 = 4.0;

fn stops() -> Value {
    let stop = |p: f64, c: &str| Value::List(Arc::from(vec![Value::Float(p), Value::str(c)]));
    Value::List(Arc::from(vec![
        stop(0.0, "#0b1d4a"),
        stop(0.5, "#3f76c4"),
        stop(1.0, "#ffffff"),
    ]))
}

fn chain() -> Graph {
    let mut g = Graph::new();
    g.add_node("noise", "image.noise").unwrap();
    g.set_param("noise", "width", SIDE as i64).unwrap();
    g.set_param("noise", "height", SIDE as i64).unwrap();
    g.set_const("noise", "octaves", OCTAVES).unwrap();
    g.set_const("noise", "scale", SCALE).unwrap();
    g.add_node("gain", "image.gain").unwrap();
    g.set_const("gain", "gain", 1.3).unwrap();
    g.set_const("gain", "bias", -0.15).unwrap();
    g.wire("noise.out", "gain.image");
    g.add_node("clamp", "image.clamp").unwrap();
    g.wire("gain.out", "clamp.image");
    g.add_node("ramp", "image.ramp").unwrap();
    g.set_const("ramp", "stops", stops()).unwrap();
    g.wire("clamp.out", "ramp.image");
    g
}

fn fused_chain() -> Graph {
    kiln_image::fuse::fuse(&chain(), &kiln_image::registry(), &["ramp"]).0
}

/// The image registry, built once (a user builds it once; building it is not the chain's
/// work, and on two threads it would be a sequential part of every run).
fn registry() -> kiln_core::registry::Registry {
    static REGISTRY: std::sync::OnceLock<kiln_core::registry::Registry> =
        std::sync::OnceLock::new();
    REGISTRY.get_or_init(kiln_image::registry).clone()
}

fn run_graph(g: &Graph, id: &str) -> Value {
    let mut ev = LazyEvaluator::new(registry());
    let out = ev
        .evaluate(g, &Request::new([id]), &EvalContext::new())
        .unwrap();
    out.get(id).unwrap().clone()
}

/// The hand-written chain: the same noise and ramp functions, one loop, one image.
fn chain_hand() -> Image {
    let noise = Perlin::new(mix_seed(0, 0));
    let fbm = Fbm {
        octaves: OCTAVES as u32,
        ..Fbm::default()
    };
    let ramp = Ramp::parse(&stops(), 0).unwrap();
    let w = SIDE as f64;
    let mut pixels = Vec::with_capacity((SIDE * SIDE) as usize);
    // One row of sample points and noise at a time, through the same fBm over a run of
    // points that the graph's noise step calls.
    let xs: Vec<f64> = (0..SIDE)
        .map(|x| 0.0 + (x as f64 + 0.5) * SCALE / w)
        .collect();
    let (mut ys, mut row) = (vec![0.0; SIDE as usize], vec![0.0; SIDE as usize]);
    for y in 0..SIDE {
        ys.fill(0.0 + (y as f64 + 0.5) * SCALE / w);
        noise.fbm_lanes(&xs, &ys, &fbm, &mut row);
        for &n in &row {
            let g = (n * 0.5 + 0.5).clamp(0.0, 1.0) as f32;
            let g = ((g * 1.3f32) + (-0.15f64 as f32)).clamp(0.0, 1.0);
            pixels.push(ramp.eval(luminance([g, g, g, 1.0])));
        }
    }
    Image {
        width: SIDE,
        height: SIDE,
        pixels,
    }
}

fn fbm_noise_rs(out: &mut [f64]) {
    use noise::{MultiFractal, NoiseFn};
    let f = noise::Fbm::<noise::Perlin>::new(0).set_octaves(OCTAVES as usize);
    for (i, o) in out.iter_mut().enumerate() {
        let (x, y) = ((i as u32 % SIDE) as f64, (i as u32 / SIDE) as f64);
        *o = f.get([
            (x + 0.5) * SCALE / SIDE as f64,
            (y + 0.5) * SCALE / SIDE as f64,
        ]);
    }
}

fn fbm_fastnoise(out: &mut [f32]) {
    use fastnoise_lite::{FastNoiseLite, FractalType, NoiseType};
    let mut n = FastNoiseLite::new();
    n.set_noise_type(Some(NoiseType::Perlin));
    n.set_fractal_type(Some(FractalType::FBm));
    n.set_fractal_octaves(Some(OCTAVES as i32));
    n.set_frequency(Some(SCALE as f32 / SIDE as f32));
    for (i, o) in out.iter_mut().enumerate() {
        let (x, y) = ((i as u32 % SIDE) as f32, (i as u32 / SIDE) as f32);
        *o = n.get_noise_2d(x, y);
    }
}

fn fbm_simdnoise() -> Vec<f32> {
    simdnoise::NoiseBuilder::fbm_2d(SIDE as usize, SIDE as usize)
        .with_freq(SCALE as f32 / SIDE as f32)
        .with_octaves(OCTAVES as u8)
        .generate()
        .0
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

fn bits(v: &Value) -> Vec<u32> {
    let img = v.as_heavy::<Image>().unwrap();
    img.pixels
        .as_flattened()
        .iter()
        .map(|c| c.to_bits())
        .collect()
}

fn check() {
    let a = bits(&run_graph(&chain(), "ramp"));
    let b = bits(&run_graph(&fused_chain(), "ramp"));
    assert_eq!(a, b, "fused and unfused differ");
    let hand = chain_hand();
    let c: Vec<u32> = hand
        .pixels
        .as_flattened()
        .iter()
        .map(|c| c.to_bits())
        .collect();
    assert_eq!(a, c, "the hand loop differs from the graph");
}

/// Every variant: a name and `time(n)` for `n` runs.
type Timer = Box<dyn FnMut(u64) -> Duration>;

fn variants() -> Vec<(&'static str, Timer)> {
    let one = Arc::new(pool(1));
    let two = Arc::new(pool(2));
    let unfused = chain();
    let fused = fused_chain();
    let fused2 = fused.clone();
    let noise_only = {
        let mut g = chain();
        for id in ["gain", "clamp", "ramp"] {
            g.remove_node(id).unwrap();
        }
        g
    };
    let (p1, p2, p3, p4, p5, p6, p7) = (
        one.clone(),
        one.clone(),
        one.clone(),
        one.clone(),
        one.clone(),
        one.clone(),
        one.clone(),
    );
    vec![
        (
            "chain_unfused",
            Box::new(move |n| p1.install(|| time_runs(n, || run_graph(&unfused, "ramp")))),
        ),
        (
            "chain_fused",
            Box::new(move |n| p2.install(|| time_runs(n, || run_graph(&fused, "ramp")))),
        ),
        (
            "chain_fused_2t",
            Box::new(move |n| two.install(|| time_runs(n, || run_graph(&fused2, "ramp")))),
        ),
        (
            "chain_hand",
            Box::new(move |n| p3.install(|| time_runs(n, chain_hand))),
        ),
        (
            "fbm_kiln",
            Box::new(move |n| p4.install(|| time_runs(n, || run_graph(&noise_only, "noise")))),
        ),
        (
            "fbm_noise_rs",
            Box::new(move |n| {
                let mut buf = vec![0.0f64; (SIDE * SIDE) as usize];
                p5.install(|| time_runs(n, || fbm_noise_rs(black_box(&mut buf))))
            }),
        ),
        (
            "fbm_fastnoise_lite",
            Box::new(move |n| {
                let mut buf = vec![0.0f32; (SIDE * SIDE) as usize];
                p6.install(|| time_runs(n, || fbm_fastnoise(black_box(&mut buf))))
            }),
        ),
        (
            "fbm_simdnoise",
            Box::new(move |n| p7.install(|| time_runs(n, fbm_simdnoise))),
        ),
    ]
}

/// Few, long runs (each is tens of milliseconds).
const PLAN: Plan = Plan {
    reps: 7,
    target: Duration::from_millis(200),
    max_runs: 20,
    probes: 1,
};

fn main() {
    check();
    let mut c = Criterion::default().configure_from_args().sample_size(10);
    {
        let mut group = c.benchmark_group("image_1024");
        for (name, mut time) in variants() {
            group.bench_function(name, |b| b.iter_custom(&mut time));
        }
        group.finish();
    }
    c.final_summary();
    if !bench_mode() {
        return;
    }
    let load = loadavg();
    let mut vs = variants();
    let medians = PLAN.medians(vs.len(), |i, n| (vs[i].1)(n));
    PLAN.print_opening(&load, "");
    let ms = |name: &str| {
        let i = vs.iter().position(|(n, _)| *n == name).unwrap_or(0);
        medians[i] / 1e6
    };
    for (name, _) in &vs {
        println!("{name:>20}: {:9.2} ms", ms(name));
    }
    let fused_over_hand = ms("chain_fused") / ms("chain_hand");
    let fbm_over_fnl = ms("fbm_kiln") / ms("fbm_fastnoise_lite");
    let fbm_over_simd = ms("fbm_kiln") / ms("fbm_simdnoise");
    let speedup = ms("chain_fused") / ms("chain_fused_2t");
    println!();
    println!("| ratio | value | goal | |");
    println!("|---|---|---|---|");
    println!(
        "| fused chain / hand loop (1 thread) | {fused_over_hand:.3} | ≤ 1.1 | {} |",
        verdict(fused_over_hand <= 1.1)
    );
    println!(
        "| unfused chain / fused chain | {:.3} | | |",
        ms("chain_unfused") / ms("chain_fused")
    );
    println!(
        "| Kiln fBm / fastnoise-lite fBm | {fbm_over_fnl:.3} | ≤ 1 | {} |",
        verdict(fbm_over_fnl <= 1.0)
    );
    println!(
        "| Kiln fBm / simdnoise fBm | {fbm_over_simd:.3} | ≤ 1 (stretch) | {} |",
        verdict(fbm_over_simd <= 1.0)
    );
    println!(
        "| Kiln fBm / noise-rs fBm | {:.3} | | |",
        ms("fbm_kiln") / ms("fbm_noise_rs")
    );
    println!(
        "| fused chain, 1 thread / 2 threads | {speedup:.3} | ≥ 1.8 | {} |",
        verdict(speedup >= 1.8)
    );
    vs.clear();
}
