//! Data-parallel row loops: each row of the output is computed from inputs only, so the
//! result does not depend on how rows are spread over threads (the same bits for 1 and N
//! threads), and rows run on the current Rayon pool.

use crate::grid::Grid;
use rayon::prelude::*;

/// Fill every row of `out` with `row(y, floats_of_row_y)`, rows in parallel. `row` must
/// write every float of its row.
pub(crate) fn for_each_row(out: &mut Grid, row: impl Fn(u32, &mut [f32]) + Sync + Send) {
    let len = out.row_len().max(1);
    // Rows of at least ~4096 floats per task, so tiny grids do not pay for the spreading.
    let min = (4096 / len).max(1);
    if rayon::current_num_threads() == 1 {
        // One thread: the same rows in the same order, without splitting into tasks.
        for (y, r) in out.data_mut().chunks_mut(len).enumerate() {
            row(y as u32, r);
        }
        return;
    }
    out.data_mut()
        .par_chunks_mut(len)
        .with_min_len(min)
        .enumerate()
        .for_each(|(y, r)| row(y as u32, r));
}

/// `(x + dx) mod n` for a small offset `dx` (|dx| < n is not required).
#[inline(always)]
pub(crate) fn wrap(x: u32, dx: i32, n: u32) -> u32 {
    (x as i64 + dx as i64).rem_euclid(n as i64) as u32
}
