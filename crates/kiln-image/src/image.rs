//! The image value: a heavy RGBA buffer of linear `f32` channels, row-major, top row first.

use kiln_core::codec::{ByteReader, CodecError, HeavyCodec, write_f32s, write_len};
use kiln_core::context::EvalContext;
use kiln_core::key::KeyHasher;
use kiln_core::op::{OpError, Rule, RuleEnv, Violation};
use kiln_core::value::{Heavy, HeavyData, Value, ValueType};
use std::any::Any;

/// The registered type name of images.
pub const IMAGE: &str = "image";
/// The port type of images.
pub const IMAGE_TYPE: ValueType = ValueType::Heavy(IMAGE);

/// Largest width or height an image op will allocate (keeps a typo from asking for terabytes).
pub const MAX_SIDE: u32 = 16_384;

/// An RGBA image with linear `f32` channels.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height` pixels, row-major, top row first.
    pub pixels: Vec<[f32; 4]>,
}

/// Images are ports of ops written with `#[kiln_core::op]`.
impl kiln_core::op::port::HeavyPort for Image {
    const TYPE: ValueType = IMAGE_TYPE;
}

impl Image {
    /// An image filled with one colour.
    pub fn filled(width: u32, height: u32, c: [f32; 4]) -> Image {
        Image {
            width,
            height,
            pixels: vec![c; width as usize * height as usize],
        }
    }
    /// Wrap into a value.
    pub fn into_value(self) -> Value {
        Value::Heavy(Heavy::new(self))
    }
    /// The pixel at `(x, y)`.
    pub fn get(&self, x: u32, y: u32) -> [f32; 4] {
        self.pixels[y as usize * self.width as usize + x as usize]
    }
    /// The channels as 8-bit RGBA bytes, as they are (clamped to 0..=1 and scaled to 255, no
    /// transfer curve). Files are written by `kiln-io`'s `image_files`, which sRGB-encodes
    /// colour unless asked for data.
    pub fn to_rgba8(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.pixels.len() * 4);
        self.push_rgba8(&mut out);
        out
    }
    /// [`Image::to_rgba8`] into a buffer reserved through [`kiln_core::memory`]: an error
    /// rather than an abort when it does not fit.
    pub fn try_to_rgba8(&self) -> Result<Vec<u8>, kiln_core::memory::MemoryError> {
        let mut out = kiln_core::memory::try_vec(self.pixels.len() * 4, || {
            format!(
                "the 8-bit pixels of a {} x {} image",
                self.width, self.height
            )
        })?;
        self.push_rgba8(&mut out);
        Ok(out)
    }
    fn push_rgba8(&self, out: &mut Vec<u8>) {
        for p in &self.pixels {
            for c in p {
                out.push((c.clamp(0.0, 1.0) * 255.0 + 0.5) as u8);
            }
        }
    }
}

impl HeavyData for Image {
    fn type_name(&self) -> &'static str {
        IMAGE
    }
    fn byte_size(&self) -> usize {
        self.pixels.len() * 16
    }
    fn hash_content(&self, h: &mut KeyHasher) {
        h.u64(self.width as u64);
        h.u64(self.height as u64);
        // Safe flattening of [f32; 4] pixels.
        let flat: &[f32] = self.pixels.as_flattened();
        h.f32_slice(flat);
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The binary form of images (tag 32): u32 width, u32 height, u64 pixel count, then the
/// pixels as 4 × f32 bits each. The count is stored as it is, so an image whose pixel count
/// differs from width × height reads back the same.
#[derive(Clone, Copy, Debug, Default)]
pub struct ImageCodec;

impl HeavyCodec for ImageCodec {
    fn type_name(&self) -> &'static str {
        IMAGE
    }
    fn tag(&self) -> u8 {
        32
    }
    fn encode(&self, value: &Heavy, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let img = value
            .downcast::<Image>()
            .ok_or_else(|| CodecError::wrong_type(self, value))?;
        out.extend_from_slice(&img.width.to_le_bytes());
        out.extend_from_slice(&img.height.to_le_bytes());
        write_len(out, img.pixels.len());
        write_f32s(out, img.pixels.as_flattened());
        Ok(())
    }
    fn decode(&self, input: &mut ByteReader<'_>) -> Result<Value, CodecError> {
        let width = input.u32("an image's width")?;
        let height = input.u32("an image's height")?;
        let n = input.count(16, "pixels")?;
        let flat = input.f32_vec(n * 4, "pixels")?;
        let pixels = flat
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect();
        Ok(Image {
            width,
            height,
            pixels,
        }
        .into_value())
    }
}

/// Most pixels an image op will allocate in total (1 GiB of pixels): each side may be up to
/// [`MAX_SIDE`], but not both at once.
pub const MAX_PIXELS: u64 = 1 << 26;

