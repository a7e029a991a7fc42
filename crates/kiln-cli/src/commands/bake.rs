//! `kiln bake`: write a graph with its inputs frozen and its pure cones folded into
//! constants (see `kiln_doc::bake`).

use crate::args::BakeArgs;
use crate::common::{CliError, check_valid, open, project_error};
use kiln_core::prelude::*;
use kiln_doc::bake::{BakeOptions, blob_dir_for};
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
    let mut project = open(graph, reg, libs, &args.set)?;
    let clock = kiln::Clock::default();
    let planned = project.lower(clock).map_err(project_error)?;
    // A plan that read graph inputs holds for their values only: without `--freeze` the
    // baked graph keeps its inputs, so it must not keep choices made on them.
    let file = if args.freeze || planned.inputs_read.is_empty() {
        project.flat_file(clock).map_err(project_error)?
    } else if !project.needs_lowering() {
        project.document().file.clone()
    } else {
        let read: Vec<&str> = planned.inputs_read.iter().map(String::as_str).collect();
        return Err(CliError(format!(
            "the plan of {} depends on the graph input(s) {} (a choice, or a scope's list or              count), which the baked graph keeps as inputs; bake with --freeze (and --set)              to fix their values",
            graph.display(),
            read.join(", ")
        )));
    };
    check_valid(&file.graph, reg)?;
    let options = BakeOptions {
        freeze: args.freeze,
        inputs: project.input_values().clone(),
        seed: args.seed,
    };
    let baked = kiln_doc::bake(&file, reg, &options).map_err(|e| {
        CliError(format!(
            "cannot bake {}: {e}; nothing was written",
            graph.display()
        ))
    })?;
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError(format!("cannot create {}: {e}", dir.display())))?;
    }
    let written = kiln_doc::write_baked(&args.out, &baked.file, reg)
        .map_err(|e| CliError(format!("cannot write the baked graph: {e}")))?;
    crate::outln!("baked {} into {}", graph.display(), written.graph.display());
    crate::out!("{}", baked.report);
    crate::outln!("{written}");
    Ok(ExitCode::SUCCESS)
}
