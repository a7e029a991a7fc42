//! Audio as WAV files.
//!
//! * [`write_wav`] / [`write_wav_mono`]: samples (one slice per channel) as a WAV file,
//!   written atomically through [`write_atomic`](crate::write_atomic): every sample is checked before anything is
//!   written, so a non-finite sample leaves no file (and no temporary file) behind.
//! * [`WavStream`]: a WAV file written block by block into a temporary file beside its
//!   destination, [finished](WavStream::finish) into a [`StagedFile`] that is renamed into
//!   place only when [committed](StagedFile::commit). Dropped at any point before that, it
//!   removes its temporary file. This is how `kiln render --seconds` writes every output of a
//!   render or none.
//! * [`read_wav`]: a WAV file's samples as `f64`, one `Vec` per channel, with its rate
//!   (regular files only); [`decode_wav`] the same from bytes.
//!
//! Sample formats ([`WavFormat`]): 32-bit float (samples as `f32`, exact for every value an
//! `f32` holds), and 16- or 24-bit PCM, where samples are clamped to `[-1, 1]` and scaled by
//! `2^(bits-1) - 1` with rounding to the nearest step (so `1.0` and `-1.0` map to the
//! symmetric extremes, and reading divides by the same scale).
//!
//! ```
//! use kiln_io::wav::{WavFormat, read_wav, write_wav_mono};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("tone.wav");
//! let tone: Vec<f64> = (0..480).map(|i| (i as f64 * 0.05).sin() * 0.5).collect();
//! write_wav_mono(&path, &tone, 48_000, WavFormat::Pcm16).unwrap();
//! let back = read_wav(&path).unwrap();
//! assert_eq!((back.sample_rate, back.channels.len()), (48_000, 1));
//! assert!(back.channels[0].iter().zip(&tone).all(|(a, b)| (a - b).abs() <= 1.0 / 32768.0));
//! ```
//!
//! The module is cut by concept: the errors (`error`), checking and encoding samples
//! (`samples`), whole files (`write`), streams (`stream`) and reading (`read`).

mod error;
mod read;
mod samples;
mod stream;
mod write;

pub use error::WavError;
pub use read::{WavData, decode_wav, read_wav};
pub use stream::{StagedFile, WavStream};
pub use write::{encode_wav, write_wav, write_wav_mono};

/// How samples are stored in a WAV file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WavFormat {
    /// IEEE 32-bit float (`WAVE_FORMAT_IEEE_FLOAT`), samples as `f32`, not clamped.
    #[default]
    Float32,
    /// 16-bit signed PCM, samples clamped to `[-1, 1]`.
    Pcm16,
    /// 24-bit signed PCM, samples clamped to `[-1, 1]`.
    Pcm24,
}

impl WavFormat {
    /// The short name: `f32`, `pcm16` or `pcm24`.
    pub fn name(self) -> &'static str {
        match self {
            WavFormat::Float32 => "f32",
            WavFormat::Pcm16 => "pcm16",
            WavFormat::Pcm24 => "pcm24",
        }
    }

    /// Bits per sample.
    pub fn bits(self) -> u16 {
        match self {
            WavFormat::Float32 => 32,
            WavFormat::Pcm16 => 16,
            WavFormat::Pcm24 => 24,
        }
    }

    /// Bytes each sample takes in the file.
    pub fn bytes_per_sample(self) -> u64 {
        u64::from(self.bits() / 8)
    }

    /// The scale of a PCM format (`2^(bits-1) - 1`); `None` for float.
    fn pcm_scale(self) -> Option<f64> {
        match self {
            WavFormat::Float32 => None,
            WavFormat::Pcm16 => Some(32_767.0),
            WavFormat::Pcm24 => Some(8_388_607.0),
        }
    }

    fn spec(self, channels: u16, sample_rate: u32) -> hound::WavSpec {
        hound::WavSpec {
            channels,
            sample_rate,
            bits_per_sample: self.bits(),
            sample_format: match self {
                WavFormat::Float32 => hound::SampleFormat::Float,
                WavFormat::Pcm16 | WavFormat::Pcm24 => hound::SampleFormat::Int,
            },
        }
    }
}

impl std::fmt::Display for WavFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The most sample data a WAV file holds: its sizes are 32-bit, and the RIFF size counts the
/// header too (up to 60 bytes with the `WAVE_FORMAT_EXTENSIBLE` header of 24-bit files).
pub const MAX_DATA_BYTES: u64 = u32::MAX as u64 - 60;

#[cfg(test)]
mod tests;
