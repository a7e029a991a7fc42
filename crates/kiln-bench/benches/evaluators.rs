//! The evaluator family side by side, in one run: full evaluation (compiled, eager, lazy
//! beside the flat interpreter), incremental updates (beside `salsa`) and parallel runs.
//!
//! Run: `cargo bench -p kiln-bench --bench evaluators`. Criterion groups come first, then a
//! summary measured in the same process ([`kiln_bench::summary`], with [`Plan::STANDARD`]):
//! for each variant the median of 21 repetitions. One repetition visits every variant of every section in turn (about
//! 0.4 s), so drift and bursts of other work on a shared machine spoil a few repetitions of
//! each variant instead of all repetitions of a few. A variant's repetition is one untimed
//! run (to bring its data back into the caches) and then enough timed runs to fill about
//! 4 ms. The load average is printed beside the results.
//!
//! 1. **Full evaluation** of the standard 10,000-node chain and DAG (`Head::Const`), per
//!    node: `flat` (the hand-written interpreter, the limit); `CompiledEvaluator` in its
//!    steady state (compiled on the calling thread, plan and schedule reused, every node run
//!    on every request); `EagerEvaluator` (plan and schedule reused); `LazyEvaluator` cold
//!    (plan reused, memo cleared before each run outside the timing, `iter_custom`).
//! 2. **Incremental** on the 10,000-node chain: `IncrementalEvaluator` beside
//!    [`SalsaChain`] (salsa 0.28), each on its own graph or database, per request:
//!    (a) change the root's parameter (Kiln: inline constant `b` of the last node, a
//!    `math.add`; salsa: `set_root_param`) then ask for the output; (b) change the leaf
//!    (Kiln: `value` of node 0, a `const`; salsa: `set_leaf`) then ask; (c) ask with nothing
//!    changed. The edit is inside the timed section, and every edit sets a value never used
//!    before, so each change is real. A compiled full run of the same chain is the
//!    reference for (b).
//! 3. **Parallel**, `CompiledEvaluator` under `ParallelPolicy::Sequential` and under
//!    `Rayon { threads: Some(2), min_cost: None }` (the learned threshold, warmed by a few
//!    runs first: the executor measures level costs on its first runs): (a) two heavy
//!    independent image branches ([`kiln_bench::heavy_branches`], 512 × 512); (b) the
//!    10,000 tiny nodes of the standard DAG. A control beside (a) runs the two branch cones
//!    with sequential evaluators, one after the other and then on two plain `std` threads:
//!    the speedup the machine itself gives at that moment.
//!
//! Every variant's result is checked before timing, after the criterion groups and after
//! the summary: full evaluations bit for bit against the flat interpreter; incremental
//! results against the flat program with the same edits (Kiln) or the closed form (salsa),
//! with the number of nodes each kind of change re-executes; parallel results bit for bit
//! against a `LazyEvaluator` evaluation of the same graph.
//!
//! See `docs/performance.md` ("Evaluator family") for results and their reading.

use criterion::{Criterion, SamplingMode, Throughput};
use kiln_bench::salsa_peer::SalsaChain;
use kiln_bench::summary::{Entry, Group, Plan, Variant, bench_mode, loadavg, time_runs, verdict};
use kiln_bench::{
    FlatOp, FlatProgram, HEAD_VALUE, HEAVY_SIZE, Head, ImageWorkload, NODES, Workload, node_id,
    standard_chain, standard_dag, standard_heavy_branches,
};
use kiln_core::context::EvalContext;
use kiln_core::eval::{
    CompiledEvaluator, EagerEvaluator, Evaluator, IncrementalEvaluator, LazyEvaluator,
    ParallelPolicy, Request, Stats,
};
use kiln_core::graph::Graph;
use kiln_core::value::Value;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// How the summary measures: 21 repetitions of about 4 ms.
const PLAN: Plan = Plan::STANDARD;
/// Untimed runs of a parallel evaluator before anything is timed (the executor measures
/// level costs on its first three runs).
const PAR_WARMUP: usize = 6;

