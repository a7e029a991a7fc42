//! Colour ops as per-pixel builders (they fuse): `image.hsv` (hue shift, saturation and
//! value factors) and `image.colorize` (a tint that keeps luminance). Alpha passes.
//!
//! `image.hsv` converts each pixel to hue, saturation and value by the textbook formulas
//! (V = max, C = max - min, S = C / V, hue by the sextant of the largest channel), shifts
//! the hue, scales S (then clamped to [0, 1]) and V (then at least 0), and converts back by
//! `f(n) = V - V S max(0, min(k, 4 - k, 1))`, `k = (n + H / 60) mod 6`, n = 5, 3, 1 for r,
//! g, b (the closed form of the sextant table).

use crate::field::{Binary, Px, Reg, Step, Tape, Ternary};
use kiln_core::op::{OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};

/// The Rec. 709 luminance weights (as `image.grey`).
pub const LUMA: [f64; 3] = [0.2126, 0.7152, 0.0722];

struct B<'t, 'a>(&'t mut Tape<'a>);

impl B<'_, '_> {
    fn k(&mut self, v: f64) -> Result<Reg, OpError> {
        self.0.constant(v)
    }
    fn b(&mut self, f: Binary, x: Reg, y: Reg) -> Result<Reg, OpError> {
        self.0.binary(f, x, y)
    }
    fn sel(&mut self, c: Reg, x: Reg, y: Reg) -> Result<Reg, OpError> {
        self.0.push(Step::Ternary(Ternary::Select, c, x, y))
    }
}

/// Adjust in HSV: the hue turned by `hue` degrees, saturation times `saturation` (clamped
/// to [0, 1]), value times `value`; textbook RGB <-> HSV conversions. Alpha passes.
#[kiln_core::op("image.hsv", per_pixel, out = "the adjusted image")]
pub fn hsv(
    tape: &mut Tape<'_>,
    #[input("the source image")] image: Px,
    #[input("hue shift in degrees", default = 0.0, rule = Rule::between(-3600.0, 3600.0))] hue: f64,
    #[input("saturation factor", default = 1.0, rule = Rule::between(0.0, 100.0))] saturation: f64,
    #[input("value factor", default = 1.0, rule = Rule::between(0.0, 100.0))] value: f64,
) -> Result<Px, OpError> {
    let x = image;
    let (shift, sat, val) = (hue, saturation, value);
    let mut t = B(tape);
    let (r, g, b) = (x[0], x[1], x[2]);
    let mx = t.b(Binary::Max, r, g)?;
    let mx = t.b(Binary::Max, mx, b)?;
    let mn = t.b(Binary::Min, r, g)?;
    let mn = t.b(Binary::Min, mn, b)?;
    let c = t.b(Binary::Sub, mx, mn)?;
    let zero = t.k(0.0)?;
    // Hue in sextants [0, 6).
    let gb = t.b(Binary::Sub, g, b)?;
    let br = t.b(Binary::Sub, b, r)?;
    let rg = t.b(Binary::Sub, r, g)?;
    let six = t.k(6.0)?;
    let hr = t.b(Binary::Div, gb, c)?;
    let hr = t.b(Binary::Mod, hr, six)?;
    let two = t.k(2.0)?;
    let hg = t.b(Binary::Div, br, c)?;
    let hg = t.b(Binary::Add, hg, two)?;
    let four = t.k(4.0)?;
    let hb = t.b(Binary::Div, rg, c)?;
    let hb = t.b(Binary::Add, hb, four)?;
    let is_r = t.b(Binary::Le, mx, r)?;
    let is_g = t.b(Binary::Le, mx, g)?;
    let h = t.sel(is_g, hg, hb)?;
    let h = t.sel(is_r, hr, h)?;
    let coloured = t.b(Binary::Lt, zero, c)?;
    let h = t.sel(coloured, h, zero)?;
    let s0 = t.b(Binary::Div, c, mx)?;
    let lit = t.b(Binary::Lt, zero, mx)?;
    let s = t.sel(lit, s0, zero)?;
    // Adjust.
    let dh = t.k(shift / 60.0)?;
    let h = t.b(Binary::Add, h, dh)?;
    let h = t.b(Binary::Mod, h, six)?;
    let sf = t.k(sat)?;
    let s = t.b(Binary::Mul, s, sf)?;
    let one = t.k(1.0)?;
    let s = t.0.push(Step::Ternary(Ternary::Clamp, s, zero, one))?;
    let vf = t.k(val)?;
    let v = t.b(Binary::Mul, mx, vf)?;
    let v = t.b(Binary::Max, v, zero)?;
    // Back: f(n) = V - V S max(0, min(k, 4 - k, 1)), k = (n + H) mod 6.
    let vs = t.b(Binary::Mul, v, s)?;
    let mut px = x;
    for (ch, n) in [(0usize, 5.0), (1, 3.0), (2, 1.0)] {
        let nn = t.k(n)?;
        let k = t.b(Binary::Add, nn, h)?;
        let k = t.b(Binary::Mod, k, six)?;
        let k4 = t.b(Binary::Sub, four, k)?;
        let m = t.b(Binary::Min, k, k4)?;
        let m = t.b(Binary::Min, m, one)?;
        let m = t.b(Binary::Max, m, zero)?;
        let d = t.b(Binary::Mul, vs, m)?;
        px[ch] = t.b(Binary::Sub, v, d)?;
    }
    Ok(px)
}

