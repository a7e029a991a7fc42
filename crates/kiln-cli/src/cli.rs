//! Command-line parsing and the commands themselves.

use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kiln_core::eval::{
    CompiledEvaluator, EagerEvaluator, ErrorPolicy, Failure, IncrementalEvaluator, ParallelPolicy,
};
use kiln_core::prelude::*;
use kiln_io::{GraphFile, LoadError};
use kiln_std::graph_io::{INPUT_PREFIX, OUTPUT_OP};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The built-in demo graph (also `examples/clouds.json`).
pub const DEMO_GRAPH: &str = include_str!("../../../examples/clouds.json");

#[derive(Parser)]
#[command(
    name = "kiln",
    version,
    about = "Cook node graphs into pictures, sounds, meshes and data."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(clap::Args)]
struct EvalArgs {
    /// Set a graph input: NAME=VALUE (repeatable). Vectors and colours: 1,2,3 or #rrggbb.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Folder to write outputs into (created if missing).
    #[arg(long, short, default_value = ".")]
    out: PathBuf,
    /// Time in seconds.
    #[arg(long, default_value_t = 0.0)]
    time: f64,
    /// Frame number.
    #[arg(long, default_value_t = 0)]
    frame: i64,
    /// Seed for procedural randomness.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Only these outputs (repeatable; default: every output of the graph).
    #[arg(long = "output", value_name = "NAME")]
    outputs: Vec<String>,
    /// Which evaluator runs the graph (all give the same bits).
    #[arg(long, value_enum, value_name = "NAME", default_value_t = EvaluatorKind::Lazy)]
    evaluator: EvaluatorKind,
    /// Run independent nodes at once on a Rayon pool of THREADS threads (default: one per
    /// core); only levels costly enough to gain from it go parallel. Eager and compiled only.
    #[arg(
        long,
        value_name = "THREADS",
        num_args = 0..=1,
        value_parser = parse_threads
    )]
    parallel: Option<Option<usize>>,
    /// What a failing node does: `fail-fast` stops and writes nothing; `propagate` writes
    /// the outputs that do not depend on the failure and reports the ones that do.
    #[arg(long, value_enum, value_name = "POLICY", default_value_t = ErrorsArg::FailFast)]
    errors: ErrorsArg,
    /// Print evaluation statistics (to stderr).
    #[arg(long)]
    stats: bool,
    /// Time every node and print the slowest ten (to stderr).
    #[arg(long)]
    timings: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// The evaluators `--evaluator` chooses between.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum EvaluatorKind {
    /// Pulls only what the outputs need, memoising every result by content key.
    Lazy,
    /// Runs the requested cone in schedule order.
    Eager,
    /// Runs a compiled flat schedule, with scalar kernels for float maths.
    Compiled,
    /// Re-runs only what changed since the previous request, with early cutoff.
    Incremental,
}

impl EvaluatorKind {
    fn name(self) -> &'static str {
        match self {
            EvaluatorKind::Lazy => "lazy",
            EvaluatorKind::Eager => "eager",
            EvaluatorKind::Compiled => "compiled",
            EvaluatorKind::Incremental => "incremental",
        }
    }
    fn supports_parallel(self) -> bool {
        matches!(self, EvaluatorKind::Eager | EvaluatorKind::Compiled)
    }
    fn build(self, reg: &Registry, parallel: ParallelPolicy) -> Box<dyn Evaluator> {
        match self {
            EvaluatorKind::Lazy => Box::new(LazyEvaluator::new(reg.clone())),
            EvaluatorKind::Eager => {
                Box::new(EagerEvaluator::new(reg.clone()).with_parallel(parallel))
            }
            // One-shot runs: compile on this thread rather than serving lazily meanwhile.
            EvaluatorKind::Compiled => Box::new(
                CompiledEvaluator::new(reg.clone())
                    .with_background(false)
                    .with_parallel(parallel),
            ),
            EvaluatorKind::Incremental => Box::new(IncrementalEvaluator::new(reg.clone())),
        }
    }
}

