//! Running a tape over a run of pixels of one row: each step once over every lane, so the
//! cost of reading a step is paid once per run rather than once per pixel.

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
}

/// Registers of one run: `steps x LANES` floats, reused from run to run.
pub struct Registers(Vec<f64>);

impl Registers {
    /// Registers for `tape`.
    pub fn for_tape(tape: &Tape<'_>) -> Registers {
        Registers(vec![0.0; tape.steps.len() * LANES])
    }
    /// The lanes of register `r`.
    pub fn lanes(&self, r: Reg) -> &[f64] {
        let s = r as usize * LANES;
        &self.0[s..s + LANES]
    }
}

fn unary(f: Unary, x: f64) -> f64 {
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

#[inline]
fn binary(f: Binary, a: f64, b: f64) -> f64 {
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
fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
    x.max(lo).min(hi)
}

fn ternary(f: Ternary, a: f64, b: f64, c: f64) -> f64 {
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

/// Run every step of `tape` over `run`, leaving each step's lanes in `regs`.
pub fn run_tape(tape: &Tape<'_>, run: Run, regs: &mut Registers) {
    let n = run.n;
    for (i, step) in tape.steps.iter().enumerate() {
        let (done, rest) = regs.0.split_at_mut(i * LANES);
        let out = &mut rest[..n];
        let lane = |r: Reg| &done[r as usize * LANES..r as usize * LANES + n];
        match *step {
            Step::Const(v) => out.fill(v),
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
            Step::Unary(f, a) => {
                for (o, &x) in out.iter_mut().zip(lane(a)) {
                    *o = unary(f, x);
                }
            }
            Step::Binary(f, a, b) => {
                for ((o, &x), &y) in out.iter_mut().zip(lane(a)).zip(lane(b)) {
                    *o = binary(f, x, y);
                }
            }
            Step::Ternary(f, a, b, c) => {
                let (la, lb, lc) = (lane(a), lane(b), lane(c));
                for k in 0..n {
                    out[k] = ternary(f, la[k], lb[k], lc[k]);
                }
            }
            Step::Noise { noise, x, y } => {
                let f = &tape.noises[noise as usize];
                for ((o, &px), &py) in out.iter_mut().zip(lane(x)).zip(lane(y)) {
                    *o = f.sample(px, py);
                }
            }
            Step::Ramp { ramp, t, channel } => {
                let r = &tape.ramps[ramp as usize];
                for (o, &t) in out.iter_mut().zip(lane(t)) {
                    *o = r.eval(t)[channel as usize] as f64;
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
    };
    run_tape(tape, run, &mut regs);
    regs.lanes(out)[0]
}
