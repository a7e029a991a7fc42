//! Command-line parsing and the commands themselves.

use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kiln_core::eval::{
    CompiledEvaluator, EagerEvaluator, ErrorPolicy, Failure, IncrementalEvaluator, ParallelPolicy,
};
use kiln_core::plan::{Class, Plan};
use kiln_core::prelude::*;
use kiln_core::recurrence::{LATCH_OP, Recurrent};
use kiln_io::wav::{StagedFile, WavError, WavFormat, WavStream};
use kiln_io::{GraphFile, LoadError};
use kiln_std::graph_io::{INPUT_PREFIX, OUTPUT_OP};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "bake.rs"]
mod bake;
#[path = "watch.rs"]
mod watch;

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
    /// Keep results in the persistent cache DIR (created if missing) and reuse what an
    /// earlier run left there; says on stderr how many nodes were cooked and how many came
    /// from the cache. Lazy and incremental evaluators only.
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
}

/// The options of `kiln render`.
#[derive(clap::Args)]
struct RenderArgs {
    /// Number of ticks to run: ticks 0 to N-1, one file per output and tick.
    #[arg(
        long,
        value_name = "N",
        value_parser = parse_ticks,
        required_unless_present = "seconds",
        conflicts_with = "seconds"
    )]
    ticks: Option<u64>,
    /// Seconds of audio to render: stream the graph's signal outputs and write one mono WAV
    /// per output, DIR/<output>.wav.
    #[arg(long, value_name = "S", value_parser = parse_seconds)]
    seconds: Option<f64>,
    /// Seconds per tick: tick t runs at time t * dt (and frame t). A number or a fraction.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value = "1/60",
        value_parser = parse_dt,
        conflicts_with = "seconds"
    )]
    dt: f64,
    /// With --seconds: samples per second.
    #[arg(
        long,
        value_name = "HZ",
        default_value_t = 48_000,
        value_parser = parse_rate,
        conflicts_with = "ticks"
    )]
    rate: u32,
    /// With --seconds: samples per block (the output is the same for every block size).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 64,
        value_parser = parse_block,
        conflicts_with = "ticks"
    )]
    block: usize,
    /// With --seconds: the WAV sample format.
    #[arg(
        long,
        value_enum,
        value_name = "FORMAT",
        default_value_t = WavFormatArg::F32,
        conflicts_with = "ticks"
    )]
    wav_format: WavFormatArg,
    /// Set a graph input: NAME=VALUE (repeatable). Vectors and colours: 1,2,3 or #rrggbb.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Folder to write the frames (or WAV files) into (created if missing).
    #[arg(long, short, default_value = ".")]
    out: PathBuf,
    /// Seed for procedural randomness.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Only these outputs (repeatable; default: every output of the graph).
    #[arg(long = "output", value_name = "NAME")]
    outputs: Vec<String>,
    /// Which evaluator runs each tick (all give the same bits). `incremental` re-cooks only
    /// what a tick changes and keeps no memo of earlier ticks.
    #[arg(
        long,
        value_enum,
        value_name = "NAME",
        default_value_t = EvaluatorKind::Incremental,
        conflicts_with = "seconds"
    )]
    evaluator: EvaluatorKind,
    /// Run independent nodes at once on a Rayon pool of THREADS threads (default: one per
    /// core). Eager and compiled only.
    #[arg(
        long,
        value_name = "THREADS",
        num_args = 0..=1,
        value_parser = parse_threads,
        conflicts_with = "seconds"
    )]
    parallel: Option<Option<usize>>,
    /// Print evaluation statistics summed over the ticks (to stderr).
    #[arg(long, conflicts_with = "seconds")]
    stats: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// With --ticks: keep results in the persistent cache DIR (created if missing) and
    /// reuse what an earlier render left there. Lazy and incremental evaluators only.
    #[arg(long, value_name = "DIR", conflicts_with = "seconds")]
    cache: Option<PathBuf>,
}

/// The WAV sample formats `--wav-format` chooses between.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum WavFormatArg {
    /// 32-bit float, not clamped.
    F32,
    /// 16-bit PCM, clamped to [-1, 1].
    Pcm16,
    /// 24-bit PCM, clamped to [-1, 1].
    Pcm24,
}

