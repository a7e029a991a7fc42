//! Sound for the page: the file's outputs fed by audio-rate signals are rendered for a
//! stretch ([`SECONDS`]) by the streaming evaluator over the flat graph of the last cook,
//! kept as a 16-bit WAV (by content) the browser plays, with a waveform to draw.

use crate::previews::{PreviewFile, Previews};
use kiln_core::context::CancelToken;
use kiln_core::eval::{StreamConfig, StreamError, StreamingEvaluator};
use kiln_core::graph::Graph;
use kiln_core::registry::Registry;
use kiln_io::wav::WavFormat;
use serde_json::{Value as Json, json};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// How much sound is rendered, in seconds.
pub const SECONDS: f64 = 2.0;
/// The sample rate.
pub const RATE: u32 = 48_000;
/// Points of the waveform drawn (each a min and a max).
pub const PEAKS: usize = 240;

/// The signal port feeding output node `output` in `graph` (`node.port`).
pub fn source_of(graph: &Graph, output: &str) -> Option<String> {
    graph
        .wires()
        .iter()
        .find(|w| w.to.node.as_str() == output && w.to.port == "value")
        .map(|w| format!("{}.{}", w.from.node, w.from.port))
}

/// Render `sources` (signal ports of `graph`) for [`SECONDS`]: per source, the preview the
/// page shows (`{"kind": "audio", "url", "seconds", "rate", "peaks"}`) or an error.
pub fn render(
    registry: &Registry,
    graph: &Graph,
    sources: &[String],
    cancel: &CancelToken,
    previews: &Previews,
) -> Result<Vec<Json>, StreamError> {
    let names: Vec<&str> = sources.iter().map(String::as_str).collect();
    let config = StreamConfig {
        sample_rate: RATE,
        ..StreamConfig::default()
    };
    let mut stream = StreamingEvaluator::new(registry.clone(), graph, &names, config)?;
    let samples = (SECONDS * RATE as f64) as u64;
    let channels = stream.render_with(samples, Some(cancel), &mut |_, _| {})?;
    Ok(channels
        .iter()
        .map(
            |ch| match kiln_io::encode_wav(&[ch.as_slice()], RATE, WavFormat::Pcm16) {
                Ok(bytes) => {
                    let mut h = std::collections::hash_map::DefaultHasher::new();
                    bytes.hash(&mut h);
                    let name = format!("audio-{:016x}.wav", h.finish());
                    previews.put(
                        name.clone(),
                        PreviewFile {
                            bytes: Arc::new(bytes),
                            mime: "audio/wav",
                        },
                    );
                    json!({"kind": "audio", "url": format!("/preview/{name}"), "seconds": SECONDS,
                    "rate": RATE, "peaks": peaks(ch)})
                }
                Err(e) => json!({"error": e.to_string()}),
            },
        )
        .collect())
}

/// The min and max of each of [`PEAKS`] stretches of `samples`, clamped to [-1, 1].
pub fn peaks(samples: &[f64]) -> Vec<[f64; 2]> {
    if samples.is_empty() {
        return vec![];
    }
    let per = samples.len().div_ceil(PEAKS).max(1);
    samples
        .chunks(per)
        .map(|c| {
            let lo = c
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min)
                .clamp(-1.0, 1.0);
            let hi = c
                .iter()
                .copied()
                .fold(f64::NEG_INFINITY, f64::max)
                .clamp(-1.0, 1.0);
            [(lo * 1e4).round() / 1e4, (hi * 1e4).round() / 1e4]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn peaks_bound_each_stretch() {
        let s: Vec<f64> = (0..480)
            .map(|i| if i % 2 == 0 { 0.5 } else { -2.0 })
            .collect();
        let p = super::peaks(&s);
        assert_eq!(p.len(), 240);
        assert_eq!(p[0], [-1.0, 0.5]);
        assert!(super::peaks(&[]).is_empty());
    }
}
