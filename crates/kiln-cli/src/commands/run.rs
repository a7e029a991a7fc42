//! `kiln run GRAPH`: cook a graph's outputs once and write each as a file (PNG for images,
//! sRGB-encoded unless `--color` or the file asks for data; glb for meshes unless
//! `--output NAME.EXT` asks for other formats; JSON otherwise), every output encoded before
//! any is written. A thin client of [`kiln::Project`]: it turns the arguments into a cook
//! and a write, and reports.

use crate::args::{ErrorsArg, EvalArgs};
use crate::common::{CliError, progress_bar, project_error, sweep_leftovers};
use crate::report::{print_failures, print_stats, print_timings};
use kiln::{CacheDir, Clock, CookOptions, OutColours, OutputFiles, Project, is_latch_error};
use kiln_core::eval::ErrorPolicy;
use kiln_core::prelude::*;
use std::process::ExitCode;
use std::sync::Arc;

/// `kiln run` (and `kiln demo`) on `project`, its inputs already set.
pub(crate) fn run(project: &mut Project, args: &EvalArgs) -> Result<ExitCode, CliError> {
    let parallel = kiln::parallel_policy(args.parallel);
    sweep_leftovers(&args.out);
    let clock = Clock {
        time: args.time,
        frame: args.frame,
    };
    // A trace file must be a regular file or absent, refused before anything cooks or lands.
    if let Some(file) = &args.trace_json {
        kiln_io::check_destination(file).map_err(|e| CliError(e.to_string()))?;
    }
    let (names, files) = OutputFiles::parse(&args.outputs, args.depth).map_err(project_error)?;
    // An invalid graph is refused first, each problem printed (the cook does not check the
    // kept plan again).
    let planned = project.checked_lowering(clock).map_err(project_error)?;
    let outputs = project
        .requested_outputs(&names, clock)
        .map_err(project_error)?;
    let colours = OutColours::parse(&args.color).map_err(project_error)?;
    colours.check(&outputs).map_err(project_error)?;
    let files = files.with_preview(args.preview).with_colours(colours);
    let bar = progress_bar(args.quiet, 0, "nodes");
    let progress = bar.as_ref().map(|bar| {
        let b = bar.clone();
        Arc::new(move |p: &Progress<'_>| {
            b.set_length(p.total as u64);
            b.set_position(p.completed as u64);
            if let Some(node) = p.node {
                match p.node_fraction {
                    Some(f) => b.set_message(format!("{node} {:.0}%", f * 100.0)),
                    None => b.set_message(node.to_string()),
                }
            }
        }) as Arc<dyn ProgressSink>
    });
    // Per-scope counts are read off the nodes that ran.
    let scopes = planned
        .report
        .as_ref()
        .is_some_and(|p| !p.scopes.is_empty());
    let opts = CookOptions {
        outputs,
        evaluator: args.evaluator.into(),
        parallel: parallel.clone(),
        errors: match args.errors {
            ErrorsArg::FailFast => ErrorPolicy::FailFast,
            ErrorsArg::Propagate => ErrorPolicy::Propagate,
        },
        seed: args.seed,
        size: args.size,
        clock,
        fuse: args.fuse,
        timings: args.timings || (args.stats && scopes),
        progress,
        ..CookOptions::default()
    };
    if let Some(dir) = &args.cache {
        let cache = CacheDir::open(dir, false, project.registry()).map_err(project_error)?;
        project.set_cache(cache);
    }
    let result = project.cook(&opts);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if let Some(c) = project.cache() {
        // A fresh evaluator over an empty memory: every node it did not cook came from
        // the store (the directory, or an identical node earlier in this run).
        match &result {
            Ok(cooked) => eprintln!(
                "cache: {} nodes cooked, {} from cache, {}",
                cooked.outputs.stats.executed,
                cooked.outputs.stats.cache_hits,
                c.entries()
            ),
            Err(_) => eprintln!("cache: the evaluation failed, {}", c.entries()),
        }
        crate::evaluator::trim_cache(c.dir(), args.cache_max);
    }
    let cooked = result.map_err(project_error)?;
    let written = project
        .write(&cooked, &args.out, &files)
        .map_err(project_error)?;
    for file in &written.files {
        crate::outln!("wrote {}", file.display());
    }
    let out = &cooked.outputs;
    if args.stats {
        print_stats(args.evaluator, &parallel, &out.stats, cooked.elapsed, None);
        if let Some(p) = &cooked.plan {
            crate::report::print_plan(p, out.timings.iter().map(|t| (t.node.as_str(), t.cut_off)));
        }
        eprintln!("memory:");
        for line in cooked.memory.to_string().lines() {
            eprintln!("  {line}");
        }
    }
    if args.timings {
        print_timings(out);
    }
    crate::report::flow_traces(&cooked.graph, args.trace, args.trace_json.as_deref())?;
    if !out.failures.is_empty() {
        print_failures(&out.failures);
        if out.failures.iter().any(|f| is_latch_error(&f.error)) {
            eprintln!("{}", project.latch_hint(&cooked.graph).trim_start());
        }
    }
    if written.failed.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!(
            "error: {} of {} output(s) failed and were not written: {}",
            written.failed.len(),
            out.values.len(),
            written.failed.join(", ")
        );
        Ok(ExitCode::from(1))
    }
}