impl WavFormatArg {
    fn format(self) -> WavFormat {
        match self {
            WavFormatArg::F32 => WavFormat::Float32,
            WavFormatArg::Pcm16 => WavFormat::Pcm16,
            WavFormatArg::Pcm24 => WavFormat::Pcm24,
        }
    }
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
    /// Run a recurrent graph (one with latches) for N ticks and write every output of every
    /// tick as DIR/<output>_<tick>.<ext>, the tick zero-padded (at least 3 digits); or, with
    /// --seconds, stream an audio graph and write each signal output as DIR/<output>.wav.
    Render {
        /// The graph file.
        graph: PathBuf,
        #[command(flatten)]
        args: RenderArgs,
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
    /// Present the graph's outputs into DIR, then present again each time the graph file
    /// (or the --params file) is saved, printing what recooked and how long it took; a broken
    /// edit prints the error and keeps the last frame's files.
    Watch {
        /// The graph file.
        graph: PathBuf,
        #[command(flatten)]
        args: watch::WatchArgs,
    },
    /// Bake a graph into --out: with --freeze its inputs become constants, and every pure
    /// cone is folded into stored constants (heavy values in a blob folder beside the file,
    /// <stem>.blobs). The baked graph gives the same outputs with fewer nodes.
    Bake {
        /// The graph file.
        graph: PathBuf,
        #[command(flatten)]
        args: bake::BakeArgs,
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
    let reg = crate::library::registry().map_err(|e| e.to_string())?;
    match cli.cmd {
        Cmd::Run { graph, args } => {
            let file = load(&graph, &reg)?;
            run(&file.graph, &reg, &args, Some(&graph))
        }
        Cmd::Render { graph, args } => {
            let file = load(&graph, &reg)?;
            match (args.seconds, args.ticks) {
                (Some(seconds), _) => render_audio(&file.graph, &reg, &args, seconds),
                (None, Some(ticks)) => render(&file.graph, &reg, &args, ticks),
                // clap requires one of the two.
                (None, None) => Err(CliError("render needs --ticks N or --seconds S".into())),
            }
        }
        Cmd::Demo { args } => {
            let file = kiln_io::load_graph(DEMO_GRAPH, &reg)
                .map_err(|e| CliError(format!("built-in demo: {e}")))?;
            run(&file.graph, &reg, &args, None)
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
        Cmd::Watch { graph, args } => watch::watch(&graph, &reg, &args),
        Cmd::Bake { graph, args } => bake::bake(&graph, &reg, &args),
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
    set_inputs(&mut ctx, g, reg, &args.set)?;
    Ok(ctx)
}

/// Apply `--set NAME=VALUE` options to `ctx`, checking each name against the graph's inputs.
fn set_inputs(
    ctx: &mut EvalContext,
    g: &Graph,
    reg: &Registry,
    set: &[String],
) -> Result<(), CliError> {
    let inputs = graph_inputs(g, reg);
    for s in set {
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
    Ok(())
}

/// A progress bar on stderr counting `unit` (indicatif hides it when stderr is not a
/// terminal); `None` with `--quiet`.
fn progress_bar(quiet: bool, len: u64, unit: &str) -> Option<ProgressBar> {
    if quiet {
        return None;
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr_with_hz(10));
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{spinner}} [{{elapsed_precise}}] {{bar:30}} {{pos}}/{{len}} {unit} {{msg}}"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    Some(bar)
}

/// A `--ticks` count: a whole number, at least 1.
fn parse_ticks(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(0) => Err("the tick count must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "expected a tick count (a whole number, at least 1), not `{s}`"
        )),
    }
}

/// A `--dt` in seconds: a number (`0.04`) or a fraction (`1/25`), finite and above zero.
fn parse_dt(s: &str) -> Result<f64, String> {
    let num = |t: &str| t.trim().parse::<f64>().ok();
    let dt = match s.split_once('/') {
        Some((a, b)) => num(a).zip(num(b)).map(|(a, b)| a / b),
        None => num(s),
    };
    match dt {
        Some(d) if d.is_finite() && d > 0.0 => Ok(d),
        Some(_) => Err(format!(
            "the seconds per tick must be finite and above zero, not `{s}`"
        )),
        None => Err(format!(
            "expected seconds per tick as a number (0.04) or a fraction (1/25), not `{s}`"
        )),
    }
}

/// A `--seconds` length: a number, finite and above zero.
fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        Ok(_) => Err(format!(
            "the length must be finite and above zero seconds, not `{s}`"
        )),
        Err(_) => Err(format!(
            "expected a length in seconds (like 2 or 0.5), not `{s}`"
        )),
    }
}

