//! `kiln dot GRAPH`: print the graph in Graphviz DOT format.

use kiln_core::graph::Graph;
use std::process::ExitCode;

/// `kiln dot` on the flat graph `g`.
pub(crate) fn dot(g: &Graph) -> ExitCode {
    crate::out!("{}", kiln_doc::to_dot(g));
    ExitCode::SUCCESS
}
