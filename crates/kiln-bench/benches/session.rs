//! Sessions and the persistent cache (issue 5), on a graph of about 5,000 nodes.
//!
//! Run: `cargo bench -p kiln-bench --bench session`. Criterion groups come first, then a
//! summary measured in the same process ([`kiln_bench::summary`], with [`Plan::STANDARD`]):
//! for each variant the median of 21 repetitions, every variant visited in turn in each repetition (so drift and bursts of
//! other work on a shared machine spoil a few repetitions of each variant instead of all
//! repetitions of a few). A repetition is one untimed run, then enough timed runs to fill
//! about 4 ms. The persistent-cache runs come last.
//!
//! The graph is [`kiln_bench::session::standard_chains`]: 50 chains of 100 nodes joined by a
//! 49-node reduction tree (5,049 nodes), each chain starting at a param-bearing head, in two
//! variants of the same shape: cheap scalar nodes, and 32 × 32 images (microseconds a node).
//!
//! 1. **Re-present after one param edit.** A [`Session`] presents the graph once; then each
//!    run sets the head param of one chain (alternating between two values, so it always
//!    changes) and presents again. The edited chain is the first or the last one. Every
//!    checked present must cook exactly the head's downstream cone (computed from the
//!    graph's wires), with no replanning and no cutoff, and give the output of a fresh
//!    evaluation of the edited graph, bit for bit.
//! 2. **The cone's own cook time.** The graph of just that cone
//!    ([`kiln_bench::session::cone_only`]: outside inputs replaced by constants of the values
//!    they carry) evaluated in full by a warm [`CompiledEvaluator`] (plan and schedule built,
//!    `with_background(false)`), which runs the nodes with the least machinery. The issue's
//!    target: re-present under 2× this.
//!
//!    Also the same edit on a [`Session`] over the cone alone: the cone cooked on its own by
//!    the same machinery, so the ratio shows what the rest of the graph costs a re-present.
//!
//!    Diagnostics beside them (scalar variant): the same edit and request on a bare
//!    [`IncrementalEvaluator`] (what the session adds is the rest), and a present with
//!    nothing changed (the fixed cost of a present).
//! 3. **Persistent cache.** A [`LazyEvaluator`] with a [`Store`] (`KeepAll`) backed by a
//!    [`DiskCache`] in a fresh temporary directory evaluates the full graph; then a fresh
//!    evaluator, store and `DiskCache` on the same directory evaluate it again, and must
//!    execute 0 nodes. A lazy evaluation without a store is the reference.
//!
//! See `docs/performance.md` ("Sessions and the persistent cache") for results.

use criterion::Criterion;
use kiln_bench::session::{ChainsWorkload, ConeGraph, Nodes, cone_only, standard_chains};
use kiln_bench::summary::{
    Entry, Group, Plan, Variant, bench_mode, loadavg, median, time_runs, verdict,
};
use kiln_core::cache::{KeepAll, Store};
use kiln_core::context::EvalContext;
use kiln_core::eval::{
    CompiledEvaluator, Evaluator, IncrementalEvaluator, LazyEvaluator, Request, Stats,
};
use kiln_core::graph::Graph;
use kiln_core::value::Value;
use kiln_io::cache::DiskCache;
use kiln_lower::session::{Clock, PresentReport, Session};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How the summary measures: 21 repetitions of about 4 ms.
const PLAN: Plan = Plan::STANDARD;
/// Runs of the second, cache-reading evaluation (each with a fresh evaluator and store).
const WARM_RUNS: usize = 11;
/// The target: re-present under this many times the cone's own cook time.
const TARGET: f64 = 2.0;

/// One measured variant: its runs and check ([`Variant`]), and its last report.
trait Timed: Variant {
    /// The report of the last checked present, when the variant is a session.
    fn report(&self) -> Option<&PresentReport> {
        None
    }
}

/// The single output of an evaluation.
fn output_of<E: Evaluator>(ev: &mut E, graph: &Graph, output: &str, ctx: &EvalContext) -> Value {
    let out = ev
        .evaluate(graph, &Request::new([output]), ctx)
        .expect("evaluation succeeds");
    out.values.into_iter().next().expect("one output").1
}

