//! The sRGB transfer functions of IEC 61966-2-1 written from the standard, in f64: the
//! reference the image-file tests compare Kiln's encoder and decoder with.

/// The sRGB encoding of a linear value (clamped to [0, 1]).
pub fn textbook_encode(v: f64) -> f64 {
    let v = v.clamp(0.0, 1.0);
    if v <= 0.0031308 {
        12.92 * v
    } else {
        1.055 * v.powf(1.0 / 2.4) - 0.055
    }
}

/// The linear value of an sRGB-encoded one.
pub fn textbook_decode(e: f64) -> f64 {
    if e <= 0.04045 {
        e / 12.92
    } else {
        ((e + 0.055) / 1.055).powf(2.4)
    }
}
