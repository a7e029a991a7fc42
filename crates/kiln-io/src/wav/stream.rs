//! WAV files written block by block into a temporary file ([`WavStream`]), renamed into
//! place only when committed ([`StagedFile`]).

use super::error::{hound_error, io_error};
use super::samples::{append, check_length, check_samples, check_shape};
use super::{WavError, WavFormat};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use tempfile::TempPath;

/// A temporary file in `path`'s folder, with the permissions a plain `File::create` gives.
fn temp_beside(path: &Path) -> Result<(File, TempPath), WavError> {
    // A destination that is not a regular file is refused before anything is written.
    let tmp = crate::files::temp_for(path).map_err(|e| match crate::files::refusal(e) {
        Ok(r) => WavError::Write(r.into()),
        Err(e) => io_error(path)(e),
    })?;
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
        crate::files::persist(tmp, &path).map_err(|e| match crate::files::refusal(e) {
            Ok(r) => WavError::Write(r.into()),
            Err(e) => io_error(&path)(e),
        })?;
        Ok(path)
    }
}
