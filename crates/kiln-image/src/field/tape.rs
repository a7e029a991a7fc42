//! The tape of a field: a flat list of steps, each computing one `f64` register per pixel
//! from constants, the pixel's coordinates, the clock, channels of the images it reads and
//! earlier registers. A tape is built forward (every operand is an earlier step), so running
//! it needs no recursion, and one tape is what every per-pixel op of a fused chain appends to.

use crate::curves::MonotoneCurve;
use crate::image::Image;
use crate::ramp::Ramp;
use kiln_core::op::OpError;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// The index of a step, which is also the register it writes.
pub type Reg = u32;

/// The four registers of a colour (r, g, b, a).
pub type Px = [Reg; 4];

/// What a coordinate step reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Coord {
    /// The pixel's column, `0..width`, as a float.
    X,
    /// The pixel's row, `0..height`, as a float.
    Y,
    /// The column of the pixel centre in the unit square: `(x + 0.5) / width`.
    U,
    /// The row of the pixel centre in the unit square: `(y + 0.5) / height`.
    V,
    /// The width of the image made.
    Width,
    /// The height of the image made.
    Height,
    /// The clock's time in seconds.
    Time,
}

/// A function of one register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unary {
    /// `-x`.
    Neg,
    /// `|x|`.
    Abs,
    /// Largest whole number at most `x`.
    Floor,
    /// Smallest whole number at least `x`.
    Ceil,
    /// `x - floor(x)`.
    Fract,
    /// Square root.
    Sqrt,
    /// Sine (radians).
    Sin,
    /// Cosine (radians).
    Cos,
    /// Tangent (radians).
    Tan,
    /// `e^x`.
    Exp,
    /// Natural logarithm.
    Ln,
    /// `x` rounded to the nearest `f32`: the rounding an op that stores `f32` results makes
    /// after each of its operations.
    Round32,
    /// `x` clamped to `[0, 1]`.
    Saturate,
}

/// A function of two registers, in operand order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Binary {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b`.
    Div,
    /// `a - b * floor(a / b)`: the remainder with the sign of `b`.
    Mod,
    /// `a^b`.
    Pow,
    /// The smaller.
    Min,
    /// The larger.
    Max,
    /// `atan2(a, b)`.
    Atan2,
    /// 1 where `b >= a`, else 0 (GLSL `step(edge, x)`; 0 when either is NaN).
    Step,
    /// 1 where `a < b`, else 0.
    Lt,
    /// 1 where `a <= b`, else 0.
    Le,
}

/// A function of three registers, in operand order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ternary {
    /// `a * (1 - t) + b * t` (GLSL `mix(a, b, t)`).
    Mix,
    /// `x` clamped to `[lo, hi]` (`clamp(x, lo, hi)`).
    Clamp,
    /// Hermite `t * t * (3 - 2 t)` of `t = saturate((x - e0) / (e1 - e0))`
    /// (`smoothstep(e0, e1, x)`).
    Smoothstep,
    /// `select(c, a, b)`: `a` where `c > 0`, else `b`.
    Select,
}

/// A 2D scalar field sampled by a noise step.
pub trait Noise2: Send + Sync {
    /// The field at `(x, y)`.
    fn sample(&self, x: f64, y: f64) -> f64;

    /// The field at each `(xs[k], ys[k])` into `out[k]` (the three have one length): the
    /// same bits as [`Noise2::sample`] at each point. A noise may override it to run its
    /// points side by side.
    fn sample_lanes(&self, xs: &[f64], ys: &[f64], out: &mut [f64]) {
        for ((o, &x), &y) in out.iter_mut().zip(xs).zip(ys) {
            *o = self.sample(x, y);
        }
    }
}