/// Tint by `color` keeping the luminance L (0.2126 r + 0.7152 g + 0.0722 b): black to the
/// tint below its own luminance Lc (c L / Lc), the tint to white above it (c + (1 - c) (L -
/// Lc) / (1 - Lc)); mixed with the source by `amount`. Alpha passes.
#[kiln_core::op("image.colorize", per_pixel, out = "the tinted image")]
pub fn colorize(
    tape: &mut Tape<'_>,
    #[input("the source (usually grey) image")] image: Px,
    #[input("the tint", default = [0.9, 0.6, 0.3, 1.0], rule = Rule::Finite)] color: [f32; 4],
    #[input("0: the source, 1: fully tinted", default = 1.0, rule = Rule::between(0.0, 1.0))]
    amount: f64,
) -> Result<Px, OpError> {
    tint(tape, image, color, amount)
}

/// The steps of `image.colorize`.
///
/// With the pixel's luminance `L = max(0.2126 r + 0.7152 g + 0.0722 b, 0)` and the tint's
/// `Lc`: below the tint, `L <= Lc`, the tint scaled, `c L / Lc`; above it, the tint mixed
/// towards white, `c + (1 - c) (L - Lc) / (1 - Lc)`. Both have luminance `L` exactly (the
/// weights sum to 1), so black stays black, white stays white and the tint's own luminance
/// gives the tint. The result is `mix(pixel, tinted, amount)`.
fn tint(t: &mut Tape<'_>, x: Px, tint: [f32; 4], amount: f64) -> Result<Px, OpError> {
    let c: [f64; 3] = [tint[0] as f64, tint[1] as f64, tint[2] as f64];
    let lc = LUMA[0] * c[0] + LUMA[1] * c[1] + LUMA[2] * c[2];
    let mut t = B(t);
    let zero = t.k(0.0)?;
    let mut l = zero;
    for (ch, w) in LUMA.into_iter().enumerate() {
        let wk = t.k(w)?;
        let p = t.b(Binary::Mul, x[ch], wk)?;
        l = t.b(Binary::Add, l, p)?;
    }
    let l = t.b(Binary::Max, l, zero)?;
    let lck = t.k(lc)?;
    let below = t.b(Binary::Le, l, lck)?;
    let lo = t.k(1.0 / lc.max(1e-12))?;
    let lo = t.b(Binary::Mul, l, lo)?;
    let up = t.b(Binary::Sub, l, lck)?;
    let hi = t.k(1.0 / (1.0 - lc).max(1e-12))?;
    let hi = t.b(Binary::Mul, up, hi)?;
    let am = t.k(amount)?;
    let mut px = x;
    for ch in 0..3 {
        let ck = t.k(c[ch])?;
        let dark = t.b(Binary::Mul, ck, lo)?;
        let rest = t.k(1.0 - c[ch])?;
        let light = t.b(Binary::Mul, rest, hi)?;
        let light = t.b(Binary::Add, ck, light)?;
        let tinted = t.sel(below, dark, light)?;
        px[ch] = t.0.push(Step::Ternary(Ternary::Mix, x[ch], tinted, am))?;
    }
    Ok(px)
}

/// Register `image.hsv` and `image.colorize`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(HsvOp::new())?;
    reg.register(ColorizeOp::new())
}
