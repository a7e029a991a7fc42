//! Blurs along a path, rows on the rayon pool (the same bits for every thread count):
//!
//! * `image.directional_blur` (motion blur): the mean of `n = ceil(length) + 1` bilinear
//!   samples evenly spaced on the segment of `length` pixels centred on the pixel, at `angle`
//!   degrees (0: along the rows, 90: up the columns);
//! * `image.slope_blur`: the mean of the pixel and `samples` more bilinear samples along a
//!   path that walks downhill on a second image (the `slope`, its red channel) in steps of
//!   `length / samples` pixels, the direction at each step its central-difference gradient
//!   (a flat spot stops the walk where it is, so its later samples repeat the last point).
//!
//! Both read every channel; a constant image stays constant. Neighbours outside the image
//! wrap (tiles stay tiles) or clamp.

use crate::filters::{EDGES, Edges, bilinear, by_rows};
use crate::image::Image;
use kiln_core::op::{OpCall, OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};

/// Longest blur path, in pixels.
pub const MAX_LENGTH: f64 = 512.0;

/// Most steps of a slope blur's walk.
pub const MAX_SAMPLES: i64 = 256;

fn mean(sum: [f64; 4], n: usize) -> [f32; 4] {
    sum.map(|s| (s / n as f64) as f32)
}

fn add(sum: &mut [f64; 4], p: [f32; 4]) {
    for c in 0..4 {
        sum[c] += p[c] as f64;
    }
}

/// The downhill unit direction of `slope`'s red channel at the continuous point `(x, y)`
/// (central differences one pixel apart), or `None` on a flat spot.
pub fn downhill(slope: &Image, x: f64, y: f64, edges: Edges) -> Option<(f64, f64)> {
    let h = |x: f64, y: f64| bilinear(slope, x, y, edges)[0] as f64;
    let gx = (h(x + 1.0, y) - h(x - 1.0, y)) / 2.0;
    let gy = (h(x, y + 1.0) - h(x, y - 1.0)) / 2.0;
    let len = (gx * gx + gy * gy).sqrt();
    (len > 1e-12).then(|| (-gx / len, -gy / len))
}

/// Motion blur: the mean of ceil(length) + 1 bilinear samples evenly spaced on a segment of
/// `length` pixels centred on the pixel, at `angle` degrees (0 along the rows, 90 up the
/// columns); every channel.
#[kiln_core::op("image.directional_blur", out = "the blurred image")]
pub fn directional_blur(
    call: &OpCall<'_>,
    #[input("the source image")] image: &Image,
    #[input(
        "length of the path, in pixels",
        default = 8.0,
        rule = Rule::between(0.0, MAX_LENGTH)
    )]
    length: f64,
    #[input(
        "direction of the streaks, degrees anticlockwise from the rows",
        default = 0.0,
        rule = Rule::Finite
    )]
    angle: f64,
    #[param(
        "neighbours outside the image: wrap (tiles) or clamp",
        default = "wrap",
        rule = EDGES
    )]
    edges: &str,
) -> Result<Image, OpError> {
    let img = image;
    let len = length.clamp(0.0, MAX_LENGTH);
    let a = angle.to_radians();
    let edges = Edges::parse(edges);
    let n = len.ceil() as usize + 1;
    let (dx, dy) = (a.cos(), -a.sin());
    by_rows(call, img.width, img.height, |y, row| {
        for (x, o) in row.iter_mut().enumerate() {
            let (cx, cy) = (x as f64 + 0.5, y as f64 + 0.5);
            let mut sum = [0.0; 4];
            for k in 0..n {
                let t = if n > 1 {
                    k as f64 / (n - 1) as f64 - 0.5
                } else {
                    0.0
                } * len;
                add(&mut sum, bilinear(img, cx + t * dx, cy + t * dy, edges));
            }
            *o = mean(sum, n);
        }
    })
}

/// Slope blur: the mean of the pixel and `samples` bilinear samples on a path walking
/// downhill on `slope` (its red channel) in steps of length / samples pixels; every channel.
#[kiln_core::op("image.slope_blur", out = "the blurred image")]
pub fn slope_blur(
    call: &OpCall<'_>,
    #[input("the source image")] image: &Image,
    #[input("the height whose downhill direction the path follows, the size of `image`")]
    slope: &Image,
    #[input(
        "length of the path, in pixels",
        default = 8.0,
        rule = Rule::between(0.0, MAX_LENGTH)
    )]
    length: f64,
    #[param(
        "steps of the walk",
        default = 8,
        rule = Rule::Ints { min: 1, max: MAX_SAMPLES },
        plan_time
    )]
    samples: i64,
    #[param(
        "neighbours outside the image: wrap (tiles) or clamp",
        default = "wrap",
        rule = EDGES
    )]
    edges: &str,
) -> Result<Image, OpError> {
    let img = image;
    if (slope.width, slope.height) != (img.width, img.height) {
        return Err(OpError::input(
            1,
            format!(
                "size {}x{} does not match image's {}x{}",
                slope.width, slope.height, img.width, img.height
            ),
        ));
    }
    let len = length.clamp(0.0, MAX_LENGTH);
    let samples = samples.clamp(1, MAX_SAMPLES) as usize;
    let edges = Edges::parse(edges);
    let step = len / samples as f64;
    by_rows(call, img.width, img.height, |y, row| {
        for (x, o) in row.iter_mut().enumerate() {
            let (mut px, mut py) = (x as f64 + 0.5, y as f64 + 0.5);
            let mut sum = [0.0; 4];
            add(&mut sum, img.get(x as u32, y));
            for _ in 0..samples {
                if let Some((dx, dy)) = downhill(slope, px, py, edges) {
                    px += dx * step;
                    py += dy * step;
                }
                add(&mut sum, bilinear(img, px, py, edges));
            }
            *o = mean(sum, samples + 1);
        }
    })
}

/// Register `image.directional_blur` and `image.slope_blur`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(DirectionalBlurOp::new())?;
    reg.register(SlopeBlurOp::new())
}
