//! Kiln's lazy evaluator beside the limit, a hand-written flat interpreter, on the same
//! graphs (a 10,000-node scalar chain and a 10,000-node random DAG; see `kiln_bench`).
//!
//! Run: `cargo bench -p kiln-bench --bench eval`. Criterion groups come first, then a summary
//! table measured in the same run: the median of 31 interleaved repetitions of each variant,
//! in ns per node, and the ratio of Kiln to the flat interpreter.
//!
//! Variants, per graph:
//! * `flat`: the limit; every node computed from a `Vec<FlatOp>` into a `Vec<f64>`.
//! * `kiln_cold`: `LazyEvaluator` with its plan reused and an empty memo: `clear_cache()`
//!   runs before each evaluation, outside the timed section (`iter_custom`). Every node is
//!   looked up, executed and inserted into the memo. Node 0 is a `const`.
//! * `kiln_input_changed`: node 0 is an `input.float` and each evaluation gets a new value,
//!   so every node's key is recomputed and new, and every node recooks. The memo is not
//!   cleared between evaluations (old results stay, as in a long-lived session) until it
//!   holds [`MEMO_LIMIT`] results; that clear runs outside the timed section.
//! * summary only, to split the costs: the input-changed run on a memo emptied (untimed)
//!   before each run, whose table never held more than one graph's results (`clear_cache`
//!   keeps a table's capacity, and the cost of inserting grows with it); `keys only` (input
//!   unchanged: the request recomputes all 10,000 context keys, then hits the memo at the
//!   root); `clear_cache` itself (10,000 results).
//!
//! See `docs/performance.md` for results and their reading.
//!
//! Before anything is timed, each Kiln variant's result is checked to equal the flat
//! interpreter's bit for bit; the summary re-checks after every repetition.

use criterion::{Criterion, Throughput};
use kiln_bench::summary::{Plan, bench_mode};
use kiln_bench::{HEAD_VALUE, Head, INPUT_NAME, Workload, depth, standard_chain, standard_dag};
use kiln_core::context::EvalContext;
use kiln_core::eval::{Evaluator, LazyEvaluator, Request};
use kiln_core::value::Value;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The input-changed variant clears the memo (untimed) once it holds this many results.
const MEMO_LIMIT: usize = 100_000;
/// How the summary table measures: 31 repetitions per variant, each one untimed run that
/// brings the variant's data back into the caches (the variants are interleaved, and each
/// evicts the others' memo, plan and slots), then enough runs to fill about 4 ms (at most
/// 10,000).
const PLAN: Plan = Plan {
    reps: 31,
    target: Duration::from_millis(4),
    max_runs: 10_000,
    probes: 3,
};

/// A Kiln evaluator on one workload, its plan built once and reused.
struct Kiln {
    w: Workload,
    eval: LazyEvaluator,
    req: Request,
    ctx: EvalContext,
    /// Counter behind the input values: each evaluation of the input variant gets a new one.
    tick: u64,
    /// The input value of the last evaluation.
    x: f64,
}

impl Kiln {
    fn new(w: Workload) -> Self {
        let req = Request::new([w.output.as_str()]);
        let mut k = Kiln {
            eval: LazyEvaluator::new(kiln_image::registry()),
            req,
            ctx: EvalContext::new(),
            w,
            tick: 0,
            x: HEAD_VALUE,
        };
        if k.is_input() {
            k.set_x(HEAD_VALUE);
        }
        let plan = k.eval.plan_for(&k.w.graph).expect("the workload validates");
        assert_eq!(plan.len(), k.w.nodes());
        k.check("setup");
        if k.is_input() {
            for _ in 0..3 {
                k.next_x();
                // Cleared so the memo's table never grows past one graph's results here:
                // `clear_cache` keeps the table's capacity, and a large table is slower.
                k.eval.clear_cache();
                k.check("setup, new input");
            }
        }
        k
    }