/// One measured variant: its runs and check ([`Variant`]), and its counters.
trait Timed: Variant {
    /// Counters of the last checked evaluation, when the variant is a Kiln evaluator.
    fn stats(&self) -> Option<Stats> {
        None
    }
}

/// The single requested value of an evaluation.
fn output_of<E: Evaluator>(ev: &mut E, graph: &Graph, req: &Request, ctx: &EvalContext) -> Value {
    let out = ev.evaluate(graph, req, ctx).expect("evaluation succeeds");
    out.values.into_iter().next().expect("one output").1
}

fn float(v: &Value) -> f64 {
    match v {
        Value::Float(x) => *x,
        v => panic!("not a float: {v:?}"),
    }
}

/// The flat interpreter (the limit).
struct Flat {
    flat: FlatProgram,
    slots: Vec<f64>,
}

impl Variant for Flat {
    fn time(&mut self, n: u64) -> Duration {
        time_runs(n, || self.flat.run(black_box(HEAD_VALUE), &mut self.slots))
    }
    fn check(&mut self, _when: &str) {}
}

impl Timed for Flat {}

/// An evaluator run again and again on an unchanged graph: its steady state.
struct Steady<E: Evaluator> {
    label: String,
    ev: E,
    graph: Graph,
    req: Request,
    ctx: EvalContext,
    /// The expected result (compared with [`Value::same_bits`]).
    want: Value,
    /// Nodes each evaluation must execute.
    executed: u64,
    last: Stats,
}

impl<E: Evaluator> Steady<E> {
    fn new(
        label: String,
        ev: E,
        graph: Graph,
        output: &str,
        want: Value,
        executed: u64,
        warmup: usize,
    ) -> Self {
        let mut s = Steady {
            label,
            ev,
            graph,
            req: Request::new([output]),
            ctx: EvalContext::new(),
            want,
            executed,
            last: Stats::default(),
        };
        for _ in 0..warmup.max(1) {
            s.check("setup");
        }
        s
    }
}

impl<E: Evaluator> Variant for Steady<E> {
    fn time(&mut self, n: u64) -> Duration {
        time_runs(n, || {
            self.ev.evaluate(&self.graph, &self.req, &self.ctx).ok()
        })
    }
    fn check(&mut self, when: &str) {
        let out = self
            .ev
            .evaluate(&self.graph, &self.req, &self.ctx)
            .expect("evaluation succeeds");
        let got = &out.values[0].1;
        assert!(
            got.same_bits(&self.want),
            "{} ({when}): got {got:?}, want {:?}",
            self.label,
            self.want
        );
        assert_eq!(
            out.stats.executed, self.executed,
            "{} ({when}): {:?}",
            self.label, out.stats
        );
        self.last = out.stats;
    }
}

impl<E: Evaluator> Timed for Steady<E> {
    fn stats(&self) -> Option<Stats> {
        Some(self.last)
    }
}

/// The lazy evaluator with its plan reused and its memo cleared (untimed) before each run.
struct LazyCold {
    inner: Steady<LazyEvaluator>,
}

impl Variant for LazyCold {
    fn time(&mut self, n: u64) -> Duration {
        let s = &mut self.inner;
        let mut total = Duration::ZERO;
        for _ in 0..n {
            s.ev.clear_cache();
            let t = Instant::now();
            let out = s.ev.evaluate(&s.graph, &s.req, &s.ctx);
            total += t.elapsed();
            black_box(out.ok());
        }
        total
    }
    fn check(&mut self, when: &str) {
        self.inner.ev.clear_cache();
        self.inner.check(when);
    }
}

impl Timed for LazyCold {}

