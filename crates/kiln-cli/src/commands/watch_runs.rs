//! What `kiln watch` presents for graphs that run over time: `--ticks N` ticks a graph with
//! latches from tick 0 to N-1 with the recurrent driver and writes every output of every
//! tick (`NAME_TTT.ext`, as `kiln render --ticks` names them); `--seconds S` streams an
//! audio graph for S seconds and writes each output as `NAME.wav` (32-bit float, 48 kHz).
//! Either way the files of one present are committed as one group: all land, or none does.

use kiln_core::eval::{StreamConfig, StreamingEvaluator};
use kiln_core::prelude::*;
use kiln_lower::session::PresentReport;
use kiln_std::graph_io::OUTPUT_OP;
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

/// The signal port feeding output `name` (an `output` node) of `graph`.
fn source_of(graph: &Graph, name: &str) -> Result<String, String> {
    match graph.node(name) {
        Some(n) if n.op == OUTPUT_OP => graph
            .wires()
            .iter()
            .find(|w| w.to.node.as_str() == name && w.to.port == "value")
            .map(|w| format!("{}.{}", w.from.node, w.from.port))
            .ok_or_else(|| format!("output `{name}`: nothing is wired into it")),
        _ => Ok(name.to_string()),
    }
}

/// Stream `graph` for `seconds` and commit each output as `NAME.wav` into `out`.
pub(crate) fn present_audio(
    graph: &Graph,
    reg: &Registry,
    outputs: &[String],
    seconds: f64,
    (seed, inputs): (u64, &std::collections::BTreeMap<String, Value>),
    out: &Path,
) -> Result<(PresentReport, Vec<String>), String> {
    let t0 = Instant::now();
    let sources = outputs
        .iter()
        .map(|o| source_of(graph, o))
        .collect::<Result<Vec<_>, _>>()?;
    let names: Vec<&str> = sources.iter().map(String::as_str).collect();
    let config = StreamConfig {
        sample_rate: RATE,
        seed,
        ..StreamConfig::default()
    };
    let mut ctx = EvalContext::new();
    ctx.seed = seed;
    ctx.inputs = inputs.clone();
    let mut stream = StreamingEvaluator::with_context(reg.clone(), graph, &names, config, &ctx)
        .map_err(|e| e.to_string())?;
    let samples = (seconds * f64::from(RATE)).round() as u64;
    let channels = stream.render(samples).map_err(|e| e.to_string())?;
    let mut files = vec![];
    for (name, ch) in outputs.iter().zip(&channels) {
        let bytes = kiln_io::encode_wav(&[ch.as_slice()], RATE, kiln_io::WavFormat::Float32)
            .map_err(|e| format!("output `{name}`: {e}"))?;
        files.push((format!("{}.wav", name.replace('.', "_")), bytes));
    }
    kiln_io::commit_frame(out, &files).map_err(|e| e.to_string())?;
    let report = PresentReport {
        nodes: graph.len(),
        cooked: graph.len() as u64,
        elapsed: t0.elapsed(),
        ..PresentReport::default()
    };
    Ok((report, files.into_iter().map(|(n, _)| n).collect()))
}
