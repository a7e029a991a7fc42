//! The cloth ops: `sim.cloth.init` (a hanging lattice with pins), `sim.cloth.step`
//! (`substeps` Verlet substeps, see [`crate::cloth`]) and `sim.cloth.view` (the cloth drawn
//! from the front: x right, y up, each lattice quad as two flat-shaded triangles, the rows
//! coloured in three horizontal bands, nearer triangles over farther ones).

use crate::cloth::{CLOTH_TYPE, Cloth, ClothSettings};
use crate::image_bridge::{IMAGE_TYPE, Image};
use crate::sim_op::{
    SimOp, image_size_params, size_params, with_image_size_params, with_size_params,
};
use kiln_core::op::{InputSpec, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

fn run_init(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let (w, h) = size_params(call)?;
    if w < 2 || h < 2 || w as u64 * h as u64 > 1 << 20 {
        return Err(OpError::param(
            0,
            format!("expected 2 to 1024 points a side and at most 2^20 in all, found {w} x {h}"),
        ));
    }
    let spacing = call.param_float(2)? as f32;
    let pins = call.param_str(3)?;
    let pin = |i: u32, j: u32| match pins {
        "top" => j == 0,
        "corners" => j == 0 && (i == 0 || i == w - 1),
        "left" => i == 0,
        _ => false,
    };
    out[0] = Cloth::hanging(w, h, spacing, pin).into_value();
    Ok(())
}

fn vec3(call: &OpCall<'_>, i: usize) -> Result<[f32; 3], OpError> {
    match call.inputs.get(i) {
        Some(Value::Vec3(v)) => Ok(v.map(|c| c as f32)),
        v => Err(OpError::input(
            i,
            format!(
                "expected a vec3, found {}",
                v.map_or("nothing", Value::type_name)
            ),
        )),
    }
}

fn run_step(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let cloth = call.heavy::<Cloth>(0, "a cloth")?;
    let s = ClothSettings {
        gravity: vec3(call, 1)?,
        wind: vec3(call, 2)?,
        flutter: call.float(3)? as f32,
        stiffness: call.float(4)? as f32,
        damping: call.float(5)? as f32,
        dt: call.float(6)? as f32 / call.param_int(0)?.clamp(1, 1000) as f32,
    };
    let mut c = cloth.step(&s);
    for _ in 1..call.param_int(0)?.clamp(1, 1000) {
        call.check_cancel()?;
        c = c.step(&s);
    }
    out[0] = c.into_value();
    Ok(())
}

const BANDS: [[f32; 3]; 3] = [[0.85, 0.1, 0.12], [0.95, 0.95, 0.92], [0.1, 0.2, 0.6]];

fn run_view(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let (w, h) = image_size_params(call)?;
    let c = call.heavy::<Cloth>(0, "a cloth")?;
    let extent = call.param_float(2)? as f32;
    let (cx, cy) = (call.param_float(3)? as f32, call.param_float(4)? as f32);
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
    out[0] = img.into_value();
    Ok(())
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
    let init = OpSpec::new(
        "sim.cloth.init",
        "A cloth at rest: a lattice of points hanging in the x-y plane (top row at y = 0), \
         pinned along the top, at its top corners, along its left edge, or nowhere.",
    )
    .output(OutputSpec::new("out", CLOTH_TYPE, "the cloth"));
    let init = with_size_params(init, 24)
        .param(
            ParamSpec::new(
                "spacing",
                ValueType::Float,
                Value::Float(0.1),
                "rest distance between neighbours",
            )
            .with_rule(Rule::between(1e-4, 1e4)),
        )
        .param(
            ParamSpec::new(
                "pins",
                ValueType::String,
                Value::Str("top".into()),
                "`top`, `corners`, `left` or `none`",
            )
            .with_rule(Rule::OneOf(&["top", "corners", "left", "none"])),
        );
    reg.register(SimOp::new(init, run_init))?;
    let v3 =
        |name, d: [f64; 3], doc| InputSpec::optional(name, ValueType::Vec3, Value::Vec3(d), doc);
    let f = |name, d: f64, doc| InputSpec::optional(name, ValueType::Float, Value::Float(d), doc);
    let step = OpSpec::new(
        "sim.cloth.step",
        "Mass–spring cloth (structural, shear and bend springs) with Störmer–Verlet \
         integration: gravity, wind and a fluttering wind noise; pinned points stay.",
    )
    .input(InputSpec::required(
        "state",
        CLOTH_TYPE,
        "the cloth (from a latch)",
    ))
    .input(v3("gravity", [0.0, -9.81, 0.0], "constant acceleration"))
    .input(v3("wind", [0.0, 0.0, 0.0], "constant wind acceleration"))
    .input(f("flutter", 0.0, "strength of the wind noise"))
    .input(f("stiffness", 2000.0, "spring stiffness per unit mass").with_rule(Rule::NON_NEGATIVE))
    .input(
        f(
            "damping",
            0.002,
            "fraction of the velocity lost per substep",
        )
        .with_rule(Rule::between(0.0, 1.0)),
    )
    .input(f("dt", 1.0 / 30.0, "seconds per tick").with_rule(Rule::NON_NEGATIVE))
    .output(OutputSpec::new("out", CLOTH_TYPE, "the cloth one tick on"))
    .param(
        ParamSpec::new(
            "substeps",
            ValueType::Int,
            Value::Int(16),
            "Verlet substeps per tick",
        )
        .with_rule(Rule::Ints { min: 1, max: 1000 }),
    );
    reg.register(SimOp::new(step, run_step))?;
    let view = OpSpec::new(
        "sim.cloth.view",
        "A cloth drawn from the front (x right, y up) as flat-shaded triangles in three \
         horizontal colour bands, over a sky colour.",
    )
    .input(InputSpec::required("cloth", CLOTH_TYPE, "the cloth"))
    .output(OutputSpec::new("out", IMAGE_TYPE, "the image"));
    let view = with_image_size_params(view, 256)
        .param(
            ParamSpec::new(
                "extent",
                ValueType::Float,
                Value::Float(2.0),
                "half the width shown",
            )
            .with_rule(Rule::between(1e-6, 1e9)),
        )
        .param(
            ParamSpec::new(
                "center_x",
                ValueType::Float,
                Value::Float(0.0),
                "world x at the centre",
            )
            .with_rule(Rule::Finite),
        )
        .param(
            ParamSpec::new(
                "center_y",
                ValueType::Float,
                Value::Float(0.0),
                "world y at the centre",
            )
            .with_rule(Rule::Finite),
        );
    reg.register(SimOp::new(view, run_view))?;
    Ok(())
}