/// What every variant of one (workload, edited chain) pair shares.
struct Edit {
    /// The workload's graph as built (the head holds `values[0]`).
    graph: Graph,
    output: String,
    head: String,
    param: &'static str,
    /// The head's two values: as built, and the alternate.
    values: [Value; 2],
    /// The output with each value, from a fresh lazy evaluation of the whole edited graph.
    wants: [Value; 2],
    /// The cone of the head, alone, with the head at `values[1]`.
    cone: ConeGraph,
}

impl Edit {
    fn new(w: &ChainsWorkload, chain: usize) -> Edit {
        let reg = kiln_image::registry();
        let ctx = EvalContext::new();
        let head = w.heads[chain].clone();
        let param = w.head_param();
        let values = [w.head_value(chain, false), w.head_value(chain, true)];
        let mut edited = w.graph.clone();
        edited
            .set_param(&head, param, values[1].clone())
            .expect("head");
        let wants = [&w.graph, &edited]
            .map(|g| output_of(&mut LazyEvaluator::new(reg.clone()), g, &w.output, &ctx));
        assert!(
            !wants[0].same_bits(&wants[1]),
            "the edit does not change the output"
        );
        let cone = cone_only(&edited, &reg, &head, &ctx).expect("the cone's inputs evaluate");
        Edit {
            graph: w.graph.clone(),
            output: w.output.clone(),
            head,
            param,
            values,
            wants,
            cone,
        }
    }

    fn cone_len(&self) -> u64 {
        self.cone.nodes.len() as u64
    }
}

/// A session re-presented after each edit of the head param.
struct RePresent {
    label: String,
    session: Session,
    edit: Arc<Edit>,
    /// The value the head holds now (index into `edit.values`).
    at: usize,
    last: Option<PresentReport>,
}

impl RePresent {
    fn new(label: String, edit: Arc<Edit>) -> Self {
        let graph = edit.graph.clone();
        Self::on(label, edit, graph, 0)
    }

    /// A session on `graph` (the whole graph, or the cone alone), whose head holds
    /// `edit.values[at]`.
    fn on(label: String, edit: Arc<Edit>, graph: Graph, at: usize) -> Self {
        let n = graph.len();
        let mut session = Session::new(kiln_image::registry(), graph, [edit.output.as_str()]);
        let first = session.present(Clock::default()).expect("first present");
        assert_eq!(first.cooked as usize, n, "{label}: {first}");
        let mut r = RePresent {
            label,
            session,
            edit,
            at,
            last: None,
        };
        r.check("setup");
        r.check("setup, second edit");
        r
    }

    #[inline]
    fn step(&mut self) -> PresentReport {
        self.at ^= 1;
        let e = &self.edit;
        self.session
            .set_param(&e.head, e.param, e.values[self.at].clone())
            .expect("head exists");
        self.session.present(Clock::default()).expect("present")
    }
}

impl Variant for RePresent {
    fn time(&mut self, n: u64) -> Duration {
        time_runs(n, || self.step())
    }
    fn check(&mut self, when: &str) {
        let r = self.step();
        let e = &self.edit;
        assert_eq!(
            r.cooked,
            e.cone_len(),
            "{} ({when}): cooked is not the cone: {r}",
            self.label
        );
        assert_eq!(r.cut_off, 0, "{} ({when}): {r}", self.label);
        assert!(!r.planned, "{} ({when}): replanned: {r}", self.label);
        let frame = self.session.frame().expect("a frame");
        let got = frame.get(&e.output).expect("the output");
        assert!(
            got.same_bits(&e.wants[self.at]),
            "{} ({when}): the output differs from a fresh evaluation",
            self.label
        );
        self.last = Some(r);
    }
}

impl Timed for RePresent {
    fn report(&self) -> Option<&PresentReport> {
        self.last.as_ref()
    }
}

/// A present with nothing changed (the fixed cost of a present).
struct Unchanged {
    label: String,
    session: Session,
    want: Value,
}

impl Variant for Unchanged {
    fn time(&mut self, n: u64) -> Duration {
        time_runs(n, || self.session.present(Clock::default()).ok())
    }
    fn check(&mut self, when: &str) {
        let r = self.session.present(Clock::default()).expect("present");
        assert_eq!(r.cooked, 0, "{} ({when}): {r}", self.label);
        let frame = self.session.frame().expect("a frame");
        assert!(frame.values[0].1.same_bits(&self.want), "{}", self.label);
    }
}

impl Timed for Unchanged {}