/// The error policies `--errors` chooses between.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ErrorsArg {
    /// Stop at the first failure; nothing is written.
    FailFast,
    /// Write the outputs that do not depend on a failure; report the ones that do.
    Propagate,
}

#[derive(Subcommand)]
enum Cmd {
    /// Evaluate a graph's outputs and write them as files (PNG for images, JSON otherwise).
    Run {
        /// The graph file.
        graph: PathBuf,
        #[command(flatten)]
        args: EvalArgs,
    },
    /// Render the built-in example (noise clouds) to clouds.png.
    Demo {
        #[command(flatten)]
        args: EvalArgs,
    },
    /// Check a graph and print every problem; exits non-zero if there are any.
    Validate {
        /// The graph file.
        graph: PathBuf,
    },
    /// Describe a graph: inputs, outputs, nodes by op and by determinism class.
    Info {
        /// The graph file.
        graph: PathBuf,
    },
    /// Print the graph in Graphviz DOT format.
    Dot {
        /// The graph file.
        graph: PathBuf,
    },
    /// List the registered ops with their ports, params and docs.
    Ops {
        /// Only ops whose id contains this text.
        filter: Option<String>,
    },
}

/// A failure the CLI reports as `error: ...` and exit code 1.
#[derive(Debug)]
pub struct CliError(String);

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<String> for CliError {
    fn from(s: String) -> Self {
        CliError(s)
    }
}

fn load_error(path: &Path, e: LoadError) -> CliError {
    CliError(format!("cannot load {}: {e}", path.display()))
}

fn load(path: &Path, reg: &Registry) -> Result<GraphFile, CliError> {
    kiln_io::read_graph(path, reg).map_err(|e| load_error(path, e))
}

/// Parse `args` and run the command.
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> Result<ExitCode, CliError> {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return Ok(ExitCode::from(if e.use_stderr() { 2 } else { 0 }));
        }
    };
    let reg = kiln_std::registry();
    match cli.cmd {
        Cmd::Run { graph, args } => {
            let file = load(&graph, &reg)?;
            run(&file.graph, &reg, &args)
        }
        Cmd::Demo { args } => {
            let file = kiln_io::load_graph(DEMO_GRAPH, &reg)
                .map_err(|e| CliError(format!("built-in demo: {e}")))?;
            run(&file.graph, &reg, &args)
        }
        Cmd::Validate { graph } => {
            let file = load(&graph, &reg)?;
            let diags = validate(&file.graph, &reg);
            if diags.is_empty() {
                println!(
                    "ok: {} is valid ({} nodes, {} wires)",
                    graph.display(),
                    file.graph.len(),
                    file.graph.wires().len()
                );
                Ok(ExitCode::SUCCESS)
            } else {
                for d in &diags {
                    println!("{d}");
                }
                eprintln!("error: {} problem(s) in {}", diags.len(), graph.display());
                Ok(ExitCode::from(1))
            }
        }
        Cmd::Info { graph } => {
            let file = load(&graph, &reg)?;
            info(&graph, &file, &reg)
        }
        Cmd::Dot { graph } => {
            let file = load(&graph, &reg)?;
            print!("{}", kiln_io::to_dot(&file.graph));
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Ops { filter } => {
            list_ops(&reg, filter.as_deref());
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Graph inputs: `(name, type, node index)`.
fn graph_inputs<'a>(g: &'a Graph, reg: &Registry) -> Vec<(&'a str, ValueType)> {
    g.nodes()
        .iter()
        .filter(|n| n.op.starts_with(INPUT_PREFIX))
        .filter_map(|n| {
            let ty = reg.get(&n.op)?.spec().outputs.first()?.ty;
            Some((n.id.as_str(), ty))
        })
        .collect()
}

fn graph_outputs(g: &Graph) -> Vec<String> {
    g.nodes()
        .iter()
        .filter(|n| n.op == OUTPUT_OP)
        .map(|n| n.id.to_string())
        .collect()
}

fn context(g: &Graph, reg: &Registry, args: &EvalArgs) -> Result<EvalContext, CliError> {
    let mut ctx = EvalContext::new();
    ctx.time = args.time;
    ctx.frame = args.frame;
    ctx.seed = args.seed;
    let inputs = graph_inputs(g, reg);
    for s in &args.set {
        let (name, text) = s
            .split_once('=')
            .ok_or_else(|| CliError(format!("--set `{s}`: expected NAME=VALUE")))?;
        let Some(&(_, ty)) = inputs.iter().find(|(n, _)| *n == name) else {
            let names: Vec<&str> = inputs.iter().map(|(n, _)| *n).collect();
            return Err(CliError(format!(
                "--set `{name}`: the graph has no input of that name ({})",
                if names.is_empty() {
                    "it has no inputs".to_string()
                } else {
                    format!("inputs: {}", names.join(", "))
                }
            )));
        };
        let v = kiln_io::parse_cli_value(text, ty)
            .map_err(|e| CliError(format!("--set `{name}` ({ty}): {e}")))?;
        ctx.inputs.insert(name.to_string(), v);
    }
    Ok(ctx)
}

fn progress_bar(quiet: bool) -> Option<ProgressBar> {
    if quiet {
        return None;
    }
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr_with_hz(10));
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} nodes {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    Some(bar)
}

/// A `--parallel` thread count: a whole number, at least 1.
fn parse_threads(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("the thread count must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "expected a thread count (a whole number, at least 1), not `{s}`"
        )),
    }
}

