//! Checking samples before they are written (shape, length, finite values) and encoding
//! them in a [`WavFormat`].

use super::{MAX_DATA_BYTES, WavError, WavFormat};
use std::io::{Seek, Write};

/// Check the shape: 1..=65535 channels of equal length. Returns the frame count.
pub(super) fn check_shape(channels: &[&[f64]]) -> Result<usize, WavError> {
    let Some(first) = channels.first() else {
        return Err(WavError::NoChannels);
    };
    if channels.len() > usize::from(u16::MAX) {
        return Err(WavError::TooManyChannels(channels.len()));
    }
    let expected = first.len();
    for (channel, c) in channels.iter().enumerate() {
        if c.len() != expected {
            return Err(WavError::UnequalChannels {
                channel,
                len: c.len(),
                expected,
            });
        }
    }
    Ok(expected)
}

/// Refuse `frames` frames when the file would pass [`MAX_DATA_BYTES`] (with `before` frames
/// already written).
pub(super) fn check_length(
    before: u64,
    frames: u64,
    channels: usize,
    format: WavFormat,
) -> Result<(), WavError> {
    let total = before.saturating_add(frames);
    let bytes = total
        .saturating_mul(channels as u64)
        .saturating_mul(format.bytes_per_sample());
    if bytes > MAX_DATA_BYTES {
        return Err(WavError::TooLong {
            frames: total,
            channels,
            format,
        });
    }
    Ok(())
}

/// Check every sample (finite; within `f32` for float files), numbering them from `start`.
pub(super) fn check_samples(
    channels: &[&[f64]],
    start: u64,
    format: WavFormat,
) -> Result<(), WavError> {
    for (channel, c) in channels.iter().enumerate() {
        for (i, &value) in c.iter().enumerate() {
            let index = start + i as u64;
            if !value.is_finite() {
                return Err(WavError::NonFinite {
                    channel,
                    index,
                    value,
                });
            }
            if format == WavFormat::Float32 && !(value as f32).is_finite() {
                return Err(WavError::OutOfRange {
                    channel,
                    index,
                    value,
                });
            }
        }
    }
    Ok(())
}

/// A PCM sample: clamped to `[-1, 1]`, scaled, rounded to the nearest step.
pub(super) fn pcm(value: f64, scale: f64) -> i32 {
    (value.clamp(-1.0, 1.0) * scale).round() as i32
}

/// Interleave and append checked samples to `w`.
pub(super) fn append<W: Write + Seek>(
    w: &mut hound::WavWriter<W>,
    channels: &[&[f64]],
    format: WavFormat,
) -> Result<(), hound::Error> {
    let frames = channels.first().map_or(0, |c| c.len());
    match format.pcm_scale() {
        None => {
            for i in 0..frames {
                for c in channels {
                    w.write_sample(c[i] as f32)?;
                }
            }
        }
        Some(scale) => {
            for i in 0..frames {
                for c in channels {
                    w.write_sample(pcm(c[i], scale))?;
                }
            }
        }
    }
    Ok(())
}
