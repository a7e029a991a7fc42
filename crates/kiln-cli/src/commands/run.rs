//! `kiln run GRAPH`: evaluate a graph's outputs once and write each as a file (PNG for
//! images, sRGB-encoded unless `--color` or the file asks for data; glb for meshes unless
//! `--output NAME.EXT` asks for other formats; JSON otherwise), every output encoded before
//! any is written.

use crate::args::{ErrorsArg, EvalArgs};
use crate::common::fused_graph;
use crate::common::{
    CliError, check_valid, progress_bar, requested_outputs, set_inputs, sweep_leftovers,
};
use crate::evaluator::{CacheRun, parallel_policy};
use crate::output_colour::OutputColours;
use crate::report::{print_failures, print_stats, print_timings};
use kiln_core::eval::ErrorPolicy;
use kiln_core::prelude::*;
use kiln_core::recurrence::LATCH_OP;
use kiln_io::image_files::ColorSpace;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

/// The ids of the graph's latch nodes.
fn latch_nodes(g: &Graph) -> Vec<&str> {
    g.nodes()
        .iter()
        .filter(|n| n.op == LATCH_OP)
        .map(|n| n.id.as_str())
        .collect()
}

/// The hint for `kiln run` on a graph with latches: they need `kiln render`.
fn latch_hint(g: &Graph, path: Option<&Path>) -> String {
    let latches = latch_nodes(g);
    format!(
        "\nhint: the graph has latch node(s) ({}), which hold state from one tick to the next \
         and need a recurrent driver: use `kiln render {} --ticks N --out DIR` to run it for N \
         ticks",
        latches.join(", "),
        path.map_or_else(|| "GRAPH".to_string(), |p| p.display().to_string())
    )
}

/// Whether `e` is a latch failing outside a recurrent driver.
fn is_latch_error(e: &EvalError) -> bool {
    matches!(e, EvalError::Node { op, .. } | EvalError::Panic { op, .. } if op == LATCH_OP)
}

/// The context of `kiln run`: time, frame, seed and `--set` inputs.
fn context(g: &Graph, reg: &Registry, args: &EvalArgs) -> Result<EvalContext, CliError> {
    let mut ctx = EvalContext::new();
    ctx.time = args.time;
    ctx.frame = args.frame;
    ctx.seed = args.seed;
    ctx.resolution = args.size;
    set_inputs(&mut ctx, g, reg, &args.set)?;
    Ok(ctx)
}

