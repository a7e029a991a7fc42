//! The sRGB transfer curve (IEC 61966-2-1) between linear light and encoded values, computed
//! in f64 so that 0 and 1 map to themselves exactly.

/// Linear light `v` (0..=1) to its sRGB-encoded value: `12.92·v` up to 0.0031308,
/// `1.055·v^(1/2.4) − 0.055` above. Values outside 0..=1 are clamped first; NaN gives 0.
pub fn srgb_encode(v: f32) -> f32 {
    srgb_encode_f64(v) as f32
}

/// [`srgb_encode`] without rounding the result to `f32` (codes are taken from this).
pub(crate) fn srgb_encode_f64(v: f32) -> f64 {
    let v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
    if v <= 0.003_130_8 {
        // In f32 as it always was: 12.92 · v rounded once.
        f64::from(12.92 * v)
    } else {
        1.055 * f64::from(v).powf(1.0 / 2.4) - 0.055
    }
}

/// An sRGB-encoded value `e` (0..=1) to linear light: `e/12.92` up to 0.04045,
/// `((e + 0.055)/1.055)^2.4` above.
pub fn srgb_decode(e: f32) -> f32 {
    let e = if e.is_nan() { 0.0 } else { e.clamp(0.0, 1.0) };
    if e <= 0.040_45 {
        e / 12.92
    } else {
        ((e as f64 + 0.055) / 1.055).powf(2.4) as f32
    }
}
