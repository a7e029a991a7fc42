//! The space colonization ops: `sim.tree.init`, `sim.tree.step` (see [`crate::colonize`]),
//! `sim.tree.view` (the branches drawn as lines, thicker towards the root: a segment's
//! width grows with the number of nodes above it, `twig · (1 + above)^0.4` pixels) and
//! `sim.tree.lines` (the segments as a list of vec4 `(x0, y0, x1, y1)`).

use crate::colonize::{GrowSettings, Tree};
use crate::image_bridge::Image;
use crate::ports::{SIDE, image_size};
use kiln_core::op;
use kiln_core::op::{OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::Value;

/// The start of a space colonization tree: a root at the origin and seeded attractors spread
/// over a crown disk above it.
#[op("sim.tree.init", out = "the tree and its attractors")]
fn tree_init(
    #[param("how many attractors", default = 500, range = 0..=1_000_000)] attractors: i64,
    #[param("where the attractors fall", default = 0)] seed: i64,
    #[param("radius of the crown", default = 1.0, rule = Rule::NON_NEGATIVE)] radius: f64,
    #[param("height of the crown's centre", default = 1.6, rule = Rule::Finite)] crown_y: f64,
) -> Tree {
    let count = attractors.clamp(0, 1_000_000) as u32;
    Tree::seeded(
        [0.0, 0.0],
        [0.0, crown_y as f32],
        radius as f32,
        count,
        seed as u64,
    )
}

/// One step of space colonization: attractors pull their nearest node within reach, each
/// pulled node grows a segment, reached attractors are removed.
#[op("sim.tree.step", out = "the tree one step on")]
fn tree_step(
    #[input("the tree (from a latch)")] state: &Tree,
    #[input("how far an attractor reaches", default = 0.6, rule = Rule::POSITIVE)] influence: f64,
    #[input(
        "how close a node must come to remove an attractor",
        default = 0.08,
        rule = Rule::POSITIVE
    )]
    kill: f64,
    #[input("length of a new segment", default = 0.04, rule = Rule::POSITIVE)] segment: f64,
) -> Result<Tree, OpError> {
    let s = GrowSettings {
        influence: influence as f32,
        kill: kill as f32,
        segment: segment as f32,
    };
    if state.nodes.len() > 4_000_000 {
        return Err(OpError::input(0, "the tree has over 4,000,000 nodes"));
    }
    Ok(state.grow(&s))
}

/// A tree drawn as branches, thicker towards the root, on a pale ground (y up).
#[op("sim.tree.view",
    params_rule = kiln_image::image::pixels_rule, out = "the image")]
fn tree_view(
    #[input("the tree")] tree: &Tree,
    #[param("width in cells", default = 256, rule = SIDE, plan_time)] width: i64,
    #[param("height in cells", default = 256, rule = SIDE, plan_time)] height: i64,
    #[param("half the width shown", default = 1.5, range = 1e-6..=1e9)] extent: f64,
    #[param("world y at the centre", default = 1.2, rule = Rule::Finite)] center_y: f64,
    #[param("width of a twig in pixels", default = 1.0, range = 0.1..=64.0)] twig: f64,
) -> Result<Image, OpError> {
    let (w, h) = image_size(width, height)?;
    let t = tree;
    let (extent, cy, width) = (extent as f32, center_y as f32, twig as f32);
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
    Ok(img)
}

/// A tree's segments, parent to child, as a list of vec4 (x0, y0, x1, y1).
#[op("sim.tree.lines", out = "the segments")]
fn tree_lines(#[input("the tree")] tree: &Tree) -> Vec<Value> {
    tree.segments()
        .iter()
        .map(|s| Value::Vec4(s.map(|c| c as f64)))
        .collect()
}

/// Register `sim.tree.init`, `sim.tree.step`, `sim.tree.view` and `sim.tree.lines`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(TreeInitOp::new())?;
    reg.register(TreeStepOp::new())?;
    reg.register(TreeViewOp::new())?;
    reg.register(TreeLinesOp::new())?;
    Ok(())
}
