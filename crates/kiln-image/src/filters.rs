//! Filters that read neighbouring pixels (so they are not per-pixel ops and end a fused
//! chain): `image.gaussian` (a separable Gaussian blur), `image.normal` (a tangent-space
//! normal map from a height) and `image.warp` (displace by another image). Each row of the
//! result is computed by itself, rows side by side on the rayon pool, so the bits are the
//! same for every thread count. Neighbours outside the image wrap around (`edges = wrap`,
//! for tiles) or are read at the nearest edge (`clamp`).

use crate::image::Image;
use kiln_core::op::{OpCall, OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};
use rayon::prelude::*;

/// Largest Gaussian sigma, in pixels.
pub const MAX_SIGMA: f64 = 256.0;

/// How a neighbour outside the image is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edges {
    /// From the other side (a tile continues into itself).
    Wrap,
    /// At the nearest edge pixel.
    Clamp,
}

impl Edges {
    pub(crate) fn parse(s: &str) -> Edges {
        if s == "clamp" {
            Edges::Clamp
        } else {
            Edges::Wrap
        }
    }
    /// The index `i` (any integer) read for a side of `n` pixels.
    pub fn index(self, i: i64, n: u32) -> usize {
        let n = n as i64;
        match self {
            Edges::Wrap => i.rem_euclid(n) as usize,
            Edges::Clamp => i.clamp(0, n - 1) as usize,
        }
    }
}

/// An image `w` x `h` whose row `y` is `row(y, out)`, rows on the rayon pool.
pub(crate) fn by_rows(
    call: &OpCall<'_>,
    w: u32,
    h: u32,
    row: impl Fn(u32, &mut [[f32; 4]]) + Sync,
) -> Result<Image, OpError> {
    let n = w as usize * h as usize;
    let mut pixels: Vec<[f32; 4]> =
        kiln_core::memory::try_vec(n, || format!("an image of {w} x {h} pixels"))
            .map_err(|e| OpError::new(e.to_string()))?;
    pixels.resize(n, [0.0; 4]);
    call.check_cancel()?;
    pixels
        .par_chunks_mut(w.max(1) as usize)
        .enumerate()
        .for_each(|(y, out)| row(y as u32, out));
    call.check_cancel()?;
    Ok(Image {
        width: w,
        height: h,
        pixels,
    })
}

/// The normalised Gaussian weights of `sigma` for offsets `-r..=r`, `r = ceil(3 sigma)`.
pub fn gaussian_weights(sigma: f64) -> Vec<f64> {
    let r = (3.0 * sigma).ceil() as i64;
    let w: Vec<f64> = (-r..=r)
        .map(|d| (-(d * d) as f64 / (2.0 * sigma * sigma)).exp())
        .collect();
    let sum: f64 = w.iter().sum();
    w.into_iter().map(|x| x / sum).collect()
}

/// A separable Gaussian blur: rows, then columns, each in `f64` with the result stored as
/// `f32` after each pass.
pub fn gaussian(
    call: &OpCall<'_>,
    img: &Image,
    sigma: f64,
    edges: Edges,
) -> Result<Image, OpError> {
    if sigma <= 0.0 || img.pixels.is_empty() {
        return Ok(img.clone());
    }
    let k = gaussian_weights(sigma);
    let r = (k.len() / 2) as i64;
    let (w, h) = (img.width, img.height);
    let pass1 = by_rows(call, w, h, |y, out| {
        for (x, o) in out.iter_mut().enumerate() {
            let mut s = [0.0f64; 4];
            for (t, wt) in k.iter().enumerate() {
                let xx = edges.index(x as i64 + t as i64 - r, w);
                let p = img.get(xx as u32, y);
                for c in 0..4 {
                    s[c] += wt * p[c] as f64;
                }
            }
            *o = s.map(|v| v as f32);
        }
    })?;
    by_rows(call, w, h, |y, out| {
        for (x, o) in out.iter_mut().enumerate() {
            let mut s = [0.0f64; 4];
            for (t, wt) in k.iter().enumerate() {
                let yy = edges.index(y as i64 + t as i64 - r, h);
                let p = pass1.get(x as u32, yy as u32);
                for c in 0..4 {
                    s[c] += wt * p[c] as f64;
                }
            }
            *o = s.map(|v| v as f32);
        }
    })
}

/// The normal of the height field `img` (its red channel) at every pixel, by central
/// differences: `n = normalize(-s * dh/dx, -s * dh/dy, 1)` with `dh/dx = (h(x+1) - h(x-1)) /
/// 2`, stored as `n * 0.5 + 0.5` (OpenGL convention: green up means the height grows
/// upwards in the image, so `dh/dy` is taken towards the top row).
pub fn normal_map(
    call: &OpCall<'_>,
    img: &Image,
    strength: f64,
    edges: Edges,
) -> Result<Image, OpError> {
    let (w, h) = (img.width, img.height);
    by_rows(call, w, h, |y, out| {
        let at =
            |x: i64, y: i64| img.get(edges.index(x, w) as u32, edges.index(y, h) as u32)[0] as f64;
        for (x, o) in out.iter_mut().enumerate() {
            let (x, yy) = (x as i64, y as i64);
            let dx = (at(x + 1, yy) - at(x - 1, yy)) / 2.0;
            let dy = (at(x, yy - 1) - at(x, yy + 1)) / 2.0;
            let (nx, ny, nz) = (-strength * dx, -strength * dy, 1.0);
            let len = (nx * nx + ny * ny + nz * nz).sqrt();
            *o = [
                (nx / len * 0.5 + 0.5) as f32,
                (ny / len * 0.5 + 0.5) as f32,
                (nz / len * 0.5 + 0.5) as f32,
                1.0,
            ];
        }
    })
}

