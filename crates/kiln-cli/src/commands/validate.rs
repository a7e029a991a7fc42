//! `kiln validate GRAPH [--rate HZ]`: check a graph (structure, types, and every param and
//! constant against its op's rules, at the sample rate given) and print every problem; exits
//! non-zero if there are any.

use kiln_core::prelude::*;
use kiln_io::GraphFile;
use std::path::Path;
use std::process::ExitCode;

/// `kiln validate` on the graph file `file`, read from `path`; with `rate`, the rules that
/// depend on the sample rate too.
pub(crate) fn validate(
    path: &Path,
    file: &GraphFile,
    reg: &Registry,
    rate: Option<u32>,
) -> ExitCode {
    let diags = match rate {
        Some(r) => kiln_core::validate::validate_at_rate(&file.graph, reg, f64::from(r)),
        None => kiln_core::validate::validate(&file.graph, reg),
    };
    if diags.is_empty() {
        crate::outln!(
            "ok: {} is valid ({} nodes, {} wires)",
            path.display(),
            file.graph.len(),
            file.graph.wires().len()
        );
        ExitCode::SUCCESS
    } else {
        for d in &diags {
            crate::outln!("{}", crate::report::abridged(d));
        }
        eprintln!("error: {} problem(s) in {}", diags.len(), path.display());
        ExitCode::from(1)
    }
}