/// A `--rate` in Hz: a whole number, at least 1.
fn parse_rate(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(0) => Err("the sample rate must be at least 1 Hz".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "expected a sample rate in Hz (a whole number like 48000), not `{s}`"
        )),
    }
}

/// The largest `--block`.
const MAX_BLOCK: usize = 1 << 20;

/// A `--block` size: a whole number of samples, 1 to 1048576.
fn parse_block(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=MAX_BLOCK).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a block size of 1 to {MAX_BLOCK} samples, not `{s}`"
        )),
    }
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

fn parallel_policy(
    parallel: Option<Option<usize>>,
    evaluator: EvaluatorKind,
) -> Result<ParallelPolicy, CliError> {
    let Some(threads) = parallel else {
        return Ok(ParallelPolicy::Sequential);
    };
    if !evaluator.supports_parallel() {
        return Err(CliError(format!(
            "--parallel works with the eager and compiled evaluators only; the {} evaluator \
             runs sequentially (add --evaluator eager or --evaluator compiled)",
            evaluator.name()
        )));
    }
    Ok(ParallelPolicy::Rayon {
        threads,
        min_cost: None,
    })
}

/// Refuse a graph with validation problems (printing each one).
fn check_valid(g: &Graph, reg: &Registry) -> Result<(), CliError> {
    let diags = validate(g, reg);
    if diags.is_empty() {
        return Ok(());
    }
    for d in &diags {
        eprintln!("{d}");
    }
    Err(CliError(format!(
        "the graph has {} problem(s); nothing was written",
        diags.len()
    )))
}

/// The outputs to evaluate: `--output` names (first occurrence of each), else every graph
/// output.
fn requested_outputs(g: &Graph, names: &[String]) -> Result<Vec<String>, CliError> {
    let mut outputs = if names.is_empty() {
        graph_outputs(g)
    } else {
        names.to_vec()
    };
    let mut seen = std::collections::HashSet::new();
    outputs.retain(|o| seen.insert(o.clone()));
    if outputs.is_empty() {
        return Err(CliError(
            "the graph has no outputs (add an \"outputs\" section, or name nodes with --output)"
                .into(),
        ));
    }
    Ok(outputs)
}

/// The ids of the graph's latch nodes.
fn latch_nodes(g: &Graph) -> Vec<&str> {
    g.nodes()
        .iter()
        .filter(|n| n.op == LATCH_OP)
        .map(|n| n.id.as_str())
        .collect()
}

/// The hint for `kiln run` on a graph with latches: they need `kiln render`.
fn latch_hint(g: &Graph, path: Option<&Path>) -> String {
    let latches = latch_nodes(g);
    format!(
        "\nhint: the graph has latch node(s) ({}), which hold state from one tick to the next \
         and need a recurrent driver: use `kiln render {} --ticks N --out DIR` to run it for N \
         ticks",
        latches.join(", "),
        path.map_or_else(|| "GRAPH".to_string(), |p| p.display().to_string())
    )
}

fn is_latch_error(e: &EvalError) -> bool {
    matches!(e, EvalError::Node { op, .. } | EvalError::Panic { op, .. } if op == LATCH_OP)
}

/// The persistent cache of `--cache DIR`: a store over the cache directory, for one
/// evaluator.
struct CacheRun {
    dir: PathBuf,
    store: Arc<kiln_core::cache::Store>,
    disk: Arc<kiln_io::DiskCache>,
}

