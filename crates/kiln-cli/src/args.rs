//! The command line: what `kiln` accepts (commands, options, their value parsers).
//!
//! Only parsing lives here; what each command does is in [`crate::commands`].

use clap::{Parser, Subcommand, ValueEnum};
use kiln_io::wav::WavFormat;
use std::path::PathBuf;

// The `kiln` command line (no doc comment: clap would read it as the help text).
#[derive(Parser)]
#[command(
    name = "kiln",
    version,
    about = "Cook node graphs into pictures, sounds, meshes and data."
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) cmd: Cmd,
    /// A folder searched for graphs called as `@name` (repeatable), after the calling file's
    /// folder and before the folders of KILN_PATH and the graphs kiln-std ships.
    #[arg(long = "lib", value_name = "DIR", global = true)]
    pub(crate) lib: Vec<PathBuf>,
}

/// The options of `kiln run` and `kiln demo`.
#[derive(clap::Args)]
pub(crate) struct EvalArgs {
    /// Set a graph input: NAME=VALUE, or any port of a node: NODE.PORT=VALUE (repeatable). Vectors and colours: 1,2,3 or #rrggbb.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub(crate) set: Vec<String>,
    /// Folder to write outputs into (created if missing).
    #[arg(long, short, default_value = ".")]
    pub(crate) out: PathBuf,
    /// Time in seconds.
    #[arg(long, default_value_t = 0.0)]
    pub(crate) time: f64,
    /// Frame number.
    #[arg(long, default_value_t = 0)]
    pub(crate) frame: i64,
    /// Seed for procedural randomness.
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
    /// Only these outputs (repeatable; default: every output of the graph). A mesh output
    /// named with a file extension, NAME.obj, NAME.glb, NAME.ply or NAME.stl, is written in
    /// that format (repeat it for several); a mesh is NAME.glb otherwise. An image output
    /// named NAME.png or NAME.exr is written as PNG or OpenEXR (both: repeat it).
    #[arg(long = "output", value_name = "NAME")]
    pub(crate) outputs: Vec<String>,
    /// Bits per channel of image files: PNG 8 (the default) or 16; OpenEXR 16 (half) or 32
    /// (float, the default). Images named without an extension are then PNG.
    #[arg(long, value_name = "BITS")]
    pub(crate) depth: Option<u8>,
    /// How PNG colour codes the image: `srgb` (sRGB-encoded, the default) or `data` (the
    /// values as they are: normal and height maps, masks), for every image output, or with
    /// NAME= for one (repeatable; beats the graph file's `"color"` of the output). OpenEXR is
    /// always linear.
    #[arg(long = "color", value_name = "[NAME=]SPACE")]
    pub(crate) color: Vec<String>,
    /// Also write a shaded picture of each mesh output, NAME.preview.png.
    #[arg(long)]
    pub(crate) preview: bool,
    /// Which evaluator runs the graph (all give the same bits).
    #[arg(long, value_enum, value_name = "NAME", default_value_t = EvaluatorKind::Lazy)]
    pub(crate) evaluator: EvaluatorKind,
    /// Run independent nodes at once on a Rayon pool of THREADS threads (default: one per
    /// core; at most 4 per core, or 256); only levels costly enough to gain from it go
    /// parallel. Every evaluator.
    #[arg(
        long,
        value_name = "THREADS",
        num_args = 0..=1,
        value_parser = parse_threads
    )]
    pub(crate) parallel: Option<Option<usize>>,
    /// What a failing node does: `fail-fast` stops and writes nothing; `propagate` writes
    /// the outputs that do not depend on the failure and reports the ones that do.
    #[arg(long, value_enum, value_name = "POLICY", default_value_t = ErrorsArg::FailFast)]
    pub(crate) errors: ErrorsArg,
    /// Print evaluation statistics (to stderr).
    #[arg(long)]
    pub(crate) stats: bool,
    /// Time every node and print the slowest ten (to stderr).
    #[arg(long)]
    pub(crate) timings: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub(crate) quiet: bool,
    /// Keep results in the persistent cache DIR (created if missing) and reuse what an
    /// earlier run left there; says on stderr how many nodes were cooked and how many came
    /// from the cache. Lazy and incremental evaluators only.
    #[arg(long, value_name = "DIR")]
    pub(crate) cache: Option<PathBuf>,
    /// After the run, trim the --cache directory to at most SIZE bytes (like 500M or 2G),
    /// removing the oldest entries first.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, requires = "cache")]
    pub(crate) cache_max: Option<u64>,
    /// The memory budget: a large buffer (an image, a delay line) that would take the
    /// process past SIZE bytes (like 2G) fails its node instead (default: three quarters of
    /// the machine's memory or of the address-space limit, the smaller).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub(crate) memory_limit: Option<u64>,
    /// The size of the images whose nodes leave it to the request (width and height 0, the
    /// default of image generators): WIDTHxHEIGHT, like 2048x2048 (default 256x256).
    #[arg(long, value_name = "WxH", value_parser = parse_image_size)]
    pub(crate) size: Option<(u32, u32)>,
    /// Fuse each chain of per-pixel image nodes into one node (`image.fused`) that makes one
    /// image in one pass: the same bits, fewer nodes and images.
    #[arg(long)]
    pub(crate) fuse: bool,
    /// Print every step of each flow graph that ran (node, entities in and out per port,
    /// op runs, time), in the order the steps ran (to stderr).
    #[arg(long)]
    pub(crate) trace: bool,
    /// Write the steps of each flow graph that ran as JSON to exactly FILE (atomically).
    #[arg(long, value_name = "FILE")]
    pub(crate) trace_json: Option<PathBuf>,
    /// Sweep a knob (a graph input, or NODE.PORT): NAME=A..B (inclusive; A..B:STEP for
    /// another step, which a float range needs) or NAME=V1,V2,... (repeatable: every
    /// combination, the first sweep varying slowest). One item per combination, each
    /// cooked and written; nodes no swept knob reaches are cooked once for all items. The
    /// folder gets sweep.json (each item's settings and files).
    #[arg(long, value_name = "NAME=VALUES")]
    pub(crate) sweep: Vec<String>,
    /// Zip the sweeps instead of crossing them: item i takes value i of each (they must be
    /// as long).
    #[arg(long, requires = "sweep")]
    pub(crate) zip: bool,
    /// With --sweep: each output file's name, from {output}, {index} and each swept knob
    /// ({seed}), with a format: {index:04} pads with zeros, {scale:.2} gives 2 decimals
    /// (default {output}_{index:04}).
    #[arg(long, value_name = "TEMPLATE", requires = "sweep")]
    pub(crate) name: Option<String>,
    /// With --sweep: items cooked at once, each on a thread of its own (default: one per
    /// core).
    #[arg(long, value_name = "N", requires = "sweep")]
    pub(crate) jobs: Option<usize>,
}

