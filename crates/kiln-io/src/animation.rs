//! Animations of rendered frames: an animated GIF or an APNG of one image output, a frame
//! per tick at a frame rate, so a render can be watched in any browser or image viewer.
//!
//! An [`Animation`] takes the frames one by one ([`Animation::push`]). Made with
//! [`Animation::to_file`] it encodes each frame into a temporary file beside its destination
//! as it comes, holding no frame (a render of thousands of ticks stays flat in memory), and
//! [`Animation::commit`] renames the file into place; made with [`Animation::new`] it gives
//! the file's bytes at the end ([`Animation::finish`]). Every frame
//! must have the first frame's size. Frames are encoded as the 8-bit PNG frames are: colour
//! sRGB-encoded by default, or as it is for a data map ([`Animation::with_space`]), alpha
//! linear, each channel clamped to 0..=1 and scaled to 255. An APNG states its colour space
//! as a PNG does (`sRGB`, or `gAMA` 1.0); a GIF cannot say.
//!
//! * GIF: each frame quantized to its own palette of at most 256 colours (NeuQuant, which
//!   is deterministic: the same frames give the same bytes), looping forever. A frame's
//!   delay is in hundredths of a second: `round(100 / fps)`, at least 1.
//! * APNG: lossless 8-bit RGBA, looping forever, each frame's delay `round(1000 / fps)`
//!   thousandths of a second (at least 1). An APNG states its frame count first: written
//!   to a file, the count is given up front and each frame streams out; in memory, the
//!   frames are held (8-bit) until the end.

use kiln_image::image::Image;
use std::fmt;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use tempfile::TempPath;

/// The largest side an animation frame may have (GIF sizes are 16-bit).
pub const MAX_FRAME_SIDE: u32 = u16::MAX as u32;

/// Which kind of animation file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnimationFormat {
    /// Animated GIF (`.gif`).
    Gif,
    /// Animated PNG (`.apng`).
    Apng,
}

impl AnimationFormat {
    /// The file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            AnimationFormat::Gif => "gif",
            AnimationFormat::Apng => "apng",
        }
    }
}

impl fmt::Display for AnimationFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AnimationFormat::Gif => "GIF",
            AnimationFormat::Apng => "APNG",
        })
    }
}

/// Why an animation could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AnimationError {
    /// A frame's size differs from the first frame's.
    #[error(
        "frame {frame} is {width} x {height}, the animation's first frame {first_width} x {first_height}"
    )]
    SizeChanged {
        /// The frame's index.
        frame: usize,
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
        /// The first frame's width.
        first_width: u32,
        /// The first frame's height.
        first_height: u32,
    },
    /// A frame is larger than the format allows.
    #[error(
        "a {width} x {height} frame is too large for an animation (at most {MAX_FRAME_SIDE} a side)"
    )]
    TooLarge {
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
    },
    /// A frame rate that is not a positive finite number.
    #[error("expected a frame rate above 0, found {0}")]
    BadRate(f64),
    /// The encoder failed.
    #[error("cannot encode the {format}: {message}")]
    Encode {
        /// Which format.
        format: AnimationFormat,
        /// What the encoder said.
        message: String,
    },
    /// The file could not be written.
    #[error("cannot write {path}: {message}")]
    Write {
        /// The destination.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A file animation was given fewer frames than it stated.
    #[error("the {format} states {stated} frames and was given {given}")]
    FrameCount {
        /// Which format.
        format: AnimationFormat,
        /// The frames stated up front.
        stated: u32,
        /// The frames pushed.
        given: usize,
    },
}

/// Where an animation's bytes go: memory, or a temporary file beside its destination.
enum Sink {
    Memory(Vec<u8>),
    File(BufWriter<File>),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::Memory(v) => v.write(buf),
            Sink::File(f) => f.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Memory(_) => Ok(()),
            Sink::File(f) => f.flush(),
        }
    }
}

/// The file an animation streams into: its temporary name, a handle to sync it, its
/// destination and the frames it states.
struct Target {
    tmp: TempPath,
    file: File,
    path: PathBuf,
    frames: u32,
}

/// An animation being built (see the module docs).
pub struct Animation {
    format: AnimationFormat,
    fps: f64,
    size: Option<(u32, u32)>,
    /// Where the bytes go until an encoder takes the sink over at the first frame.
    sink: Option<Sink>,
    gif: Option<gif::Encoder<Sink>>,
    apng: Option<png::Writer<Sink>>,
    /// An in-memory APNG's frames, held until its count is known.
    frames: Vec<Vec<u8>>,
    count: usize,
    space: crate::image_files::ColorSpace,
    target: Option<Target>,
}

