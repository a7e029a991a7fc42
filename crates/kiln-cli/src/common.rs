//! What several commands share: the error they report, loading a graph file, graph inputs
//! and outputs, `--set`, validation before a run, the progress bar and the sweep of leftover
//! temporary files in an output folder.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kiln_core::prelude::*;
use kiln_std::graph_io::OUTPUT_OP;
use std::path::Path;

pub(crate) use crate::error::CliError;

/// The error of a [`kiln::Project`] call as the command reports it: a graph's validation
/// problems are printed first, one a line, each naming its node and port.
pub(crate) fn project_error(e: kiln::ProjectError) -> CliError {
    if let kiln::ProjectError::Invalid { problems } = &e {
        return report_problems(problems.clone())
            .err()
            .unwrap_or_else(|| CliError(e.to_string()));
    }
    CliError(e.to_string())
}

/// The error of a `--set` value.
pub(crate) fn set_error(e: kiln::ProjectError) -> CliError {
    match e {
        kiln::ProjectError::InputValue { .. } | kiln::ProjectError::UnknownInput { .. } => {
            CliError(format!("--set {e}"))
        }
        other => project_error(other),
    }
}

/// Open the graph file at `path` with what it calls (searching `libs` after the file's own
/// folder) as a project cooking with `reg`, its inputs set from `--set NAME=VALUE` (`set`;
/// files decoded once, here).
pub(crate) fn open(
    path: &Path,
    reg: &Registry,
    libs: &[std::path::PathBuf],
    set: &[String],
) -> Result<kiln::Project, CliError> {
    let mut options = kiln::OpenOptions::new().registry(reg.clone());
    for l in libs {
        options = options.lib(l);
    }
    let mut project = options.open(path).map_err(project_error)?;
    set_all(&mut project, set)?;
    Ok(project)
}

/// Set every `--set NAME=VALUE` of `set` on `project`.
pub(crate) fn set_all(project: &mut kiln::Project, set: &[String]) -> Result<(), CliError> {
    for s in set {
        let (name, text) = s
            .split_once('=')
            .ok_or_else(|| CliError(format!("--set `{s}`: expected NAME=VALUE")))?;
        project.set_text(name, text).map_err(set_error)?;
    }
    Ok(())
}

/// `project`'s plan at the default clock (the flat graph the evaluators run), or why it
/// cannot be made.
pub(crate) fn plan(project: &mut kiln::Project) -> Result<kiln::Lowering, CliError> {
    project.lower(kiln::Clock::default()).map_err(project_error)
}

/// The ids of the graph's outputs (its `output` nodes), in graph order.
pub(crate) fn graph_outputs(g: &Graph) -> Vec<String> {
    g.nodes()
        .iter()
        .filter(|n| n.op == OUTPUT_OP)
        .map(|n| n.id.to_string())
        .collect()
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
/// three quarters of the machine's memory or of the address-space limit (see
/// [`kiln_core::memory::default_limit`]).
pub(crate) fn set_memory_limit(given: Option<u64>) {
    kiln_core::memory::set_limit(given.or_else(kiln_core::memory::default_limit));
}

/// Refuse a graph with validation problems (printing each one).
pub(crate) fn check_valid(g: &Graph, reg: &Registry) -> Result<(), CliError> {
    report_problems(validate(g, reg))
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