/// The options of `kiln render`.
#[derive(clap::Args)]
pub(crate) struct RenderArgs {
    /// Number of ticks to run: ticks 0 to N-1, one file per output and tick.
    #[arg(
        long,
        value_name = "N",
        value_parser = parse_ticks,
        required_unless_present_any = ["seconds", "end"],
        conflicts_with_all = ["seconds", "end"]
    )]
    pub(crate) ticks: Option<u64>,
    /// The last tick to render (instead of --ticks B+1): with --start, a frame range whose
    /// files are the bytes and names of those ticks of a render from tick 0.
    #[arg(long, value_name = "B", conflicts_with = "seconds")]
    pub(crate) end: Option<u64>,
    /// The first tick whose files are written: the ticks before it run without writing
    /// (replayed from tick 0, or continued from --load-state's state).
    #[arg(long, value_name = "A", conflicts_with_all = ["seconds", "resume"])]
    pub(crate) start: Option<u64>,
    /// Write every Kth tick from --start on (the others run without writing).
    #[arg(
        long,
        value_name = "K",
        value_parser = clap::value_parser!(u64).range(1..),
        conflicts_with_all = ["seconds", "resume"]
    )]
    pub(crate) every: Option<u64>,
    /// Seconds of audio to render: stream the graph's signal outputs and write one mono WAV
    /// per output, DIR/<output>.wav.
    #[arg(long, value_name = "S", value_parser = parse_seconds)]
    pub(crate) seconds: Option<f64>,
    /// Seconds per tick: tick t runs at time t * dt (and frame t). A number or a fraction.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value = "1/60",
        value_parser = parse_dt,
        conflicts_with = "seconds"
    )]
    pub(crate) dt: f64,
    /// With --seconds: samples per second.
    #[arg(
        long,
        value_name = "HZ",
        default_value_t = 48_000,
        value_parser = parse_rate,
        conflicts_with = "ticks"
    )]
    pub(crate) rate: u32,
    /// With --seconds: samples per block (the output is the same for every block size).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 64,
        value_parser = parse_block,
        conflicts_with = "ticks"
    )]
    pub(crate) block: usize,
    /// With --seconds: the WAV sample format.
    #[arg(
        long,
        value_enum,
        value_name = "FORMAT",
        default_value_t = WavFormatArg::F32,
        conflicts_with = "ticks"
    )]
    pub(crate) wav_format: WavFormatArg,
    /// With --seconds: write the signal outputs LEFT and RIGHT as the two channels of one
    /// WAV file, DIR/LEFT+RIGHT.wav (then only the --output names are also written as mono
    /// files).
    #[arg(
        long,
        value_name = "LEFT,RIGHT",
        value_parser = parse_stereo,
        conflicts_with = "ticks"
    )]
    pub(crate) stereo: Option<StereoPair>,
    /// Set a graph input: NAME=VALUE, or any port of a node: NODE.PORT=VALUE (repeatable). Vectors and colours: 1,2,3 or #rrggbb;
    /// audio inputs: NAME=@file.wav.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub(crate) set: Vec<String>,
    /// Folder to write the frames (or WAV files) into (created if missing).
    #[arg(long, short, default_value = ".")]
    pub(crate) out: PathBuf,
    /// Seed for procedural randomness.
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
    /// The size of the images whose nodes leave it to the request (width and height 0, the
    /// default of image generators): WIDTHxHEIGHT, like 2048x2048 (default 256x256).
    #[arg(long, value_name = "WxH", value_parser = parse_image_size, conflicts_with = "seconds")]
    pub(crate) size: Option<(u32, u32)>,
    /// Fuse each chain of per-pixel image nodes into one node (`image.fused`) that makes one
    /// image in one pass: the same bits, fewer nodes and images.
    #[arg(long, conflicts_with = "seconds")]
    pub(crate) fuse: bool,
    /// Only these outputs (repeatable; default: every output of the graph). An image
    /// output named NAME.png or NAME.exr has its frames written as PNG or OpenEXR (both:
    /// repeat it).
    #[arg(long = "output", value_name = "NAME")]
    pub(crate) outputs: Vec<String>,
    /// With --ticks: bits per channel of image frames: PNG 8 (the default) or 16; OpenEXR
    /// 16 (half) or 32 (float, the default). Images named without an extension are then PNG.
    #[arg(long, value_name = "BITS", conflicts_with = "seconds")]
    pub(crate) depth: Option<u8>,
    /// Which evaluator runs each tick (all give the same bits). `incremental` re-cooks only
    /// what a tick changes and keeps no memo of earlier ticks.
    #[arg(
        long,
        value_enum,
        value_name = "NAME",
        default_value_t = EvaluatorKind::Incremental,
        conflicts_with = "seconds"
    )]
    pub(crate) evaluator: EvaluatorKind,
    /// Run independent nodes at once on a Rayon pool of THREADS threads (default: one per
    /// core). Every evaluator.
    #[arg(
        long,
        value_name = "THREADS",
        num_args = 0..=1,
        value_parser = parse_threads,
        conflicts_with = "seconds"
    )]
    pub(crate) parallel: Option<Option<usize>>,
    /// Print evaluation statistics summed over the ticks (to stderr).
    #[arg(long, conflicts_with = "seconds")]
    pub(crate) stats: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub(crate) quiet: bool,
    /// With --ticks: continue the render recorded in --out (its manifest, kiln-render.json,
    /// lists the whole ticks) from its last whole tick, restoring the saved latch state or
    /// replaying up to it; the files are the same bytes as an uninterrupted render's. The
    /// graph and the settings (ticks, dt, seed, --set, --output) must be the same.
    #[arg(long, conflicts_with = "seconds")]
    pub(crate) resume: bool,
    /// With --ticks: keep results in the persistent cache DIR (created if missing) and
    /// reuse what an earlier render left there. Lazy and incremental evaluators only.
    #[arg(long, value_name = "DIR", conflicts_with = "seconds")]
    pub(crate) cache: Option<PathBuf>,
    /// After the render, trim the --cache directory to at most SIZE bytes (like 500M or 2G),
    /// removing the oldest entries first.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, requires = "cache")]
    pub(crate) cache_max: Option<u64>,
    /// The memory budget: a large buffer (an image, a delay line) that would take the
    /// process past SIZE bytes (like 2G) fails its node instead (default: three quarters of
    /// the machine's memory or of the address-space limit, the smaller).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub(crate) memory_limit: Option<u64>,
    /// With --ticks: also write each image output as an animated GIF, DIR/<output>.gif, one
    /// frame per tick at --fps (written atomically once the last tick is done).
    #[arg(long, conflicts_with_all = ["seconds", "resume"])]
    pub(crate) gif: bool,
    /// With --ticks: also write each image output as an animated PNG, DIR/<output>.apng.
    #[arg(long, conflicts_with_all = ["seconds", "resume"])]
    pub(crate) apng: bool,
    /// Frames per second of --gif and --apng (default: 1 / --dt).
    #[arg(long, value_name = "FPS", value_parser = parse_fps)]
    pub(crate) fps: Option<f64>,
    /// With --ticks: how PNG frames (and the --gif / --apng frames) code colour: `srgb`
    /// (sRGB-encoded, the default) or `data` (the values as they are), for every image output,
    /// or with NAME= for one (repeatable; beats the graph file's `"color"` of the output).
    #[arg(
        long = "color",
        value_name = "[NAME=]SPACE",
        conflicts_with = "seconds"
    )]
    pub(crate) color: Vec<String>,
    /// With --gif or --apng: write only the animations, not the numbered frames.
    #[arg(long)]
    pub(crate) no_frames: bool,
    /// With --ticks: print every step of each flow graph that ran (node, entities in and
    /// out per port, op runs, time), in order, after the render (to stderr). Over several
    /// ticks a flow node's trace is that of the last tick that ran it.
    #[arg(long, conflicts_with = "seconds")]
    pub(crate) trace: bool,
    /// With --ticks: write the steps of each flow graph that ran as JSON to exactly FILE
    /// (atomically), after the render.
    #[arg(long, value_name = "FILE", conflicts_with = "seconds")]
    pub(crate) trace_json: Option<PathBuf>,
    /// With --ticks: after the last tick, save the latch state (images and grids included)
    /// to FILE, which --load-state continues from.
    #[arg(long, value_name = "FILE", conflicts_with = "seconds")]
    pub(crate) save_state: Option<PathBuf>,
    /// With --ticks: start from the state FILE saved by --save-state (the same graph, --dt,
    /// --seed and --set) and render its tick up to tick N-1, the same bits as a render that
    /// ran from tick 0.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["seconds", "resume"])]
    pub(crate) load_state: Option<PathBuf>,
}