/// One step of a tape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Step {
    /// A constant.
    Const(f64),
    /// A coordinate or the clock.
    Coord(Coord),
    /// Channel `channel` (0..4) of the leaf image `leaf` at this pixel.
    Channel {
        /// Index into the tape's leaves.
        leaf: u16,
        /// 0 red, 1 green, 2 blue, 3 alpha.
        channel: u8,
    },
    /// A function of one register.
    Unary(Unary, Reg),
    /// A function of two registers.
    Binary(Binary, Reg, Reg),
    /// A function of two registers rounded to `f32` (one operation of an op that computes
    /// in `f32`): the bits of [`Step::Binary`] then [`Unary::Round32`], in one step.
    Binary32(Binary, Reg, Reg),
    /// A function of three registers.
    Ternary(Ternary, Reg, Reg, Reg),
    /// The noise `noise` of the tape sampled at `(x, y)`.
    Noise {
        /// Index into the tape's noises.
        noise: u16,
        /// The sample point's first coordinate.
        x: Reg,
        /// The sample point's second coordinate.
        y: Reg,
    },
    /// Channel `channel` of the colour ramp `ramp` at `t`.
    Ramp {
        /// Index into the tape's ramps.
        ramp: u16,
        /// The position looked up.
        t: Reg,
        /// 0 red, 1 green, 2 blue, 3 alpha.
        channel: u8,
    },
    /// The tone curve `curve` of the tape at `x`.
    Curve {
        /// Index into the tape's curves.
        curve: u16,
        /// The value mapped.
        x: Reg,
    },
}

/// Most steps one tape may hold (a formula or a fused chain beyond it is refused).
pub const MAX_STEPS: usize = 4096;

/// A field under construction and, once built, what [`crate::field::render`] runs.
#[derive(Clone, Default)]
pub struct Tape<'a> {
    /// The steps, in order; step `i` writes register `i`.
    pub steps: Vec<Step>,
    /// The images channel steps read; each has the tape's size.
    pub leaves: Vec<&'a Image>,
    /// The noises noise steps sample.
    pub noises: Vec<Arc<dyn Noise2 + 'a>>,
    /// The ramps ramp steps read.
    pub ramps: Vec<Arc<Ramp>>,
    /// The tone curves curve steps read.
    pub curves: Vec<Arc<MonotoneCurve>>,
    /// The size of the image the tape makes, once a generator or a leaf has set it.
    pub size: Option<(u32, u32)>,
    /// The register of each step pushed so far, so an identical step is not run twice.
    seen: HashMap<Same, Reg>,
    /// Per step, whether every value it gives is an `f32` (so rounding it to `f32` is
    /// itself).
    is_f32: Vec<bool>,
}

/// A step as the key of the identical steps before it: constants are the same when their
/// bits are (`0.0` is not `-0.0`); every other step when its operator and registers are.
#[derive(Clone, Copy)]
struct Same(Step);

impl PartialEq for Same {
    fn eq(&self, other: &Same) -> bool {
        match (self.0, other.0) {
            (Step::Const(a), Step::Const(b)) => a.to_bits() == b.to_bits(),
            (a, b) => a == b,
        }
    }
}

impl Eq for Same {}

impl Hash for Same {
    fn hash<H: Hasher>(&self, h: &mut H) {
        std::mem::discriminant(&self.0).hash(h);
        match self.0 {
            Step::Const(v) => v.to_bits().hash(h),
            Step::Coord(c) => c.hash(h),
            Step::Channel { leaf, channel } => (leaf, channel).hash(h),
            Step::Unary(f, a) => (f, a).hash(h),
            Step::Binary(f, a, b) | Step::Binary32(f, a, b) => (f, a, b).hash(h),
            Step::Ternary(f, a, b, c) => (f, a, b, c).hash(h),
            Step::Noise { noise, x, y } => (noise, x, y).hash(h),
            Step::Ramp { ramp, t, channel } => (ramp, t, channel).hash(h),
            Step::Curve { curve, x } => (curve, x).hash(h),
        }
    }
}

impl<'a> Tape<'a> {
    /// An empty tape.
    pub fn new() -> Self {
        Tape::default()
    }

