//! Running a tape over a run of pixels of one row: each step once over every lane, so the
//! cost of reading a step is paid once per run rather than once per pixel.

use super::plan::{Plan, Varies};
use super::tape::{Binary, Coord, Reg, Step, Tape, Ternary, Unary};

/// Most pixels of a row one run covers (a wider row is run in pieces).
pub const LANES: usize = 256;

/// Where a run of lanes lies: row `y`, columns `x0..x0 + n`, in an image of `width` x
/// `height`, at time `time`.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    /// The row.
    pub y: u32,
    /// The first column.
    pub x0: u32,
    /// The number of lanes, at most [`LANES`].
    pub n: usize,
    /// The image's width.
    pub width: u32,
    /// The image's height.
    pub height: u32,
    /// The clock's time.
    pub time: f64,
    /// Whether the registers' column steps ([`Varies::Column`]) must be computed: false
    /// only when the last run on these registers covered the same columns of the same image
    /// (a later row of a band), so they hold this run's values already.
    pub fresh: bool,
}

/// Registers of one run: `steps x LANES` floats, reused from run to run, and the colours
/// of the last ramp looked up (a ramp's four channels are four steps reading one lookup).
pub struct Registers {
    lanes: Vec<f64>,
    ramp: Vec<[f32; 4]>,
    ramp_of: Option<(u16, Reg)>,
}

impl Registers {
    /// Registers for `tape`, its constants filled in (no step writes them again).
    pub fn for_tape(tape: &Tape<'_>) -> Registers {
        let mut lanes = vec![0.0; tape.steps.len() * LANES];
        for (i, step) in tape.steps.iter().enumerate() {
            if let Step::Const(v) = *step {
                lanes[i * LANES..(i + 1) * LANES].fill(v);
            }
        }
        Registers {
            lanes,
            ramp: vec![[0.0; 4]; LANES],
            ramp_of: None,
        }
    }
    /// The lanes of register `r`.
    pub fn lanes(&self, r: Reg) -> &[f64] {
        let s = r as usize * LANES;
        &self.lanes[s..s + LANES]
    }
}

/// `out[k] = f(a[k])`: the operator is chosen once per step, so the loop body is the
/// operation alone.
#[inline(always)]
fn map1(out: &mut [f64], a: &[f64], f: impl Fn(f64) -> f64) {
    for (o, &x) in out.iter_mut().zip(a) {
        *o = f(x);
    }
}

#[inline(always)]
fn map2(out: &mut [f64], a: &[f64], b: &[f64], f: impl Fn(f64, f64) -> f64) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = f(x, y);
    }
}

#[inline(always)]
fn map3(out: &mut [f64], a: &[f64], b: &[f64], c: &[f64], f: impl Fn(f64, f64, f64) -> f64) {
    for (((o, &x), &y), &z) in out.iter_mut().zip(a).zip(b).zip(c) {
        *o = f(x, y, z);
    }
}

/// Each element through [`unary`] with `f` fixed: one loop per operator.
fn unary_lanes(f: Unary, out: &mut [f64], a: &[f64]) {
    macro_rules! each {
        ($($op:ident),*) => {
            match f {
                $(Unary::$op => map1(out, a, |x| unary(Unary::$op, x)),)*
            }
        };
    }
    each!(
        Neg, Abs, Floor, Ceil, Fract, Sqrt, Sin, Cos, Tan, Exp, Ln, Round32, Saturate
    )
}

/// Each pair through [`binary`] with `f` fixed.
fn binary_lanes(f: Binary, out: &mut [f64], a: &[f64], b: &[f64]) {
    macro_rules! each {
        ($($op:ident),*) => {
            match f {
                $(Binary::$op => map2(out, a, b, |x, y| binary(Binary::$op, x, y)),)*
            }
        };
    }
    each!(Add, Sub, Mul, Div, Mod, Pow, Min, Max, Atan2, Step, Lt, Le)
}