fn parallel_policy(args: &EvalArgs) -> Result<ParallelPolicy, CliError> {
    let Some(threads) = args.parallel else {
        return Ok(ParallelPolicy::Sequential);
    };
    if !args.evaluator.supports_parallel() {
        return Err(CliError(format!(
            "--parallel works with the eager and compiled evaluators only; the {} evaluator \
             runs sequentially (add --evaluator eager or --evaluator compiled)",
            args.evaluator.name()
        )));
    }
    Ok(ParallelPolicy::Rayon {
        threads,
        min_cost: None,
    })
}

fn run(g: &Graph, reg: &Registry, args: &EvalArgs) -> Result<ExitCode, CliError> {
    let parallel = parallel_policy(args)?;
    let diags = validate(g, reg);
    if !diags.is_empty() {
        for d in &diags {
            eprintln!("{d}");
        }
        return Err(CliError(format!(
            "the graph has {} problem(s); nothing was written",
            diags.len()
        )));
    }
    let mut outputs = if args.outputs.is_empty() {
        graph_outputs(g)
    } else {
        args.outputs.clone()
    };
    let mut seen = std::collections::HashSet::new();
    outputs.retain(|o| seen.insert(o.clone()));
    if outputs.is_empty() {
        return Err(CliError(
            "the graph has no outputs (add an \"outputs\" section, or name nodes with --output)"
                .into(),
        ));
    }
    let mut ctx = context(g, reg, args)?;
    let bar = progress_bar(args.quiet);
    if let Some(bar) = &bar {
        let b = bar.clone();
        ctx.progress = Some(Arc::new(move |p: &Progress<'_>| {
            b.set_length(p.total as u64);
            b.set_position(p.completed as u64);
            if let Some(node) = p.node {
                match p.node_fraction {
                    Some(f) => b.set_message(format!("{node} {:.0}%", f * 100.0)),
                    None => b.set_message(node.to_string()),
                }
            }
        }));
    }
    let mut request = Request::new(outputs.iter().cloned()).with_errors(match args.errors {
        ErrorsArg::FailFast => ErrorPolicy::FailFast,
        ErrorsArg::Propagate => ErrorPolicy::Propagate,
    });
    if args.timings {
        request = request.with_timings();
    }
    let mut eval = args.evaluator.build(reg, parallel.clone());
    let started = Instant::now();
    let result = eval.evaluate(g, &request, &ctx);
    let elapsed = started.elapsed();
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let out =
        result.map_err(|e| CliError(format!("evaluation failed: {e}; nothing was written")))?;
    // Under `--errors propagate`, outputs holding an error are reported, not written.
    let failed: Vec<&str> = out
        .values
        .iter()
        .filter(|(_, v)| matches!(v, Value::Error(_)))
        .map(|(n, _)| n.as_str())
        .collect();
    // Encode every output before writing any, so a frame lands whole or not at all.
    let mut files = Vec::with_capacity(out.values.len());
    for (name, v) in &out.values {
        if matches!(v, Value::Error(_)) {
            continue;
        }
        let file = kiln_io::encode_output(&args.out, &name.replace('.', "_"), v).map_err(|e| {
            CliError(format!(
                "cannot write output `{name}`: {e}; nothing was written"
            ))
        })?;
        files.push(file);
    }
    if !files.is_empty() {
        std::fs::create_dir_all(&args.out)
            .map_err(|e| CliError(format!("cannot create {}: {e}", args.out.display())))?;
    }
    for (path, bytes) in &files {
        kiln_io::write_atomic(path, bytes)
            .map_err(|e| CliError(format!("cannot write {}: {e}", path.display())))?;
        println!("wrote {}", path.display());
    }
    if args.stats {
        print_stats(args.evaluator, &parallel, &out.stats, elapsed);
    }
    if args.timings {
        print_timings(&out);
    }
    if !out.failures.is_empty() {
        print_failures(&out.failures);
    }
    if failed.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!(
            "error: {} of {} output(s) failed and were not written: {}",
            failed.len(),
            out.values.len(),
            failed.join(", ")
        );
        Ok(ExitCode::from(1))
    }
}