/// The control of the heavy workload: its two branches (`a_clamp`, `b_clamp`, without the
/// final `mix`) evaluated by two sequential compiled evaluators, one after the other or at
/// the same time on two plain `std` threads. Their ratio is the parallel speedup the
/// machine gives at that moment, with no Kiln machinery involved.
struct Branches {
    threads: bool,
    evs: [CompiledEvaluator; 2],
    reqs: [Request; 2],
    wants: [Value; 2],
    graph: Graph,
    ctx: EvalContext,
}

impl Branches {
    fn new(w: &ImageWorkload, threads: bool) -> Self {
        let reqs = w.branches.clone().map(|b| Request::new([b]));
        let ctx = EvalContext::new();
        let wants = [0, 1].map(|i| {
            output_of(
                &mut LazyEvaluator::new(kiln_image::registry()),
                &w.graph,
                &reqs[i],
                &ctx,
            )
        });
        let mut b = Branches {
            threads,
            evs: [0, 1].map(|_| compiled_with(ParallelPolicy::Sequential)),
            reqs,
            wants,
            graph: w.graph.clone(),
            ctx,
        };
        b.check("setup");
        b
    }

    /// Evaluate both branches once.
    fn both(&mut self) -> [Value; 2] {
        let [ea, eb] = &mut self.evs;
        let (g, ctx) = (&self.graph, &self.ctx);
        let [ra, rb] = &self.reqs;
        if self.threads {
            std::thread::scope(|s| {
                let h = s.spawn(|| output_of(ea, g, ra, ctx));
                let b = output_of(eb, g, rb, ctx);
                [h.join().expect("branch thread"), b]
            })
        } else {
            [output_of(ea, g, ra, ctx), output_of(eb, g, rb, ctx)]
        }
    }
}

impl Variant for Branches {
    fn time(&mut self, n: u64) -> Duration {
        time_runs(n, || self.both())
    }
    fn check(&mut self, when: &str) {
        let got = self.both();
        for (i, (got, want)) in got.iter().zip(&self.wants).enumerate() {
            assert!(
                got.same_bits(want),
                "branch {i} (threads: {}, {when}) differs from the lazy result",
                self.threads
            );
        }
    }
}

impl Timed for Branches {}

/// What an incremental variant changes before each request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Change {
    /// The parameter of the last node (the requested output).
    Root,
    /// The value of node 0, which every node depends on.
    Leaf,
    /// Nothing.
    Nothing,
}

/// The root's new inline constant for edit number `tick` (never repeats).
fn root_b(tick: u64) -> f64 {
    0.001 + tick as f64 * 1e-7
}

/// The leaf's new value for edit number `tick` (never repeats).
fn leaf_x(tick: u64) -> f64 {
    HEAD_VALUE + tick as f64 * 1e-7
}

/// Kiln's incremental evaluator on its own copy of the chain.
struct KilnInc {
    change: Change,
    ev: IncrementalEvaluator,
    graph: Graph,
    flat: FlatProgram,
    req: Request,
    ctx: EvalContext,
    /// The ids of the last node and of node 0.
    root: String,
    leaf: String,
    tick: u64,
    /// The current root constant and leaf value (mirrored into `flat` when checking).
    b: f64,
    x: f64,
    last: Stats,
}

impl KilnInc {
    fn new(change: Change) -> Self {
        let w = standard_chain(Head::Const);
        let last = w.nodes() - 1;
        let FlatOp::AddK(prev, b) = w.flat.ops[last] else {
            panic!("the chain's last node is not a math.add with an inline b")
        };
        assert_eq!(prev as usize, last - 1);
        assert_eq!(w.flat.ops[0], FlatOp::Const(HEAD_VALUE));
        let mut k = KilnInc {
            change,
            ev: IncrementalEvaluator::new(kiln_image::registry()),
            req: Request::new([w.output.as_str()]),
            root: w.output,
            leaf: node_id(0),
            graph: w.graph,
            flat: w.flat,
            ctx: EvalContext::new(),
            tick: 0,
            b,
            x: HEAD_VALUE,
            last: Stats::default(),
        };
        // The first request computes everything; then one checked step of each kind.
        k.check("setup");
        k.check("setup, second step");
        k
    }

