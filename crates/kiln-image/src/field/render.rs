//! Making an image from a tape: one pass, one image. Bands of rows run side by side on the
//! rayon pool the node runs in; each pixel is computed by the same steps whichever thread
//! runs its band, so the bits are the same for every thread count.

use super::eval::{LANES, Registers, Run, run_tape};
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
    let row = width as usize;
    let band_len = (row * BAND_ROWS).max(1);
    let time = call.ctx.time;
    let run_band = |regs: &mut Registers, band: usize, chunk: &mut [[f32; 4]]| {
        for (r, line) in chunk.chunks_mut(row).enumerate() {
            let y = (band * BAND_ROWS + r) as u32;
            let mut x0 = 0usize;
            while x0 < row {
                let n = LANES.min(row - x0);
                let run = Run {
                    y,
                    x0: x0 as u32,
                    n,
                    width,
                    height,
                    time,
                };
                run_tape(tape, run, regs);
                let lanes = out.map(|r| &regs.lanes(r)[..n]);
                for (k, p) in line[x0..x0 + n].iter_mut().enumerate() {
                    *p = [
                        lanes[0][k] as f32,
                        lanes[1][k] as f32,
                        lanes[2][k] as f32,
                        lanes[3][k] as f32,
                    ];
                }
                x0 += n;
            }
        }
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