/// The WAV sample formats `--wav-format` chooses between.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum WavFormatArg {
    /// 32-bit float, not clamped.
    F32,
    /// 16-bit PCM, clamped to [-1, 1].
    Pcm16,
    /// 24-bit PCM, clamped to [-1, 1].
    Pcm24,
}

impl WavFormatArg {
    /// The WAV format this names.
    pub(crate) fn format(self) -> WavFormat {
        match self {
            WavFormatArg::F32 => WavFormat::Float32,
            WavFormatArg::Pcm16 => WavFormat::Pcm16,
            WavFormatArg::Pcm24 => WavFormat::Pcm24,
        }
    }
}

/// The evaluators `--evaluator` chooses between.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum EvaluatorKind {
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
    /// The name `--evaluator` takes.
    pub(crate) fn name(self) -> &'static str {
        match self {
            EvaluatorKind::Lazy => "lazy",
            EvaluatorKind::Eager => "eager",
            EvaluatorKind::Compiled => "compiled",
            EvaluatorKind::Incremental => "incremental",
        }
    }
}

/// The error policies `--errors` chooses between.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ErrorsArg {
    /// Stop at the first failure; nothing is written.
    FailFast,
    /// Write the outputs that do not depend on a failure; report the ones that do.
    Propagate,
}

