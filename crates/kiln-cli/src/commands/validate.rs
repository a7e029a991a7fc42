//! `kiln validate GRAPH`: check a graph and print every problem; exits non-zero if there
//! are any.

use kiln_core::prelude::*;
use kiln_io::GraphFile;
use std::path::Path;
use std::process::ExitCode;

/// `kiln validate` on the graph file `file`, read from `path`.
pub(crate) fn validate(path: &Path, file: &GraphFile, reg: &Registry) -> ExitCode {
    let diags = kiln_core::validate::validate(&file.graph, reg);
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