    /// The edit of one step: a value never used before.
    #[inline]
    fn edit(&mut self) {
        self.tick += 1;
        match self.change {
            Change::Root => {
                self.b = root_b(self.tick);
                self.graph
                    .set_const(&self.root, "b", Value::Float(self.b))
                    .expect("root exists");
            }
            Change::Leaf => {
                self.x = leaf_x(self.tick);
                self.graph
                    .set_param(&self.leaf, "value", Value::Float(self.x))
                    .expect("leaf exists");
            }
            Change::Nothing => {}
        }
    }
}

impl Variant for KilnInc {
    fn time(&mut self, n: u64) -> Duration {
        time_runs(n, || {
            self.edit();
            self.ev.evaluate(&self.graph, &self.req, &self.ctx).ok()
        })
    }
    /// One untimed step, its result compared with the flat program under the same edits and
    /// the nodes it executed with what the change must execute.
    fn check(&mut self, when: &str) {
        let first = self.ev.total_stats().executed == 0;
        self.edit();
        let out = self
            .ev
            .evaluate(&self.graph, &self.req, &self.ctx)
            .expect("evaluation succeeds");
        let last = self.flat.len() - 1;
        self.flat.ops[0] = FlatOp::Const(self.x);
        self.flat.ops[last] = FlatOp::AddK(last as u32 - 1, self.b);
        let want = self.flat.run(HEAD_VALUE, &mut Vec::new());
        let got = float(&out.values[0].1);
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "incremental {:?} ({when}): kiln {got} != flat {want}",
            self.change
        );
        let executed = match (first, self.change) {
            (true, _) | (false, Change::Leaf) => NODES as u64,
            (false, Change::Root) => 1,
            (false, Change::Nothing) => 0,
        };
        assert_eq!(
            out.stats.executed, executed,
            "incremental {:?} ({when}): {:?}",
            self.change, out.stats
        );
        self.last = out.stats;
    }
}

impl Timed for KilnInc {
    fn stats(&self) -> Option<Stats> {
        Some(self.last)
    }
}

/// The salsa peer on its own database.
struct Salsa {
    change: Change,
    chain: SalsaChain,
    tick: u64,
    /// The current leaf `x` and root `c` (the closed form's inputs).
    x: f64,
    c: f64,
}

impl Salsa {
    fn new(change: Change) -> Self {
        let mut s = Salsa {
            change,
            chain: SalsaChain::new(NODES, 1.0),
            tick: 0,
            x: 1.0,
            c: 1.0,
        };
        s.check("setup");
        s
    }

    #[inline]
    fn edit(&mut self) {
        self.tick += 1;
        // Integral values keep the closed form exact.
        match self.change {
            Change::Root => {
                self.c = 1.0 + self.tick as f64;
                self.chain.set_root_param(self.c);
            }
            Change::Leaf => {
                self.x = 1.0 + self.tick as f64;
                self.chain.set_leaf(self.x);
            }
            Change::Nothing => {}
        }
    }
}

impl Variant for Salsa {
    fn time(&mut self, n: u64) -> Duration {
        time_runs(n, || {
            self.edit();
            self.chain.output()
        })
    }
    fn check(&mut self, when: &str) {
        let before = self.chain.executions();
        self.edit();
        let got = self.chain.output();
        // out[N - 1] = x + (N - 2) + c: every step adds 1 but the root, which adds c.
        let want = self.x + (NODES - 2) as f64 + self.c;
        assert_eq!(got, want, "salsa {:?} ({when})", self.change);
        let executed = match self.change {
            Change::Root => 1,
            Change::Leaf => NODES as u64,
            Change::Nothing => 0,
        };
        assert_eq!(
            self.chain.executions() - before,
            executed,
            "salsa {:?} ({when})",
            self.change
        );
    }
}

