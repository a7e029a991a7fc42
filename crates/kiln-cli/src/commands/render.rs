//! `kiln render GRAPH --ticks N`: tick a recurrent graph (one with latches) with the
//! recurrent driver and write every output of every tick as `DIR/<output>_<tick>.<ext>`
//! (an image as PNG, or as asked: `--output NAME.exr`, `--depth 16`),
//! recording the whole ticks as it goes (`render_journal`); `--resume` continues a stopped
//! render from its last whole tick.

use super::render_journal::{Journal, fingerprint};
use super::render_state_file::{self, state_fingerprint};
use crate::args::RenderArgs;
use crate::common::{CliError, progress_bar, project_error};
use crate::evaluator::{parallel_policy, trim_cache};
use crate::report::print_stats;
use kiln::{Animations, frame_stem, tick_width};
use kiln_core::prelude::*;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

/// What earlier ticks left on disk, for the message of a failed render that started at
/// tick `first` and wrote `files` files.
fn written_summary(t: u64, first: u64, files: usize, dir: &Path) -> String {
    if first > 0 {
        return format!(
            "ticks 0 to {} are whole in {} ({files} file(s) written by this run), nothing of \
             tick {t}",
            t.saturating_sub(1),
            dir.display()
        );
    }
    match t {
        0 => "nothing was written".to_string(),
        1 => format!(
            "tick 0 was written ({files} file(s) in {}), nothing of tick 1",
            dir.display()
        ),
        _ => format!(
            "ticks 0 to {} were written ({files} file(s) in {}), nothing of tick {t}",
            t - 1,
            dir.display()
        ),
    }
}

