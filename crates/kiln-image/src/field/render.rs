//! Making an image from a tape: one pass, one image. Bands of rows run side by side on the
//! rayon pool the node runs in; each pixel is computed by the same steps whichever thread
//! runs its band, so the bits are the same for every thread count.

use super::eval::{LANES, Registers, Run, run_tape};
use super::plan::Plan;
use super::tape::{Px, Tape};
use crate::image::Image;
use kiln_core::op::{OpCall, OpError};
use rayon::prelude::*;

/// Rows per band: the unit of parallel work, of cancellation checks and of progress.
const BAND_ROWS: usize = 16;

/// Bands per thread in a wave (see [`render`]).
const WAVE_BANDS: usize = 8;

/// Images of fewer pixels than this are rendered on the calling thread.
const SEQUENTIAL_PIXELS: usize = 16 * 1024;

/// Render `tape` into an image of its size, channel `c` from register `out[c]` (rounded to
/// `f32`). A tape with no size is an error (nothing said how large the image is).
pub fn render(call: &OpCall<'_>, tape: &Tape<'_>, out: Px) -> Result<Image, OpError> {
    let (width, height) = tape
        .size
        .ok_or_else(|| OpError::new("the field has no size: nothing gave its width and height"))?;
    let n = width as usize * height as usize;
    let mut pixels: Vec<[f32; 4]> =
        kiln_core::memory::try_vec(n, || format!("an image of {width} x {height} pixels"))
            .map_err(|e| OpError::new(e.to_string()))?;
    // Zeroed on the pool too: on one thread the 16 MB of a 1024² image are a few percent
    // of a fused chain's time, all of it sequential.
    if n >= SEQUENTIAL_PIXELS {
        pixels.par_extend(rayon::iter::repeat_n([0.0f32; 4], n));
    } else {
        pixels.resize(n, [0.0; 4]);
    }
    let band_len = (width as usize * BAND_ROWS).max(1);
    let time = call.ctx.time;
    let plan = Plan::new(tape, &out);
    let run_band = |regs: &mut Registers, band: usize, chunk: &mut [[f32; 4]]| {
        let rows = Rows {
            y0: (band * BAND_ROWS) as u32,
            width,
            height,
            time,
        };
        fill_rows(tape, &plan, out, rows, chunk, regs);
    };
    // Waves of several bands per thread: progress is reported and cancellation checked in
    // band order, on this thread, before a wave runs; the bands of a wave run side by side.
    // A wave ends when its slowest band does, so a wave holds enough bands (8 a thread) for
    // the threads to even out; a 1024² chain on 2 threads runs in 4 waves.
    let wave = rayon::current_num_threads().max(1) * WAVE_BANDS;
    let mut chunks: Vec<(usize, &mut [[f32; 4]])> =
        pixels.chunks_mut(band_len).enumerate().collect();
    for group in chunks.chunks_mut(wave) {
        for (band, _) in group.iter() {
            call.ctx
                .report_node_progress((band * BAND_ROWS) as f32 / height as f32);
            call.check_cancel()?;
        }
        // A small image (or a wave of one band) runs here: handing it to the pool costs
        // more than its pixels do. Either way each band gets the same steps.
        if n < SEQUENTIAL_PIXELS || group.len() == 1 {
            let mut regs = Registers::for_tape(tape);
            for (band, chunk) in group.iter_mut() {
                run_band(&mut regs, *band, chunk);
            }
            continue;
        }
        group.par_iter_mut().for_each_init(
            || Registers::for_tape(tape),
            |regs, (band, chunk)| run_band(regs, *band, chunk),
        );
    }
    Ok(Image {
        width,
        height,
        pixels,
    })
}

/// Where a run of whole rows lies: from row `y0` of an image of `width` x `height`, at
/// time `time`.
#[derive(Clone, Copy, Debug)]
struct Rows {
    y0: u32,
    width: u32,
    height: u32,
    time: f64,
}