// The commands, each with its options.
#[derive(Subcommand)]
pub(crate) enum Cmd {
    /// Evaluate a graph's outputs and write them as files (PNG for images, glb, OBJ, PLY or
    /// STL for meshes, JSON otherwise).
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
        /// Also check the rules of audio nodes that depend on the sample rate (a filter's
        /// cutoff below Nyquist, a delay's length in samples) at this rate in Hz, as
        /// `render --seconds --rate HZ` would.
        #[arg(long, value_name = "HZ")]
        rate: Option<u32>,
        /// Validate with a graph input, or any port of a node, set: NAME=VALUE or
        /// NODE.PORT=VALUE (repeatable); a name the graph does not have is warned about.
        #[arg(long = "set", value_name = "NAME=VALUE")]
        set: Vec<String>,
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
        args: WatchArgs,
    },
    /// Serve Kiln Studio: the graph drawn, edited and cooked live in a browser (the address
    /// is printed; loopback only unless --host says otherwise). Every edit is saved back to
    /// the graph file.
    Studio {
        /// The graph file.
        graph: PathBuf,
        #[command(flatten)]
        args: StudioArgs,
    },
    /// Bake a graph into --out: with --freeze its inputs become constants, and every pure
    /// cone is folded into stored constants (heavy values in a blob folder beside the file,
    /// <stem>.blobs). The baked graph gives the same outputs with fewer nodes.
    Bake {
        /// The graph file.
        graph: PathBuf,
        #[command(flatten)]
        args: BakeArgs,
    },
    /// Measure or trim a persistent cache directory (the DIR of --cache).
    Cache {
        #[command(subcommand)]
        action: CacheCmd,
    },
    /// Plan a sweep as chunks a farm scheduler runs (Slurm, Kubernetes, OpenJD, ...), run
    /// one chunk as a work item, see what is done, write the schedulers' job files.
    Farm {
        #[command(subcommand)]
        action: FarmCmd,
    },
    /// List the registered ops with their ports, params and docs.
    Ops {
        /// Only ops whose id contains this text.
        filter: Option<String>,
        /// Print instead the JSON Schema of every op's params (types and ranges, from the
        /// ops' declarations), to check graph files with beside schema/kiln-graph.schema.json.
        #[arg(long)]
        schema: bool,
    },
}