/// The same edit and request on a bare incremental evaluator (no session around it).
struct BareIncremental {
    label: String,
    ev: IncrementalEvaluator,
    graph: Graph,
    req: Request,
    ctx: EvalContext,
    edit: Arc<Edit>,
    at: usize,
}

impl BareIncremental {
    fn new(label: String, edit: Arc<Edit>) -> Self {
        let mut b = BareIncremental {
            label,
            ev: IncrementalEvaluator::new(kiln_image::registry()),
            graph: edit.graph.clone(),
            req: Request::new([edit.output.as_str()]),
            ctx: EvalContext::new(),
            edit,
            at: 0,
        };
        let first = b.ev.evaluate(&b.graph, &b.req, &b.ctx).expect("evaluates");
        assert_eq!(first.stats.executed as usize, b.graph.len());
        b.check("setup");
        b
    }

    #[inline]
    fn step(&mut self) -> Result<kiln_core::eval::Outputs, kiln_core::eval::EvalError> {
        self.at ^= 1;
        let e = &self.edit;
        self.graph
            .set_param(&e.head, e.param, e.values[self.at].clone())
            .expect("head exists");
        self.ev.evaluate(&self.graph, &self.req, &self.ctx)
    }
}

impl Variant for BareIncremental {
    fn time(&mut self, n: u64) -> Duration {
        time_runs(n, || self.step().ok())
    }
    fn check(&mut self, when: &str) {
        let out = self.step().expect("evaluates");
        assert_eq!(
            out.stats.executed,
            self.edit.cone_len(),
            "{} ({when}): {:?}",
            self.label,
            out.stats
        );
        assert!(
            out.values[0].1.same_bits(&self.edit.wants[self.at]),
            "{} ({when})",
            self.label
        );
    }
}

impl Timed for BareIncremental {}

/// The cone alone, evaluated in full by a warm compiled evaluator.
struct Cone {
    label: String,
    ev: CompiledEvaluator,
    req: Request,
    ctx: EvalContext,
    edit: Arc<Edit>,
    last: Stats,
}

impl Cone {
    fn new(label: String, edit: Arc<Edit>) -> Self {
        let mut c = Cone {
            label,
            ev: CompiledEvaluator::new(kiln_image::registry()).with_background(false),
            req: Request::new([edit.output.as_str()]),
            ctx: EvalContext::new(),
            edit,
            last: Stats::default(),
        };
        c.check("setup");
        c.check("setup, warm");
        c
    }
}

impl Variant for Cone {
    fn time(&mut self, n: u64) -> Duration {
        let g = &self.edit.cone.graph;
        time_runs(n, || self.ev.evaluate(g, &self.req, &self.ctx).ok())
    }
    fn check(&mut self, when: &str) {
        let out = self
            .ev
            .evaluate(&self.edit.cone.graph, &self.req, &self.ctx)
            .expect("the cone evaluates");
        assert_eq!(
            out.stats.executed,
            self.edit.cone_len(),
            "{} ({when}): {:?}",
            self.label,
            out.stats
        );
        assert!(
            out.values[0].1.same_bits(&self.edit.wants[1]),
            "{} ({when}): the cone's output differs from the edited graph's",
            self.label
        );
        self.last = out.stats;
    }
}

impl Timed for Cone {}

/// A named variant.
fn entry(name: &'static str, t: impl Timed + 'static) -> Entry<dyn Timed> {
    Entry::new(name, Box::new(t))
}

/// The variants of one workload and edited chain.
struct Section {
    /// Criterion group name.
    name: String,
    kind: Nodes,
    chain: usize,
    nodes: usize,
    edit: Arc<Edit>,
    /// The variants, and the summary's median ns per run of each (set by the summary).
    group: Group<dyn Timed>,
}