/// Each pair through [`binary`] with `f` fixed, rounded to `f32`.
fn binary32_lanes(f: Binary, out: &mut [f64], a: &[f64], b: &[f64]) {
    macro_rules! each {
        ($($op:ident),*) => {
            match f {
                $(Binary::$op => map2(out, a, b, |x, y| binary(Binary::$op, x, y) as f32 as f64),)*
            }
        };
    }
    each!(Add, Sub, Mul, Div, Mod, Pow, Min, Max, Atan2, Step, Lt, Le)
}

/// Each triple through [`ternary`] with `f` fixed.
fn ternary_lanes(f: Ternary, out: &mut [f64], a: &[f64], b: &[f64], c: &[f64]) {
    macro_rules! each {
        ($($op:ident),*) => {
            match f {
                $(Ternary::$op => map3(out, a, b, c, |x, y, z| ternary(Ternary::$op, x, y, z)),)*
            }
        };
    }
    each!(Mix, Clamp, Smoothstep, Select)
}

#[inline(always)]
pub(super) fn unary(f: Unary, x: f64) -> f64 {
    match f {
        Unary::Neg => -x,
        Unary::Abs => x.abs(),
        Unary::Floor => x.floor(),
        Unary::Ceil => x.ceil(),
        Unary::Fract => x - x.floor(),
        Unary::Sqrt => x.sqrt(),
        Unary::Sin => x.sin(),
        Unary::Cos => x.cos(),
        Unary::Tan => x.tan(),
        Unary::Exp => x.exp(),
        Unary::Ln => x.ln(),
        Unary::Round32 => x as f32 as f64,
        Unary::Saturate => x.clamp(0.0, 1.0),
    }
}

#[inline(always)]
pub(super) fn binary(f: Binary, a: f64, b: f64) -> f64 {
    match f {
        Binary::Add => a + b,
        Binary::Sub => a - b,
        Binary::Mul => a * b,
        Binary::Div => a / b,
        Binary::Mod => a - b * (a / b).floor(),
        Binary::Pow => a.powf(b),
        Binary::Min => a.min(b),
        Binary::Max => a.max(b),
        Binary::Atan2 => a.atan2(b),
        Binary::Step => (b >= a) as u8 as f64,
        Binary::Lt => (a < b) as u8 as f64,
        Binary::Le => (a <= b) as u8 as f64,
    }
}

/// `x` clamped to `[lo, hi]`, NaN bounds left out (never a panic, unlike `f64::clamp`).
#[inline(always)]
fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
    x.max(lo).min(hi)
}

#[inline(always)]
pub(super) fn ternary(f: Ternary, a: f64, b: f64, c: f64) -> f64 {
    match f {
        Ternary::Mix => a * (1.0 - c) + b * c,
        Ternary::Clamp => clamp(a, b, c),
        Ternary::Smoothstep => {
            let t = clamp((c - a) / (b - a), 0.0, 1.0);
            t * t * (3.0 - 2.0 * t)
        }
        Ternary::Select => {
            if a > 0.0 {
                b
            } else {
                c
            }
        }
    }
}

/// Run the steps of `tape` that `plan` says over `run`, leaving each step's lanes in `regs`
/// (a [`Varies::Row`] step's in lane 0 only, unless the plan fills it in).
///
/// On x86-64 CPUs with AVX2 (checked at run time) the same steps are compiled for AVX2, four
/// lanes of `f64` to an instruction instead of two: the same IEEE operations lane by lane
/// (Rust never fuses a multiply with an add), so the same bits
/// (`the_avx2_build_gives_the_bits_of_the_baseline_build`).
pub fn run_tape(tape: &Tape<'_>, plan: &Plan, run: Run, regs: &mut Registers) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            unsafe { run_tape_avx2(tape, plan, run, regs) };
            return;
        }
    }
    run_steps(tape, plan, run, regs);
}

