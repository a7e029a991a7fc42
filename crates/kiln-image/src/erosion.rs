//! `image.erode`: thermal erosion of a heightmap (its red channel). Material slides from a
//! pixel to each of its four neighbours lower than it by more than the `talus`: per
//! iteration, `rate * (h - h_n - talus) / 8` moves to neighbour `n`, every flow computed from
//! the heights before the iteration (a Jacobi step, so rows can be updated side by side and
//! the bits are the same for every thread count). What leaves one pixel arrives at another,
//! so the total height is kept (up to rounding), and a slope no steeper than the talus does
//! not move. Thermal erosion is deterministic: it has no seed.
//!
//! Neighbours outside the image wrap (a tile erodes as a tile) or clamp (read as the pixel
//! itself: nothing flows out). The result is grey, alpha 1, computed in `f64`.

use crate::filters::{EDGES, Edges};
use crate::image::Image;
use kiln_core::op::{OpCall, OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};
use rayon::prelude::*;

/// Most iterations of one erosion.
pub const MAX_ITERATIONS: i64 = 1000;

/// Most pixel updates (pixels times iterations) of one erosion.
pub const MAX_WORK: u64 = 1 << 32;

/// `iterations` thermal erosion steps of the heights `h` (`w` x `h`, row-major).
pub fn erode(
    call: &OpCall<'_>,
    heights: &mut Vec<f64>,
    size: (u32, u32),
    iterations: i64,
    talus: f64,
    rate: f64,
    edges: Edges,
) -> Result<(), OpError> {
    let (w, h) = size;
    let n = heights.len();
    let mut next: Vec<f64> = kiln_core::memory::try_vec(n, || format!("erosion of {w} x {h}"))
        .map_err(|e| OpError::new(e.to_string()))?;
    next.resize(n, 0.0);
    let flow = |from: f64, to: f64| rate * (from - to - talus).max(0.0) / 8.0;
    for _ in 0..iterations {
        call.check_cancel()?;
        let cur = &*heights;
        next.par_chunks_mut(w.max(1) as usize)
            .enumerate()
            .for_each(|(y, row)| {
                let at = |x: i64, y: i64| cur[edges.index(y, h) * w as usize + edges.index(x, w)];
                for (x, o) in row.iter_mut().enumerate() {
                    let (x, y) = (x as i64, y as i64);
                    let c = at(x, y);
                    let mut d = 0.0;
                    for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                        let nb = at(x + dx, y + dy);
                        d += flow(nb, c) - flow(c, nb);
                    }
                    *o = c + d;
                }
            });
        std::mem::swap(heights, &mut next);
    }
    Ok(())
}

/// Thermal erosion of a heightmap (red channel): each iteration moves rate * (h - h_n -
/// talus) / 8 to every lower neighbour beyond the talus, all flows from the heights before
/// it; total height kept; grey.
#[kiln_core::op("image.erode", out = "the eroded height, grey")]
pub fn thermal_erosion(
    call: &OpCall<'_>,
    #[input("the heightmap")] height: &Image,
    #[param(
        "erosion steps",
        default = 50,
        rule = Rule::Ints { min: 0, max: MAX_ITERATIONS },
        plan_time
    )]
    iterations: i64,
    #[param(
        "height difference to a neighbour that stays put",
        default = 0.004,
        rule = Rule::between(0.0, 1e6)
    )]
    talus: f64,
    #[param(
        "share of the excess moved per step (0..=1)",
        default = 0.5,
        rule = Rule::between(0.0, 1.0)
    )]
    rate: f64,
    #[param(
        "neighbours outside the image: wrap (tiles) or clamp",
        default = "wrap",
        rule = EDGES
    )]
    edges: &str,
) -> Result<Image, OpError> {
    let img = height;
    let work = img.pixels.len() as u64 * iterations as u64;
    if work > MAX_WORK {
        return Err(OpError::param(
            0,
            format!(
                "{iterations} iterations of {} x {} pixels are {work} updates, beyond the limit \
                 of {MAX_WORK}",
                img.width, img.height
            ),
        ));
    }
    let rate = rate.clamp(0.0, 1.0);
    let edges = Edges::parse(edges);
    let n = img.pixels.len();
    let mut heights: Vec<f64> = kiln_core::memory::try_vec(n, || {
        format!("a heightmap of {} x {}", img.width, img.height)
    })
    .map_err(|e| OpError::new(e.to_string()))?;
    heights.extend(img.pixels.iter().map(|p| p[0] as f64));
    let size = (img.width, img.height);
    erode(call, &mut heights, size, iterations, talus, rate, edges)?;
    let mut pixels: Vec<[f32; 4]> = kiln_core::memory::try_vec(n, || {
        format!("an image of {} x {} pixels", img.width, img.height)
    })
    .map_err(|e| OpError::new(e.to_string()))?;
    pixels.extend(heights.iter().map(|&v| {
        let g = v as f32;
        [g, g, g, 1.0]
    }));
    Ok(Image {
        width: img.width,
        height: img.height,
        pixels,
    })
}

/// Register `image.erode`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(ThermalErosionOp::new())
}
