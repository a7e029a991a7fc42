//! The space colonization ops: `sim.tree.init`, `sim.tree.step` (see [`crate::colonize`]),
//! `sim.tree.view` (the branches drawn as lines, thicker towards the root: a segment's
//! width grows with the number of nodes above it, `twig · (1 + above)^0.4` pixels) and
//! `sim.tree.lines` (the segments as a list of vec4 `(x0, y0, x1, y1)`).

use crate::colonize::{GrowSettings, TREE_TYPE, Tree};
use crate::image_bridge::{IMAGE_TYPE, Image};
use crate::sim_op::{SimOp, image_size_params, with_image_size_params};
use kiln_core::op::{InputSpec, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

fn float(call: &OpCall<'_>, i: usize) -> Result<f32, OpError> {
    call.param_float(i).map(|v| v as f32)
}

fn run_init(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let count = call.param_int(0)?.clamp(0, 1_000_000) as u32;
    let seed = call.param_int(1)? as u64;
    let radius = float(call, 2)?;
    let crown_y = float(call, 3)?;
    out[0] = Tree::seeded([0.0, 0.0], [0.0, crown_y], radius, count, seed).into_value();
    Ok(())
}

fn run_step(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let t = call.heavy::<Tree>(0, "a tree")?;
    let s = GrowSettings {
        influence: call.float(1)? as f32,
        kill: call.float(2)? as f32,
        segment: call.float(3)? as f32,
    };
    if t.nodes.len() > 4_000_000 {
        return Err(OpError::input(0, "the tree has over 4,000,000 nodes"));
    }
    out[0] = t.grow(&s).into_value();
    Ok(())
}

fn run_view(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let (w, h) = image_size_params(call)?;
    let t = call.heavy::<Tree>(0, "a tree")?;
    let (extent, cy, width) = (float(call, 2)?, float(call, 3)?, float(call, 4)?);
    let mut img = Image::filled(w, h, [0.93, 0.9, 0.82, 1.0]);
    // Nodes above each node, children after parents: one backward pass.
    let mut above = vec![0u32; t.nodes.len()];
    for i in (1..t.nodes.len()).rev() {
        above[t.parent[i] as usize] += above[i] + 1;
    }
    let scale = w as f32 / (2.0 * extent);
    let screen = |p: [f32; 2]| {
        [
            p[0] * scale + w as f32 / 2.0,
            h as f32 / 2.0 - (p[1] - cy) * scale,
        ]
    };
    for (i, seg) in t.segments().iter().enumerate() {
        let (a, b) = (screen([seg[0], seg[1]]), screen([seg[2], seg[3]]));
        let r = 0.5 * width * (1.0 + above[i + 1] as f32).powf(0.4);
        let (x0, x1) = (a[0].min(b[0]) - r, a[0].max(b[0]) + r);
        let (y0, y1) = (a[1].min(b[1]) - r, a[1].max(b[1]) + r);
        let d = [b[0] - a[0], b[1] - a[1]];
        let l2 = (d[0] * d[0] + d[1] * d[1]).max(1e-12);
        for y in (y0.floor().max(0.0) as u32)..(y1.ceil().max(0.0) as u32).min(h) {
            for x in (x0.floor().max(0.0) as u32)..(x1.ceil().max(0.0) as u32).min(w) {
                let p = [x as f32 + 0.5 - a[0], y as f32 + 0.5 - a[1]];
                let s = ((p[0] * d[0] + p[1] * d[1]) / l2).clamp(0.0, 1.0);
                let q = [p[0] - s * d[0], p[1] - s * d[1]];
                if q[0] * q[0] + q[1] * q[1] <= r * r {
                    img.pixels[(y * w + x) as usize] = [0.3, 0.2, 0.12, 1.0];
                }
            }
        }
    }
    out[0] = img.into_value();
    Ok(())
}

fn run_lines(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let t = call.heavy::<Tree>(0, "a tree")?;
    let lines: Vec<Value> = t
        .segments()
        .iter()
        .map(|s| Value::Vec4(s.map(|c| c as f64)))
        .collect();
    out[0] = Value::List(lines.into());
    Ok(())
}

/// Register `sim.tree.init`, `sim.tree.step`, `sim.tree.view` and `sim.tree.lines`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    let init = OpSpec::new(
        "sim.tree.init",
        "The start of a space colonization tree: a root at the origin and seeded attractors \
         spread over a crown disk above it.",
    )
    .output(OutputSpec::new(
        "out",
        TREE_TYPE,
        "the tree and its attractors",
    ))
    .param(
        ParamSpec::new(
            "attractors",
            ValueType::Int,
            Value::Int(500),
            "how many attractors",
        )
        .with_rule(Rule::Ints {
            min: 0,
            max: 1_000_000,
        }),
    )
    .param(ParamSpec::new(
        "seed",
        ValueType::Int,
        Value::Int(0),
        "where the attractors fall",
    ))
    .param(
        ParamSpec::new(
            "radius",
            ValueType::Float,
            Value::Float(1.0),
            "radius of the crown",
        )
        .with_rule(Rule::NON_NEGATIVE),
    )
    .param(
        ParamSpec::new(
            "crown_y",
            ValueType::Float,
            Value::Float(1.6),
            "height of the crown's centre",
        )
        .with_rule(Rule::Finite),
    );
    reg.register(SimOp::new(init, run_init))?;
    let f = |name, d: f64, doc| {
        InputSpec::optional(name, ValueType::Float, Value::Float(d), doc).with_rule(Rule::POSITIVE)
    };
    let step = OpSpec::new(
        "sim.tree.step",
        "One step of space colonization: attractors pull their nearest node within reach, \
         each pulled node grows a segment, reached attractors are removed.",
    )
    .input(InputSpec::required(
        "state",
        TREE_TYPE,
        "the tree (from a latch)",
    ))
    .input(f("influence", 0.6, "how far an attractor reaches"))
    .input(f(
        "kill",
        0.08,
        "how close a node must come to remove an attractor",
    ))
    .input(f("segment", 0.04, "length of a new segment"))
    .output(OutputSpec::new("out", TREE_TYPE, "the tree one step on"));
    reg.register(SimOp::new(step, run_step))?;
    let view = OpSpec::new(
        "sim.tree.view",
        "A tree drawn as branches, thicker towards the root, on a pale ground (y up).",
    )
    .input(InputSpec::required("tree", TREE_TYPE, "the tree"))
    .output(OutputSpec::new("out", IMAGE_TYPE, "the image"));
    let view = with_image_size_params(view, 256)
        .param(
            ParamSpec::new(
                "extent",
                ValueType::Float,
                Value::Float(1.5),
                "half the width shown",
            )
            .with_rule(Rule::between(1e-6, 1e9)),
        )
        .param(
            ParamSpec::new(
                "center_y",
                ValueType::Float,
                Value::Float(1.2),
                "world y at the centre",
            )
            .with_rule(Rule::Finite),
        )
        .param(
            ParamSpec::new(
                "twig",
                ValueType::Float,
                Value::Float(1.0),
                "width of a twig in pixels",
            )
            .with_rule(Rule::between(0.1, 64.0)),
        );
    reg.register(SimOp::new(view, run_view))?;
    let lines = OpSpec::new(
        "sim.tree.lines",
        "A tree's segments, parent to child, as a list of vec4 (x0, y0, x1, y1).",
    )
    .input(InputSpec::required("tree", TREE_TYPE, "the tree"))
    .output(OutputSpec::new("out", ValueType::List, "the segments"));
    reg.register(SimOp::new(lines, run_lines))?;
    Ok(())
}
