//! Particles shown and written: `sim.particles.splat` draws them into an image, and
//! `sim.particles.points` lists their positions.
//!
//! The splat looks along -z: world `x` goes right and `y` up, the image shows
//! `center ± extent` across its width (the height in proportion). Each particle adds its
//! colour (its hue at full saturation, times `intensity`, fading as it ages) over a disk of
//! `size` pixels, weighted by `1 − (d / size)²`; alpha is 1. Particles are drawn in order, so
//! the sums are the same on every run.

use crate::image_bridge::Image;
use crate::particles::Particles;
use crate::ports::{SIDE, image_size};
use kiln_core::op;
use kiln_core::op::{OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::Value;

/// The fully saturated colour of `hue` (0..1).
pub fn hue_rgb(hue: f32) -> [f32; 3] {
    let h = hue.rem_euclid(1.0) * 6.0;
    let f = |n: f32| {
        let k = (n + h) % 6.0;
        1.0 - (k.min(4.0 - k).clamp(0.0, 1.0))
    };
    [f(5.0), f(3.0), f(1.0)]
}

/// Particles drawn into an image as additive disks of their colour, fading with age, looking
/// along -z (x right, y up).
#[op("sim.particles.splat",
    params_rule = kiln_image::image::pixels_rule, out = "the image")]
#[allow(clippy::too_many_arguments)]
fn splat(
    #[input("the system")] particles: &Particles,
    #[param("width in cells", default = 256, rule = SIDE, plan_time)] width: i64,
    #[param("height in cells", default = 256, rule = SIDE, plan_time)] height: i64,
    #[param("half the width shown, in world units", default = 5.0, range = 1e-6..=1e9)] extent: f64,
    #[param("world x at the image's centre", default = 0.0, rule = Rule::Finite)] center_x: f64,
    #[param("world y at the image's centre", default = 0.0, rule = Rule::Finite)] center_y: f64,
    #[param("radius of a splat in pixels", default = 1.5, range = 0.1..=64.0)] size: f64,
    #[param("brightness of a splat", default = 1.0, rule = Rule::Finite)] intensity: f64,
) -> Result<Image, OpError> {
    let (w, h) = image_size(width, height)?;
    let s = particles;
    let extent = extent as f32;
    let (cx, cy) = (center_x as f32, center_y as f32);
    let size = size as f32;
    let intensity = intensity as f32;
    let mut img = Image::filled(w, h, [0.0, 0.0, 0.0, 1.0]);
    let scale = w as f32 / (2.0 * extent);
    let r = size.ceil() as i64;
    for p in &s.items {
        let px = (p.pos[0] - cx) * scale + w as f32 * 0.5;
        let py = h as f32 * 0.5 - (p.pos[1] - cy) * scale;
        let fade = (1.0 - p.age / p.life.max(1e-6)).clamp(0.0, 1.0);
        let c = hue_rgb(p.hue).map(|v| v * intensity * fade);
        let (ix, iy) = (px.floor() as i64, py.floor() as i64);
        // A splat that misses the image is not drawn; a far one's pixel (saturated at the
        // ends of `i64`) is never added to.
        let misses = ix.saturating_add(r) < 0
            || iy.saturating_add(r) < 0
            || ix.saturating_sub(r) >= w as i64
            || iy.saturating_sub(r) >= h as i64;
        if misses {
            continue;
        }
        for y in iy - r..=iy + r {
            for x in ix - r..=ix + r {
                if x < 0 || y < 0 || x >= w as i64 || y >= h as i64 {
                    continue;
                }
                let (dx, dy) = (x as f32 + 0.5 - px, y as f32 + 0.5 - py);
                let d2 = (dx * dx + dy * dy) / (size * size).max(1e-6);
                if d2 < 1.0 {
                    let px = &mut img.pixels[y as usize * w as usize + x as usize];
                    for k in 0..3 {
                        px[k] += c[k] * (1.0 - d2);
                    }
                }
            }
        }
    }
    Ok(img)
}

/// The positions of the particles, oldest first, as a list of vec3.
#[op("sim.particles.points", out = "the positions")]
fn points(#[input("the system")] particles: &Particles) -> Vec<Value> {
    particles
        .items
        .iter()
        .map(|p| Value::Vec3(p.pos.map(|c| c as f64)))
        .collect()
}

/// Register `sim.particles.splat` and `sim.particles.points`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(SplatOp::new())?;
    reg.register(PointsOp::new())?;
    Ok(())
}