/// What `kiln cache` does.
#[derive(Subcommand)]
pub(crate) enum CacheCmd {
    /// Print the number of entries in a cache directory and their bytes.
    Du {
        /// The cache directory.
        dir: PathBuf,
    },
    /// Remove the oldest entries (by the time they were written) until the entries of the
    /// cache directory take at most SIZE bytes.
    Trim {
        /// The cache directory.
        dir: PathBuf,
        /// The budget: bytes, or a number with K, M, G or T (powers of 1024), like 500M.
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        max: u64,
    },
}

/// What `kiln farm` does.
#[derive(Subcommand)]
pub(crate) enum FarmCmd {
    /// Write a plan (DIR/kiln-farm.json): every item of the sweep with its settings and the
    /// content keys of its outputs (computed without cooking), and the chunks.
    Plan {
        /// The graph file.
        graph: PathBuf,
        /// Sweep a knob: NAME=A..B[:STEP] or NAME=V1,V2,... (repeatable; see `kiln run`).
        #[arg(long, value_name = "NAME=VALUES", required_unless_present = "frames")]
        sweep: Vec<String>,
        /// Instead of a sweep, the ticks A to B (inclusive) of a graph with latches, one item
        /// per frame, written as `kiln render` names them; each chunk replays from tick 0.
        #[arg(long, value_name = "A..B", value_parser = parse_frames, conflicts_with = "sweep")]
        frames: Option<(u64, u64)>,
        /// With --frames: seconds per tick (a number or a fraction).
        #[arg(long, value_name = "SECONDS", default_value = "1/60", value_parser = parse_dt)]
        dt: f64,
        /// Zip the sweeps instead of crossing them.
        #[arg(long)]
        zip: bool,
        /// Each output file's name (see `kiln run --name`).
        #[arg(long, value_name = "TEMPLATE", default_value = "{output}_{index:04}")]
        name: String,
        /// Set a graph input or a node's port for every item (repeatable).
        #[arg(long = "set", value_name = "NAME=VALUE")]
        set: Vec<String>,
        /// Only these outputs (repeatable; default: every output).
        #[arg(long = "output", value_name = "NAME")]
        outputs: Vec<String>,
        /// Seed for procedural randomness.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The request's image size, WIDTHxHEIGHT.
        #[arg(long, value_name = "WxH", value_parser = parse_image_size)]
        size: Option<(u32, u32)>,
        /// Items per chunk (one work item each).
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
        chunk: u64,
        /// The plan's folder: the plan, the shared cache (cache/), the outputs (out/) and
        /// the done markers (done/).
        #[arg(long, short)]
        out: PathBuf,
    },
    /// Run one chunk of a plan: its items not already done, each written atomically and
    /// marked done. The chunk is --task N, else the first of SLURM_ARRAY_TASK_ID,
    /// JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX and KILN_TASK set; `stage0` cooks
    /// item 0 alone (what every item shares lands in the shared cache once).
    Item {
        /// The plan file (or its folder).
        plan: PathBuf,
        /// The chunk, or `stage0`.
        #[arg(long, value_name = "N")]
        task: Option<String>,
    },
    /// Say which items are done and which are missing, and how to resubmit the missing
    /// chunks.
    Status {
        /// The plan file (or its folder).
        plan: PathBuf,
    },
    /// Write a scheduler's job files for a plan into its folder (nothing is submitted
    /// without --submit).
    Emit {
        /// The plan file (or its folder).
        plan: PathBuf,
        /// The scheduler.
        #[arg(long = "to", value_enum)]
        to: FarmEngine,
        /// Submit the jobs with the scheduler's own command (sbatch).
        #[arg(long)]
        submit: bool,
    },
}