/// Whether an image of `width` x `height` pixels is within [`MAX_PIXELS`]: every op that
/// makes an image, whatever its domain, calls this (or declares [`pixels_rule`]) before it
/// allocates the pixels. The error names the size and the limit.
///
/// ```
/// use kiln_image::image::check_pixels;
/// assert!(check_pixels(8192, 8192).is_ok());
/// let e = check_pixels(16384, 8192).unwrap_err();
/// assert!(e.contains("67108864"), "{e}");
/// ```
pub fn check_pixels(width: u64, height: u64) -> Result<(), String> {
    let n = width.saturating_mul(height);
    if n > MAX_PIXELS {
        return Err(format!(
            "an image of {width} x {height} = {n} pixels is over the limit of {MAX_PIXELS} pixels (MAX_PIXELS)"
        ));
    }
    Ok(())
}

/// The doc of a generator's `width` param (a side of 0 is the request's).
pub const REQUEST_WIDTH_DOC: &str = "width in pixels (0: the request's, 256 when it names none)";
/// The doc of a generator's `height` param (a side of 0 is the request's).
pub const REQUEST_HEIGHT_DOC: &str = "height in pixels (0: the request's, 256 when it names none)";

/// The rule of each of the `width` and `height` params: 0 or from 1 to [`MAX_SIDE`]; both 0
/// (not one alone, which [`pixels_rule`] refuses) is the size of the request (see
/// [`request_size`]).
pub const SIDE_RULE: Rule = Rule::Ints {
    min: 0,
    max: MAX_SIDE as i64,
};

/// The side of an image whose size nothing gives: no param, no request.
pub const DEFAULT_SIDE: u32 = 256;

/// The size an image-making op makes from its `width` and `height` params: `0 x 0` is the
/// request's ([`EvalContext::resolution`], [`DEFAULT_SIDE`] square when the request names
/// none), halved (rounding up) for a preview ([`EvalContext::preview`]); any other pair is
/// the params' (a single 0 is then refused by [`check_size`]).
pub fn request_size(w: i64, h: i64, ctx: &EvalContext) -> (i64, i64) {
    if (w, h) != (0, 0) {
        return (w, h);
    }
    let (rw, rh) = ctx.resolution.unwrap_or((DEFAULT_SIDE, DEFAULT_SIDE));
    let side = |r: u32| {
        if ctx.preview {
            r.div_ceil(2).max(1) as i64
        } else {
            (r as i64).max(1)
        }
    };
    (side(rw), side(rh))
}

/// The rule over the size params (`width`, `height`: the op's first two params): at most
/// [`MAX_PIXELS`] pixels in total.
pub fn pixels_rule(params: &[Value], _env: &RuleEnv) -> Result<(), (usize, Violation)> {
    let side = |i: usize| params.get(i).and_then(Value::as_i64).unwrap_or(0).max(0) as u64;
    let (w, h) = (side(0), side(1));
    if (w == 0) != (h == 0) {
        return Err((
            if w == 0 { 0 } else { 1 },
            Violation::new(
                "both sides 0 (the request's size) or neither",
                format!("{w} x {h}"),
            ),
        ));
    }
    let n = w.saturating_mul(h);
    if n > MAX_PIXELS {
        return Err((
            0,
            Violation::new(
                format!("an image of at most {MAX_PIXELS} pixels"),
                format!("{w} x {h} = {n} pixels"),
            ),
        ));
    }
    Ok(())
}

/// Image dimensions from the `width` and `height` params `w`, `h` (param indices `wi`,
/// `hi`) after [`request_size`], checked by the rules the size params declare (each side
/// from 1 to [`MAX_SIDE`], [`pixels_rule`]).
pub fn check_size(w: i64, h: i64, wi: usize, hi: usize) -> Result<(u32, u32), OpError> {
    let env = RuleEnv::default();
    let made = Rule::Ints {
        min: 1,
        max: MAX_SIDE as i64,
    };
    for (v, i) in [(w, wi), (h, hi)] {
        made.check(&Value::Int(v), &env)
            .map_err(|e| OpError::param(i, e.to_string()))?;
    }
    pixels_rule(&[Value::Int(w), Value::Int(h)], &env)
        .map_err(|(_, e)| OpError::param(wi, e.to_string()))?;
    Ok((w as u32, h as u32))
}

/// The rule of the `width` and `height` params (Int, default 256, at most [`MAX_PIXELS`] in
/// total by [`pixels_rule`]) of an op whose size is its own, not the request's (`image.fill`,
/// which stays a static node so baking folds it): from 1 to [`MAX_SIDE`].
pub const FIXED_SIDE_RULE: Rule = Rule::Ints {
    min: 1,
    max: MAX_SIDE as i64,
};
