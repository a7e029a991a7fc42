//! Entity flow (issue 13): 100,000 float entities through a flow body of a 5-node chain
//! (`math.mul` by 1.01, `math.add` of 0.5, alternating: a scale and an offset), beside a
//! hand-written loop over a `Vec<f64>` doing the same five operations in the same order
//! (so its results equal the flow's bit for bit, which is checked before timing).
//!
//! The flow body is run two ways, each on a rayon pool of 1 thread (sequential) and of 2
//! threads (the executor splits a large step over the pool):
//! * `values`: through [`FlowBody::run`], the entities given as a `Value::List` of floats
//!   and returned as `Value`s (what a `scope.flow` node in a dataflow graph pays: the list
//!   is read into a column going in and boxed again coming out);
//! * `floats`: through [`FlowBody::run_entities`], the entities given and returned as an
//!   unboxed column of `f64` (a library caller holding numbers).
//!
//! Figures are ns per entity per node; the ratio is flow over the hand loop (the issue's
//! goal: within 3×).
//!
//! Run: `cargo bench -p kiln-bench --bench flow`. The summary comes from medians of 15
//! samples (each the mean of 20 calls) measured in the same process after the criterion
//! group.

use criterion::Criterion;
use kiln_core::context::EvalContext;
use kiln_core::graph::Graph;
use kiln_core::value::Value;
use kiln_lower::flow::{Entities, FlowBody, FlowLimits, FlowSettings};
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
    let mut reg = kiln_std::registry();
    kiln_lower::register(&mut reg).expect("the scope ops are distinct");
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
    std::mem::take(&mut run.outputs[0].1).into_values()
}

fn run_floats(body: &FlowBody, arg: &Entities) -> Entities {
    let mut run = body
        .run_entities(std::slice::from_ref(arg), &EvalContext::new())
        .unwrap();
    std::mem::take(&mut run.outputs[0].1)
}

/// The median over 15 samples of the mean time of one call of `f` over 20 calls, in seconds.
fn median(mut f: impl FnMut()) -> f64 {
    const CALLS: u32 = 20;
    let mut v: Vec<f64> = (0..15)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..CALLS {
                f();
            }
            t.elapsed().as_secs_f64() / f64::from(CALLS)
        })
        .collect();
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
    let column = Entities::Floats(xs.clone());
    let (one, two) = (pool(1), pool(2));
    for p in [&one, &two] {
        let got = p.install(|| run_flow(&body, &arg));
        assert_eq!(got.len(), N);
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.as_f64().map(f64::to_bits), Some(w.to_bits()), "same bits");
        }
        let got = p.install(|| run_floats(&body, &column));
        let got = got.as_floats().expect("the column stays unboxed");
        assert!(
            got.iter()
                .zip(&want)
                .all(|(g, w)| g.to_bits() == w.to_bits())
        );
        assert_eq!(got.len(), N);
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
    group.bench_function("flow_values_1_thread", |b| {
        b.iter(|| one.install(|| black_box(run_flow(&body, &arg))))
    });
    group.bench_function("flow_values_2_threads", |b| {
        b.iter(|| two.install(|| black_box(run_flow(&body, &arg))))
    });
    group.bench_function("flow_floats_1_thread", |b| {
        b.iter(|| one.install(|| black_box(run_floats(&body, &column))))
    });
    group.bench_function("flow_floats_2_threads", |b| {
        b.iter(|| two.install(|| black_box(run_floats(&body, &column))))
    });
    group.finish();
    c.final_summary();

    let hand_t = median(|| {
        let mut v = xs.clone();
        hand(&mut v);
        black_box(v);
    });
    let per = |s: f64| s * 1e9 / (N * CHAIN) as f64;
    println!("flow summary (medians of 15; {N} float entities through a {CHAIN}-node chain):");
    println!(
        "  hand loop over a Vec (with its copy): {:.3} ns per entity per node",
        per(hand_t)
    );
    let line = |what: &str, t: f64, seq: Option<f64>| {
        let speedup = seq.map_or(String::new(), |s| {
            format!("; speed-up over 1 thread {:.2}x", s / t)
        });
        println!(
            "  {what}: {:.3} ns per entity per node; ratio to the hand loop {:.2}x (goal <= 3x){speedup}",
            per(t),
            t / hand_t
        );
    };
    let v1 = median(|| drop(black_box(one.install(|| run_flow(&body, &arg)))));
    let v2 = median(|| drop(black_box(two.install(|| run_flow(&body, &arg)))));
    let f1 = median(|| drop(black_box(one.install(|| run_floats(&body, &column)))));
    let f2 = median(|| drop(black_box(two.install(|| run_floats(&body, &column)))));
    line("flow, values at the ends, 1 thread ", v1, None);
    line("flow, values at the ends, 2 threads", v2, Some(v1));
    line("flow, floats at the ends, 1 thread ", f1, None);
    line("flow, floats at the ends, 2 threads", f2, Some(f1));
}
