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
    let mut project = kiln::OpenOptions::new()
        .registry(reg.clone())
        .open_text(DEMO_GRAPH, "built-in demo", std::path::Path::new("."))
        .map_err(crate::common::project_error)?;
    crate::common::set_all(&mut project, &args.set)?;
    run(&mut project, args)
}