impl CacheRun {
    /// Refuse `--cache` for an evaluator that keeps no results.
    fn check(kind: EvaluatorKind) -> Result<(), CliError> {
        match kind {
            EvaluatorKind::Lazy | EvaluatorKind::Incremental => Ok(()),
            other => Err(CliError(format!(
                "--cache works with the lazy and incremental evaluators only; the {} evaluator \
                 keeps no results (use --evaluator lazy or --evaluator incremental)",
                other.name()
            ))),
        }
    }

    /// Open (creating it if needed) the cache directory `dir`, under an in-memory store
    /// that keeps every result (`bounded`: at most 256 MiB in memory, for long renders;
    /// everything still goes to the directory).
    fn open(dir: &Path, bounded: bool, reg: &Registry) -> Result<CacheRun, CliError> {
        use kiln_core::cache::{KeepAll, Lru, Store};
        let disk = Arc::new(
            kiln_io::DiskCache::open(dir, reg).map_err(|e| CliError(format!("--cache: {e}")))?,
        );
        let store = if bounded {
            Store::new(Lru::new()).with_budget(256 << 20)
        } else {
            Store::new(KeepAll)
        };
        let backing: Arc<dyn kiln_core::cache::Backing> = disk.clone();
        Ok(CacheRun {
            dir: dir.to_path_buf(),
            store: store.with_backing(backing).shared(),
            disk,
        })
    }

    /// A `kind` evaluator (lazy or incremental: see [`CacheRun::check`]) over the store.
    fn evaluator(&self, kind: EvaluatorKind, reg: &Registry) -> Box<dyn Evaluator> {
        match kind {
            EvaluatorKind::Incremental => {
                Box::new(IncrementalEvaluator::new(reg.clone()).with_store(self.store.clone()))
            }
            _ => Box::new(LazyEvaluator::new(reg.clone()).with_store(self.store.clone())),
        }
    }

    /// The damaged entries found and the entries saved, for the report line.
    fn entries(&self) -> String {
        let d = self.disk.stats();
        format!(
            "{} damaged, {} saved ({})",
            d.corrupt,
            d.saves,
            self.dir.display()
        )
    }
}