impl Timed for Salsa {}

/// A named variant.
fn entry(name: &'static str, t: impl Timed + 'static) -> Entry<dyn Timed> {
    Entry::new(name, Box::new(t))
}

/// A group of variants measured together (criterion group, interleaved summary).
struct Section {
    name: &'static str,
    /// The variants, and the summary's median ns per run of each (set by the summary).
    group: Group<dyn Timed>,
    /// Elements per run for criterion's throughput (nodes), if meaningful.
    nodes: Option<usize>,
    /// Whether one run is long (tens of ms): criterion then samples flat.
    long: bool,
}

impl Section {
    fn get(&self, name: &str) -> usize {
        self.group
            .position(name)
            .unwrap_or_else(|| panic!("no variant {name}"))
    }
}

fn full_section(name: &'static str, w: fn(Head) -> Workload) -> Section {
    let work = w(Head::Const);
    let want = Value::Float(work.flat.run(HEAD_VALUE, &mut Vec::new()));
    let n = work.nodes() as u64;
    let out = work.output.clone();
    let reg = kiln_image::registry;
    let compiled = CompiledEvaluator::new(reg()).with_background(false);
    let compiled = Steady::new(
        format!("{name} compiled"),
        compiled,
        w(Head::Const).graph,
        &out,
        want.clone(),
        n,
        2,
    );
    let eager = Steady::new(
        format!("{name} eager"),
        EagerEvaluator::new(reg()),
        w(Head::Const).graph,
        &out,
        want.clone(),
        n,
        2,
    );
    let lazy = Steady::new(
        format!("{name} lazy cold"),
        LazyEvaluator::new(reg()),
        w(Head::Const).graph,
        &out,
        want,
        n,
        1,
    );
    let mut lazy = LazyCold { inner: lazy };
    lazy.check("setup");
    Section {
        name,
        group: Group::new(vec![
            entry(
                "flat",
                Flat {
                    slots: Vec::with_capacity(work.nodes()),
                    flat: work.flat,
                },
            ),
            entry("compiled", compiled),
            entry("eager", eager),
            entry("lazy_cold", lazy),
        ]),
        nodes: Some(n as usize),
        long: false,
    }
}

fn incremental_section() -> Section {
    let chain = standard_chain(Head::Const);
    let want = Value::Float(chain.flat.run(HEAD_VALUE, &mut Vec::new()));
    let compiled = Steady::new(
        "chain compiled full run".into(),
        CompiledEvaluator::new(kiln_image::registry()).with_background(false),
        chain.graph,
        &chain.output,
        want,
        NODES as u64,
        2,
    );
    Section {
        name: "incremental_chain",
        group: Group::new(vec![
            entry("kiln_root_change", KilnInc::new(Change::Root)),
            entry("salsa_root_change", Salsa::new(Change::Root)),
            entry("kiln_leaf_change", KilnInc::new(Change::Leaf)),
            entry("salsa_leaf_change", Salsa::new(Change::Leaf)),
            entry("kiln_no_change", KilnInc::new(Change::Nothing)),
            entry("salsa_no_change", Salsa::new(Change::Nothing)),
            entry("compiled_full_run", compiled),
        ]),
        nodes: None,
        long: false,
    }
}

/// The parallel policy under test: two threads, learned threshold.
fn rayon2() -> ParallelPolicy {
    ParallelPolicy::Rayon {
        threads: Some(2),
        min_cost: None,
    }
}

fn compiled_with(policy: ParallelPolicy) -> CompiledEvaluator {
    CompiledEvaluator::new(kiln_image::registry())
        .with_background(false)
        .with_parallel(policy)
}