/// Compute the pixels of `chunk` (whole rows from `rows.y0` on), channel `c` from register
/// `out[c]`, by `plan`.
///
/// A strip of columns at a time, row after row, so the steps that read only the column are
/// computed on the strip's first row and kept for the others.
fn fill_rows(
    tape: &Tape<'_>,
    plan: &Plan,
    out: Px,
    rows: Rows,
    chunk: &mut [[f32; 4]],
    regs: &mut Registers,
) {
    let row = rows.width as usize;
    let count = chunk.len() / row.max(1);
    let mut x0 = 0usize;
    while x0 < row {
        let n = LANES.min(row - x0);
        for r in 0..count {
            let run = Run {
                y: rows.y0 + r as u32,
                x0: x0 as u32,
                n,
                width: rows.width,
                height: rows.height,
                time: rows.time,
                fresh: r == 0,
            };
            run_tape(tape, plan, run, regs);
            let line = &mut chunk[r * row + x0..r * row + x0 + n];
            if let Some((ramp, t)) = plan.ramp_out {
                let ramp = &tape.ramps[ramp as usize];
                for (p, &t) in line.iter_mut().zip(&regs.lanes(t)[..n]) {
                    *p = ramp.eval(t);
                }
                continue;
            }
            let lanes = out.map(|r| &regs.lanes(r)[..n]);
            for (k, p) in line.iter_mut().enumerate() {
                *p = [
                    lanes[0][k] as f32,
                    lanes[1][k] as f32,
                    lanes[2][k] as f32,
                    lanes[3][k] as f32,
                ];
            }
        }
        x0 += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curves::MonotoneCurve;
    use crate::field::tape::{Binary, Coord, Reg, Step, Ternary, Unary};
    use crate::noise::FbmNoise;
    use crate::noise::{Fbm, Perlin};
    use crate::ramp::Ramp;
    use proptest::prelude::*;
    use std::sync::Arc;

    const COORDS: [Coord; 7] = [
        Coord::X,
        Coord::Y,
        Coord::U,
        Coord::V,
        Coord::Width,
        Coord::Height,
        Coord::Time,
    ];
    const UNARY: [Unary; 5] = [
        Unary::Neg,
        Unary::Floor,
        Unary::Sin,
        Unary::Round32,
        Unary::Saturate,
    ];
    const BINARY: [Binary; 6] = [
        Binary::Add,
        Binary::Sub,
        Binary::Mul,
        Binary::Div,
        Binary::Min,
        Binary::Lt,
    ];
    const TERNARY: [Ternary; 3] = [Ternary::Mix, Ternary::Clamp, Ternary::Select];

    /// A tape over `leaf` built from `ops` (kind, three operand picks, a constant), each
    /// operand an earlier register, and its four outputs; with `ramp_last` the outputs are
    /// the four channels of one ramp lookup of the last register.
    fn tape<'a>(
        leaf: &'a Image,
        ops: &[(u8, u16, u16, u16, f64)],
        outs: [u16; 4],
        ramp_last: bool,
    ) -> (Tape<'a>, Px) {
        let mut t = Tape::new();
        let mut regs: Vec<Reg> = t.image(leaf, 0).unwrap().to_vec();
        for c in COORDS {
            regs.push(t.push(Step::Coord(c)).unwrap());
        }
        let noise = t
            .add_noise(Arc::new(FbmNoise {
                perlin: Perlin::new(7),
                fbm: Fbm {
                    octaves: 2,
                    ..Fbm::default()
                },
            }))
            .unwrap();
        let stops = crate::ramp::default_stops();
        let ramp = t.add_ramp(Ramp::parse(&stops, 0).unwrap()).unwrap();
        let curve = t
            .add_curve(MonotoneCurve::new(&[(0.0, 0.0), (0.4, 0.7), (1.0, 1.0)]).unwrap())
            .unwrap();
        for &(kind, a, b, c, k) in ops {
            let pick = |i: u16| regs[i as usize % regs.len()];
            let (a, b, c) = (pick(a), pick(b), pick(c));
            let s = match kind % 9 {
                0 => Step::Const(k),
                1 => Step::Unary(UNARY[b as usize % UNARY.len()], a),
                2 => Step::Binary(BINARY[c as usize % BINARY.len()], a, b),
                3 => Step::Binary32(BINARY[c as usize % BINARY.len()], a, b),
                4 => Step::Ternary(TERNARY[kind as usize % TERNARY.len()], a, b, c),
                5 => Step::Noise { noise, x: a, y: b },
                6 => Step::Ramp {
                    ramp,
                    t: a,
                    channel: (b % 4) as u8,
                },
                7 => Step::Curve { curve, x: a },
                _ => Step::Coord(COORDS[a as usize % COORDS.len()]),
            };
            regs.push(t.push(s).unwrap());
        }
        let out = if ramp_last {
            let last = *regs.last().unwrap();
            [0u8, 1, 2, 3].map(|channel| {
                t.push(Step::Ramp {
                    ramp,
                    t: last,
                    channel,
                })
                .unwrap()
            })
        } else {
            outs.map(|i| regs[i as usize % regs.len()])
        };
        (t, out)
    }

    /// The image of `tape` by `plan`, band after band on one set of registers.
    fn image(tape: &Tape<'_>, plan: &Plan, out: Px, w: u32, h: u32) -> Vec<u32> {
        let mut px = vec![[0.0f32; 4]; (w * h) as usize];
        let mut regs = Registers::for_tape(tape);
        for (band, chunk) in px.chunks_mut(w as usize * BAND_ROWS).enumerate() {
            let rows = Rows {
                y0: (band * BAND_ROWS) as u32,
                width: w,
                height: h,
                time: 0.25,
            };
            fill_rows(tape, plan, out, rows, chunk, &mut regs);
        }
        px.as_flattened().iter().map(|c| c.to_bits()).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Leaving out dead steps, computing row steps once per run and column steps once
        /// per band, and writing a closing ramp straight into the image change no bit.
        #[test]
        fn a_plan_gives_the_bits_of_running_every_step_everywhere(
            ops in proptest::collection::vec(
                (any::<u8>(), any::<u16>(), any::<u16>(), any::<u16>(), -3.0f64..3.0),
                1..40,
            ),
            outs in any::<[u16; 4]>(),
            ramp_last in any::<bool>(),
            w in 1u32..600,
            h in 1u32..40,
        ) {
            let leaf = Image {
                width: w,
                height: h,
                pixels: (0..w * h)
                    .map(|i| {
                        let f = i as f32;
                        [(f * 0.37).sin(), f / (w * h) as f32, 0.5, (f * 0.11).cos()]
                    })
                    .collect(),
            };
            let (t, out) = tape(&leaf, &ops, outs, ramp_last);
            let planned = image(&t, &Plan::new(&t, &out), out, w, h);
            let every = image(&t, &Plan::everything(&t), out, w, h);
            prop_assert!(planned == every, "the planned image differs");
        }
    }
}
