//! Audio as WAV files.
//!
//! * [`write_wav`] / [`write_wav_mono`]: samples (one slice per channel) as a WAV file,
//!   written atomically through [`write_atomic`]: every sample is checked before anything is
//!   written, so a non-finite sample leaves no file (and no temporary file) behind.
//! * [`WavStream`]: a WAV file written block by block into a temporary file beside its
//!   destination, [finished](WavStream::finish) into a [`StagedFile`] that is renamed into
//!   place only when [committed](StagedFile::commit). Dropped at any point before that, it
//!   removes its temporary file. This is how `kiln render --seconds` writes every output of a
//!   render or none.
//! * [`read_wav`]: a WAV file's samples as `f64`, one `Vec` per channel, with its rate.
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

use crate::values::{WriteError, write_atomic};
use std::fs::File;
use std::io::{BufWriter, Cursor, Seek, Write};
use std::path::{Path, PathBuf};
use tempfile::TempPath;

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

/// Why audio could not be written or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WavError {
    /// A sample is NaN or infinite; nothing was written.
    #[error("sample {index} of channel {channel} is {value:?}: samples must be finite")]
    NonFinite {
        /// The channel (0 for mono).
        channel: usize,
        /// The sample's index within its channel, counted from the start of the file.
        index: u64,
        /// The sample.
        value: f64,
    },
    /// A sample is finite but too large for a 32-bit float.
    #[error("sample {index} of channel {channel} is {value:e}, beyond the range of a 32-bit float")]
    OutOfRange {
        /// The channel (0 for mono).
        channel: usize,
        /// The sample's index within its channel, counted from the start of the file.
        index: u64,
        /// The sample.
        value: f64,
    },
    /// No channels were given.
    #[error("a WAV file needs at least one channel")]
    NoChannels,
    /// More channels than a WAV file holds.
    #[error("{0} channels: a WAV file holds at most 65535")]
    TooManyChannels(usize),
    /// The channels differ in length.
    #[error("channel {channel} has {len} samples but channel 0 has {expected}")]
    UnequalChannels {
        /// The channel that differs.
        channel: usize,
        /// Its length.
        len: usize,
        /// The length of channel 0.
        expected: usize,
    },
    /// A block for a [`WavStream`] with another number of channels than the stream's.
    #[error("the stream has {expected} channel(s) but a block has {found}")]
    ChannelCount {
        /// The stream's channels.
        expected: usize,
        /// The block's.
        found: usize,
    },
    /// A sample rate of zero.
    #[error("the sample rate must be at least 1 Hz")]
    BadRate,
    /// More sample data than a WAV file holds.
    #[error(
        "{frames} frames of {channels} channel(s) in {format} take more than the {} bytes a WAV \
         file holds",
        MAX_DATA_BYTES
    )]
    TooLong {
        /// Frames (samples per channel) asked for.
        frames: u64,
        /// Channels.
        channels: usize,
        /// The sample format.
        format: WavFormat,
    },
    /// The encoder failed.
    #[error("cannot encode WAV: {0}")]
    Encode(#[source] hound::Error),
    /// Creating, writing or renaming a file failed.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// A file could not be read as WAV.
    #[error("cannot read `{}` as WAV: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The decoder's error.
        #[source]
        source: hound::Error,
    },
    /// A WAV file in a sample format this module does not read.
    #[error(
        "`{}` holds {bits}-bit {kind} samples (readable: 32-bit float, 16- and 24-bit PCM)",
        path.display()
    )]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// Bits per sample.
        bits: u16,
        /// `float` or `integer`.
        kind: &'static str,
    },
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> WavError + '_ {
    move |source| {
        WavError::Write(WriteError::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}

fn hound_error(path: &Path) -> impl Fn(hound::Error) -> WavError + '_ {
    move |e| match e {
        hound::Error::IoError(source) => io_error(path)(source),
        other => WavError::Encode(other),
    }
}

