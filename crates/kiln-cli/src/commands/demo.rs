//! `kiln demo`: run the built-in example (noise clouds), as `kiln run` would.

use super::run::run;
use crate::args::EvalArgs;
use crate::common::CliError;
use kiln_core::prelude::*;
use std::process::ExitCode;

/// The built-in demo graph (also `examples/clouds.json`).
pub const DEMO_GRAPH: &str = include_str!("../../../../examples/clouds.json");

/// `kiln demo`: [`run`] on [`DEMO_GRAPH`].
pub(crate) fn demo(reg: &Registry, args: &EvalArgs) -> Result<ExitCode, CliError> {
    let file = kiln_io::load_graph(DEMO_GRAPH, reg)
        .map_err(|e| CliError(format!("built-in demo: {e}")))?;
    run(&file.graph, reg, args, None, None, &file.meta.output_colors)
}