fn section(w: &ChainsWorkload, chain: usize) -> Section {
    let name = format!("session_{}_chain{chain}", w.kind.name());
    let edit = Arc::new(Edit::new(w, chain));
    let mut entries = vec![
        entry(
            "re_present",
            RePresent::new(format!("{name} re-present"), edit.clone()),
        ),
        entry(
            "cone_compiled",
            Cone::new(format!("{name} cone"), edit.clone()),
        ),
        entry(
            "cone_session",
            RePresent::on(
                format!("{name} cone session"),
                edit.clone(),
                edit.cone.graph.clone(),
                1,
            ),
        ),
    ];
    if w.kind == Nodes::Scalar {
        entries.push(entry(
            "bare_incremental",
            BareIncremental::new(format!("{name} bare incremental"), edit.clone()),
        ));
        let mut session =
            Session::new(kiln_image::registry(), w.graph.clone(), [w.output.as_str()]);
        session.present(Clock::default()).expect("present");
        let mut u = Unchanged {
            label: format!("{name} unchanged"),
            session,
            want: edit.wants[0].clone(),
        };
        u.check("setup");
        entries.push(entry("present_unchanged", u));
    }
    Section {
        name,
        kind: w.kind,
        chain,
        nodes: w.nodes(),
        edit,
        group: Group::new(entries),
    }
}

fn criterion_groups(c: &mut Criterion, sections: &mut [Section]) {
    for s in sections.iter_mut() {
        let mut g = c.benchmark_group(s.name.as_str());
        for e in &mut s.group.entries {
            g.bench_function(e.name, |b| b.iter_custom(|n| e.t.time(n)));
        }
        g.finish();
        s.group.check("after criterion");
    }
}

/// What the persistent-cache runs of one workload found.
struct Persisted {
    kind: Nodes,
    nodes: usize,
    first: Duration,
    first_executed: u64,
    saves: u64,
    entries: usize,
    second: Duration,
    second_executed: u64,
    second_loads: u64,
    second_hits: u64,
    warm_median: Duration,
    no_store: Duration,
}

/// A lazy evaluator over a fresh `KeepAll` store backed by a fresh `DiskCache` on `dir`.
fn cached_evaluator(dir: &std::path::Path) -> (LazyEvaluator, Arc<DiskCache>) {
    let registry = kiln_image::registry();
    let disk = Arc::new(DiskCache::open(dir, &registry).expect("cache directory"));
    let store = Arc::new(Store::new(KeepAll).with_backing(disk.clone()));
    (LazyEvaluator::new(registry).with_store(store), disk)
}

