//! Whole WAV files: encoded in memory, or written atomically.

use super::samples::{append, check_length, check_samples, check_shape};
use super::{WavError, WavFormat};
use crate::values::write_atomic;
use std::io::Cursor;
use std::path::Path;

/// The bytes of a WAV file holding `channels` (one slice per channel, all of one length) at
/// `sample_rate` Hz, in `format`. Every sample is checked first.
pub fn encode_wav(
    channels: &[&[f64]],
    sample_rate: u32,
    format: WavFormat,
) -> Result<Vec<u8>, WavError> {
    let frames = check_shape(channels)?;
    if sample_rate == 0 {
        return Err(WavError::BadRate);
    }
    check_length(0, frames as u64, channels.len(), format)?;
    check_samples(channels, 0, format)?;
    let capacity = frames * channels.len() * format.bytes_per_sample() as usize + 64;
    let mut bytes = Vec::with_capacity(capacity);
    // `channels.len()` fits a u16: checked above.
    let spec = format.spec(channels.len() as u16, sample_rate);
    let mut w = hound::WavWriter::new(Cursor::new(&mut bytes), spec).map_err(WavError::Encode)?;
    append(&mut w, channels, format).map_err(WavError::Encode)?;
    w.finalize().map_err(WavError::Encode)?;
    Ok(bytes)
}

/// Write `channels` (one slice per channel, all of one length) to `path` as a WAV file at
/// `sample_rate` Hz, atomically (see [`write_atomic`]). Every sample is checked before
/// anything is written: on any error no file is created and an existing `path` is untouched.
pub fn write_wav(
    path: &Path,
    channels: &[&[f64]],
    sample_rate: u32,
    format: WavFormat,
) -> Result<(), WavError> {
    let bytes = encode_wav(channels, sample_rate, format)?;
    write_atomic(path, &bytes)?;
    Ok(())
}

/// [`write_wav`] for one channel.
pub fn write_wav_mono(
    path: &Path,
    samples: &[f64],
    sample_rate: u32,
    format: WavFormat,
) -> Result<(), WavError> {
    write_wav(path, &[samples], sample_rate, format)
}
