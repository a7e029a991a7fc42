//! Reading WAV files: from a path ([`read_wav`], regular files only) or from bytes
//! ([`decode_wav`]), both through one decoder that takes the header's sizes as claims.

use super::{WavError, WavFormat};
use std::io::Read;
use std::path::Path;

/// The contents of a WAV file.
#[derive(Clone, Debug, PartialEq)]
pub struct WavData {
    /// Samples per second.
    pub sample_rate: u32,
    /// The sample format.
    pub format: WavFormat,
    /// The samples, one `Vec` per channel; PCM scaled back to `[-1, 1]`.
    pub channels: Vec<Vec<f64>>,
}

/// Read a WAV file written in one of the [`WavFormat`]s. Only a regular file (or a link to
/// one) is opened: a FIFO or a device is refused from its metadata, before it could block
/// or flood the read.
pub fn read_wav(path: &Path) -> Result<WavData, WavError> {
    let io = |source| WavError::Read {
        path: path.to_path_buf(),
        source: hound::Error::IoError(source),
    };
    let not_a_file = |t| WavError::NotAFile {
        path: path.to_path_buf(),
        kind: crate::entry_file::kind_of(t),
    };
    let checked = std::fs::metadata(path).map_err(io)?;
    if !checked.file_type().is_file() {
        return Err(not_a_file(checked.file_type()));
    }
    let file = std::fs::File::open(path).map_err(io)?;
    let opened = file.metadata().map_err(io)?;
    if !opened.file_type().is_file() {
        return Err(not_a_file(opened.file_type()));
    }
    decode_from(std::io::BufReader::new(file), opened.len(), path)
}

/// The samples of a WAV file's bytes (as [`read_wav`] reads a file); errors name the file
/// `(bytes)`.
pub fn decode_wav(bytes: &[u8]) -> Result<WavData, WavError> {
    decode_from(bytes, bytes.len() as u64, Path::new("(bytes)"))
}

/// Decode the WAV data of `source`, which holds `source_bytes` bytes at most.
fn decode_from<R: Read>(source: R, source_bytes: u64, path: &Path) -> Result<WavData, WavError> {
    let read = |source| WavError::Read {
        path: path.to_path_buf(),
        source,
    };
    let reader = hound::WavReader::new(source).map_err(read)?;
    let spec = reader.spec();
    let format = match (spec.sample_format, spec.bits_per_sample) {
        (hound::SampleFormat::Float, 32) => WavFormat::Float32,
        (hound::SampleFormat::Int, 16) => WavFormat::Pcm16,
        (hound::SampleFormat::Int, 24) => WavFormat::Pcm24,
        (kind, bits) => {
            return Err(WavError::Unsupported {
                path: path.to_path_buf(),
                bits,
                kind: match kind {
                    hound::SampleFormat::Float => "float",
                    hound::SampleFormat::Int => "integer",
                },
            });
        }
    };
    let n = usize::from(spec.channels.max(1));
    // The header's sample count is only a claim: reserve no more than the file can hold.
    let bytes_per_sample = u64::from(spec.bits_per_sample.div_ceil(8).max(1));
    let claimed = u64::from(reader.len()).min(source_bytes / bytes_per_sample);
    let per_channel = usize::try_from(claimed).unwrap_or(usize::MAX) / n;
    let mut channels = Vec::with_capacity(n);
    for _ in 0..n {
        channels.push(
            kiln_core::memory::try_vec(per_channel, || {
                format!("{per_channel} samples of {}", path.display())
            })
            .map_err(|e| WavError::Memory(e.to_string()))?,
        );
    }
    let mut put = |i: usize, x: f64| channels[i % n].push(x);
    let mut reader = reader;
    match format.pcm_scale() {
        None => {
            for (i, s) in reader.samples::<f32>().enumerate() {
                put(i, f64::from(s.map_err(read)?));
            }
        }
        // The most negative code (-2^(bits-1)) is one step past -1: it reads as -1, so what
        // is read stays in [-1, 1] and writes back as it reads.
        Some(scale) => {
            for (i, s) in reader.samples::<i32>().enumerate() {
                put(i, (f64::from(s.map_err(read)?) / scale).max(-1.0));
            }
        }
    }
    Ok(WavData {
        sample_rate: spec.sample_rate,
        format,
        channels,
    })
}