    /// Append a step, returning its register; a step identical to one already pushed (a
    /// pure function of the same registers) returns that step's register instead, so a
    /// value several channels or ops compute alike is computed once, with the same bits.
    ///
    /// A step whose operands are all constants is pushed as the constant it computes (by
    /// the same arithmetic the run would do).
    pub fn push(&mut self, s: Step) -> Result<Reg, OpError> {
        let s = self.folded(s);
        if let Some(&r) = self.seen.get(&Same(s)) {
            return Ok(r);
        }
        // Rounding an `f32` to `f32` gives it back: no step.
        if let Step::Unary(Unary::Round32, a) = s
            && self.is_f32.get(a as usize) == Some(&true)
        {
            return Ok(a);
        }
        if self.steps.len() >= MAX_STEPS {
            return Err(OpError::new(format!(
                "the field is longer than {MAX_STEPS} steps"
            )));
        }
        let is_f32 = self.gives_f32(s);
        self.steps.push(s);
        self.is_f32.push(is_f32);
        let r = (self.steps.len() - 1) as Reg;
        self.seen.insert(Same(s), r);
        Ok(r)
    }

    /// Whether every value step `s` gives is an `f32`: a rounding, a channel or a ramp (both
    /// `f32`), a constant that is one, or a sign change, absolute value, minimum, maximum or
    /// clamp of such values (each gives one of its operands, or its negation).
    fn gives_f32(&self, s: Step) -> bool {
        let f = |r: Reg| self.is_f32.get(r as usize) == Some(&true);
        match s {
            Step::Const(v) => (v as f32 as f64).to_bits() == v.to_bits(),
            Step::Binary32(..) | Step::Channel { .. } | Step::Ramp { .. } => true,
            Step::Unary(Unary::Round32, _) => true,
            Step::Unary(Unary::Neg | Unary::Abs | Unary::Saturate, a) => f(a),
            Step::Binary(Binary::Min | Binary::Max, a, b) => f(a) && f(b),
            Step::Ternary(Ternary::Clamp, a, b, c) => f(a) && f(b) && f(c),
            _ => false,
        }
    }

    /// The constant `s` computes when its operands are constants, else `s`.
    fn folded(&self, s: Step) -> Step {
        let c = |r: Reg| match self.steps.get(r as usize) {
            Some(Step::Const(v)) => Some(*v),
            _ => None,
        };
        let v = match s {
            Step::Unary(f, a) => c(a).map(|a| super::eval::unary(f, a)),
            Step::Binary(f, a, b) => c(a).zip(c(b)).map(|(a, b)| super::eval::binary(f, a, b)),
            Step::Binary32(f, a, b) => c(a)
                .zip(c(b))
                .map(|(a, b)| super::eval::unary(Unary::Round32, super::eval::binary(f, a, b))),
            Step::Ternary(f, a, b, x) => match (c(a), c(b), c(x)) {
                (Some(a), Some(b), Some(x)) => Some(super::eval::ternary(f, a, b, x)),
                _ => None,
            },
            _ => None,
        };
        v.map_or(s, Step::Const)
    }

    /// A constant register.
    pub fn constant(&mut self, v: f64) -> Result<Reg, OpError> {
        self.push(Step::Const(v))
    }

    /// `f(a)`.
    pub fn unary(&mut self, f: Unary, a: Reg) -> Result<Reg, OpError> {
        self.push(Step::Unary(f, a))
    }

    /// `f(a, b)`.
    pub fn binary(&mut self, f: Binary, a: Reg, b: Reg) -> Result<Reg, OpError> {
        self.push(Step::Binary(f, a, b))
    }

    /// `f(a, b)` rounded to `f32`: one operation of an op that computes in `f32`.
    pub fn binary32(&mut self, f: Binary, a: Reg, b: Reg) -> Result<Reg, OpError> {
        self.push(Step::Binary32(f, a, b))
    }

    /// Set (or check) the size of the image made; `port` names the input in the error.
    pub fn set_size(&mut self, w: u32, h: u32, port: usize) -> Result<(), OpError> {
        match self.size {
            None => {
                self.size = Some((w, h));
                Ok(())
            }
            Some((w0, h0)) if (w0, h0) == (w, h) => Ok(()),
            Some((w0, h0)) => Err(OpError::input(
                port,
                format!("size {w}x{h} does not match a's {w0}x{h0}"),
            )),
        }
    }