fn persistent(w: &ChainsWorkload, want: &Value) -> Persisted {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let req = Request::new([w.output.as_str()]);
    let ctx = EvalContext::new();
    let timed = |ev: &mut LazyEvaluator| {
        let t = Instant::now();
        let out = ev.evaluate(&w.graph, &req, &ctx).expect("evaluates");
        let el = t.elapsed();
        assert!(out.values[0].1.same_bits(want), "{}", w.kind.name());
        (el, out.stats)
    };
    let (mut ev, disk) = cached_evaluator(dir.path());
    let (first, s1) = timed(&mut ev);
    let d1 = disk.stats();
    let entries = disk.entry_count();
    drop(ev);
    let (mut ev, disk) = cached_evaluator(dir.path());
    let (second, s2) = timed(&mut ev);
    let d2 = disk.stats();
    let warm: Vec<f64> = (0..WARM_RUNS)
        .map(|_| {
            let (mut ev, _) = cached_evaluator(dir.path());
            let (t, s) = timed(&mut ev);
            assert_eq!(s.executed, 0, "a cache-reading run executed nodes");
            t.as_secs_f64()
        })
        .collect();
    let no_store = (0..3)
        .map(|_| timed(&mut LazyEvaluator::new(kiln_image::registry())).0)
        .min()
        .unwrap_or_default();
    assert_eq!(s1.executed as usize, w.nodes(), "{}: {s1:?}", w.kind.name());
    assert_eq!(s2.executed, 0, "{}: second run {s2:?}", w.kind.name());
    Persisted {
        kind: w.kind,
        nodes: w.nodes(),
        first,
        first_executed: s1.executed,
        saves: d1.saves,
        entries,
        second,
        second_executed: s2.executed,
        second_loads: d2.loads,
        second_hits: d2.hits,
        warm_median: Duration::from_secs_f64(median(warm)),
        no_store,
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn summary(sections: &mut [Section], workloads: &[ChainsWorkload]) {
    let load_start = loadavg();
    // Interleaved repetition by repetition; every variant is checked afterwards.
    PLAN.measure_groups(sections.iter_mut().map(|s| &mut s.group));
    PLAN.print_opening(&load_start, "");
    println!(
        "1–2. Re-present after one head-param edit (Session: set_param + present) vs the cone \
         alone (a warm CompiledEvaluator's full evaluation; and a Session over the cone alone \
         re-presented after the same edit), µs per run"
    );
    println!();
    println!(
        "| variant | nodes | edited chain | cone nodes | cooked | reused | re-present µs | cone compiled µs | re-present / cone compiled | target < {TARGET}× | cone session µs | re-present / cone session | target < {TARGET}× |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|");
    for s in sections.iter() {
        let r = s
            .group
            .variant("re_present")
            .expect("re_present")
            .report()
            .cloned()
            .unwrap_or_default();
        let (rp, cone) = (
            s.group.median("re_present").unwrap_or(f64::NAN),
            s.group.median("cone_compiled").unwrap_or(f64::NAN),
        );
        let ratio = rp / cone;
        let cs = s.group.median("cone_session").unwrap_or(f64::NAN);
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {} | {:.2} | {:.2} | {} |",
            s.kind.name(),
            s.nodes,
            s.chain,
            s.edit.cone_len(),
            r.cooked,
            r.reused,
            rp / 1e3,
            cone / 1e3,
            ratio,
            verdict(ratio < TARGET),
            cs / 1e3,
            rp / cs,
            verdict(rp / cs < TARGET)
        );
    }
    println!();
    println!(
        "cooked: nodes executed by the present; reused: nodes checked and found current \
         without running (PresentReport)."
    );
    println!();
    println!("Diagnostics (scalar): µs per run, and as a multiple of the cone's cook time");
    println!();
    println!(
        "| edited chain | re-present | bare IncrementalEvaluator (edit + evaluate) | present, nothing changed | cone |"
    );
    println!("|---:|---:|---:|---:|---:|");
    for s in sections.iter().filter(|s| s.kind == Nodes::Scalar) {
        let cone = s.group.median("cone_compiled").unwrap_or(f64::NAN);
        let cell = |name: &str| {
            s.group.median(name).map_or("—".to_string(), |v| {
                format!("{:.2} ({:.1}×)", v / 1e3, v / cone)
            })
        };
        println!(
            "| {} | {} | {} | {} | {:.2} |",
            s.chain,
            cell("re_present"),
            cell("bare_incremental"),
            cell("present_unchanged"),
            cone / 1e3
        );
    }
    for s in sections.iter() {
        if let Some(r) = s.group.entries[0].t.report() {
            println!("{} last checked present: {r}", s.name);
        }
    }

    println!();
    println!(
        "3. Persistent cache: LazyEvaluator + Store(KeepAll) + DiskCache (fresh temporary directory), \
         the full graph; then a fresh evaluator, store and DiskCache on the same directory"
    );
    println!();
    println!(
        "| variant | nodes | run 1 ms (writes the cache) | run 1 executed | entries written | run 2 ms | run 2 executed | run 2 disk loads / hits | run 2 again, median of {WARM_RUNS} ms | lazy, no store, min of 3 ms | target: run 2 executes 0 |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    for w in workloads {
        let want = sections
            .iter()
            .find(|s| s.kind == w.kind)
            .map(|s| s.edit.wants[0].clone())
            .expect("a section of the workload");
        let p = persistent(w, &want);
        println!(
            "| {} | {} | {:.1} | {} | {} ({} saves) | {:.3} | {} | {} / {} | {:.3} | {:.2} | {} |",
            p.kind.name(),
            p.nodes,
            ms(p.first),
            p.first_executed,
            p.entries,
            p.saves,
            ms(p.second),
            p.second_executed,
            p.second_loads,
            p.second_hits,
            ms(p.warm_median),
            ms(p.no_store),
            verdict(p.second_executed == 0)
        );
    }
    println!();
    println!(
        "Every run builds its plan (fresh evaluators). Lazy no-store: a fresh LazyEvaluator \
         without a store, the work a run without the cache does."
    );
    println!();
}

fn main() {
    let workloads = [
        standard_chains(Nodes::Scalar),
        standard_chains(Nodes::Image),
    ];
    let last = workloads[0].heads.len() - 1;
    let mut sections: Vec<Section> = workloads
        .iter()
        .flat_map(|w| [section(w, 0), section(w, last)])
        .collect();
    let mut c = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    criterion_groups(&mut c, &mut sections);
    c.final_summary();
    // Only under `cargo bench` (see `bench_mode`): not as a smoke test, nor when profiling.
    if bench_mode() {
        summary(&mut sections, &workloads);
    }
}