fn heavy_section() -> Section {
    let w: ImageWorkload = standard_heavy_branches();
    // The reference: a lazy evaluation (a different traversal) of the same graph.
    let mut lazy = LazyEvaluator::new(kiln_image::registry());
    let req = Request::new([w.output.as_str()]);
    let want = output_of(&mut lazy, &w.graph, &req, &EvalContext::new());
    let nodes = w.graph.len() as u64;
    let seq = Steady::new(
        "heavy sequential".into(),
        compiled_with(ParallelPolicy::Sequential),
        w.graph.clone(),
        &w.output,
        want.clone(),
        nodes,
        2,
    );
    let par = Steady::new(
        "heavy rayon(2)".into(),
        compiled_with(rayon2()),
        w.graph.clone(),
        &w.output,
        want,
        nodes,
        PAR_WARMUP,
    );
    Section {
        name: "parallel_heavy",
        group: Group::new(vec![
            entry("sequential", seq),
            entry("rayon2_learned", par),
            entry("control_branches_one_thread", Branches::new(&w, false)),
            entry("control_branches_two_threads", Branches::new(&w, true)),
        ]),
        nodes: None,
        long: true,
    }
}

fn tiny_section() -> Section {
    let w = standard_dag(Head::Const);
    let want = Value::Float(w.flat.run(HEAD_VALUE, &mut Vec::new()));
    let n = w.nodes() as u64;
    let seq = Steady::new(
        "dag sequential".into(),
        compiled_with(ParallelPolicy::Sequential),
        w.graph.clone(),
        &w.output,
        want.clone(),
        n,
        2,
    );
    let par = Steady::new(
        "dag rayon(2)".into(),
        compiled_with(rayon2()),
        w.graph,
        &w.output,
        want,
        n,
        PAR_WARMUP,
    );
    Section {
        name: "parallel_tiny_dag",
        group: Group::new(vec![entry("sequential", seq), entry("rayon2_learned", par)]),
        nodes: Some(n as usize),
        long: false,
    }
}

fn criterion_groups(c: &mut Criterion, sections: &mut [Section]) {
    for s in sections.iter_mut() {
        let mut g = c.benchmark_group(s.name);
        if let Some(n) = s.nodes {
            g.throughput(Throughput::Elements(n as u64));
        }
        if s.long {
            g.sampling_mode(SamplingMode::Flat);
        }
        for e in &mut s.group.entries {
            g.bench_function(e.name, |b| b.iter_custom(|n| e.t.time(n)));
        }
        g.finish();
        s.group.check("after criterion");
    }
}

