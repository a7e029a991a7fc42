//! `kiln dot GRAPH`: print the graph in Graphviz DOT format.

use kiln_io::GraphFile;
use std::process::ExitCode;

/// `kiln dot` on the graph file `file`.
pub(crate) fn dot(file: &GraphFile) -> ExitCode {
    crate::out!("{}", kiln_io::to_dot(&file.graph));
    ExitCode::SUCCESS
}
