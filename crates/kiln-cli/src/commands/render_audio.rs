//! `kiln render GRAPH --seconds S`: stream an audio graph's signal outputs and write each
//! as a mono WAV file, `DIR/<output>.wav`, and with `--stereo LEFT,RIGHT` two of them as the
//! channels of one file, `DIR/LEFT+RIGHT.wav`; every file is renamed into place only once
//! every output rendered.

use crate::args::RenderArgs;
use crate::common::{CliError, progress_bar, project_error};
use kiln_io::wav::{StagedFile, WavError, WavStream};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// How many times faster than real time `seconds` of audio took `elapsed`.
fn realtime_multiple(seconds: f64, elapsed: Duration) -> String {
    let took = elapsed.as_secs_f64();
    if took > 0.0 {
        format!("{:.1}x real time", seconds / took)
    } else {
        "instant".into()
    }
}

/// A WAV file to write: the outputs that are its channels, in channel order.
struct Target {
    outputs: Vec<String>,
    path: PathBuf,
}

/// The file name stem of output `name` (dots becoming `_`, as for ticks), or an error when
/// it cannot be one.
fn file_stem(name: &str) -> Result<String, CliError> {
    let stem = name.replace('.', "_");
    if stem.is_empty() || stem.contains(['/', '\\', ':', '\0']) {
        return Err(CliError(format!(
            "output name `{name}` cannot be used as a file name"
        )));
    }
    Ok(stem)
}

/// The files to write: one mono file per name of `mono`, DIR/<output>.wav, and for
/// `--stereo LEFT,RIGHT` one two-channel file, DIR/LEFT+RIGHT.wav. Refuses two files of one
/// path.
fn targets(
    dir: &Path,
    mono: &[String],
    stereo: Option<&[String]>,
) -> Result<Vec<Target>, CliError> {
    let mut targets: Vec<Target> = Vec::new();
    let mut add = |outputs: Vec<String>, stem: String| {
        let path = dir.join(format!("{stem}.wav"));
        if targets.iter().any(|t| t.path == path) {
            return Err(CliError(format!(
                "outputs `{}` and another both become {}; pick one with --output",
                outputs.join("+"),
                path.display()
            )));
        }
        targets.push(Target { outputs, path });
        Ok(())
    };
    for name in mono {
        add(vec![name.clone()], file_stem(name)?)?;
    }
    if let Some(pair) = stereo {
        let stems = pair
            .iter()
            .map(|n| file_stem(n))
            .collect::<Result<Vec<String>, CliError>>()?;
        add(pair.to_vec(), stems.join("+"))?;
    }
    Ok(targets)
}

/// The error for output `name` whose samples could not be written.
fn sample_error(name: &str, e: WavError, rate: u32) -> CliError {
    let at = |index: u64| format!("sample {index} ({:.3} s)", index as f64 / f64::from(rate));
    CliError(match e {
        WavError::NonFinite { index, value, .. } => format!(
            "output `{name}` is {value:?} at {}: a WAV file holds finite samples only",
            at(index)
        ),
        WavError::OutOfRange { index, value, .. } => format!(
            "output `{name}` is {value:e} at {}, beyond the range of a 32-bit float \
             (--wav-format pcm16 or pcm24 clamps to -1..1)",
            at(index)
        ),
        other => format!("cannot write output `{name}`: {other}"),
    })
}