/// [`run_steps`] compiled for AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn run_tape_avx2(tape: &Tape<'_>, plan: &Plan, run: Run, regs: &mut Registers) {
    run_steps(tape, plan, run, regs);
}

/// The steps of [`run_tape`], for whichever instructions the caller is compiled for.
#[inline(always)]
fn run_steps(tape: &Tape<'_>, plan: &Plan, run: Run, regs: &mut Registers) {
    regs.ramp_of = None;
    for (i, step) in tape.steps.iter().enumerate() {
        if !plan.live[i] {
            continue;
        }
        let n = match plan.varies[i] {
            // Filled once, by `Registers::for_tape`.
            Varies::Never => continue,
            Varies::Column if !run.fresh => continue,
            Varies::Row => 1,
            Varies::Column | Varies::Pixel => run.n,
        };
        run_step(tape, i, *step, Run { n, ..run }, regs);
        if plan.fill[i] {
            let lanes = &mut regs.lanes[i * LANES..i * LANES + run.n];
            let v = lanes[0];
            lanes[1..].fill(v);
        }
    }
}

/// Step `i` (which is `step`) over the `run.n` lanes of `run`.
#[inline(always)]
fn run_step(tape: &Tape<'_>, i: usize, step: Step, run: Run, regs: &mut Registers) {
    let n = run.n;
    {
        let (done, rest) = regs.lanes.split_at_mut(i * LANES);
        let out = &mut rest[..n];
        let lane = |r: Reg| &done[r as usize * LANES..r as usize * LANES + n];
        match step {
            Step::Const(_) => {}
            Step::Coord(c) => {
                let (w, h) = (run.width as f64, run.height as f64);
                let y = run.y as f64;
                for (k, o) in out.iter_mut().enumerate() {
                    let x = (run.x0 as usize + k) as f64;
                    *o = match c {
                        Coord::X => x,
                        Coord::Y => y,
                        Coord::U => (x + 0.5) / w,
                        Coord::V => (y + 0.5) / h,
                        Coord::Width => w,
                        Coord::Height => h,
                        Coord::Time => run.time,
                    };
                }
            }
            Step::Channel { leaf, channel } => {
                let img = tape.leaves[leaf as usize];
                let start = run.y as usize * img.width as usize + run.x0 as usize;
                for (o, p) in out.iter_mut().zip(&img.pixels[start..start + n]) {
                    *o = p[channel as usize] as f64;
                }
            }
            Step::Unary(f, a) => unary_lanes(f, out, lane(a)),
            Step::Binary(f, a, b) => binary_lanes(f, out, lane(a), lane(b)),
            Step::Binary32(f, a, b) => binary32_lanes(f, out, lane(a), lane(b)),
            Step::Ternary(f, a, b, c) => ternary_lanes(f, out, lane(a), lane(b), lane(c)),
            Step::Noise { noise, x, y } => {
                tape.noises[noise as usize].sample_lanes(lane(x), lane(y), out);
            }
            Step::Ramp { ramp, t, channel } => {
                // The channels of one lookup are consecutive steps: look up once, read four
                // times. Registers are written only by their own step, so `t`'s lanes are
                // the ones looked up while the key holds.
                if regs.ramp_of != Some((ramp, t)) {
                    let r = &tape.ramps[ramp as usize];
                    for (c, &t) in regs.ramp[..n].iter_mut().zip(lane(t)) {
                        *c = r.eval(t);
                    }
                    regs.ramp_of = Some((ramp, t));
                }
                for (o, c) in out.iter_mut().zip(&regs.ramp[..n]) {
                    *o = c[channel as usize] as f64;
                }
            }
            Step::Curve { curve, x } => {
                let c = &tape.curves[curve as usize];
                for (o, &x) in out.iter_mut().zip(lane(x)) {
                    *o = c.eval(x);
                }
            }
        }
    }
}