fn print_stats(kind: EvaluatorKind, parallel: &ParallelPolicy, s: &Stats, elapsed: Duration) {
    let policy = match parallel {
        ParallelPolicy::Sequential => "sequential".to_string(),
        ParallelPolicy::Rayon {
            threads: Some(t), ..
        } => format!("parallel, {t} threads"),
        ParallelPolicy::Rayon { threads: None, .. } => "parallel, one thread per core".into(),
    };
    eprintln!(
        "stats: {} evaluator ({policy}): executed {} nodes, {} cache hits, {} cutoffs, \
         {} propagated, {} parallel, {} keys computed, planned {}, {:.3} ms",
        kind.name(),
        s.executed,
        s.cache_hits,
        s.cutoffs,
        s.propagated,
        s.parallel,
        s.keys_computed,
        if s.planned { "yes" } else { "no" },
        elapsed.as_secs_f64() * 1e3
    );
}

fn print_timings(out: &Outputs) {
    let mut slowest: Vec<_> = out.timings.iter().collect();
    slowest.sort_by_key(|t| std::cmp::Reverse(t.time));
    slowest.truncate(10);
    eprintln!(
        "timings: slowest {} of {} executed node(s)",
        slowest.len(),
        out.timings.len()
    );
    for t in slowest {
        eprintln!(
            "  {:>10.3} ms  {} ({})",
            t.time.as_secs_f64() * 1e3,
            t.node,
            t.op
        );
    }
}

/// The error's message without the node and op, which the report shows beside it.
fn failure_message(e: &EvalError) -> String {
    match e {
        EvalError::Node {
            port: Some(p),
            message,
            ..
        } => format!("{p}: {message}"),
        EvalError::Node { message, .. } => message.clone(),
        EvalError::Panic { message, .. } => format!("panicked: {message}"),
        e => e.to_string(),
    }
}

