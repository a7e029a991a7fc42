//! What several commands share: the error they report, loading a graph file, graph inputs
//! and outputs, `--set`, validation before a run, the progress bar and the sweep of leftover
//! temporary files in an output folder.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kiln_core::prelude::*;
use kiln_io::{GraphFile, LoadError};
use kiln_std::graph_io::{INPUT_PREFIX, OUTPUT_OP};
use std::path::Path;

/// A failure the CLI reports as `error: ...` and exit code 1.
#[derive(Debug)]
pub struct CliError(pub(crate) String);

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

/// A graph file read, with everything it calls, and planned: `file.graph` is the flat graph
/// the evaluators run (the file's own graph when it calls nothing).
pub(crate) struct Loaded {
    /// The file, its graph replaced by the flat graph.
    pub file: GraphFile,
    /// The document and the files it was read from.
    pub doc: kiln_io::assets::DocumentFile,
    /// What the plan did, when the file has structure to write out.
    pub plan: Option<kiln_core::lower::PlanReport>,
    /// The params animated by curves, sampled at the clock the plan was made at.
    pub animated: Vec<kiln_core::lower::AnimatedParam>,
}

/// The clock a graph file is planned at (an animated param is sampled there).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PlanClock {
    /// Seconds.
    pub time: f64,
    /// Frame number.
    pub frame: i64,
}

/// Read the graph file at `path` and what it calls (searching `libs` after the file's own
/// folder), and plan it at `clock` with the graph inputs of `--set` (`set`).
pub(crate) fn load(
    path: &Path,
    reg: &Registry,
    libs: &[std::path::PathBuf],
    set: &[String],
    clock: PlanClock,
) -> Result<Loaded, CliError> {
    let lib_path = kiln_io::assets::LibraryPath::with_env(libs);
    let doc = kiln_io::assets::read_document(path, reg, &lib_path).map_err(|e| match e {
        // The top file's own failure reads as before; a called file's names that file.
        kiln_io::assets::AssetError::Load { source, path: p }
            if p == path.display().to_string() =>
        {
            load_error(path, source)
        }
        other => CliError(format!("cannot load {}: {other}", path.display())),
    })?;
    plan_loaded(doc, reg, set, path, clock)
}

/// Plan a document read from `path` at `clock`, with the graph inputs of `--set` (`set`).
pub(crate) fn plan_loaded(
    doc: kiln_io::assets::DocumentFile,
    reg: &Registry,
    set: &[String],
    path: &Path,
    clock: PlanClock,
) -> Result<Loaded, CliError> {
    let mut ctx = EvalContext::new();
    ctx.time = clock.time;
    ctx.frame = clock.frame;
    set_inputs(&mut ctx, &doc.doc.graph, reg, set)?;
    let flat = doc
        .flat_file(reg, &ctx)
        .map_err(|e| CliError(format!("cannot plan {}: {e}", path.display())))?;
    Ok(Loaded {
        file: flat.file,
        doc,
        plan: flat.plan,
        animated: flat.animated,
    })
}

/// Graph inputs: `(name, type)`.
pub(crate) fn graph_inputs<'a>(g: &'a Graph, reg: &Registry) -> Vec<(&'a str, ValueType)> {
    g.nodes()
        .iter()
        .filter(|n| n.op.starts_with(INPUT_PREFIX))
        .filter_map(|n| {
            let ty = reg.get(&n.op)?.spec().outputs.first()?.ty;
            Some((n.id.as_str(), ty))
        })
        .collect()
}

/// The ids of the graph's outputs (its `output` nodes), in graph order.
pub(crate) fn graph_outputs(g: &Graph) -> Vec<String> {
    g.nodes()
        .iter()
        .filter(|n| n.op == OUTPUT_OP)
        .map(|n| n.id.to_string())
        .collect()
}

/// Apply `--set NAME=VALUE` options to `ctx`, checking each name against the graph's inputs
/// (an audio input takes a WAV file, `NAME=@file.wav`, a mesh input an OBJ or glb file).
pub(crate) fn set_inputs(
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
        let v = match crate::mesh_input::mesh_value(name, text, ty)? {
            Some(mesh) => mesh,
            None => match crate::image_input::image_value(
                name,
                text,
                ty,
                crate::image_input::input_colour(g, name),
            )? {
                Some(img) => img,
                None => match crate::audio_input::audio_value(name, text, ty)? {
                    Some(buffer) => buffer,
                    None => kiln_io::parse_cli_value(text, ty)
                        .map_err(|e| CliError(format!("--set `{name}` ({ty}): {e}")))?,
                },
            },
        };
        ctx.inputs.insert(name.to_string(), v);
    }
    Ok(())
}

/// A progress bar on stderr counting `unit` (indicatif hides it when stderr is not a
/// terminal); `None` with `--quiet`.
pub(crate) fn progress_bar(quiet: bool, len: u64, unit: &str) -> Option<ProgressBar> {
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

/// Set the process-wide memory budget (`kiln_core::memory`): `given` (`--memory-limit`), else
/// three quarters of the machine's memory when it is known.
pub(crate) fn set_memory_limit(given: Option<u64>) {
    kiln_core::memory::set_limit(given.or_else(kiln_core::memory::default_limit));
}

/// Refuse a graph with validation problems (printing each one).
pub(crate) fn check_valid(g: &Graph, reg: &Registry) -> Result<(), CliError> {
    report_problems(validate(g, reg))
}

/// [`check_valid`] for a graph streamed at `rate` Hz (the rate-dependent rules too).
pub(crate) fn check_valid_at_rate(g: &Graph, reg: &Registry, rate: u32) -> Result<(), CliError> {
    report_problems(kiln_core::validate::validate_at_rate(
        g,
        reg,
        f64::from(rate),
    ))
}

/// Print every problem of `diags`, and fail if there is one.
fn report_problems(diags: Vec<Diagnostic>) -> Result<(), CliError> {
    if diags.is_empty() {
        return Ok(());
    }
    for d in &diags {
        eprintln!("{}", crate::report::abridged(d));
    }
    Err(CliError(format!(
        "the graph has {} problem(s); nothing was written",
        diags.len()
    )))
}

/// The outputs to evaluate: `--output` names (first occurrence of each), else every graph
/// output.
pub(crate) fn requested_outputs(g: &Graph, names: &[String]) -> Result<Vec<String>, CliError> {
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

/// Remove from the output folder `dir` the temporary files that killed kiln processes left
/// (see [`kiln_io::leftovers`]), saying on stderr how many went. A folder that cannot be
/// listed is left to the writes that follow, which report it.
pub(crate) fn sweep_leftovers(dir: &Path) {
    if let Ok(removed) = kiln_io::remove_dead_leftovers(dir)
        && !removed.is_empty()
    {
        eprintln!(
            "removed {} temporary file(s) left in {} by stopped kiln processes",
            removed.len(),
            dir.display()
        );
    }
}

/// `g` with each chain of per-pixel image nodes fused into one node (`--fuse`), keeping the
/// nodes the requested outputs name.
pub(crate) fn fused_graph(g: &Graph, reg: &Registry, outputs: &[String]) -> Graph {
    let keep: Vec<&str> = outputs
        .iter()
        .map(|o| o.split('.').next().unwrap_or(o))
        .collect();
    kiln_image::fuse::fuse(g, reg, &keep).0
}