impl Animation {
    /// An empty animation of `format` at `fps` frames per second.
    pub fn new(format: AnimationFormat, fps: f64) -> Result<Animation, AnimationError> {
        if !(fps.is_finite() && fps > 0.0) {
            return Err(AnimationError::BadRate(fps));
        }
        Ok(Animation {
            format,
            fps,
            size: None,
            sink: Some(Sink::Memory(Vec::new())),
            gif: None,
            apng: None,
            frames: vec![],
            count: 0,
            space: crate::image_files::ColorSpace::Srgb,
            target: None,
        })
    }

    /// An animation of `format` at `fps` frames per second, of `frames` frames, streamed
    /// into a temporary file beside `path` as the frames come ([`Animation::commit`] renames
    /// it into place; dropping it removes it). `path` must be a regular file or absent.
    pub fn to_file(
        path: &Path,
        format: AnimationFormat,
        fps: f64,
        frames: u32,
    ) -> Result<Animation, AnimationError> {
        let mut a = Animation::new(format, fps)?;
        let write_error = |e: std::io::Error| AnimationError::Write {
            path: path.to_path_buf(),
            message: match crate::files::refusal(e) {
                Ok(refused) => refused.to_string(),
                Err(e) => e.to_string(),
            },
        };
        let (file, tmp) = crate::files::temp_for(path)
            .map_err(write_error)?
            .into_parts();
        let sync = file.try_clone().map_err(write_error)?;
        a.sink = Some(Sink::File(BufWriter::new(file)));
        a.target = Some(Target {
            tmp,
            file: sync,
            path: path.to_path_buf(),
            frames,
        });
        Ok(a)
    }

    /// The bytes of frames held in memory: none for an animation written to a file.
    pub fn bytes_held(&self) -> usize {
        self.frames.iter().map(Vec::len).sum()
    }

    /// The animation with its frames' colour in `space` (sRGB-encoded by default).
    pub fn with_space(mut self, space: crate::image_files::ColorSpace) -> Animation {
        self.space = space;
        self
    }

    /// The GIF delay of a frame, in hundredths of a second.
    pub fn gif_delay(fps: f64) -> u16 {
        (100.0 / fps).round().clamp(1.0, u16::MAX as f64) as u16
    }

    /// The APNG delay of a frame, in thousandths of a second.
    pub fn apng_delay_ms(fps: f64) -> u16 {
        (1000.0 / fps).round().clamp(1.0, u16::MAX as f64) as u16
    }