/// `A..B`: a frame range, both ticks included.
fn parse_frames(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("expected A..B, like 100..199, not `{s}`"))?;
    let tick = |t: &str| {
        t.trim()
            .trim_start_matches('=')
            .parse::<u64>()
            .map_err(|_| format!("expected a tick (a whole number), not `{t}`"))
    };
    Ok((tick(a)?, tick(b)?))
}

/// The schedulers `kiln farm emit` writes job files for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum FarmEngine {
    /// A Slurm array job after a stage-0 job (sbatch scripts).
    Slurm,
    /// A Kubernetes Indexed Job (a manifest; stage 0 as a Job it waits for).
    K8s,
    /// An OpenJD job template (AWS Deadline Cloud).
    Openjd,
}

/// The options of `kiln studio`.
#[derive(clap::Args)]
pub(crate) struct StudioArgs {
    /// The port to serve on (0: any free port).
    #[arg(long, default_value_t = 7717)]
    pub(crate) port: u16,
    /// The address to listen on. Anything but a loopback address exposes the studio (and
    /// the right to edit the graph file) to the network.
    #[arg(long, default_value = "127.0.0.1")]
    pub(crate) host: std::net::IpAddr,
    /// Also write each cook's outputs into DIR, as `kiln watch` does.
    #[arg(long, short)]
    pub(crate) out: Option<PathBuf>,
    /// With --out: how PNG files code colour, `srgb` (sRGB-encoded, the default) or `data`
    /// (the values as they are), for every image output, or with NAME= for one (repeatable;
    /// beats the graph file's `"color"` of the output).
    #[arg(long = "color", value_name = "[NAME=]SPACE", requires = "out")]
    pub(crate) color: Vec<String>,
    /// With --out: the file format of image outputs, `png` (the default) or `exr`.
    #[arg(long, value_name = "FORMAT", value_parser = ["png", "exr"], requires = "out")]
    pub(crate) image: Option<String>,
    /// With --out: bits per channel of image files: PNG 8 (the default) or 16; OpenEXR 16
    /// (half) or 32 (float, the default).
    #[arg(long, value_name = "BITS", requires = "out")]
    pub(crate) depth: Option<u8>,
}