fn summary(sections: &mut [Section]) {
    let load_start = loadavg();
    // Every variant of every section is interleaved repetition by repetition: one repetition
    // visits them all (about 0.4 s), so a burst of other work on this shared machine spoils a
    // few repetitions of each variant rather than every repetition of a few variants, and the
    // median leaves it out. Every variant is checked afterwards.
    PLAN.measure_groups(sections.iter_mut().map(|s| &mut s.group));
    PLAN.print_opening(&load_start, "");
    println!(
        "1. Full evaluation, {NODES} nodes, Head::Const (compiled/eager: plan and schedule reused; \
         lazy: memo cleared before each run, untimed)"
    );
    println!();
    println!("| graph | variant | µs/run | ns/node | × flat | target |");
    println!("|---|---|---:|---:|---:|---|");
    for s in sections.iter().filter(|s| s.name.starts_with("full_")) {
        let m = &s.group.medians;
        let nodes = s.nodes.unwrap_or(1) as f64;
        let flat = m[s.get("flat")];
        let graph = s.name.trim_start_matches("full_");
        for (name, target) in [
            ("flat", None),
            ("compiled", Some(1.5)),
            ("eager", None),
            ("lazy_cold", Some(15.0)),
        ] {
            let v = m[s.get(name)];
            let r = v / flat;
            let t = match target {
                Some(t) => format!("≤ {t}× ({})", verdict(r <= t)),
                None if name == "flat" => "the limit".into(),
                None => "—".into(),
            };
            println!(
                "| {graph} | {name} | {:.1} | {:.2} | {:.2} | {t} |",
                v / 1e3,
                v / nodes,
                r
            );
        }
    }

    let s = sections
        .iter()
        .find(|s| s.name == "incremental_chain")
        .expect("incremental section");
    let m = &s.group.medians;
    let us = |name: &str| m[s.get(name)] / 1e3;
    let full = us("compiled_full_run");
    println!();
    println!(
        "2. Incremental, {NODES}-node chain: Kiln IncrementalEvaluator vs salsa 0.28 \
         (edit + request, µs per request; a new value every time)"
    );
    println!();
    println!("| change | Kiln µs | salsa µs | salsa / Kiln | target |");
    println!("|---|---:|---:|---:|---|");
    let rows = [
        ("root param", "kiln_root_change", "salsa_root_change"),
        ("leaf", "kiln_leaf_change", "salsa_leaf_change"),
        ("none", "kiln_no_change", "salsa_no_change"),
    ];
    for (label, k, sa) in rows {
        let (kv, sv) = (us(k), us(sa));
        let target = match label {
            "root param" => format!("Kiln < 2 µs ({})", verdict(kv < 2.0)),
            "leaf" => format!(
                "Kiln / compiled full run < 2×: {:.2}× ({})",
                kv / full,
                verdict(kv / full < 2.0)
            ),
            _ => format!("Kiln < 1 µs ({})", verdict(kv < 1.0)),
        };
        println!(
            "| {label} | {kv:.3} | {sv:.3} | {:.1} | {target} |",
            sv / kv
        );
    }
    println!(
        "| (compiled full run, same chain) | {full:.3} | — | — | reference for the leaf row |"
    );

    println!();
    println!(
        "3. Parallel, CompiledEvaluator: Sequential vs Rayon {{ threads: Some(2), min_cost: None }} \
         (learned threshold, warmed by {PAR_WARMUP} runs)"
    );
    println!();
    println!(
        "| workload | sequential µs | rayon µs | sequential / rayon | nodes on workers per run | target |"
    );
    println!("|---|---:|---:|---:|---:|---|");
    for s in sections.iter().filter(|s| s.name.starts_with("parallel_")) {
        let m = &s.group.medians;
        let (seq, par) = (m[s.get("sequential")], m[s.get("rayon2_learned")]);
        let on_workers = s.group.entries[s.get("rayon2_learned")]
            .t
            .stats()
            .map_or(0, |st| st.parallel);
        let (label, target) = if s.name == "parallel_heavy" {
            let sp = seq / par;
            (
                format!("heavy_branches({HEAVY_SIZE}): 7 image nodes"),
                format!("speedup ≥ 1.7× ({})", verdict(sp >= 1.7)),
            )
        } else {
            let r = par / seq;
            (
                format!("standard DAG: {NODES} tiny nodes"),
                format!("rayon / sequential ≤ 1.05: {r:.3} ({})", verdict(r <= 1.05)),
            )
        };
        println!(
            "| {label} | {:.1} | {:.1} | {:.3} | {on_workers} | {target} |",
            seq / 1e3,
            par / 1e3,
            seq / par
        );
        if s.name == "parallel_heavy" {
            let one = m[s.get("control_branches_one_thread")];
            let two = m[s.get("control_branches_two_threads")];
            println!(
                "| control: the two branches (no mix), one thread vs two std threads | {:.1} | {:.1} | {:.3} | — | what the machine gave |",
                one / 1e3,
                two / 1e3,
                one / two
            );
        }
    }
    println!();
}

fn main() {
    let mut sections = vec![
        full_section("full_chain", standard_chain),
        full_section("full_dag", standard_dag),
        incremental_section(),
        heavy_section(),
        tiny_section(),
    ];
    let mut c = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    criterion_groups(&mut c, &mut sections);
    c.final_summary();
    // Only under `cargo bench` (see `bench_mode`): not as a smoke test, nor when profiling.
    if bench_mode() {
        summary(&mut sections);
    }
}