    fn is_input(&self) -> bool {
        self.w.flat.ops.first() == Some(&kiln_bench::FlatOp::Input)
    }

    fn set_x(&mut self, x: f64) {
        self.x = x;
        self.ctx
            .inputs
            .insert(INPUT_NAME.to_string(), Value::Float(x));
    }

    /// A new input value, never used before by this runner, so every key changes.
    fn next_x(&mut self) {
        self.tick += 1;
        self.set_x(HEAD_VALUE + self.tick as f64 * 1e-9);
    }

    #[inline]
    fn run(&mut self) -> f64 {
        let out = self
            .eval
            .evaluate(&self.w.graph, &self.req, &self.ctx)
            .expect("evaluation succeeds");
        match out.values[0].1 {
            Value::Float(v) => v,
            ref v => panic!("not a float: {v:?}"),
        }
    }

    /// Evaluate and assert the result equals the flat interpreter's bit for bit.
    fn check(&mut self, when: &str) {
        let got = self.run();
        let want = self.w.flat.run(self.x, &mut Vec::new());
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "{} ({when}, x = {}): kiln {got} != flat {want}",
            self.w.name,
            self.x
        );
    }

    /// One evaluation, timed (its result passed through `black_box` after the timing).
    #[inline(always)]
    fn timed_run(&mut self) -> Duration {
        let t = Instant::now();
        let v = self.run();
        let d = t.elapsed();
        black_box(v);
        d
    }

    /// One cold evaluation: memo cleared first, untimed.
    fn timed_cold(&mut self) -> Duration {
        self.eval.clear_cache();
        self.timed_run()
    }

    /// One evaluation after the input changed; memo cleared (untimed) when it is large.
    fn timed_input_changed(&mut self) -> Duration {
        self.next_x();
        if self.eval.cache_len() >= MEMO_LIMIT {
            self.eval.clear_cache();
        }
        self.timed_run()
    }

    /// One evaluation after the input changed, on an empty memo (cleared untimed): the same
    /// work as [`Kiln::timed_input_changed`] without the cost of a large memo.
    fn timed_input_changed_empty_memo(&mut self) -> Duration {
        self.next_x();
        self.eval.clear_cache();
        self.timed_run()
    }

    /// One evaluation with nothing changed: context keys recomputed, memo hit at the root.
    fn timed_keys_only(&mut self) -> Duration {
        self.run(); // untimed: makes sure the root's result for this input is memoized
        let t = Instant::now();
        let out = self.eval.evaluate(&self.w.graph, &self.req, &self.ctx);
        let d = t.elapsed();
        let stats = out.expect("evaluation succeeds").stats;
        assert_eq!((stats.executed, stats.cache_hits), (0, 1));
        d
    }

    /// `clear_cache()` on a memo holding exactly this workload's results (filled untimed).
    fn timed_clear(&mut self) -> Duration {
        self.eval.clear_cache();
        self.run();
        assert_eq!(self.eval.cache_len(), self.w.nodes());
        let t = Instant::now();
        self.eval.clear_cache();
        t.elapsed()
    }
}

/// The flat interpreter on one workload.
struct Flat {
    w: Workload,
    slots: Vec<f64>,
}

impl Flat {
    fn timed(&mut self) -> Duration {
        let t = Instant::now();
        let v = self.w.flat.run(black_box(HEAD_VALUE), &mut self.slots);
        let d = t.elapsed();
        black_box(v);
        d
    }
}

/// Everything measured on one graph.
struct Case {
    name: &'static str,
    nodes: usize,
    depth: usize,
    flat: Flat,
    cold: Kiln,
    input: Kiln,
    /// A second input runner for the summary's diagnostic rows, so they do not disturb the
    /// memo of `input`.
    probe: Kiln,
}

