//! `--set NAME=@file.wav`: a WAV file as the value of an audio graph input (`input.audio`).

use crate::common::CliError;
use kiln_audio::{AUDIO_TYPE, AudioBuffer};
use kiln_core::value::{Value, ValueType};
use std::path::Path;

/// The value `--set name=text` gives an input of type `ty` when the `@path` form or an audio
/// input is involved: `Some(buffer)` for `@path` at an audio input, an error naming the input
/// for `@path` at another (non-string) input or plain text at an audio input, `None` when
/// neither (the text is parsed as usual; at a string input `@...` stays text).
pub(crate) fn audio_value(
    name: &str,
    text: &str,
    ty: ValueType,
) -> Result<Option<Value>, CliError> {
    let file = text.strip_prefix('@');
    match (file, ty == AUDIO_TYPE) {
        (Some(path), true) => read_buffer(name, Path::new(path)).map(Some),
        (Some(_), false) if ty != ValueType::String => Err(CliError(format!(
            "--set `{name}` ({ty}): `@path` loads a WAV file, which only audio inputs \
             (input.audio) take"
        ))),
        (None, true) => Err(CliError(format!(
            "--set `{name}` (audio): give a WAV file as `{name}=@path/to/file.wav`"
        ))),
        _ => Ok(None),
    }
}

/// The WAV file at `path` as an audio buffer (interleaved `f32`).
fn read_buffer(name: &str, path: &Path) -> Result<Value, CliError> {
    // Reading errors name the file.
    let data = kiln_io::wav::read_wav(path)
        .map_err(|e| CliError(format!("--set `{name}` (audio): {e}")))?;
    let channels = u16::try_from(data.channels.len()).map_err(|_| {
        CliError(format!(
            "--set `{name}`: {} has {} channels, more than an audio buffer holds",
            path.display(),
            data.channels.len()
        ))
    })?;
    let frames = data.channels.first().map_or(0, Vec::len);
    let mut samples = Vec::with_capacity(frames * data.channels.len());
    for k in 0..frames {
        for ch in &data.channels {
            samples.push(ch.get(k).copied().unwrap_or(0.0) as f32);
        }
    }
    Ok(AudioBuffer {
        sample_rate: data.sample_rate,
        channels,
        samples,
    }
    .into_value())
}