/// `kiln render`: tick `project`'s graph with the recurrent driver ([`kiln::Render`]) and
/// write each tick's outputs.
pub(crate) fn render(
    project: &mut kiln::Project,
    args: &RenderArgs,
    ticks: u64,
) -> Result<ExitCode, CliError> {
    let reg = &project.registry().clone();
    let parallel = parallel_policy(args.parallel);
    let (names, output_files) =
        kiln::OutputFiles::parse(&args.outputs, args.depth).map_err(project_error)?;
    let bar = progress_bar(args.quiet, ticks, "ticks");
    let progress = bar.as_ref().map(|bar| {
        let b = bar.clone();
        Arc::new(move |p: &Progress<'_>| {
            if let Some(node) = p.node {
                b.set_message(node.to_string());
            }
        }) as Arc<dyn ProgressSink>
    });
    if let Some(dir) = &args.cache {
        project.set_cache(kiln::CacheDir::open(dir, true, reg).map_err(project_error)?);
    }
    let mut render = project
        .render(&kiln::RenderOptions {
            outputs: names,
            evaluator: args.evaluator.into(),
            parallel: parallel.clone(),
            seed: args.seed,
            size: args.size,
            dt: args.dt,
            fuse: args.fuse,
            progress,
            ..kiln::RenderOptions::default()
        })
        .map_err(project_error)?;
    let outputs = render.outputs().to_vec();
    let colours = crate::output_colour::OutputColours::new(&args.color, project.file_colours())?;
    colours.check(&outputs)?;
    let cache = project.cache();
    let g = &render.graph().clone();
    let width = tick_width(ticks);
    // The image size is a setting of the render like the --set values (and fusion changes
    // the graph fingerprinted).
    let mut settings = args.set.clone();
    if let Some((w, h)) = args.size {
        settings.push(format!("\0size={w}x{h}"));
    }
    // So do the files asked for (`sky.exr`, `--depth 16`).
    if let Some(d) = args.depth {
        settings.push(format!("\0depth={d}"));
    }
    let mut asked = outputs.clone();
    asked.extend(
        args.outputs
            .iter()
            .filter(|o| !outputs.contains(o))
            .cloned(),
    );
    let print = fingerprint(g, reg, ticks, args.dt, args.seed, &settings, &asked);
    let state_print = state_fingerprint(g, reg, args.dt, args.seed, &settings);
    // The files named on the command line are checked before anything is rendered: a FIFO,
    // a device, a socket or a link to one is refused (`kiln_io::check_destination`; every
    // write checks again).
    for file in [args.save_state.as_deref(), args.trace_json.as_deref()]
        .into_iter()
        .flatten()
    {
        kiln_io::check_destination(file).map_err(|e| CliError(e.to_string()))?;
    }
    // A frame range (`--start`, `--every`) writes some ticks of a longer render: it keeps
    // no journal (a resume continues whole renders only).
    let every = args.every.unwrap_or(1);
    let ranged = args.start.is_some() || every > 1;
    if let Some(start) = args.start
        && start >= ticks
    {
        return Err(CliError(format!(
            "--start {start} is past the last tick, {}",
            ticks - 1
        )));
    }
    let (journal, state) = match (args.resume, &args.load_state) {
        (true, _) => {
            let (j, s) = Journal::resume(&args.out, print, ticks, width, reg)?;
            (Some(j), s)
        }
        (false, Some(file)) => (
            (!ranged).then(|| Journal::fresh(&args.out, print, ticks, width)),
            Some(render_state_file::load(file, state_print, reg)?),
        ),
        (false, None) => (
            (!ranged).then(|| Journal::fresh(&args.out, print, ticks, width)),
            None,
        ),
    };
    let mut journal = journal;
    // The first tick written: --start, else the tick of the state --load-state gave (or
    // tick 0).
    let start = args.start.unwrap_or(match (&args.load_state, &state) {
        (Some(_), Some(s)) => s.tick,
        _ => 0,
    });
    let first = match (&args.load_state, &state) {
        (Some(file), Some(s)) if s.tick >= ticks => {
            return Err(CliError(format!(
                "{} holds the state before tick {}: --ticks {ticks} leaves nothing to render",
                file.display(),
                s.tick
            )));
        }
        (Some(file), Some(s)) if s.tick > start => {
            return Err(CliError(format!(
                "{} holds the state before tick {}, past --start {start}",
                file.display(),
                s.tick
            )));
        }
        // A range replays (or continues from the state) up to its start.
        _ if ranged => start,
        (Some(_), Some(s)) => s.tick,
        _ => journal.as_ref().map_or(0, Journal::whole),
    };
    // Whether tick `t` is written.
    let writes = |t: u64| t >= start && (t - start).is_multiple_of(every);
    // The ticks this run writes, from `first` on.
    let written_ticks = if first >= ticks {
        0
    } else {
        let lo = first.max(start);
        (ticks - 1 - start) / every + 1 - (lo - start).div_ceil(every)
    };
    let mut formats = vec![];
    if args.gif {
        formats.push(kiln_io::animation::AnimationFormat::Gif);
    }
    if args.apng {
        formats.push(kiln_io::animation::AnimationFormat::Apng);
    }
    // Each animation holds the ticks this run writes (an APNG states its count first).
    let frames = u32::try_from(written_ticks).unwrap_or(u32::MAX);
    let mut animations = Animations::new(
        formats,
        args.fps.unwrap_or(1.0 / args.dt),
        frames,
        &args.out,
    );
    if args.no_frames && !animations.wanted() {
        return Err(CliError(
            "--no-frames leaves nothing to write without --gif or --apng".into(),
        ));
    }
    if first == ticks {
        // A run killed after its last tick landed but before it took its state file away
        // leaves one: the render is whole, so it goes now.
        if let Some(j) = &journal {
            j.finish();
        }
        crate::outln!(
            "all {ticks} ticks in {} are already whole",
            args.out.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut stats = Stats::default();
    // The files of the first and of the last tick written, and how many in all (not every
    // path: a long render would grow by each).
    let (mut first_files, mut last_files): (Vec<PathBuf>, Vec<PathBuf>) = (vec![], vec![]);
    let mut written = 0usize;
    let started = Instant::now();
    let result = (|| -> Result<(), CliError> {
        std::fs::create_dir_all(&args.out)
            .map_err(|e| CliError(format!("cannot create {}: {e}", args.out.display())))?;
        // Resuming: from the saved state (or tick 0), replay up to the first tick to write.
        if let Some(s) = state {
            render.restore(s);
        }
        // A param animated by a curve is sampled again at each tick's time (`Render::tick`).
        render.skip_to(first).map_err(|e| match e {
            kiln::ProjectError::Tick { tick, source } => {
                CliError(format!("replaying tick {tick} to resume failed: {source}"))
            }
            other => project_error(other),
        })?;
        if let Some(j) = &journal {
            j.begin()?;
        }
        if let Some(bar) = &bar {
            bar.set_position(first);
        }
        for t in first..ticks {
            let fail = |what: String| {
                CliError(format!(
                    "tick {t} of {} failed: {what}; {}",
                    ticks,
                    written_summary(t, first, written, &args.out)
                ))
            };
            let out = render.tick().map_err(|e| match e {
                kiln::ProjectError::Tick { source, .. } => fail(source.to_string()),
                other => fail(other.to_string()),
            })?;
            stats.accumulate(&out.stats);
            if !writes(t) {
                if let Some(bar) = &bar {
                    bar.inc(1);
                }
                continue;
            }
            animations
                .push(t, &out.values, &|name: &str| colours.of(name))
                .map_err(project_error)?;
            // Encode every output of the tick before writing any, so a tick lands whole.
            let mut files = Vec::with_capacity(out.values.len());
            let mut names = Vec::with_capacity(out.values.len());
            for (name, v) in out.values.iter().filter(|_| !args.no_frames) {
                let stem = frame_stem(name, t, width);
                let cannot =
                    |e: kiln_io::WriteError| fail(format!("cannot write output `{name}`: {e}"));
                let images = output_files.image_formats(name, v).map_err(project_error)?;
                if images.is_empty() {
                    files.push(
                        kiln_io::encode_output_in(&args.out, &stem, v, colours.of(name))
                            .map_err(cannot)?,
                    );
                    names.push(name.clone());
                }
                for f in images {
                    files.push(
                        kiln_io::image_files::encode_image_output(
                            &args.out,
                            &stem,
                            v,
                            f,
                            colours.of(name),
                        )
                        .map_err(cannot)?,
                    );
                    names.push(name.clone());
                }
            }
            for (i, (path, bytes)) in files.iter().enumerate() {
                if let Err(e) = kiln_io::write_atomic(path, bytes) {
                    // Take back this tick's files, so no partial tick is left.
                    for (p, _) in &files[..i] {
                        let _ = std::fs::remove_file(p);
                    }
                    return Err(fail(format!("cannot write {}: {e}", path.display())));
                }
            }
            let landed: Vec<(String, PathBuf)> = names
                .into_iter()
                .zip(files.into_iter().map(|(p, _)| p))
                .collect();
            if let Some(j) = &mut journal {
                j.landed(t, &landed, render.snapshot(), reg)?;
            }
            written += landed.len();
            last_files = landed.into_iter().map(|(_, p)| p).collect();
            if first_files.is_empty() {
                first_files = last_files.clone();
            }
            if let Some(bar) = &bar {
                bar.inc(1);
            }
        }
        Ok(())
    })();
    let elapsed = started.elapsed();
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if let Some(c) = &cache {
        // Over many ticks the evaluator's reuse counts nodes found unchanged since the
        // previous tick too: count the entries read from the directory instead.
        eprintln!(
            "cache: {} nodes cooked over {ticks} tick(s), {} from cache, {}",
            stats.executed,
            c.disk().stats().hits,
            c.entries()
        );
        trim_cache(c.dir(), args.cache_max);
    }
    result?;
    let movies = animations.finish().map_err(project_error)?;
    if let Some(file) = &args.save_state {
        render_state_file::save(file, state_print, render.snapshot(), reg)?;
    }
    if let Some(j) = &journal {
        j.finish();
    }
    let done = ticks - first;
    for (one, last) in first_files.iter().zip(&last_files) {
        if written_ticks == 1 {
            crate::outln!("wrote {}", one.display());
        } else {
            crate::outln!(
                "wrote {} … {} ({written_ticks} ticks)",
                one.display(),
                last.display()
            );
        }
    }
    for (path, frames) in &movies {
        crate::outln!("wrote {} ({frames} frames)", path.display());
    }
    if let Some(file) = &args.save_state {
        crate::outln!(
            "saved the state before tick {} to {}",
            render.next_tick(),
            file.display()
        );
    }
    if args.stats {
        print_stats(args.evaluator, &parallel, &stats, elapsed, Some(done));
    }
    // The body of a flow node is shared by the graph's copies, so its traces are here.
    crate::report::flow_traces(g, args.trace, args.trace_json.as_deref())?;
    Ok(ExitCode::SUCCESS)
}