/// The value of register `out` of a tape run over one lane at the origin (no image, no
/// leaves): how `math.expr` computes on plain numbers.
pub fn run_scalar(tape: &Tape<'_>, out: Reg, time: f64) -> f64 {
    let mut regs = Registers::for_tape(tape);
    let run = Run {
        y: 0,
        x0: 0,
        n: 1,
        width: 1,
        height: 1,
        time,
        fresh: true,
    };
    run_tape(tape, &Plan::new(tape, &[out]), run, &mut regs);
    regs.lanes(out)[0]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::tape::{Step, Ternary};
    use crate::image::Image;

    /// Every operator over awkward operands (signed zeros, subnormals, huge values,
    /// infinities, NaN), run by the AVX2 build and by the baseline build of the steps: the
    /// same bits.
    #[test]
    fn the_avx2_build_gives_the_bits_of_the_baseline_build() {
        let awkward: [f32; 15] = [
            0.0,
            -0.0,
            0.5,
            -1.5,
            1.0,
            2.75,
            1e-40,
            -3e38,
            3e9,
            0.1,
            -0.3,
            123.456,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        let (w, h) = (457u32, 4u32);
        let pick = |k: usize| awkward[k % awkward.len()];
        let img = Image {
            width: w,
            height: h,
            pixels: (0..(w * h) as usize)
                .map(|k| [pick(k), pick(k * 7 + 3), pick(k / 15), 1.0])
                .collect(),
        };
        let mut t = Tape::new();
        let px = t.image(&img, 0).unwrap();
        let huge = t.constant(1e280).unwrap();
        let a = px[0];
        let b = t.binary(Binary::Mul, px[1], huge).unwrap();
        let c = px[2];
        let mut outs = vec![];
        for f in [
            Unary::Neg,
            Unary::Abs,
            Unary::Floor,
            Unary::Ceil,
            Unary::Fract,
            Unary::Sqrt,
            Unary::Sin,
            Unary::Cos,
            Unary::Tan,
            Unary::Exp,
            Unary::Ln,
            Unary::Round32,
            Unary::Saturate,
        ] {
            outs.push(t.unary(f, a).unwrap());
            outs.push(t.unary(f, b).unwrap());
        }
        for f in [
            Binary::Add,
            Binary::Sub,
            Binary::Mul,
            Binary::Div,
            Binary::Mod,
            Binary::Pow,
            Binary::Min,
            Binary::Max,
            Binary::Atan2,
            Binary::Step,
            Binary::Lt,
            Binary::Le,
        ] {
            outs.push(t.binary(f, a, b).unwrap());
            outs.push(t.binary(f, c, a).unwrap());
            outs.push(t.binary32(f, a, c).unwrap());
        }
        for f in [
            Ternary::Mix,
            Ternary::Clamp,
            Ternary::Smoothstep,
            Ternary::Select,
        ] {
            outs.push(t.push(Step::Ternary(f, a, b, c)).unwrap());
            outs.push(t.push(Step::Ternary(f, c, a, b)).unwrap());
        }
        let (mut lanes, mut differ) = (0, 0);
        for y in 0..h {
            for x0 in [0u32, 256] {
                let run = Run {
                    y,
                    x0,
                    n: (w - x0).min(LANES as u32) as usize,
                    width: w,
                    height: h,
                    time: 0.0,
                    fresh: true,
                };
                let (mut fast, mut slow) = (Registers::for_tape(&t), Registers::for_tape(&t));
                let every = Plan::everything(&t);
                run_tape(&t, &every, run, &mut fast);
                run_steps(&t, &every, run, &mut slow);
                for &o in &outs {
                    let (p, q) = (&fast.lanes(o)[..run.n], &slow.lanes(o)[..run.n]);
                    lanes += run.n;
                    differ += p
                        .iter()
                        .zip(q)
                        .filter(|(p, q)| p.to_bits() != q.to_bits())
                        .count();
                }
            }
        }
        assert!(lanes > 50_000, "{lanes}");
        assert_eq!(differ, 0, "{differ} of {lanes} lanes differ");
    }
}