    /// Frames pushed so far.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether no frame was pushed.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    fn encode_error(&self, e: impl fmt::Display) -> AnimationError {
        AnimationError::Encode {
            format: self.format,
            message: e.to_string(),
        }
    }

    /// Add the next frame.
    pub fn push(&mut self, img: &Image) -> Result<(), AnimationError> {
        let (w, h) = (img.width, img.height);
        match self.size {
            None => {
                if w > MAX_FRAME_SIDE || h > MAX_FRAME_SIDE || w == 0 || h == 0 {
                    return Err(AnimationError::TooLarge {
                        width: w,
                        height: h,
                    });
                }
                self.size = Some((w, h));
            }
            Some((fw, fh)) if (fw, fh) != (w, h) => {
                return Err(AnimationError::SizeChanged {
                    frame: self.count,
                    width: w,
                    height: h,
                    first_width: fw,
                    first_height: fh,
                });
            }
            Some(_) => {}
        }
        let mut rgba =
            crate::image_files::rgba8(img, self.space).map_err(|e| self.encode_error(e))?;
        match self.format {
            AnimationFormat::Gif => {
                if self.gif.is_none() {
                    let sink = self.sink.take().unwrap_or(Sink::Memory(Vec::new()));
                    let mut enc = gif::Encoder::new(sink, w as u16, h as u16, &[])
                        .map_err(|e| self.encode_error(e))?;
                    enc.set_repeat(gif::Repeat::Infinite)
                        .map_err(|e| self.encode_error(e))?;
                    self.gif = Some(enc);
                }
                let mut frame = gif::Frame::from_rgba_speed(w as u16, h as u16, &mut rgba, 10);
                frame.delay = Self::gif_delay(self.fps);
                let result = match self.gif.as_mut() {
                    Some(enc) => enc.write_frame(&frame),
                    None => Ok(()),
                };
                result.map_err(|e| self.encode_error(e))?;
            }
            AnimationFormat::Apng => match self.target.as_ref().map(|t| t.frames) {
                // Written to a file: the header states the count, and each frame streams.
                Some(stated) => {
                    if self.count >= stated as usize {
                        return Err(AnimationError::FrameCount {
                            format: self.format,
                            stated,
                            given: self.count + 1,
                        });
                    }
                    if self.apng.is_none() {
                        let sink = self.sink.take().unwrap_or(Sink::Memory(Vec::new()));
                        self.apng = Some(self.apng_writer(sink, w, h, stated)?);
                    }
                    let result = match self.apng.as_mut() {
                        Some(writer) => writer.write_image_data(&rgba),
                        None => Ok(()),
                    };
                    result.map_err(|e| self.encode_error(e))?;
                }
                None => self.frames.push(rgba),
            },
        }
        self.count += 1;
        Ok(())
    }

    /// An APNG writer of `frames` frames of `w` × `h` into `sink`, its header written.
    fn apng_writer<W: Write>(
        &self,
        sink: W,
        w: u32,
        h: u32,
        frames: u32,
    ) -> Result<png::Writer<W>, AnimationError> {
        let e = |e: png::EncodingError| self.encode_error(e);
        let mut enc = png::Encoder::new(sink, w, h);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        crate::image_files::tag_png(&mut enc, self.space);
        enc.set_animated(frames, 0).map_err(e)?;
        enc.set_frame_delay(Self::apng_delay_ms(self.fps), 1000)
            .map_err(e)?;
        enc.write_header().map_err(e)
    }

    /// Complete a file animation and rename it into place: its destination, or `None`
    /// (nothing written) when no frame was pushed. An animation given fewer frames than it
    /// stated is refused, and its temporary file removed.
    pub fn commit(mut self) -> Result<Option<PathBuf>, AnimationError> {
        let Some(target) = self.target.take() else {
            return Err(self.encode_error("not an animation written to a file"));
        };
        if self.size.is_none() {
            return Ok(None);
        }
        let io = |e: std::io::Error| AnimationError::Write {
            path: target.path.clone(),
            message: e.to_string(),
        };
        let sink = match self.format {
            AnimationFormat::Gif => self
                .gif
                .take()
                .map(|enc| enc.into_inner())
                .transpose()
                .map_err(|e| self.encode_error(e))?,
            AnimationFormat::Apng => {
                if self.count != target.frames as usize {
                    return Err(AnimationError::FrameCount {
                        format: self.format,
                        stated: target.frames,
                        given: self.count,
                    });
                }
                if let Some(w) = self.apng.take() {
                    w.finish().map_err(|e| self.encode_error(e))?;
                }
                None
            }
        };
        if let Some(mut s) = sink {
            s.flush().map_err(io)?;
        }
        target.file.sync_all().map_err(io)?;
        crate::files::persist(target.tmp, &target.path).map_err(|e| AnimationError::Write {
            path: target.path.clone(),
            message: match crate::files::refusal(e) {
                Ok(refused) => refused.to_string(),
                Err(e) => e.to_string(),
            },
        })?;
        Ok(Some(target.path))
    }

    /// The file's bytes (`None` when no frame was pushed), for an animation made in memory
    /// ([`Animation::new`]).
    pub fn finish(mut self) -> Result<Option<Vec<u8>>, AnimationError> {
        if self.target.is_some() {
            return Err(self.encode_error("an animation written to a file is committed"));
        }
        let Some((w, h)) = self.size else {
            return Ok(None);
        };
        let sink = match self.format {
            AnimationFormat::Gif => match self.gif.take() {
                Some(enc) => enc.into_inner().map_err(|e| self.encode_error(e))?,
                None => return Ok(None),
            },
            AnimationFormat::Apng => {
                let frames = std::mem::take(&mut self.frames);
                let e = |e: png::EncodingError| self.encode_error(e);
                let mut out = Vec::new();
                let mut writer = self.apng_writer(&mut out, w, h, frames.len() as u32)?;
                for f in &frames {
                    writer.write_image_data(f).map_err(e)?;
                }
                writer.finish().map_err(e)?;
                Sink::Memory(out)
            }
        };
        match sink {
            Sink::Memory(bytes) => Ok(Some(bytes)),
            Sink::File(_) => Err(self.encode_error("an animation written to a file is committed")),
        }
    }
}
