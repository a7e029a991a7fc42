//! `kiln bake`: write a graph with its inputs frozen and its pure cones folded into
//! constants (see `kiln_io::bake`).

use crate::args::BakeArgs;
use crate::common::{CliError, check_valid, load, set_inputs};
use kiln_core::prelude::*;
use kiln_io::bake::{BakeOptions, blob_dir_for};
use std::path::Path;
use std::process::ExitCode;

/// Whether `a` and `b` name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// `kiln bake GRAPH --out BAKED.json [--freeze] [--set NAME=VALUE ...] [--seed N]`.
pub(crate) fn bake(
    graph: &Path,
    reg: &Registry,
    args: &BakeArgs,
    libs: &[std::path::PathBuf],
) -> Result<ExitCode, CliError> {
    if same_file(graph, &args.out) {
        return Err(CliError(format!(
            "--out {} is the graph being baked; write the baked graph to another file",
            args.out.display()
        )));
    }
    let blobs = blob_dir_for(&args.out).ok_or_else(|| {
        CliError(format!(
            "--out {}: expected a file name such as baked.json",
            args.out.display()
        ))
    })?;
    if blobs == args.out {
        return Err(CliError(format!(
            "--out {}: the blob folder would have the same name; use a name ending in .json",
            args.out.display()
        )));
    }
    let file = load(
        graph,
        reg,
        libs,
        &args.set,
        crate::common::PlanClock::default(),
    )?
    .file;
    check_valid(&file.graph, reg)?;
    let mut ctx = EvalContext::new();
    set_inputs(&mut ctx, &file.graph, reg, &args.set)?;
    let options = BakeOptions {
        freeze: args.freeze,
        inputs: ctx.inputs,
        seed: args.seed,
    };
    let baked = kiln_io::bake(&file, reg, &options).map_err(|e| {
        CliError(format!(
            "cannot bake {}: {e}; nothing was written",
            graph.display()
        ))
    })?;
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError(format!("cannot create {}: {e}", dir.display())))?;
    }
    let written = kiln_io::write_baked(&args.out, &baked.file, reg)
        .map_err(|e| CliError(format!("cannot write the baked graph: {e}")))?;
    crate::outln!("baked {} into {}", graph.display(), written.graph.display());
    crate::out!("{}", baked.report);
    crate::outln!("{written}");
    Ok(ExitCode::SUCCESS)
}
