//! The colour space of an 8 or 16-bit image file: sRGB-encoded colour (the default), or the
//! values as they are (data maps: normals, heights, masks).

use super::srgb::{srgb_decode, srgb_encode, srgb_encode_f64};
use kiln_image::image::Image;

/// How the colour channels of an 8 or 16-bit file code the engine's linear values. Alpha is
/// always stored as it is; OpenEXR always holds linear values, whatever this says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ColorSpace {
    /// Colour sRGB-encoded (IEC 61966-2-1); the PNG carries an `sRGB` chunk (with the `gAMA`
    /// and `cHRM` it stands for). The default.
    #[default]
    Srgb,
    /// Values written as they are, clamped to 0..=1 and scaled (a normal or height map, a
    /// mask); the PNG carries `gAMA` 1.0, stating that no curve was applied.
    Data,
}

impl ColorSpace {
    /// The names accepted by [`ColorSpace::parse`], in order.
    pub const NAMES: [&'static str; 2] = ["srgb", "data"];

    /// The name of the colour space (`srgb` or `data`).
    pub fn name(self) -> &'static str {
        match self {
            ColorSpace::Srgb => "srgb",
            ColorSpace::Data => "data",
        }
    }

    /// The colour space named `name` (`srgb` or `data`, any case).
    pub fn parse(name: &str) -> Option<ColorSpace> {
        match name.to_ascii_lowercase().as_str() {
            "srgb" => Some(ColorSpace::Srgb),
            "data" => Some(ColorSpace::Data),
            _ => None,
        }
    }

    /// The encoded value (0..=1) of the linear colour value `v`: sRGB-encoded, or `v` clamped
    /// to 0..=1 (NaN gives 0).
    pub fn encode(self, v: f32) -> f32 {
        match self {
            ColorSpace::Srgb => srgb_encode(v),
            ColorSpace::Data => linear(v),
        }
    }

    /// The linear colour value of the encoded value `e` (0..=1).
    pub fn decode(self, e: f32) -> f32 {
        match self {
            ColorSpace::Srgb => srgb_decode(e),
            ColorSpace::Data => e,
        }
    }
}

impl std::fmt::Display for ColorSpace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// `v` clamped to 0..=1, NaN as 0.
fn linear(v: f32) -> f32 {
    if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) }
}

/// The encoded value of `v` in `space`, in f64 (not rounded to `f32` before it is coded).
fn encoded(space: ColorSpace, v: f32) -> f64 {
    match space {
        ColorSpace::Srgb => srgb_encode_f64(v),
        ColorSpace::Data => f64::from(linear(v)),
    }
}

/// The 8-bit code of an encoded value: `round(e · 255)` (computed in f64).
pub fn code8(e: f32) -> u8 {
    code8_f64(f64::from(linear(e)))
}

/// The 16-bit code of an encoded value: `round(e · 65535)` (computed in f64).
pub fn code16(e: f32) -> u16 {
    code16_f64(f64::from(linear(e)))
}

fn code8_f64(e: f64) -> u8 {
    (e.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
}

fn code16_f64(e: f64) -> u16 {
    (e.clamp(0.0, 1.0) * 65535.0 + 0.5) as u16
}

/// The image as 8-bit RGBA bytes in `space` (colour encoded, alpha as it is), into a buffer
/// reserved through [`kiln_core::memory`]: an error rather than an abort when it does not fit.
pub fn rgba8(img: &Image, space: ColorSpace) -> Result<Vec<u8>, kiln_core::memory::MemoryError> {
    let mut out = kiln_core::memory::try_vec(img.pixels.len() * 4, || {
        format!("the 8-bit pixels of a {} x {} image", img.width, img.height)
    })?;
    for p in &img.pixels {
        out.extend_from_slice(&[
            code8_f64(encoded(space, p[0])),
            code8_f64(encoded(space, p[1])),
            code8_f64(encoded(space, p[2])),
            code8(p[3]),
        ]);
    }
    Ok(out)
}

/// The image as 16-bit RGBA samples in `space` (colour encoded, alpha as it is), native
/// endian, reserved as [`rgba8`] is.
pub fn rgba16(img: &Image, space: ColorSpace) -> Result<Vec<u16>, kiln_core::memory::MemoryError> {
    let mut out = kiln_core::memory::try_vec(img.pixels.len() * 4, || {
        format!(
            "the 16-bit pixels of a {} x {} image",
            img.width, img.height
        )
    })?;
    for p in &img.pixels {
        out.extend_from_slice(&[
            code16_f64(encoded(space, p[0])),
            code16_f64(encoded(space, p[1])),
            code16_f64(encoded(space, p[2])),
            code16(p[3]),
        ]);
    }
    Ok(out)
}