/// The options of `kiln watch`.
#[derive(clap::Args)]
pub(crate) struct WatchArgs {
    /// Folder to write the outputs into (created if missing): one file per output, PNG for
    /// images, JSON otherwise, replaced as a group at each present.
    #[arg(long, short)]
    pub(crate) out: PathBuf,
    /// A JSON file of input values and params (`{"mix": 0.5, "fine.octaves": 5}`), applied
    /// over the graph and watched too.
    #[arg(long, value_name = "FILE")]
    pub(crate) params: Option<PathBuf>,
    /// How often to look at the files, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 200, value_parser = parse_poll_ms)]
    pub(crate) poll_ms: u64,
    /// Stop after N presents, successful or not (exit code 1 if the last one failed);
    /// otherwise watch until Ctrl-C.
    #[arg(long, value_name = "N", value_parser = parse_max_presents)]
    pub(crate) max_presents: Option<u64>,
    /// A graph with latches: tick it N times from the start at each present and write every
    /// output of every tick as NAME_TTT.ext (as `render --ticks` names them), as one group.
    #[arg(long, value_name = "N", conflicts_with = "seconds", value_parser = parse_watch_ticks)]
    pub(crate) ticks: Option<u64>,
    /// An audio graph: stream it for S seconds (48 kHz) at each present and write each
    /// output as NAME.wav (32-bit float), as one group.
    #[arg(long, value_name = "S", value_parser = parse_watch_seconds)]
    pub(crate) seconds: Option<f64>,
    /// Set a graph input: NAME=VALUE, or any port of a node: NODE.PORT=VALUE (repeatable). Vectors and colours: 1,2,3 or #rrggbb.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub(crate) set: Vec<String>,
    /// Seed for procedural randomness.
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
    /// The memory budget: a large buffer (an image, a delay line) that would take the
    /// process past SIZE bytes (like 2G) fails its node instead (default: three quarters of
    /// the machine's memory or of the address-space limit, the smaller).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub(crate) memory_limit: Option<u64>,
    /// How PNG files code colour: `srgb` (sRGB-encoded, the default) or `data` (the values
    /// as they are: normal and height maps, masks), for every image output, or with NAME= for
    /// one (repeatable; beats the graph file's `"color"` of the output).
    #[arg(long = "color", value_name = "[NAME=]SPACE")]
    pub(crate) color: Vec<String>,
    /// The file format of image outputs, `png` (the default) or `exr`.
    #[arg(long, value_name = "FORMAT", value_parser = ["png", "exr"])]
    pub(crate) image: Option<String>,
    /// Bits per channel of image files: PNG 8 (the default) or 16; OpenEXR 16 (half) or 32
    /// (float, the default).
    #[arg(long, value_name = "BITS")]
    pub(crate) depth: Option<u8>,
    /// At each present, print every step of each flow graph that ran in it (to stderr).
    #[arg(long)]
    pub(crate) trace: bool,
    /// At each present, write the steps of each flow graph that ran in it as JSON to
    /// exactly FILE (atomically; a present that ran none writes an empty list).
    #[arg(long, value_name = "FILE")]
    pub(crate) trace_json: Option<PathBuf>,
}

/// The options of `kiln bake`.
#[derive(clap::Args)]
pub(crate) struct BakeArgs {
    /// Turn the graph's inputs into constants holding their current values (from --set,
    /// else their defaults). Without it, inputs stay inputs and what depends on them stays.
    #[arg(long)]
    pub(crate) freeze: bool,
    /// The baked graph file to write; heavy values go into the blob folder <stem>.blobs
    /// beside it. Its folder is created if missing.
    #[arg(long, short, value_name = "BAKED.json")]
    pub(crate) out: PathBuf,
    /// Set a graph input before freezing it: NAME=VALUE (repeatable). Vectors and colours:
    /// 1,2,3 or #rrggbb.
    #[arg(long = "set", value_name = "NAME=VALUE", requires = "freeze")]
    pub(crate) set: Vec<String>,
    /// Freeze the seed at N: nodes whose only context read is the seed (noise) are folded
    /// too, computed at seed N. Without it they stay and read the seed of each run.
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,
}

/// A `--ticks` count: a whole number, at least 1.
/// `WIDTHxHEIGHT`, each side from 1 to the largest side an image may have.
fn parse_image_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("expected WIDTHxHEIGHT like 2048x2048, found `{s}`");
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let side = |t: &str| -> Result<u32, String> {
        let v: u32 = t.trim().parse().map_err(|_| bad())?;
        if v == 0 || v > kiln_image::image::MAX_SIDE {
            return Err(format!(
                "each side must be from 1 to {}, found {v}",
                kiln_image::image::MAX_SIDE
            ));
        }
        Ok(v)
    };
    Ok((side(w)?, side(h)?))
}

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
fn parse_fps(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(f) if f.is_finite() && f > 0.0 && f <= 1000.0 => Ok(f),
        _ => Err(format!(
            "expected frames per second above 0 and at most 1000, not `{s}`"
        )),
    }
}

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

