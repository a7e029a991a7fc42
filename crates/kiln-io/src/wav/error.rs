//! Why audio could not be written or read ([`WavError`]).

use super::{MAX_DATA_BYTES, WavFormat};
use crate::values::WriteError;
use std::path::{Path, PathBuf};

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
    /// A block for a [`WavStream`](super::WavStream) with another number of channels than the stream's.
    #[error("the stream has {expected} channel(s) but a block has {found}")]
    ChannelCount {
        /// The stream's channels.
        expected: usize,
        /// The block's.
        found: usize,
    },
    /// The samples of a file read do not fit in memory (the memory budget, or the
    /// allocator's refusal).
    #[error("{0}")]
    Memory(String),
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
    /// Something other than a regular file is at the path of a file to read.
    #[error(
        "`{}` is not a regular file (it is {kind}): kiln reads only regular files as input",
        path.display()
    )]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What is there ("a FIFO", "a device", "a folder").
        kind: &'static str,
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

/// An I/O error on `path` as a [`WavError`].
pub(super) fn io_error(path: &Path) -> impl Fn(std::io::Error) -> WavError + '_ {
    move |source| {
        WavError::Write(WriteError::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// A `hound` error on `path` as a [`WavError`] (its I/O errors as I/O errors).
pub(super) fn hound_error(path: &Path) -> impl Fn(hound::Error) -> WavError + '_ {
    move |e| match e {
        hound::Error::IoError(source) => io_error(path)(source),
        other => WavError::Encode(other),
    }
}