fn print_failures(failures: &[Failure]) {
    eprintln!("{} node(s) failed:", failures.len());
    for f in failures {
        eprintln!(
            "  node `{}` ({}): {}",
            f.node,
            f.op,
            failure_message(&f.error)
        );
        if f.affected.is_empty() {
            eprintln!("    affects no output (handled downstream)");
        } else {
            eprintln!("    affects output(s): {}", f.affected.join(", "));
        }
    }
}

fn info(path: &Path, file: &GraphFile, reg: &Registry) -> Result<ExitCode, CliError> {
    let g = &file.graph;
    println!("graph: {}", path.display());
    if let Some(d) = &file.meta.description {
        println!("description: {d}");
    }
    println!("nodes: {}, wires: {}", g.len(), g.wires().len());
    println!("inputs:");
    for (name, ty) in graph_inputs(g, reg) {
        let default = g
            .node(name)
            .and_then(|n| n.params.get("default"))
            .map(|v| format!(" = {}", show(v)))
            .unwrap_or_default();
        let doc = file
            .meta
            .input_docs
            .get(name)
            .map(|d| format!("  ({d})"))
            .unwrap_or_default();
        println!("  {name}: {ty}{default}{doc}");
    }
    println!("outputs:");
    let plan = Plan::build(g, reg);
    for name in graph_outputs(g) {
        let ty = match (&plan, g.index_of(&name)) {
            (Ok(p), Some(i)) => p
                .output_types(i)
                .first()
                .map(|t| t.to_string())
                .unwrap_or_default(),
            _ => "?".into(),
        };
        println!("  {name}: {ty}");
    }
    let mut by_op: std::collections::BTreeMap<&str, usize> = Default::default();
    for n in g.nodes() {
        *by_op.entry(&n.op).or_default() += 1;
    }
    println!("ops:");
    for (op, n) in by_op {
        println!("  {op} x{n}");
    }
    match plan {
        Ok(p) => {
            let count = |c: Class| (0..p.len()).filter(|&i| p.class(i) == c).count();
            println!(
                "determinism: {} static, {} context-dependent, {} volatile",
                count(Class::Static),
                count(Class::Context),
                count(Class::Volatile)
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(d) => {
            println!("{d}");
            Ok(ExitCode::from(1))
        }
    }
}

fn show(v: &Value) -> String {
    match v {
        Value::Float(x) => format!("{x:?}"),
        Value::Int(x) => x.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Str(s) => format!("{s:?}"),
        Value::Vec2(a) => format!("{a:?}"),
        Value::Vec3(a) => format!("{a:?}"),
        Value::Vec4(a) => format!("{a:?}"),
        Value::Color(c) => format!("{c:?}"),
        Value::List(l) => format!("[{}]", l.iter().map(show).collect::<Vec<_>>().join(", ")),
        Value::Heavy(h) => format!("<{}>", h.type_name()),
        Value::Empty => "none".into(),
        Value::Error(e) => format!("<error: {e}>"),
    }
}

fn list_ops(reg: &Registry, filter: Option<&str>) {
    for op in reg.iter() {
        let s = op.spec();
        if filter.is_some_and(|f| !s.id.contains(f)) {
            continue;
        }
        println!("{} (v{}, {})", s.id, s.version, s.purity.name());
        println!("    {}", s.doc);
        for i in &s.inputs {
            let mut extra = vec![];
            if let Some(d) = &i.default {
                extra.push(format!("default {}", show(d)));
            } else {
                extra.push("required".into());
            }
            if i.lazy {
                extra.push("lazy".into());
            }
            println!(
                "    in  {}: {} [{}] — {}",
                i.name,
                i.ty,
                extra.join(", "),
                i.doc
            );
        }
        for p in &s.params {
            let d = p
                .default
                .as_ref()
                .map(|d| format!("default {}", show(d)))
                .unwrap_or_else(|| "required".into());
            println!("    par {}: {} [{d}] — {}", p.name, p.ty, p.doc);
        }
        for o in &s.outputs {
            println!("    out {}: {} — {}", o.name, o.ty, o.doc);
        }
    }
}
