//! Particles shown and written: `sim.particles.splat` draws them into an image, and
//! `sim.particles.points` lists their positions.
//!
//! The splat looks along -z: world `x` goes right and `y` up, the image shows
//! `center ± extent` across its width (the height in proportion). Each particle adds its
//! colour (its hue at full saturation, times `intensity`, fading as it ages) over a disk of
//! `size` pixels, weighted by `1 − (d / size)²`; alpha is 1. Particles are drawn in order, so
//! the sums are the same on every run.

use crate::image_bridge::{IMAGE_TYPE, Image};
use crate::particles::{PARTICLES_TYPE, Particles};
use crate::sim_op::{SimOp, image_size_params, with_image_size_params};
use kiln_core::op::{InputSpec, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// The fully saturated colour of `hue` (0..1).
pub fn hue_rgb(hue: f32) -> [f32; 3] {
    let h = hue.rem_euclid(1.0) * 6.0;
    let f = |n: f32| {
        let k = (n + h) % 6.0;
        1.0 - (k.min(4.0 - k).clamp(0.0, 1.0))
    };
    [f(5.0), f(3.0), f(1.0)]
}

fn run_splat(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let (w, h) = image_size_params(call)?;
    let s = call.heavy::<Particles>(0, "a particle system")?;
    let extent = call.param_float(2)? as f32;
    let (cx, cy) = (call.param_float(3)? as f32, call.param_float(4)? as f32);
    let size = call.param_float(5)? as f32;
    let intensity = call.param_float(6)? as f32;
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
    out[0] = img.into_value();
    Ok(())
}

fn run_points(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let s = call.heavy::<Particles>(0, "a particle system")?;
    let points: Vec<Value> = s
        .items
        .iter()
        .map(|p| Value::Vec3(p.pos.map(|c| c as f64)))
        .collect();
    out[0] = Value::List(points.into());
    Ok(())
}

/// Register `sim.particles.splat` and `sim.particles.points`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    let splat = OpSpec::new(
        "sim.particles.splat",
        "Particles drawn into an image as additive disks of their colour, fading with age, \
         looking along -z (x right, y up).",
    )
    .input(InputSpec::required(
        "particles",
        PARTICLES_TYPE,
        "the system",
    ))
    .output(OutputSpec::new("out", IMAGE_TYPE, "the image"));
    let positive = Rule::between(1e-6, 1e9);
    let splat = with_image_size_params(splat, 256)
        .param(
            ParamSpec::new(
                "extent",
                ValueType::Float,
                Value::Float(5.0),
                "half the width shown, in world units",
            )
            .with_rule(positive),
        )
        .param(
            ParamSpec::new(
                "center_x",
                ValueType::Float,
                Value::Float(0.0),
                "world x at the image's centre",
            )
            .with_rule(Rule::Finite),
        )
        .param(
            ParamSpec::new(
                "center_y",
                ValueType::Float,
                Value::Float(0.0),
                "world y at the image's centre",
            )
            .with_rule(Rule::Finite),
        )
        .param(
            ParamSpec::new(
                "size",
                ValueType::Float,
                Value::Float(1.5),
                "radius of a splat in pixels",
            )
            .with_rule(Rule::between(0.1, 64.0)),
        )
        .param(
            ParamSpec::new(
                "intensity",
                ValueType::Float,
                Value::Float(1.0),
                "brightness of a splat",
            )
            .with_rule(Rule::Finite),
        );
    reg.register(SimOp::new(splat, run_splat))?;
    let points = OpSpec::new(
        "sim.particles.points",
        "The positions of the particles, oldest first, as a list of vec3.",
    )
    .input(InputSpec::required(
        "particles",
        PARTICLES_TYPE,
        "the system",
    ))
    .output(OutputSpec::new("out", ValueType::List, "the positions"));
    reg.register(SimOp::new(points, run_points))?;
    Ok(())
}
