//! The cloth ops: `sim.cloth.init` (a hanging lattice with pins), `sim.cloth.step`
//! (`substeps` Verlet substeps, see [`crate::cloth`]) and `sim.cloth.view` (the cloth drawn
//! from the front: x right, y up, each lattice quad as two flat-shaded triangles, the rows
//! coloured in three horizontal bands, nearer triangles over farther ones).

use crate::cloth::{Cloth, ClothSettings};
use crate::image_bridge::Image;
use crate::ports::{SIDE, f32s, grid_size, image_size};
use kiln_core::op;
use kiln_core::op::{OpCall, OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};

/// A cloth at rest: a lattice of points hanging in the x-y plane (top row at y = 0), pinned
/// along the top, at its top corners, along its left edge, or nowhere.
#[op("sim.cloth.init", out = "the cloth")]
fn cloth_init(
    #[param("width in cells", default = 24, rule = SIDE, plan_time)] width: i64,
    #[param("height in cells", default = 24, rule = SIDE, plan_time)] height: i64,
    #[param("rest distance between neighbours", default = 0.1, range = 1e-4..=1e4)] spacing: f64,
    #[param(
        "`top`, `corners`, `left` or `none`",
        default = "top",
        rule = Rule::OneOf(&["top", "corners", "left", "none"])
    )]
    pins: &str,
) -> Result<Cloth, OpError> {
    let (w, h) = grid_size(width, height)?;
    if w < 2 || h < 2 || w as u64 * h as u64 > 1 << 20 {
        return Err(OpError::param(
            0,
            format!("expected 2 to 1024 points a side and at most 2^20 in all, found {w} x {h}"),
        ));
    }
    let pin = |i: u32, j: u32| match pins {
        "top" => j == 0,
        "corners" => j == 0 && (i == 0 || i == w - 1),
        "left" => i == 0,
        _ => false,
    };
    Ok(Cloth::hanging(w, h, spacing as f32, pin))
}

/// Mass–spring cloth (structural, shear and bend springs) with Störmer–Verlet integration:
/// gravity, wind and a fluttering wind noise; pinned points stay.
#[op("sim.cloth.step", out = "the cloth one tick on")]
#[allow(clippy::too_many_arguments)]
fn cloth_step(
    #[input("the cloth (from a latch)")] state: &Cloth,
    #[input("constant acceleration", default = [0.0, -9.81, 0.0])] gravity: [f64; 3],
    #[input("constant wind acceleration", default = [0.0, 0.0, 0.0])] wind: [f64; 3],
    #[input("strength of the wind noise", default = 0.0)] flutter: f64,
    #[input("spring stiffness per unit mass", default = 2000.0, rule = Rule::NON_NEGATIVE)]
    stiffness: f64,
    #[input("fraction of the velocity lost per substep", default = 0.002, range = 0.0..=1.0)]
    damping: f64,
    #[input("seconds per tick", default = 1.0 / 30.0, rule = Rule::NON_NEGATIVE)] dt: f64,
    #[param("Verlet substeps per tick", default = 16, range = 1..=1000)] substeps: i64,
    call: &OpCall,
) -> Result<Cloth, OpError> {
    let substeps = substeps.clamp(1, 1000);
    let s = ClothSettings {
        gravity: f32s(gravity),
        wind: f32s(wind),
        flutter: flutter as f32,
        stiffness: stiffness as f32,
        damping: damping as f32,
        dt: dt as f32 / substeps as f32,
    };
    let mut c = state.step(&s);
    for _ in 1..substeps {
        call.check_cancel()?;
        c = c.step(&s);
    }
    Ok(c)
}

const BANDS: [[f32; 3]; 3] = [[0.85, 0.1, 0.12], [0.95, 0.95, 0.92], [0.1, 0.2, 0.6]];

/// A cloth drawn from the front (x right, y up) as flat-shaded triangles in three
/// horizontal colour bands, over a sky colour.
#[op("sim.cloth.view",
    params_rule = kiln_image::image::pixels_rule, out = "the image")]