fn case(name: &'static str, build: fn(Head) -> Workload) -> Case {
    let w = build(Head::Const);
    let nodes = w.nodes();
    let depth = depth(&w.flat);
    let flat = Flat {
        w: build(Head::Const),
        slots: Vec::with_capacity(nodes),
    };
    let cold = Kiln::new(w);
    let input = Kiln::new(build(Head::Input));
    let probe = Kiln::new(build(Head::Input));
    Case {
        name,
        nodes,
        depth,
        flat,
        cold,
        input,
        probe,
    }
}

fn sum<F: FnMut() -> Duration>(iters: u64, mut f: F) -> Duration {
    (0..iters).map(|_| f()).sum()
}

fn criterion_groups(c: &mut Criterion, cases: &mut [Case]) {
    for case in cases {
        let mut g = c.benchmark_group(case.name);
        g.throughput(Throughput::Elements(case.nodes as u64));
        g.bench_function("flat", |b| b.iter_custom(|n| sum(n, || case.flat.timed())));
        g.bench_function("kiln_cold", |b| {
            b.iter_custom(|n| sum(n, || case.cold.timed_cold()))
        });
        g.bench_function("kiln_input_changed", |b| {
            b.iter_custom(|n| sum(n, || case.input.timed_input_changed()))
        });
        g.finish();
        case.cold.check("after criterion");
        case.input.check("after criterion");
    }
}

fn summary(cases: &mut [Case]) {
    println!();
    println!(
        "Summary: median of {} interleaved repetitions per variant (ns per node = ns per run / nodes).",
        PLAN.reps
    );
    println!(
        "kiln_cold: memo cleared before each run, untimed. kiln_input_changed: new input value each run, \
         memo cleared untimed at >= {MEMO_LIMIT} results."
    );
    println!();
    println!("| graph | nodes | depth | variant | median µs/run | ns/node | × flat |");
    println!("|---|---:|---:|---|---:|---:|---:|");
    for case in cases {
        let names = [
            "flat (limit)",
            "kiln_cold",
            "kiln_input_changed",
            "kiln_input_changed, memo emptied before each run",
            "keys only (input unchanged, memo hit at the root)",
            "clear_cache (10k results)",
        ];
        let mut one = |variant: usize| -> Duration {
            match variant {
                0 => case.flat.timed(),
                1 => case.cold.timed_cold(),
                2 => case.input.timed_input_changed(),
                3 => case.probe.timed_input_changed_empty_memo(),
                4 => case.probe.timed_keys_only(),
                _ => case.cold.timed_clear(),
            }
        };
        let mut time = |i: usize, n: u64| sum(n, || one(i));
        // One clear per repetition: each needs an untimed cold evaluation to refill the memo.
        let runs: Vec<u64> = (0..names.len())
            .map(|i| {
                if i == 5 {
                    1
                } else {
                    PLAN.runs_for(|n| time(i, n))
                }
            })
            .collect();
        let medians = PLAN.medians_with_runs(&runs, time);
        case.cold.check("after summary");
        case.input.check("after summary");
        case.probe.check("after summary");
        let limit = medians[0];
        for (i, m) in medians.iter().enumerate() {
            let ratio = if i == 0 || i == 1 || i == 2 {
                format!("{:.1}", m / limit)
            } else {
                format!("({:.1})", m / limit)
            };
            println!(
                "| {} | {} | {} | {} | {:.1} | {:.2} | {} |",
                case.name,
                case.nodes,
                case.depth,
                names[i],
                m / 1e3,
                m / case.nodes as f64,
                ratio
            );
        }
    }
    println!();
    println!(
        "Issue target: kiln_cold and kiln_input_changed within 15× of flat. Ratios in parentheses \
         are diagnostics (parts of the cost), not targets."
    );
}

fn main() {
    let mut cases = vec![case("chain", standard_chain), case("dag", standard_dag)];
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .configure_from_args();
    criterion_groups(&mut c, &mut cases);
    c.final_summary();
    // Only under `cargo bench` (see `bench_mode`): not as a smoke test, nor when profiling.
    if bench_mode() {
        summary(&mut cases);
    }
}