fn run(
    g: &Graph,
    reg: &Registry,
    args: &EvalArgs,
    path: Option<&Path>,
) -> Result<ExitCode, CliError> {
    let parallel = parallel_policy(args.parallel, args.evaluator)?;
    if args.cache.is_some() {
        CacheRun::check(args.evaluator)?;
    }
    check_valid(g, reg)?;
    let outputs = requested_outputs(g, &args.outputs)?;
    let mut ctx = context(g, reg, args)?;
    let bar = progress_bar(args.quiet, 0, "nodes");
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
    let cache = match &args.cache {
        Some(dir) => Some(CacheRun::open(dir, false, reg)?),
        None => None,
    };
    let mut eval = match &cache {
        Some(c) => c.evaluator(args.evaluator, reg),
        None => args.evaluator.build(reg, parallel.clone()),
    };
    let started = Instant::now();
    let result = eval.evaluate(g, &request, &ctx);
    let elapsed = started.elapsed();
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if let Some(c) = &cache {
        // A fresh evaluator over an empty memory: every node it did not cook came from
        // the store (the directory, or an identical node earlier in this run).
        match &result {
            Ok(out) => eprintln!(
                "cache: {} nodes cooked, {} from cache, {}",
                out.stats.executed,
                out.stats.cache_hits,
                c.entries()
            ),
            Err(_) => eprintln!("cache: the evaluation failed, {}", c.entries()),
        }
    }
    let out = result.map_err(|e| {
        let hint = if is_latch_error(&e) {
            latch_hint(g, path)
        } else {
            String::new()
        };
        CliError(format!("evaluation failed: {e}; nothing was written{hint}"))
    })?;
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
        print_stats(args.evaluator, &parallel, &out.stats, elapsed, None);
        let mut memory = eval.memory_report();
        if let Some(c) = &cache {
            memory.extend(c.store.memory_report());
        }
        eprintln!("memory:");
        for line in memory.to_string().lines() {
            eprintln!("  {line}");
        }
    }
    if args.timings {
        print_timings(&out);
    }
    if !out.failures.is_empty() {
        print_failures(&out.failures);
        if out.failures.iter().any(|f| is_latch_error(&f.error)) {
            eprintln!("{}", latch_hint(g, path).trim_start());
        }
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

/// Print the counters; `ticks`: summed over that many ticks of a render.
fn print_stats(
    kind: EvaluatorKind,
    parallel: &ParallelPolicy,
    s: &Stats,
    elapsed: Duration,
    ticks: Option<u64>,
) {
    let policy = match parallel {
        ParallelPolicy::Sequential => "sequential".to_string(),
        ParallelPolicy::Rayon {
            threads: Some(t), ..
        } => format!("parallel, {t} threads"),
        ParallelPolicy::Rayon { threads: None, .. } => "parallel, one thread per core".into(),
    };
    let over = ticks.map_or_else(String::new, |t| format!(" over {t} tick(s)"));
    eprintln!(
        "stats: {} evaluator ({policy}){over}: executed {} nodes, {} cache hits, {} cutoffs, \
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

/// The digits a render pads its tick numbers to: those of the last tick, at least 3.
fn tick_width(ticks: u64) -> usize {
    ticks.saturating_sub(1).to_string().len().max(3)
}

/// The file stem of output `name` at tick `t`: `name_007` (dots in `name` become `_`).
fn frame_stem(name: &str, t: u64, width: usize) -> String {
    format!("{}_{t:0width$}", name.replace('.', "_"))
}

/// What earlier ticks left on disk, for the message of a failed render.
fn written_summary(t: u64, files: usize, dir: &Path) -> String {
    match t {
        0 => "nothing was written".to_string(),
        1 => format!(
            "tick 0 was written ({files} file(s) in {}), nothing of tick 1",
            dir.display()
        ),
        _ => format!(
            "ticks 0 to {} were written ({files} file(s) in {}), nothing of tick {t}",
            t - 1,
            dir.display()
        ),
    }
}

/// `kiln render`: tick the graph with the recurrent driver and write each tick's outputs.
fn render(g: &Graph, reg: &Registry, args: &RenderArgs, ticks: u64) -> Result<ExitCode, CliError> {
    let parallel = parallel_policy(args.parallel, args.evaluator)?;
    if args.cache.is_some() {
        CacheRun::check(args.evaluator)?;
    }
    check_valid(g, reg)?;
    let outputs = requested_outputs(g, &args.outputs)?;
    let mut ctx = EvalContext::new();
    ctx.seed = args.seed;
    ctx.dt = args.dt;
    set_inputs(&mut ctx, g, reg, &args.set)?;
    let bar = progress_bar(args.quiet, ticks, "ticks");
    if let Some(bar) = &bar {
        let b = bar.clone();
        ctx.progress = Some(Arc::new(move |p: &Progress<'_>| {
            if let Some(node) = p.node {
                b.set_message(node.to_string());
            }
        }));
    }
    let request = Request::new(outputs.iter().cloned());
    let cache = match &args.cache {
        Some(dir) => Some(CacheRun::open(dir, true, reg)?),
        None => None,
    };
    let eval = match &cache {
        Some(c) => c.evaluator(args.evaluator, reg),
        None => args.evaluator.build(reg, parallel.clone()),
    };
    let mut driver = Recurrent::new(eval, reg.clone());
    let width = tick_width(ticks);
    let mut stats = Stats::default();
    let mut written: Vec<PathBuf> = Vec::new();
    let started = Instant::now();
    let result = (|| -> Result<(), CliError> {
        for t in 0..ticks {
            let fail = |what: String| {
                CliError(format!(
                    "tick {t} of {} failed: {what}; {}",
                    ticks,
                    written_summary(t, written.len(), &args.out)
                ))
            };
            let out = driver
                .tick(g, &request, &ctx)
                .map_err(|e| fail(e.to_string()))?;
            stats.accumulate(&out.stats);
            // Encode every output of the tick before writing any, so a tick lands whole.
            let mut files = Vec::with_capacity(out.values.len());
            for (name, v) in &out.values {
                let file = kiln_io::encode_output(&args.out, &frame_stem(name, t, width), v)
                    .map_err(|e| fail(format!("cannot write output `{name}`: {e}")))?;
                files.push(file);
            }
            if t == 0 {
                std::fs::create_dir_all(&args.out)
                    .map_err(|e| CliError(format!("cannot create {}: {e}", args.out.display())))?;
            }
            for (i, (path, bytes)) in files.iter().enumerate() {
                if let Err(e) = kiln_io::write_atomic(path, bytes) {
                    // Take back this tick's files, so no partial tick is left.
                    for (p, _) in &files[..i] {
                        let _ = std::fs::remove_file(p);
                    }
                    return Err(fail(format!("cannot write {}: {e}", path.display())));
                }
            }
            written.extend(files.into_iter().map(|(p, _)| p));
            if let Some(bar) = &bar {
                bar.inc(1);
            }
        }
        Ok(())
    })();
    let elapsed = started.elapsed();
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if let Some(c) = &cache {
        // Over many ticks the evaluator's reuse counts nodes found unchanged since the
        // previous tick too: count the entries read from the directory instead.
        eprintln!(
            "cache: {} nodes cooked over {ticks} tick(s), {} from cache, {}",
            stats.executed,
            c.disk.stats().hits,
            c.entries()
        );
    }
    result?;
    // `written` is tick by tick, each tick's files in output order.
    let last_tick = &written[written.len().saturating_sub(outputs.len())..];
    for (first, last) in written.iter().zip(last_tick) {
        if ticks == 1 {
            println!("wrote {}", first.display());
        } else {
            println!(
                "wrote {} … {} ({} ticks)",
                first.display(),
                last.display(),
                ticks
            );
        }
    }
    if args.stats {
        print_stats(args.evaluator, &parallel, &stats, elapsed, Some(ticks));
    }
    Ok(ExitCode::SUCCESS)
}

/// The signal port a requested output streams from, as `node.port`: a graph output (an
/// `output` node) streams what is wired into it; any other name is a node (its first output)
/// or `node.port`. Refuses names that are not signal outputs, naming them.
fn signal_source(g: &Graph, reg: &Registry, name: &str) -> Result<String, CliError> {
    let not_signal = |what: String| {
        CliError(format!(
            "output `{name}` is not a signal: {what}; `render --seconds` streams signal \
             (audio) outputs only (use `render --ticks N` or `run` for other values)"
        ))
    };
    let (node, port) = match g.node(name) {
        Some(n) if n.op == OUTPUT_OP => {
            let wire = g
                .wires()
                .iter()
                .find(|w| w.to.node.as_str() == name && w.to.port == "value");
            match wire {
                Some(w) => (w.from.node.as_str(), Some(w.from.port.as_str())),
                None => return Err(not_signal("nothing is wired into it".into())),
            }
        }
        Some(n) => (n.id.as_str(), None),
        None => match name.rsplit_once('.') {
            Some((node, port)) if g.node(node).is_some() => (node, Some(port)),
            _ => {
                return Err(CliError(format!(
                    "output `{name}`: the graph has no node or output of that name"
                )));
            }
        },
    };
    let Some(op_id) = g.node(node).map(|n| n.op.as_str()) else {
        return Err(not_signal(format!("node `{node}` does not exist")));
    };
    let Some(op) = reg.get(op_id) else {
        return Err(not_signal(format!(
            "op `{op_id}` of node `{node}` is unknown"
        )));
    };
    let spec = op.spec();
    let index = match port {
        Some(p) => spec.output_index(p),
        None => (!spec.outputs.is_empty()).then_some(0),
    };
    let Some(out) = index.and_then(|i| spec.outputs.get(i)) else {
        return Err(not_signal(format!(
            "node `{node}` ({op_id}) has no output `{}`",
            port.unwrap_or("out")
        )));
    };
    if out.ty != ValueType::Signal {
        return Err(not_signal(format!(
            "it is the {} output `{node}.{}` ({op_id})",
            out.ty, out.name
        )));
    }
    Ok(format!("{node}.{}", out.name))
}

/// How many times faster than real time `seconds` of audio took `elapsed`.
fn realtime_multiple(seconds: f64, elapsed: Duration) -> String {
    let took = elapsed.as_secs_f64();
    if took > 0.0 {
        format!("{:.1}x real time", seconds / took)
    } else {
        "instant".into()
    }
}

/// The error for output `name` whose samples could not be written.
fn sample_error(name: &str, e: WavError, rate: u32) -> CliError {
    let at = |index: u64| format!("sample {index} ({:.3} s)", index as f64 / f64::from(rate));
    CliError(match e {
        WavError::NonFinite { index, value, .. } => format!(
            "output `{name}` is {value:?} at {}: a WAV file holds finite samples only",
            at(index)
        ),
        WavError::OutOfRange { index, value, .. } => format!(
            "output `{name}` is {value:e} at {}, beyond the range of a 32-bit float \
             (--wav-format pcm16 or pcm24 clamps to -1..1)",
            at(index)
        ),
        other => format!("cannot write output `{name}`: {other}"),
    })
}

/// `kiln render --seconds`: stream the graph's signal outputs and write each as a mono WAV
/// file, DIR/<output>.wav. The files are written under temporary names while the stream
/// runs and renamed into place only once every output rendered, so a failure writes nothing.
fn render_audio(
    g: &Graph,
    reg: &Registry,
    args: &RenderArgs,
    seconds: f64,
) -> Result<ExitCode, CliError> {
    check_valid(g, reg)?;
    let outputs = requested_outputs(g, &args.outputs)?;
    let sources = outputs
        .iter()
        .map(|name| signal_source(g, reg, name))
        .collect::<Result<Vec<String>, CliError>>()?;
    let format = args.wav_format.format();
    let rate = args.rate;
    let total = (seconds * f64::from(rate)).round();
    if total < 1.0 {
        return Err(CliError(format!(
            "--seconds {seconds} at {rate} Hz is less than one sample"
        )));
    }
    // `total` is at least 1 and finite; a float beyond u64 saturates and is refused below.
    let total = total as u64;
    let max_frames = kiln_io::wav::MAX_DATA_BYTES / format.bytes_per_sample();
    if total > max_frames {
        return Err(CliError(format!(
            "--seconds {seconds} at {rate} Hz is {total} samples, more than a {format} WAV \
             file holds ({max_frames}); render less, at a lower rate, or as pcm16"
        )));
    }
    // One file per output: DIR/<output>.wav, dots in names becoming `_` (as for ticks).
    let mut paths: Vec<PathBuf> = Vec::with_capacity(outputs.len());
    for name in &outputs {
        let stem = name.replace('.', "_");
        if stem.is_empty() || stem.contains(['/', '\\', ':', '\0']) {
            return Err(CliError(format!(
                "output name `{name}` cannot be used as a file name"
            )));
        }
        let path = args.out.join(format!("{stem}.wav"));
        if paths.contains(&path) {
            return Err(CliError(format!(
                "outputs `{name}` and another both become {}; pick one with --output",
                path.display()
            )));
        }
        paths.push(path);
    }
    let mut ctx = EvalContext::new();
    ctx.seed = args.seed;
    set_inputs(&mut ctx, g, reg, &args.set)?;
    let config = StreamConfig {
        sample_rate: rate,
        block: args.block,
        seed: args.seed,
    };
    let names: Vec<&str> = sources.iter().map(String::as_str).collect();
    let mut stream = StreamingEvaluator::with_context(reg.clone(), g, &names, config, &ctx)
        .map_err(|e| CliError(format!("cannot build the stream: {e}; nothing was written")))?;

    // The folders this run creates (the missing ancestors of DIR, DIR first), to take back
    // if it fails.
    let created: Vec<PathBuf> = args
        .out
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
        .map(Path::to_path_buf)
        .collect();
    std::fs::create_dir_all(&args.out)
        .map_err(|e| CliError(format!("cannot create {}: {e}", args.out.display())))?;
    let bar = progress_bar(args.quiet, total, "samples");
    let started = Instant::now();
    let result = (|| -> Result<Vec<StagedFile>, CliError> {
        let mut files = Vec::with_capacity(paths.len());
        for path in &paths {
            let file = WavStream::create(path, 1, rate, format)
                .map_err(|e| CliError(format!("cannot write {}: {e}", path.display())))?;
            files.push(file);
        }
        let mut done = 0u64;
        let mut shown = 0u64;
        while done < total {
            let n = (total - done).min(args.block as u64) as usize;
            stream.process(n).map_err(|e| {
                CliError(format!(
                    "rendering failed at sample {done} ({:.3} s): {e}",
                    done as f64 / f64::from(rate)
                ))
            })?;
            for (i, file) in files.iter_mut().enumerate() {
                file.write_mono(stream.output(i))
                    .map_err(|e| sample_error(&outputs[i], e, rate))?;
            }
            done += n as u64;
            if let Some(bar) = &bar
                && (done - shown >= 4096 || done == total)
            {
                bar.set_position(done);
                bar.set_message(format!("{:.2} s", done as f64 / f64::from(rate)));
                shown = done;
            }
        }
        files
            .into_iter()
            .map(|f| {
                let path = f.path().to_path_buf();
                f.finish()
                    .map_err(|e| CliError(format!("cannot write {}: {e}", path.display())))
            })
            .collect()
    })();
    let elapsed = started.elapsed();
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let staged = match result {
        Ok(staged) => staged,
        Err(e) => {
            // The temporary files are gone; take back the folders this run made (each only
            // if empty).
            for d in &created {
                if std::fs::remove_dir(d).is_err() {
                    break;
                }
            }
            return Err(CliError(format!("{e}; nothing was written")));
        }
    };
    // Every output rendered: rename the files into place.
    let mut written = Vec::with_capacity(staged.len());
    for file in staged {
        let path = file.path().to_path_buf();
        // A rename failing after others succeeded is rare (the files are complete by now);
        // say what landed.
        let done = file.commit().map_err(|e| {
            CliError(format!(
                "cannot write {}: {e}; {}",
                path.display(),
                if written.is_empty() {
                    "nothing was written".to_string()
                } else {
                    format!("only {} was written", written.join(", "))
                }
            ))
        })?;
        written.push(done.display().to_string());
    }
    println!(
        "wrote {} ({total} samples, {:.3} s at {rate} Hz, {format}, {})",
        written.join(", "),
        total as f64 / f64::from(rate),
        realtime_multiple(total as f64 / f64::from(rate), elapsed)
    );
    Ok(ExitCode::SUCCESS)
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
    let types = kiln_core::validate::output_types(g, reg);
    for name in graph_outputs(g) {
        let ty = match (&types, g.index_of(&name)) {
            (Ok(t), Some(i)) => t
                .get(i)
                .and_then(|t| t.first())
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
        // Valid, but not plannable for ticks: its loops close through audio feedback inputs.
        Err(_) if types.is_ok() => {
            println!(
                "determinism: an audio graph with feedback loops; it streams \
                 (`kiln render GRAPH --seconds S`), the tick evaluators refuse it"
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_padded_to_the_last_tick_at_least_three_digits() {
        assert_eq!(tick_width(1), 3);
        assert_eq!(tick_width(100), 3);
        assert_eq!(tick_width(1000), 3);
        assert_eq!(tick_width(1001), 4);
        assert_eq!(tick_width(100_000), 5);
        assert_eq!(frame_stem("trails", 7, 3), "trails_007");
        assert_eq!(frame_stem("noise.out", 12, 4), "noise_out_0012");
        assert_eq!(frame_stem("x", 12345, 3), "x_12345");
    }

    #[test]
    fn dt_takes_numbers_and_fractions() {
        assert_eq!(parse_dt("0.5"), Ok(0.5));
        assert_eq!(parse_dt("1/60"), Ok(1.0 / 60.0));
        assert_eq!(parse_dt(" 1 / 25 "), Ok(1.0 / 25.0));
        for bad in ["0", "-1", "1/0", "0/0", "inf", "nan", "fast", "1/x", ""] {
            assert!(parse_dt(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_ticks("5"), Ok(5));
        assert!(parse_ticks("0").is_err());
        assert!(parse_ticks("-3").is_err());
    }
}