    /// Read an image as a leaf: its four channel registers. `port` names the input whose size
    /// must match the tape's.
    pub fn image(&mut self, img: &'a Image, port: usize) -> Result<Px, OpError> {
        self.set_size(img.width, img.height, port)?;
        let leaf = self
            .leaves
            .iter()
            .position(|l| std::ptr::eq(*l, img))
            .unwrap_or_else(|| {
                self.leaves.push(img);
                self.leaves.len() - 1
            });
        let leaf =
            u16::try_from(leaf).map_err(|_| OpError::new("a field reads too many images"))?;
        let mut px = [0; 4];
        for (c, r) in px.iter_mut().enumerate() {
            *r = self.push(Step::Channel {
                leaf,
                channel: c as u8,
            })?;
        }
        Ok(px)
    }

    /// Add a noise, returning its index for [`Step::Noise`].
    pub fn add_noise(&mut self, n: Arc<dyn Noise2 + 'a>) -> Result<u16, OpError> {
        self.noises.push(n);
        u16::try_from(self.noises.len() - 1)
            .map_err(|_| OpError::new("a field has too many noises"))
    }

    /// Add a ramp, returning its index for [`Step::Ramp`].
    pub fn add_ramp(&mut self, r: Ramp) -> Result<u16, OpError> {
        self.ramps.push(Arc::new(r));
        u16::try_from(self.ramps.len() - 1).map_err(|_| OpError::new("a field has too many ramps"))
    }

    /// Add a tone curve, returning its index for [`Step::Curve`].
    pub fn add_curve(&mut self, c: MonotoneCurve) -> Result<u16, OpError> {
        self.curves.push(Arc::new(c));
        u16::try_from(self.curves.len() - 1)
            .map_err(|_| OpError::new("a field has too many curves"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_identical_step_is_pushed_once_and_constants_by_their_bits() {
        let mut t = Tape::new();
        let x = t.push(Step::Coord(Coord::X)).unwrap();
        let half = t.constant(0.5).unwrap();
        let a = t.binary(Binary::Mul, x, half).unwrap();
        assert_eq!(t.binary(Binary::Mul, x, half).unwrap(), a);
        assert_eq!(t.constant(0.5).unwrap(), half);
        assert_eq!(t.push(Step::Coord(Coord::X)).unwrap(), x);
        // Not the same: the operands swapped, another operator, -0.0 against 0.0, a NaN
        // of another payload.
        assert_ne!(t.binary(Binary::Mul, half, x).unwrap(), a);
        assert_ne!(t.binary(Binary::Add, x, half).unwrap(), a);
        let zero = t.constant(0.0).unwrap();
        assert_ne!(t.constant(-0.0).unwrap(), zero);
        let nan = t.constant(f64::NAN).unwrap();
        assert_eq!(t.constant(f64::NAN).unwrap(), nan);
        assert_ne!(
            t.constant(f64::from_bits(f64::NAN.to_bits() | 1)).unwrap(),
            nan
        );
        assert_eq!(t.steps.len(), 9);
    }

    #[test]
    fn constants_fold_and_an_f32_is_not_rounded_again() {
        let mut t = Tape::new();
        let (a, b) = (t.constant(0.1).unwrap(), t.constant(0.2).unwrap());
        // 0.1 + 0.2 computed now, with the bits a run would give.
        let sum = t.binary(Binary::Add, a, b).unwrap();
        assert_eq!(t.steps[sum as usize], Step::Const(0.1 + 0.2));
        let x = t.push(Step::Coord(Coord::X)).unwrap();
        let r = t.unary(Unary::Round32, x).unwrap();
        assert_ne!(r, x, "a coordinate may not be an f32");
        assert_eq!(t.unary(Unary::Round32, r).unwrap(), r);
        let m = t.binary32(Binary::Mul, x, a).unwrap();
        assert_eq!(t.unary(Unary::Round32, m).unwrap(), m);
        let (lo, hi) = (t.constant(0.0).unwrap(), t.constant(1.0).unwrap());
        let c = t.push(Step::Ternary(Ternary::Clamp, m, lo, hi)).unwrap();
        assert_eq!(t.unary(Unary::Round32, c).unwrap(), c);
        // 0.1 is no f32: a clamp to it may give a value that is not one.
        let c = t.push(Step::Ternary(Ternary::Clamp, m, lo, a)).unwrap();
        assert_ne!(t.unary(Unary::Round32, c).unwrap(), c);
    }
}
