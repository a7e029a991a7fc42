//! What `kiln watch` presents for graphs that run over time: `--ticks N` ticks a graph with
//! latches from tick 0 to N-1 with the recurrent driver and writes every output of every
//! tick (`NAME_TTT.ext`, as `kiln render --ticks` names them); `--seconds S` streams an
//! audio graph for S seconds and writes each output as `NAME.wav` (32-bit float, 48 kHz).
//! Either way the files of one present are committed as one group: all land, or none does.

use kiln_lower::session::PresentReport;
use std::path::Path;
use std::time::Instant;

/// The sample rate of `--seconds`.
pub(crate) const RATE: u32 = 48_000;

/// The digits tick numbers are padded to: those of the last tick, at least 3.
fn width(ticks: u64) -> usize {
    ticks.saturating_sub(1).to_string().len().max(3)
}

/// Tick `render` `ticks` times from the start and commit every output of every tick into
/// `out`; the report (summed over the ticks) and the files written.
pub(crate) fn present_ticks(
    render: &mut kiln::Render,
    ticks: u64,
    out: &Path,
    style: &crate::folder_style::FolderStyle,
) -> Result<(PresentReport, Vec<String>), String> {
    let t0 = Instant::now();
    let mut files = vec![];
    let mut report = PresentReport::default();
    let w = width(ticks);
    for t in 0..ticks {
        let o = render.tick().map_err(|e| e.to_string())?;
        report.cooked += o.stats.executed;
        report.reused += o.stats.cache_hits;
        report.cut_off += o.stats.cutoffs;
        for (name, v) in &o.values {
            let stem = format!("{}_{t:0w$}", name.replace('.', "_"));
            let (path, bytes) = style
                .encode(out, &stem, name, v)
                .map_err(|e| format!("tick {t}: cannot write output `{name}`: {e}"))?;
            let file = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .ok_or_else(|| format!("output `{name}` has no file name"))?;
            files.push((file, bytes));
        }
    }
    report.nodes = render.graph().len();
    kiln_io::commit_frame(out, &files).map_err(|e| e.to_string())?;
    report.frame = ticks.saturating_sub(1);
    report.elapsed = t0.elapsed();
    Ok((report, files.into_iter().map(|(n, _)| n).collect()))
}

/// Stream `outputs` of `project` for `seconds` (with `seed`) and commit each as `NAME.wav`
/// into `out`.
pub(crate) fn present_audio(
    project: &mut kiln::Project,
    outputs: &[String],
    (seconds, seed): (f64, u64),
    out: &Path,
) -> Result<(PresentReport, Vec<String>), String> {
    let t0 = Instant::now();
    let opts = kiln::StreamOptions {
        rate: RATE,
        seed,
        ..kiln::StreamOptions::default()
    };
    let mut stream = project.stream(outputs, &opts).map_err(|e| e.to_string())?;
    let samples = (seconds * f64::from(RATE)).round() as u64;
    let mut channels: Vec<Vec<f64>> = vec![Vec::new(); outputs.len()];
    let mut done = 0u64;
    while done < samples {
        let n = (samples - done).min(opts.block as u64) as usize;
        stream.process(n).map_err(|e| e.to_string())?;
        for (i, ch) in channels.iter_mut().enumerate() {
            ch.extend_from_slice(stream.output(i));
        }
        done += n as u64;
    }
    let mut files = vec![];
    for (name, ch) in outputs.iter().zip(&channels) {
        let bytes = kiln_io::encode_wav(&[ch.as_slice()], RATE, kiln_io::WavFormat::Float32)
            .map_err(|e| format!("output `{name}`: {e}"))?;
        files.push((format!("{}.wav", name.replace('.', "_")), bytes));
    }
    kiln_io::commit_frame(out, &files).map_err(|e| e.to_string())?;
    let nodes = project
        .lower(kiln::Clock::default())
        .map_or(0, |l| l.graph.len());
    let report = PresentReport {
        nodes,
        cooked: nodes as u64,
        elapsed: t0.elapsed(),
        ..PresentReport::default()
    };
    Ok((report, files.into_iter().map(|(n, _)| n).collect()))
}