fn cloth_view(
    #[input("the cloth")] cloth: &Cloth,
    #[param("width in cells", default = 256, rule = SIDE, plan_time)] width: i64,
    #[param("height in cells", default = 256, rule = SIDE, plan_time)] height: i64,
    #[param("half the width shown", default = 2.0, range = 1e-6..=1e9)] extent: f64,
    #[param("world x at the centre", default = 0.0, rule = Rule::Finite)] center_x: f64,
    #[param("world y at the centre", default = 0.0, rule = Rule::Finite)] center_y: f64,
) -> Result<Image, OpError> {
    let (w, h) = image_size(width, height)?;
    let c = cloth;
    let extent = extent as f32;
    let (cx, cy) = (center_x as f32, center_y as f32);
    let mut img = Image::filled(w, h, [0.55, 0.75, 0.95, 1.0]);
    let mut depth = vec![f32::NEG_INFINITY; w as usize * h as usize];
    let scale = w as f32 / (2.0 * extent);
    let screen = |p: [f32; 3]| {
        [
            (p[0] - cx) * scale + w as f32 / 2.0,
            h as f32 / 2.0 - (p[1] - cy) * scale,
            p[2],
        ]
    };
    let cw = c.width as usize;
    for j in 0..c.height as usize - 1 {
        let band = BANDS[(j * 3 / (c.height as usize - 1)).min(2)];
        for i in 0..cw - 1 {
            let q = [
                j * cw + i,
                j * cw + i + 1,
                (j + 1) * cw + i,
                (j + 1) * cw + i + 1,
            ];
            for tri in [[q[0], q[1], q[2]], [q[1], q[3], q[2]]] {
                let [a, b, d] = tri.map(|n| c.pos[n]);
                let (u, v) = (
                    [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
                    [d[0] - a[0], d[1] - a[1], d[2] - a[2]],
                );
                let n = [
                    u[1] * v[2] - u[2] * v[1],
                    u[2] * v[0] - u[0] * v[2],
                    u[0] * v[1] - u[1] * v[0],
                ];
                let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt().max(1e-12);
                let light = 0.35 + 0.65 * ((n[0] * 0.3 + n[1] * 0.4 + n[2] * 0.866) / len).abs();
                let colour = band.map(|x| x * light);
                let p = tri.map(|n| screen(c.pos[n]));
                fill(&mut img, &mut depth, p, colour);
            }
        }
    }
    Ok(img)
}

/// Fill the screen triangle `p` (x, y in pixels, z depth) where it is nearer than `depth`.
fn fill(img: &mut Image, depth: &mut [f32], p: [[f32; 3]; 3], colour: [f32; 3]) {
    let (w, h) = (img.width as i64, img.height as i64);
    let edge = |a: [f32; 3], b: [f32; 3], x: f32, y: f32| {
        (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0])
    };
    let area = edge(p[0], p[1], p[2][0], p[2][1]);
    if area.abs() < 1e-9 {
        return;
    }
    let lo = |k: usize| {
        p.iter()
            .map(|q| q[k])
            .fold(f32::MAX, f32::min)
            .floor()
            .max(0.0) as i64
    };
    let hi = |k: usize, n: i64| {
        (p.iter().map(|q| q[k]).fold(f32::MIN, f32::max).ceil() as i64).min(n - 1)
    };
    for y in lo(1)..=hi(1, h) {
        for x in lo(0)..=hi(0, w) {
            let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
            let b = [
                edge(p[1], p[2], fx, fy) / area,
                edge(p[2], p[0], fx, fy) / area,
                edge(p[0], p[1], fx, fy) / area,
            ];
            if b.iter().all(|&t| t >= 0.0) {
                let z = b[0] * p[0][2] + b[1] * p[1][2] + b[2] * p[2][2];
                let k = (y * w + x) as usize;
                if z > depth[k] {
                    depth[k] = z;
                    img.pixels[k] = [colour[0], colour[1], colour[2], 1.0];
                }
            }
        }
    }
}

/// Register `sim.cloth.init`, `sim.cloth.step` and `sim.cloth.view`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(ClothInitOp::new())?;
    reg.register(ClothStepOp::new())?;
    reg.register(ClothViewOp::new())?;
    Ok(())
}
