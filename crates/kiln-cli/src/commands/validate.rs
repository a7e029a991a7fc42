//! `kiln validate GRAPH [--rate HZ] [--set NAME=VALUE]...`: check a graph (structure, types,
//! and every param and constant against its op's rules, at the sample rate given, with the
//! values set) and print every problem; exits non-zero if there are any. A declared input
//! that nothing reads, and a `--set` of a name the graph does not have, are warned about on
//! stderr (the exit code stays 0).

use crate::common::{CliError, plan, project_error};
use std::path::Path;
use std::process::ExitCode;

/// `kiln validate` on `project`, opened from `path`; with `rate`, the rules that depend on
/// the sample rate too.
pub(crate) fn validate(
    path: &Path,
    project: &mut kiln::Project,
    rate: Option<u32>,
    set: &[String],
) -> Result<ExitCode, CliError> {
    for s in set {
        let Some((name, text)) = s.split_once('=') else {
            return Err(CliError(format!("--set `{s}`: expected NAME=VALUE")));
        };
        match project.set_text(name, text) {
            Ok(()) => {}
            // A name the graph lacks: likely a typo, but the graph itself may be valid.
            Err(
                e @ (kiln::ProjectError::UnknownInput { .. }
                | kiln::ProjectError::UnknownNode { .. }
                | kiln::ProjectError::UnknownPort { .. }),
            ) => eprintln!("warning: --set {e}"),
            Err(e) => return Err(crate::common::set_error(e)),
        }
    }
    let diags = project
        .validate(kiln::Clock::default(), rate)
        .map_err(project_error)?;
    let g = plan(project)?.graph;
    // A declared input that drives nothing is not a problem, but likely a mistake.
    for name in project.unread_inputs().map_err(project_error)? {
        eprintln!(
            "warning: input `{name}` is declared but nothing reads it (wire it into a node's \
             port; until then `--set {name}=...` changes nothing)"
        );
    }
    if diags.is_empty() {
        crate::outln!(
            "ok: {} is valid ({} nodes, {} wires)",
            path.display(),
            g.len(),
            g.wires().len()
        );
        Ok(ExitCode::SUCCESS)
    } else {
        for d in &diags {
            crate::outln!("{}", crate::report::abridged(d));
        }
        eprintln!("error: {} problem(s) in {}", diags.len(), path.display());
        Ok(ExitCode::from(1))
    }
}