/// `kiln run` (and `kiln demo`) on the loaded graph `g`; `path` is its file, for hints;
/// `file_colours` the colour space the file gives each output that states one.
pub(crate) fn run(
    g: &Graph,
    reg: &Registry,
    args: &EvalArgs,
    path: Option<&Path>,
    plan: Option<&kiln_core::lower::PlanReport>,
    file_colours: &BTreeMap<String, ColorSpace>,
) -> Result<ExitCode, CliError> {
    let parallel = parallel_policy(args.parallel);
    sweep_leftovers(&args.out);
    check_valid(g, reg)?;
    let (names, image_formats) =
        crate::image_input::split_image_outputs(&args.outputs, args.depth)?;
    let (names, formats) = crate::mesh_input::split_output_formats(&names);
    let outputs = requested_outputs(g, &names)?;
    let colours = OutputColours::new(&args.color, file_colours)?;
    colours.check(&outputs)?;
    let fused;
    let g = if args.fuse {
        fused = fused_graph(g, reg, &outputs);
        &fused
    } else {
        g
    };
    let mut ctx = context(g, reg, args)?;
    let bar = progress_bar(args.quiet, 0, "nodes");
    if let Some(bar) = &bar {
        let b = bar.clone();
        ctx.progress = Some(Arc::new(move |p: &Progress<'_>| {
            b.set_length(p.total as u64);
            b.set_position(p.completed as u64);
            if let Some(node) = p.node {
                match p.node_fraction {
                    Some(f) => b.set_message(format!("{node} {:.0}%", f * 100.0)),
                    None => b.set_message(node.to_string()),
                }
            }
        }));
    }
    let mut request = Request::new(outputs.iter().cloned()).with_errors(match args.errors {
        ErrorsArg::FailFast => ErrorPolicy::FailFast,
        ErrorsArg::Propagate => ErrorPolicy::Propagate,
    });
    // Per-scope counts are read off the nodes that ran.
    if args.timings || (args.stats && plan.is_some_and(|p| !p.scopes.is_empty())) {
        request = request.with_timings();
    }
    let cache = match &args.cache {
        Some(dir) => Some(CacheRun::open(dir, false, reg)?),
        None => None,
    };
    let mut eval = match &cache {
        Some(c) => args
            .evaluator
            .build(reg, parallel.clone(), Some(c.store.clone())),
        None => args.evaluator.build(reg, parallel.clone(), None),
    };
    let started = Instant::now();
    let result = eval.evaluate(g, &request, &ctx);
    let elapsed = started.elapsed();
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if let Some(c) = &cache {
        // A fresh evaluator over an empty memory: every node it did not cook came from
        // the store (the directory, or an identical node earlier in this run).
        match &result {
            Ok(out) => eprintln!(
                "cache: {} nodes cooked, {} from cache, {}",
                out.stats.executed,
                out.stats.cache_hits,
                c.entries()
            ),
            Err(_) => eprintln!("cache: the evaluation failed, {}", c.entries()),
        }
        c.trim(args.cache_max);
    }
    let out = result.map_err(|e| {
        let hint = if is_latch_error(&e) {
            latch_hint(g, path)
        } else {
            String::new()
        };
        CliError(format!("evaluation failed: {e}; nothing was written{hint}"))
    })?;
    // Under `--errors propagate`, outputs holding an error are reported, not written.
    let failed: Vec<&str> = out
        .values
        .iter()
        .filter(|(_, v)| matches!(v, Value::Error(_)))
        .map(|(n, _)| n.as_str())
        .collect();
    // Encode every output before writing any, then commit them as one frame: every file
    // lands, or (on any failure) the folder keeps the files it had.
    let mut files = Vec::with_capacity(out.values.len());
    for (name, v) in &out.values {
        if matches!(v, Value::Error(_)) {
            continue;
        }
        let file_name = name.replace('.', "_");
        let cannot = |e: kiln_io::WriteError| {
            CliError(format!(
                "cannot write output `{name}`: {e}; nothing was written"
            ))
        };
        let images = crate::image_input::image_formats_for(&image_formats, name, v, args.depth)?;
        let mut encoded = Vec::new();
        for f in &images {
            encoded.push(
                kiln_io::image_files::encode_image_output(
                    &args.out,
                    &file_name,
                    v,
                    *f,
                    colours.of(name),
                )
                .map_err(cannot)?,
            );
        }
        let wanted = crate::mesh_input::formats_for(&formats, name, v, args.preview);
        if images.is_empty() || !wanted.is_empty() {
            encoded.extend(
                kiln_io::encode_output_files(&args.out, &file_name, v, &wanted).map_err(cannot)?,
            );
        }
        for (path, bytes) in encoded {
            let file = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .ok_or_else(|| CliError(format!("output `{name}` has no file name")))?;
            files.push((file, bytes));
        }
    }
    if !files.is_empty() {
        std::fs::create_dir_all(&args.out)
            .map_err(|e| CliError(format!("cannot create {}: {e}", args.out.display())))?;
        kiln_io::commit_frame(&args.out, &files).map_err(|e| match e {
            kiln_io::FrameError::Incomplete { .. } => CliError(e.to_string()),
            _ => CliError(format!("{e}; every output file was left as it was")),
        })?;
    }
    for (file, _) in &files {
        crate::outln!("wrote {}", args.out.join(file).display());
    }
    if args.stats {
        print_stats(args.evaluator, &parallel, &out.stats, elapsed, None);
        if let Some(p) = plan {
            crate::report::print_plan(p, out.timings.iter().map(|t| (t.node.as_str(), t.cut_off)));
        }
        let mut memory = eval.memory_report();
        if let Some(c) = &cache {
            memory.extend(c.store.memory_report());
        }
        eprintln!("memory:");
        for line in memory.to_string().lines() {
            eprintln!("  {line}");
        }
    }
    if args.timings {
        print_timings(&out);
    }
    crate::report::flow_traces(g, args.trace, args.trace_json.as_deref())?;
    if !out.failures.is_empty() {
        print_failures(&out.failures);
        if out.failures.iter().any(|f| is_latch_error(&f.error)) {
            eprintln!("{}", latch_hint(g, path).trim_start());
        }
    }
    if failed.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!(
            "error: {} of {} output(s) failed and were not written: {}",
            failed.len(),
            out.values.len(),
            failed.join(", ")
        );
        Ok(ExitCode::from(1))
    }
}
