//! `kiln run GRAPH --sweep NAME=VALUES ...`: one item per combination of the swept knobs'
//! values, each cooked and written under a name from `--name`, items on `--jobs` threads
//! sharing one memory of results ([`kiln::SweepRun`]); `sweep.json` in the folder records
//! every item's settings and files.

use crate::args::{ErrorsArg, EvalArgs};
use crate::common::{CliError, project_error, sweep_leftovers};
use kiln::{CacheDir, Clock, CookOptions, NameTemplate, OutColours, OutputFiles, Project, Sweep};
use kiln_core::eval::ErrorPolicy;
use std::process::ExitCode;

/// Run the sweep `args` asks for on `first` (opened with the `--set` values) and on
/// projects `again` opens for further workers.
pub(crate) fn sweep(
    mut first: Project,
    again: &(dyn Fn() -> Result<Project, kiln::ProjectError> + Sync),
    args: &EvalArgs,
) -> Result<ExitCode, CliError> {
    let sweep = Sweep::parse(&args.sweep, args.zip).map_err(|e| CliError(e.to_string()))?;
    let knobs: Vec<&str> = sweep.axes.iter().map(|a| a.name.as_str()).collect();
    let names = match &args.name {
        Some(t) => NameTemplate::parse(t, &knobs).map_err(|e| CliError(e.to_string()))?,
        None => NameTemplate::default_for_sweep(),
    };
    let items = sweep.len().map_err(|e| CliError(e.to_string()))?;
    // Every knob is set once on the first project before anything cooks, so a name the
    // graph does not have, or a value its type refuses, fails the whole sweep up front. A
    // file (`@path`) is only looked for here: the item that takes it decodes it.
    for a in &sweep.axes {
        for v in &a.values {
            if let Some(path) = v.strip_prefix('@') {
                if !std::path::Path::new(path).is_file() {
                    return Err(CliError(format!("--sweep {}: no file {path}", a.name)));
                }
                continue;
            }
            first
                .set_text(&a.name, v)
                .map_err(|e| CliError(format!("--sweep {}: {e}", a.name)))?;
        }
    }
    sweep_leftovers(&args.out);
    let clock = Clock {
        time: args.time,
        frame: args.frame,
    };
    let (outputs, files) = OutputFiles::parse(&args.outputs, args.depth).map_err(project_error)?;
    first.checked_lowering(clock).map_err(project_error)?;
    let colours = OutColours::parse(&args.color).map_err(project_error)?;
    let files = files.with_preview(args.preview).with_colours(colours);
    let cook = CookOptions {
        outputs,
        evaluator: args.evaluator.into(),
        parallel: kiln::parallel_policy(args.parallel),
        errors: match args.errors {
            ErrorsArg::FailFast => ErrorPolicy::FailFast,
            ErrorsArg::Propagate => ErrorPolicy::Propagate,
        },
        seed: args.seed,
        size: args.size,
        clock,
        fuse: args.fuse,
        ..CookOptions::default()
    };
    let with_cache = |p: &mut Project| -> Result<(), kiln::ProjectError> {
        if let Some(dir) = &args.cache {
            p.set_cache(CacheDir::open(dir, false, p.registry())?);
        }
        Ok(())
    };
    with_cache(&mut first).map_err(project_error)?;
    let open = || {
        let mut p = again()?;
        with_cache(&mut p)?;
        Ok(p)
    };
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let quiet = args.quiet;
    let run = kiln::SweepRun {
        sweep: &sweep,
        names: &names,
        cook: &cook,
        files: &files,
        out: &args.out,
        jobs,
    };
    let report = run
        .run(first, &open, &|done: &kiln::ItemDone| {
            let settings: Vec<String> = done
                .item
                .settings
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            match &done.result {
                Ok(files) => {
                    for f in files {
                        crate::outln!("wrote {}", f.display());
                    }
                }
                Err(e) => eprintln!(
                    "error: item {} ({}) failed: {e}",
                    done.item.index,
                    settings.join(" ")
                ),
            }
            if !quiet {
                eprintln!(
                    "item {} ({}): {} node(s) cooked, {} reused",
                    done.item.index,
                    settings.join(" "),
                    done.executed,
                    done.reused
                );
            }
        })
        .map_err(project_error)?;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| CliError(format!("cannot create {}: {e}", args.out.display())))?;
    let manifest = args.out.join("sweep.json");
    kiln_io::write_atomic(&manifest, kiln::sweep_manifest(&report, &names).as_bytes())
        .map_err(|e| CliError(format!("cannot write {}: {e}", manifest.display())))?;
    eprintln!(
        "sweep: {items} item(s), {} node execution(s); cooking each as item 0 ({} node(s)) \
         would take {}: {} saved by sharing",
        report.executed,
        report.first_executed,
        (items as u64).saturating_mul(report.first_executed),
        report.saved()
    );
    if report.failed.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        let idx: Vec<String> = report.failed.iter().map(|(i, _)| i.to_string()).collect();
        eprintln!(
            "error: {} of {items} item(s) failed: {}",
            report.failed.len(),
            idx.join(",")
        );
        Ok(ExitCode::from(1))
    }
}
