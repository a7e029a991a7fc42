//! Animations of rendered frames: an animated GIF or an APNG of one image output, a frame
//! per tick at a frame rate, so a render can be watched in any browser or image viewer.
//!
//! An [`Animation`] takes the frames one by one ([`Animation::push`]) and gives the file's
//! bytes at the end ([`Animation::finish`]); the caller writes them atomically. Every frame
//! must have the first frame's size. Frames are encoded as the 8-bit PNG frames are: colour
//! sRGB-encoded by default, or as it is for a data map ([`Animation::with_space`]), alpha
//! linear, each channel clamped to 0..=1 and scaled to 255. An APNG states its colour space
//! as a PNG does (`sRGB`, or `gAMA` 1.0); a GIF cannot say.
//!
//! * GIF: each frame quantized to its own palette of at most 256 colours (NeuQuant, which
//!   is deterministic: the same frames give the same bytes), looping forever. A frame's
//!   delay is in hundredths of a second: `round(100 / fps)`, at least 1.
//! * APNG: lossless 8-bit RGBA, looping forever, each frame's delay `round(1000 / fps)`
//!   thousandths of a second (at least 1). The frames are held (8-bit) until the end, since
//!   an APNG states its frame count first.

use kiln_image::image::Image;
use std::fmt;

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
}

/// An animation being built (see the module docs).
pub struct Animation {
    format: AnimationFormat,
    fps: f64,
    size: Option<(u32, u32)>,
    gif: Option<gif::Encoder<Vec<u8>>>,
    frames: Vec<Vec<u8>>,
    count: usize,
    space: crate::image_files::ColorSpace,
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
            gif: None,
            frames: vec![],
            count: 0,
            space: crate::image_files::ColorSpace::Srgb,
        })
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
                    let mut enc = gif::Encoder::new(Vec::new(), w as u16, h as u16, &[])
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
            AnimationFormat::Apng => self.frames.push(rgba),
        }
        self.count += 1;
        Ok(())
    }

    /// The file's bytes (`None` when no frame was pushed).
    pub fn finish(mut self) -> Result<Option<Vec<u8>>, AnimationError> {
        let Some((w, h)) = self.size else {
            return Ok(None);
        };
        match self.format {
            AnimationFormat::Gif => match self.gif.take() {
                Some(enc) => enc.into_inner().map(Some).map_err(|e| self.encode_error(e)),
                None => Ok(None),
            },
            AnimationFormat::Apng => self.apng(w, h).map(Some),
        }
    }

    fn apng(&self, w: u32, h: u32) -> Result<Vec<u8>, AnimationError> {
        let e = |e: png::EncodingError| self.encode_error(e);
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        crate::image_files::tag_png(&mut enc, self.space);
        enc.set_animated(self.frames.len() as u32, 0).map_err(e)?;
        enc.set_frame_delay(Self::apng_delay_ms(self.fps), 1000)
            .map_err(e)?;
        let mut writer = enc.write_header().map_err(e)?;
        for f in &self.frames {
            writer.write_image_data(f).map_err(e)?;
        }
        writer.finish().map_err(e)?;
        Ok(out)
    }
}