/// `kiln render --seconds`: stream the graph's signal outputs and write each as a mono WAV
/// file, DIR/<output>.wav (with `--stereo L,R`, only the `--output` names are mono files, and
/// L and R are the two channels of DIR/L+R.wav). The files are written under temporary names while the stream
/// runs and renamed into place only once every output rendered, so a failure writes nothing.
pub(crate) fn render_audio(
    project: &mut kiln::Project,
    args: &RenderArgs,
    seconds: f64,
) -> Result<ExitCode, CliError> {
    let stereo = args.stereo.as_ref().map(|p| &p.0[..]);
    let mono = if stereo.is_some() && args.outputs.is_empty() {
        Vec::new()
    } else {
        let mut names = if args.outputs.is_empty() {
            project.outputs().into_iter().map(|o| o.name).collect()
        } else {
            args.outputs.clone()
        };
        let mut seen = std::collections::HashSet::new();
        names.retain(|o| seen.insert(o.clone()));
        if names.is_empty() {
            return Err(project_error(kiln::ProjectError::NoOutputs));
        }
        names
    };
    let targets = targets(&args.out, &mono, stereo)?;
    // Every channel of every file, in order: the stream computes each signal once.
    let names: Vec<String> = targets.iter().flat_map(|t| t.outputs.clone()).collect();
    let mut channels_of: Vec<Vec<usize>> = Vec::with_capacity(targets.len());
    let mut next = 0;
    for t in &targets {
        channels_of.push((next..next + t.outputs.len()).collect());
        next += t.outputs.len();
    }
    let widest = targets.iter().map(|t| t.outputs.len()).max().unwrap_or(1) as u64;
    let format = args.wav_format.format();
    let rate = args.rate;
    let total = (seconds * f64::from(rate)).round();
    if total < 1.0 {
        return Err(CliError(format!(
            "--seconds {seconds} at {rate} Hz is less than one sample"
        )));
    }
    // `total` is at least 1 and finite; a float beyond u64 saturates and is refused below.
    let total = total as u64;
    let max_frames = kiln_io::wav::MAX_DATA_BYTES / (format.bytes_per_sample() * widest);
    if total > max_frames {
        return Err(CliError(format!(
            "--seconds {seconds} at {rate} Hz is {total} samples, more than a {format} WAV \
             file holds ({max_frames}); render less, at a lower rate, or as pcm16"
        )));
    }
    let opts = kiln::StreamOptions {
        rate,
        block: args.block,
        seed: args.seed,
    };
    let mut stream = project.stream(&names, &opts).map_err(|e| match e {
        kiln::ProjectError::NotASignal { .. } => CliError(format!(
            "{e} (use `render --ticks N` or `run` for other values)"
        )),
        kiln::ProjectError::Stream { .. } => CliError(format!("{e}; nothing was written")),
        other => project_error(other),
    })?;

    // The folders this run creates (the missing ancestors of DIR, DIR first), to take back
    // if it fails.
    let created: Vec<PathBuf> = args
        .out
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
        .map(Path::to_path_buf)
        .collect();
    std::fs::create_dir_all(&args.out)
        .map_err(|e| CliError(format!("cannot create {}: {e}", args.out.display())))?;
    let bar = progress_bar(args.quiet, total, "samples");
    let started = Instant::now();
    let result = (|| -> Result<Vec<StagedFile>, CliError> {
        let mut files = Vec::with_capacity(targets.len());
        for t in &targets {
            let path = &t.path;
            let file = WavStream::create(path, t.outputs.len(), rate, format)
                .map_err(|e| CliError(format!("cannot write {}: {e}", path.display())))?;
            files.push(file);
        }
        let mut done = 0u64;
        let mut shown = 0u64;
        while done < total {
            let n = (total - done).min(args.block as u64) as usize;
            stream.process(n).map_err(|e| {
                CliError(format!(
                    "rendering failed at sample {done} ({:.3} s): {e}",
                    done as f64 / f64::from(rate)
                ))
            })?;
            for ((file, t), channels) in files.iter_mut().zip(&targets).zip(&channels_of) {
                let blocks: Vec<&[f64]> = channels.iter().map(|&i| stream.output(i)).collect();
                file.write(&blocks).map_err(|e| {
                    let channel = match &e {
                        WavError::NonFinite { channel, .. }
                        | WavError::OutOfRange { channel, .. } => *channel,
                        _ => 0,
                    };
                    let name = t.outputs.get(channel).map_or("?", String::as_str);
                    sample_error(name, e, rate)
                })?;
            }
            done += n as u64;
            if let Some(bar) = &bar
                && (done - shown >= 4096 || done == total)
            {
                bar.set_position(done);
                bar.set_message(format!("{:.2} s", done as f64 / f64::from(rate)));
                shown = done;
            }
        }
        files
            .into_iter()
            .map(|f| {
                let path = f.path().to_path_buf();
                f.finish()
                    .map_err(|e| CliError(format!("cannot write {}: {e}", path.display())))
            })
            .collect()
    })();
    let elapsed = started.elapsed();
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let staged = match result {
        Ok(staged) => staged,
        Err(e) => {
            // The temporary files are gone; take back the folders this run made (each only
            // if empty).
            for d in &created {
                if std::fs::remove_dir(d).is_err() {
                    break;
                }
            }
            return Err(CliError(format!("{e}; nothing was written")));
        }
    };
    // Every output rendered: rename the files into place.
    let mut written = Vec::with_capacity(staged.len());
    for file in staged {
        let path = file.path().to_path_buf();
        // A rename failing after others succeeded is rare (the files are complete by now);
        // say what landed.
        let done = file.commit().map_err(|e| {
            CliError(format!(
                "cannot write {}: {e}; {}",
                path.display(),
                if written.is_empty() {
                    "nothing was written".to_string()
                } else {
                    format!("only {} was written", written.join(", "))
                }
            ))
        })?;
        written.push(done.display().to_string());
    }
    crate::outln!(
        "wrote {} ({total} samples, {:.3} s at {rate} Hz, {format}, {})",
        written.join(", "),
        total as f64 / f64::from(rate),
        realtime_multiple(total as f64 / f64::from(rate), elapsed)
    );
    Ok(ExitCode::SUCCESS)
}
