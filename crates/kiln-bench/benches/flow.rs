//! Entity flow (issue 13): 100,000 float entities through a flow body of a 5-node chain
//! (`math.mul` by 1.01, `math.add` of 0.5, alternating: a scale and an offset), beside a
//! hand-written loop over a `Vec<f64>` doing the same five operations in the same order
//! (so its results equal the flow's bit for bit, which is checked before timing).
//!
//! The flow body is run through [`FlowBody::run`] on a rayon pool of 1 thread (sequential)
//! and of 2 threads (the executor splits a large step over the pool). Figures are ns per
//! entity per node; the ratio is flow over the hand loop (the goal: within 3×).
//!
//! Run: `cargo bench -p kiln-bench --bench flow`. The summary comes from medians of 15 runs
//! measured in the same process after the criterion group.

use criterion::Criterion;
use kiln_core::context::EvalContext;
use kiln_core::flow::{FlowBody, FlowLimits, FlowSettings};
use kiln_core::graph::Graph;
use kiln_core::value::Value;
use std::hint::black_box;
use std::time::Instant;

const N: usize = 100_000;
const CHAIN: usize = 5;
const SCALE: f64 = 1.01;
const OFFSET: f64 = 0.5;

/// Node `k` of the chain: a scale when `k` is even, an offset when odd.
fn is_scale(k: usize) -> bool {
    k.is_multiple_of(2)
}

fn body() -> FlowBody {
    let reg = kiln_std::registry();
    let mut g = Graph::new();
    g.add_node("xs", "input.list").unwrap();
    g.set_param("xs", "name", Value::str("xs")).unwrap();
    let mut prev = "xs".to_string();
    for k in 0..CHAIN {
        let id = format!("n{k}");
        let (op, b) = if is_scale(k) {
            ("math.mul", SCALE)
        } else {
            ("math.add", OFFSET)
        };
        g.add_node(id.as_str(), op).unwrap();
        g.set_const(&id, "b", Value::Float(b)).unwrap();
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
    FlowBody::new(g, reg, settings).unwrap()
}

fn input() -> Vec<f64> {
    (0..N).map(|i| i as f64 * 0.001).collect()
}

/// The hand-written loop: the same five operations over a `Vec`, in place.
fn hand(v: &mut [f64]) {
    for k in 0..CHAIN {
        if is_scale(k) {
            for x in v.iter_mut() {
                *x *= SCALE;
            }
        } else {
            for x in v.iter_mut() {
                *x += OFFSET;
            }
        }
    }
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

fn run_flow(body: &FlowBody, arg: &Value) -> Vec<Value> {
    let mut run = body
        .run(std::slice::from_ref(arg), &EvalContext::new())
        .unwrap();
    std::mem::take(&mut run.outputs[0].1)
}

fn median(mut f: impl FnMut() -> f64) -> f64 {
    let mut v: Vec<f64> = (0..15).map(|_| f()).collect();
    v.sort_by(f64::total_cmp);
    v[7]
}

fn main() {
    let body = body();
    let xs = input();
    let arg = Value::List(
        xs.iter()
            .map(|&x| Value::Float(x))
            .collect::<Vec<_>>()
            .into(),
    );
    let mut want = xs.clone();
    hand(&mut want);
    let (one, two) = (pool(1), pool(2));
    for p in [&one, &two] {
        let got = p.install(|| run_flow(&body, &arg));
        assert_eq!(got.len(), N);
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.as_f64().map(f64::to_bits), Some(w.to_bits()), "same bits");
        }
    }

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("flow_chain_100k_x5");
    group.sample_size(15);
    group.bench_function("hand_loop", |b| {
        b.iter(|| {
            let mut v = xs.clone();
            hand(&mut v);
            black_box(v)
        })
    });
    group.bench_function("flow_1_thread", |b| {
        b.iter(|| one.install(|| black_box(run_flow(&body, &arg))))
    });
    group.bench_function("flow_2_threads", |b| {
        b.iter(|| two.install(|| black_box(run_flow(&body, &arg))))
    });
    group.finish();
    c.final_summary();

    let time = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        t.elapsed().as_secs_f64()
    };
    let hand_t = median(|| {
        time(&mut || {
            let mut v = xs.clone();
            hand(&mut v);
            black_box(v);
        })
    });
    let seq = median(|| time(&mut || drop(black_box(one.install(|| run_flow(&body, &arg))))));
    let par = median(|| time(&mut || drop(black_box(two.install(|| run_flow(&body, &arg))))));
    let per = |s: f64| s * 1e9 / (N * CHAIN) as f64;
    println!("flow summary (medians of 15; {N} float entities through a {CHAIN}-node chain):");
    println!(
        "  hand loop over a Vec (with its copy): {:.3} ns per entity per node",
        per(hand_t)
    );
    println!(
        "  flow, 1 thread:  {:.3} ns per entity per node; ratio to the hand loop {:.2}x (goal <= 3x)",
        per(seq),
        seq / hand_t
    );
    println!(
        "  flow, 2 threads: {:.3} ns per entity per node; ratio to the hand loop {:.2}x; speed-up over 1 thread {:.2}x",
        per(par),
        par / hand_t,
        seq / par
    );
}