/// Check the shape: 1..=65535 channels of equal length. Returns the frame count.
fn check_shape(channels: &[&[f64]]) -> Result<usize, WavError> {
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
fn check_length(
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
fn check_samples(channels: &[&[f64]], start: u64, format: WavFormat) -> Result<(), WavError> {
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
fn pcm(value: f64, scale: f64) -> i32 {
    (value.clamp(-1.0, 1.0) * scale).round() as i32
}

/// Interleave and append checked samples to `w`.
fn append<W: Write + Seek>(
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

/// A temporary file in `path`'s folder, with the permissions a plain `File::create` gives.
fn temp_beside(path: &Path) -> Result<(File, TempPath), WavError> {
    let tmp = crate::files::temp_in(crate::files::folder_of(path)).map_err(io_error(path))?;
    Ok(tmp.into_parts())
}

/// A WAV file being written block by block into a temporary file beside its destination.
///
/// Dropping it (for instance on an error) removes the temporary file; [`finish`](Self::finish)
/// completes the file and hands back a [`StagedFile`] to rename into place.
pub struct WavStream {
    writer: hound::WavWriter<BufWriter<File>>,
    /// The same file as the writer's, to sync once the writer is done.
    file: File,
    tmp: TempPath,
    path: PathBuf,
    channels: usize,
    format: WavFormat,
    frames: u64,
}

impl std::fmt::Debug for WavStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WavStream")
            .field("path", &self.path)
            .field("temp", &self.tmp)
            .field("channels", &self.channels)
            .field("format", &self.format)
            .field("frames", &self.frames)
            .finish()
    }
}

impl WavStream {
    /// Start a WAV file of `channels` channels for `path`, in a temporary file in the same
    /// folder (which must exist).
    pub fn create(
        path: &Path,
        channels: usize,
        sample_rate: u32,
        format: WavFormat,
    ) -> Result<WavStream, WavError> {
        if channels == 0 {
            return Err(WavError::NoChannels);
        }
        let n = u16::try_from(channels).map_err(|_| WavError::TooManyChannels(channels))?;
        if sample_rate == 0 {
            return Err(WavError::BadRate);
        }
        let (file, tmp) = temp_beside(path)?;
        let clone = file.try_clone().map_err(io_error(path))?;
        let writer = hound::WavWriter::new(BufWriter::new(clone), format.spec(n, sample_rate))
            .map_err(hound_error(path))?;
        Ok(WavStream {
            writer,
            file,
            tmp,
            path: path.to_path_buf(),
            channels,
            format,
            frames: 0,
        })
    }

    /// The destination.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Frames (samples per channel) written so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Append one block: a slice per channel, all of one length. The block's samples are
    /// checked before any is written; sample indices in errors count from the file's start.
    pub fn write(&mut self, channels: &[&[f64]]) -> Result<(), WavError> {
        let frames = check_shape(channels)?;
        if channels.len() != self.channels {
            return Err(WavError::ChannelCount {
                expected: self.channels,
                found: channels.len(),
            });
        }
        check_length(self.frames, frames as u64, self.channels, self.format)?;
        check_samples(channels, self.frames, self.format)?;
        append(&mut self.writer, channels, self.format).map_err(hound_error(&self.path))?;
        self.frames += frames as u64;
        Ok(())
    }

    /// [`write`](Self::write) for a mono stream.
    pub fn write_mono(&mut self, samples: &[f64]) -> Result<(), WavError> {
        self.write(&[samples])
    }

    /// Complete the file (header, flush, sync to disk), still under its temporary name.
    pub fn finish(self) -> Result<StagedFile, WavError> {
        let WavStream {
            writer,
            file,
            tmp,
            path,
            ..
        } = self;
        writer.finalize().map_err(hound_error(&path))?;
        file.sync_all().map_err(io_error(&path))?;
        Ok(StagedFile { tmp, path })
    }
}

/// A complete file under a temporary name beside its destination. [`commit`](Self::commit)
/// renames it into place; dropping it removes it.
#[derive(Debug)]
pub struct StagedFile {
    tmp: TempPath,
    path: PathBuf,
}

impl StagedFile {
    /// The destination.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Rename the file into place (replacing any file there). Returns the destination.
    pub fn commit(self) -> Result<PathBuf, WavError> {
        let StagedFile { tmp, path } = self;
        // On failure the temporary file is removed when the error's handle drops.
        tmp.persist(&path).map_err(|e| io_error(&path)(e.error))?;
        Ok(path)
    }
}

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

/// Read a WAV file written in one of the [`WavFormat`]s.
pub fn read_wav(path: &Path) -> Result<WavData, WavError> {
    let read = |source| WavError::Read {
        path: path.to_path_buf(),
        source,
    };
    let reader = hound::WavReader::open(path).map_err(read)?;
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
    let mut channels = vec![Vec::with_capacity(reader.len() as usize / n); n];
    let mut put = |i: usize, x: f64| channels[i % n].push(x);
    let mut reader = reader;
    match format.pcm_scale() {
        None => {
            for (i, s) in reader.samples::<f32>().enumerate() {
                put(i, f64::from(s.map_err(read)?));
            }
        }
        Some(scale) => {
            for (i, s) in reader.samples::<i32>().enumerate() {
                put(i, f64::from(s.map_err(read)?) / scale);
            }
        }
    }
    Ok(WavData {
        sample_rate: spec.sample_rate,
        format,
        channels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// Values that an f32 holds exactly, including extremes beyond [-1, 1].
    fn f32_values() -> Vec<f64> {
        let mut v: Vec<f64> = (0..1000)
            .map(|i| f64::from((i as f32 * 0.0137).sin() * 0.9))
            .collect();
        v.extend([
            0.0,
            -0.0,
            1.0,
            -1.0,
            1.5,
            -3.25,
            f64::from(f32::MIN_POSITIVE),
            f64::from(f32::MAX),
            f64::from(f32::MIN),
            1e-45, // rounds to the smallest subnormal below
        ]);
        v.iter().map(|&x| f64::from(x as f32)).collect()
    }

    #[test]
    fn float32_round_trips_f32_values_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.wav");
        let samples = f32_values();
        write_wav_mono(&path, &samples, 44_100, WavFormat::Float32).unwrap();
        let back = read_wav(&path).unwrap();
        assert_eq!(back.sample_rate, 44_100);
        assert_eq!(back.format, WavFormat::Float32);
        assert_eq!(back.channels.len(), 1);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&back.channels[0]), bits(&samples));
    }

    #[test]
    fn pcm16_is_within_one_step_and_clamps() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.wav");
        let samples: Vec<f64> = (0..4001).map(|i| -1.0 + i as f64 * 0.0005).collect();
        write_wav_mono(&path, &samples, 48_000, WavFormat::Pcm16).unwrap();
        let back = read_wav(&path).unwrap();
        assert_eq!(back.format, WavFormat::Pcm16);
        assert_eq!(back.channels[0].len(), samples.len());
        for (a, b) in back.channels[0].iter().zip(&samples) {
            assert!((a - b).abs() <= 1.0 / 32768.0, "{a} vs {b}");
        }
        // Out of range: clamped to the extremes; exact extremes and zero survive.
        write_wav_mono(&path, &[2.0, -7.0, 1.0, -1.0, 0.0], 8_000, WavFormat::Pcm16).unwrap();
        assert_eq!(
            read_wav(&path).unwrap().channels[0],
            [1.0, -1.0, 1.0, -1.0, 0.0]
        );
        // The file is the 44-byte header and 2 bytes a sample.
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 44 + 5 * 2);
    }

    #[test]
    fn pcm_rounds_to_the_nearest_step() {
        assert_eq!(pcm(0.5 / 32_767.0, 32_767.0), 1);
        assert_eq!(pcm(0.49 / 32_767.0, 32_767.0), 0);
        assert_eq!(pcm(-0.51 / 32_767.0, 32_767.0), -1);
        assert_eq!(pcm(1.0, 8_388_607.0), 8_388_607);
        assert_eq!(pcm(-1.5, 8_388_607.0), -8_388_607);
    }

    #[test]
    fn pcm24_is_within_one_step() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.wav");
        let samples: Vec<f64> = (0..997).map(|i| (i as f64 * 0.31).sin()).collect();
        write_wav_mono(&path, &samples, 96_000, WavFormat::Pcm24).unwrap();
        let back = read_wav(&path).unwrap();
        assert_eq!((back.sample_rate, back.format), (96_000, WavFormat::Pcm24));
        for (a, b) in back.channels[0].iter().zip(&samples) {
            assert!((a - b).abs() <= 1.0 / 8_388_608.0, "{a} vs {b}");
        }
        // 24-bit files have the 68-byte `WAVE_FORMAT_EXTENSIBLE` header.
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 68 + 997 * 3);
    }

    #[test]
    fn channels_are_interleaved_and_read_back_apart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("st.wav");
        let left = [0.25, 0.5, 0.75];
        let right = [-0.25, -0.5, -0.75];
        write_wav(&path, &[&left, &right], 22_050, WavFormat::Float32).unwrap();
        let back = read_wav(&path).unwrap();
        assert_eq!(back.channels, vec![left.to_vec(), right.to_vec()]);
        let err = write_wav(&path, &[&left, &right[..2]], 22_050, WavFormat::Float32);
        assert!(matches!(
            err,
            Err(WavError::UnequalChannels {
                channel: 1,
                len: 2,
                expected: 3
            })
        ));
        assert!(matches!(
            write_wav(&path, &[], 22_050, WavFormat::Float32),
            Err(WavError::NoChannels)
        ));
        assert!(matches!(
            write_wav_mono(&path, &left, 0, WavFormat::Float32),
            Err(WavError::BadRate)
        ));
    }

    #[test]
    fn a_non_finite_sample_writes_nothing_and_names_its_index() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.wav");
        let mut samples = vec![0.1; 100];
        samples[57] = f64::NAN;
        for format in [WavFormat::Float32, WavFormat::Pcm16, WavFormat::Pcm24] {
            let e = write_wav_mono(&path, &samples, 48_000, format).unwrap_err();
            assert!(
                matches!(
                    e,
                    WavError::NonFinite {
                        channel: 0,
                        index: 57,
                        ..
                    }
                ),
                "{e:?}"
            );
            assert!(e.to_string().contains("sample 57"), "{e}");
        }
        samples[57] = 1e300;
        let e = write_wav_mono(&path, &samples, 48_000, WavFormat::Float32).unwrap_err();
        assert!(matches!(e, WavError::OutOfRange { index: 57, .. }), "{e:?}");
        // No file, no temporary file.
        assert!(names(dir.path()).is_empty(), "{:?}", names(dir.path()));
        // An existing file is left as it was.
        write_wav_mono(&path, &[0.5], 48_000, WavFormat::Float32).unwrap();
        let before = std::fs::read(&path).unwrap();
        samples[3] = f64::NEG_INFINITY;
        assert!(write_wav_mono(&path, &samples, 48_000, WavFormat::Pcm16).is_err());
        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert_eq!(names(dir.path()), ["bad.wav"]);
    }

    #[test]
    fn a_write_into_a_missing_folder_fails_cleanly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing").join("x.wav");
        let e = write_wav_mono(&path, &[0.0], 48_000, WavFormat::Float32).unwrap_err();
        assert!(matches!(e, WavError::Write(WriteError::Io { .. })), "{e:?}");
        assert!(e.to_string().contains("x.wav"), "{e}");
        assert!(names(dir.path()).is_empty());
        assert!(WavStream::create(&path, 1, 48_000, WavFormat::Float32).is_err());
        assert!(names(dir.path()).is_empty());
    }

    #[test]
    fn a_stream_equals_one_write_and_lands_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let samples: Vec<f64> = (0..1000).map(|i| (i as f64 * 0.01).cos() * 0.7).collect();
        for format in [WavFormat::Float32, WavFormat::Pcm16, WavFormat::Pcm24] {
            let whole = dir.path().join(format!("whole-{format}.wav"));
            write_wav_mono(&whole, &samples, 48_000, format).unwrap();
            let path = dir.path().join(format!("stream-{format}.wav"));
            let mut s = WavStream::create(&path, 1, 48_000, format).unwrap();
            for block in samples.chunks(37) {
                s.write_mono(block).unwrap();
            }
            assert_eq!(s.frames(), 1000);
            let staged = s.finish().unwrap();
            assert!(!path.exists(), "not in place before commit");
            assert_eq!(staged.path(), path);
            assert_eq!(staged.commit().unwrap(), path);
            assert_eq!(
                std::fs::read(&path).unwrap(),
                std::fs::read(&whole).unwrap()
            );
        }
        let mut expected: Vec<String> = ["f32", "pcm16", "pcm24"]
            .iter()
            .flat_map(|f| [format!("stream-{f}.wav"), format!("whole-{f}.wav")])
            .collect();
        expected.sort();
        assert_eq!(names(dir.path()), expected, "no temporary file left");
    }

    #[test]
    fn a_failed_or_dropped_stream_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.wav");
        let mut s = WavStream::create(&path, 1, 48_000, WavFormat::Pcm16).unwrap();
        s.write_mono(&[0.0; 64]).unwrap();
        let mut block = [0.0; 64];
        block[10] = f64::INFINITY;
        let e = s.write_mono(&block).unwrap_err();
        // The index counts from the start of the file.
        assert!(matches!(e, WavError::NonFinite { index: 74, .. }), "{e:?}");
        assert_eq!(
            names(dir.path()).len(),
            1,
            "the temporary file, until dropped"
        );
        drop(s);
        assert!(names(dir.path()).is_empty());
        // Finished but not committed: nothing either.
        let mut s = WavStream::create(&path, 1, 48_000, WavFormat::Pcm16).unwrap();
        s.write_mono(&[0.5; 10]).unwrap();
        drop(s.finish().unwrap());
        assert!(names(dir.path()).is_empty());
    }

    #[test]
    fn overlong_files_are_refused_before_writing() {
        let e = check_length(0, u64::from(u32::MAX) / 4, 1, WavFormat::Float32).unwrap_err();
        assert!(matches!(e, WavError::TooLong { .. }), "{e:?}");
        assert!(check_length(0, 1 << 20, 2, WavFormat::Pcm24).is_ok());
        assert!(check_length(u64::MAX, 1, 1, WavFormat::Pcm16).is_err());
    }

    #[test]
    fn reading_a_missing_or_foreign_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_wav(&dir.path().join("none.wav")).unwrap_err();
        assert!(matches!(e, WavError::Read { .. }), "{e:?}");
        let path = dir.path().join("eight.wav");
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: 8000,
            bits_per_sample: 8,
            sample_format: hound::SampleFormat::Int,
        };
        let mut w = hound::WavWriter::create(&path, spec).unwrap();
        w.write_sample(3i8).unwrap();
        w.finalize().unwrap();
        let e = read_wav(&path).unwrap_err();
        assert!(matches!(e, WavError::Unsupported { bits: 8, .. }), "{e:?}");
    }
}
