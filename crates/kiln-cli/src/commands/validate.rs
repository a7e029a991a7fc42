//! `kiln validate GRAPH [--rate HZ]`: check a graph (structure, types, and every param and
//! constant against its op's rules, at the sample rate given) and print every problem; exits
//! non-zero if there are any.

use crate::common::{CliError, plan, project_error};
use std::path::Path;
use std::process::ExitCode;

/// `kiln validate` on `project`, opened from `path`; with `rate`, the rules that depend on
/// the sample rate too.
pub(crate) fn validate(
    path: &Path,
    project: &mut kiln::Project,
    rate: Option<u32>,
) -> Result<ExitCode, CliError> {
    let diags = project
        .validate(kiln::Clock::default(), rate)
        .map_err(project_error)?;
    let g = plan(project)?.graph;
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