/// The two outputs of `--stereo`: left, then right.
#[derive(Clone, Debug)]
pub(crate) struct StereoPair(pub(crate) [String; 2]);

/// A `--stereo` pair: two output names separated by a comma.
fn parse_stereo(s: &str) -> Result<StereoPair, String> {
    match s.split_once(',') {
        Some((l, r)) if !l.trim().is_empty() && !r.trim().is_empty() && !r.contains(',') => {
            Ok(StereoPair([l.trim().to_string(), r.trim().to_string()]))
        }
        _ => Err(format!(
            "expected two output names, LEFT,RIGHT (like `left,right`), not `{s}`"
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

/// The most threads `--parallel` takes: 4 × the cores of this machine, and at least 256.
fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores.saturating_mul(4).max(256)
}

/// A `--parallel` thread count: a whole number, 1 to [`max_threads`].
fn parse_threads(s: &str) -> Result<usize, String> {
    let max = max_threads();
    match s.parse::<usize>() {
        Ok(0) => Err("the thread count must be at least 1".into()),
        Ok(n) if n > max => Err(format!(
            "{n} threads is more than the most this machine takes, {max} (4 x its cores, at \
             least 256)"
        )),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "expected a thread count (a whole number, at least 1), not `{s}`"
        )),
    }
}

/// A size in bytes: a whole or decimal number, then optionally a unit, `B`, `K`, `M`, `G`
/// or `T` (powers of 1024; `KiB`, `MB` and the like mean the same), any case: `500M`, `2G`,
/// `1.5GiB`, `4096`.
pub(crate) fn parse_size(s: &str) -> Result<u64, String> {
    let bad = || format!("expected a size like 4096, 500M or 2G, not `{s}`");
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let shift = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(bad()),
    };
    let value: f64 = number.parse().map_err(|_| bad())?;
    let bytes = (value * (1u64 << shift) as f64).floor();
    // Below 2^63 bytes: exactly representable bounds, and far more than any disk.
    if !bytes.is_finite() || !(0.0..9.2e18).contains(&bytes) {
        return Err(format!("the size `{s}` is too large"));
    }
    Ok(bytes as u64)
}

/// A `--poll-ms` interval: 1 to 60000 milliseconds.
fn parse_poll_ms(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if (1..=60_000).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a poll interval of 1 to 60000 milliseconds, not `{s}`"
        )),
    }
}

/// The most ticks `watch --ticks` runs per present.
const MAX_WATCH_TICKS: u64 = 100_000;
/// The most seconds `watch --seconds` streams per present.
const MAX_WATCH_SECONDS: f64 = 3600.0;

/// A `watch --ticks` count: 1 to [`MAX_WATCH_TICKS`].
fn parse_watch_ticks(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if (1..=MAX_WATCH_TICKS).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a number of ticks from 1 to {MAX_WATCH_TICKS}, not `{s}`"
        )),
    }
}

/// A `watch --seconds` length: above 0, at most [`MAX_WATCH_SECONDS`].
fn parse_watch_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x > 0.0 && x <= MAX_WATCH_SECONDS => Ok(x),
        _ => Err(format!(
            "expected seconds above 0 and at most {MAX_WATCH_SECONDS}, not `{s}`"
        )),
    }
}

/// A `--max-presents` count: a whole number, at least 1.
fn parse_max_presents(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(0) => Err("the number of presents must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "expected a number of presents (a whole number, at least 1), not `{s}`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn image_sizes_are_width_by_height() {
        assert_eq!(parse_image_size("2048x1024"), Ok((2048, 1024)));
        assert_eq!(parse_image_size("3X5"), Ok((3, 5)));
        assert!(parse_image_size("0x5").is_err());
        assert!(parse_image_size("5").is_err());
        assert!(parse_image_size("20000x5").is_err());
    }

    #[test]
    fn sizes_take_binary_units() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("0"), Ok(0));
        assert_eq!(parse_size("500M"), Ok(500 * 1024 * 1024));
        assert_eq!(parse_size("2G"), Ok(2 * 1024 * 1024 * 1024));
        assert_eq!(parse_size("2gib"), Ok(2 << 30));
        assert_eq!(parse_size("1.5K"), Ok(1536));
        assert_eq!(parse_size("7b"), Ok(7));
        for bad in ["", "M", "-1M", "1.2.3", "5X", "1 M", "99999999T"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