/// Bilinear sample of `img` at the continuous pixel position `(x, y)` (pixel centres at
/// whole numbers plus one half).
pub fn bilinear(img: &Image, x: f64, y: f64, edges: Edges) -> [f32; 4] {
    let (fx, fy) = (x - 0.5, y - 0.5);
    let (x0, y0) = (fx.floor(), fy.floor());
    let (tx, ty) = (fx - x0, fy - y0);
    let (x0, y0) = (x0 as i64, y0 as i64);
    let p = |dx: i64, dy: i64| {
        img.get(
            // Saturating: a position past `i64` samples the edge it is beyond.
            edges.index(x0.saturating_add(dx), img.width) as u32,
            edges.index(y0.saturating_add(dy), img.height) as u32,
        )
    };
    let (a, b, c, d) = (p(0, 0), p(1, 0), p(0, 1), p(1, 1));
    std::array::from_fn(|k| {
        let top = a[k] as f64 + (b[k] as f64 - a[k] as f64) * tx;
        let bottom = c[k] as f64 + (d[k] as f64 - c[k] as f64) * tx;
        (top + (bottom - top) * ty) as f32
    })
}

/// The rule of an `edges` param: `wrap` or `clamp`.
pub(crate) const EDGES: Rule = Rule::OneOf(&["wrap", "clamp"]);

/// Gaussian blur of standard deviation `sigma` pixels (weights out to 3 sigma, normalised),
/// rows then columns, every channel.
#[kiln_core::op("image.gaussian", out = "the blurred image")]
pub fn gaussian_blur(
    call: &OpCall<'_>,
    #[input("the source image")] image: &Image,
    #[input(
        "standard deviation in pixels",
        default = 2.0,
        rule = Rule::between(0.0, MAX_SIGMA)
    )]
    sigma: f64,
    #[param(
        "neighbours outside the image: wrap (tiles) or clamp",
        default = "wrap",
        rule = EDGES
    )]
    edges: &str,
) -> Result<Image, OpError> {
    gaussian(call, image, sigma, Edges::parse(edges))
}

/// A normal map from a height (the red channel): central differences scaled by `strength`,
/// n = normalize(-s dh/dx, -s dh/dy, 1) stored as n * 0.5 + 0.5.
#[kiln_core::op("image.normal", out = "the normal map")]
pub fn normal(
    call: &OpCall<'_>,
    #[input("the height field")] height: &Image,
    #[input("how steep the height is", default = 4.0, rule = Rule::Finite)] strength: f64,
    #[param(
        "neighbours outside the image: wrap (tiles) or clamp",
        default = "wrap",
        rule = EDGES
    )]
    edges: &str,
) -> Result<Image, OpError> {
    normal_map(call, height, strength, Edges::parse(edges))
}

/// Displace an image by another: pixel (x, y) reads the source at (x, y) + (r - 0.5, g -
/// 0.5) * amount * width of the warp image's pixel, bilinearly (domain warp).
#[kiln_core::op("image.warp", out = "the warped image")]
pub fn warp(
    call: &OpCall<'_>,
    #[input("the image warped")] image: &Image,
    #[input("the displacement (r: x, g: y), the size of `image`")] by: &Image,
    #[input(
        "displacement, a fraction of the width",
        default = 0.1,
        rule = Rule::Finite
    )]
    amount: f64,
    #[param(
        "neighbours outside the image: wrap (tiles) or clamp",
        default = "wrap",
        rule = EDGES
    )]
    edges: &str,
) -> Result<Image, OpError> {
    let img = image;
    if (by.width, by.height) != (img.width, img.height) {
        return Err(OpError::input(
            1,
            format!(
                "size {}x{} does not match image's {}x{}",
                by.width, by.height, img.width, img.height
            ),
        ));
    }
    let amount = amount * img.width as f64;
    let edges = Edges::parse(edges);
    by_rows(call, img.width, img.height, |y, row| {
        for (x, o) in row.iter_mut().enumerate() {
            let d = by.get(x as u32, y);
            let sx = x as f64 + 0.5 + (d[0] as f64 - 0.5) * amount;
            let sy = y as f64 + 0.5 + (d[1] as f64 - 0.5) * amount;
            *o = bilinear(img, sx, sy, edges);
        }
    })
}

/// Register the filters.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(GaussianBlurOp::new())?;
    reg.register(NormalOp::new())?;
    reg.register(WarpOp::new())
}
