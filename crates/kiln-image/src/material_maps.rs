//! Material maps from a height field (the red channel): `image.ambient_occlusion` and
//! `image.curvature`. Whole-image ops (each pixel reads its neighbourhood), rows side by
//! side on the rayon pool, so the bits are the same for every thread count; neighbours
//! outside the image wrap (`edges = wrap`, a tile stays a tile) or clamp.
//!
//! Heights are `h * depth` pixels (a value of 1 stands `depth` pixels high), as
//! `image.normal`'s `strength`.

use crate::filters::{EDGES, Edges, bilinear, by_rows};
use crate::image::Image;
use kiln_core::op::{OpCall, OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};

/// Most samples one ambient occlusion may take (pixels x directions x radius).
pub const MAX_AO_SAMPLES: u64 = 1 << 34;

/// Horizon-based ambient occlusion: from each pixel, `directions` evenly spaced directions
/// (the first along +x), each marched 1..=`radius` pixels (bilinear samples); the horizon
/// of a direction is its steepest rise `s = max(0, max_d (h_d - h_0) depth / d)`, occluding
/// `sin(atan s) = s / sqrt(1 + s^2)`. AO = clamp(1 - strength * mean occlusion, 0, 1): 1 on
/// a plain, darker in pits and at the foot of walls.
pub fn ambient_occlusion(
    call: &OpCall<'_>,
    img: &Image,
    radius: u32,
    depth: f64,
    directions: u32,
    strength: f64,
    edges: Edges,
) -> Result<Image, OpError> {
    let samples = img.pixels.len() as u64 * u64::from(directions) * u64::from(radius);
    if samples > MAX_AO_SAMPLES {
        return Err(OpError::param(
            0,
            format!(
                "{} pixels x {directions} directions x radius {radius} = {samples} samples, over \
                 the limit of {MAX_AO_SAMPLES}",
                img.pixels.len()
            ),
        ));
    }
    let snap = |v: f64| if v.abs() < 1e-12 { 0.0 } else { v };
    let dirs: Vec<(f64, f64)> = (0..directions)
        .map(|k| {
            let a = std::f64::consts::TAU * k as f64 / directions as f64;
            (snap(a.cos()), snap(a.sin()))
        })
        .collect();
    let (w, h) = (img.width, img.height);
    by_rows(call, w, h, |y, out| {
        for (x, o) in out.iter_mut().enumerate() {
            let h0 = img.get(x as u32, y)[0] as f64;
            let (cx, cy) = (x as f64 + 0.5, y as f64 + 0.5);
            let mut occ = 0.0;
            for &(dx, dy) in &dirs {
                let mut s = 0.0f64;
                for d in 1..=radius {
                    let d = d as f64;
                    let hs = bilinear(img, cx + d * dx, cy + d * dy, edges)[0] as f64;
                    s = s.max((hs - h0) * depth / d);
                }
                occ += s / (1.0 + s * s).sqrt();
            }
            let ao = (1.0 - strength * occ / dirs.len() as f64).clamp(0.0, 1.0) as f32;
            *o = [ao, ao, ao, 1.0];
        }
    })
}

/// The curvature of the height field: the divergence of the unit normal's horizontal part,
/// `k = d nx / dx + d ny / dy` with `n = normalize(-dz/dx, -dz/dy, 1)`, both by central
/// differences. Positive on bumps (a sphere cap of radius R gives 2 / R), negative in pits
/// (the paraboloid z = a r^2 gives -4a at its bottom), 0 on planes; in 1 / pixels.
pub fn curvature(
    call: &OpCall<'_>,
    img: &Image,
    depth: f64,
    edges: Edges,
) -> Result<Image, OpError> {
    let (w, h) = (img.width, img.height);
    let at = |x: i64, y: i64| {
        img.get(edges.index(x, w) as u32, edges.index(y, h) as u32)[0] as f64 * depth
    };
    // n's x and y in r and g, computed in f64 and kept as f32.
    let normals = by_rows(call, w, h, |y, out| {
        let y = y as i64;
        for (x, o) in out.iter_mut().enumerate() {
            let x = x as i64;
            let dx = (at(x + 1, y) - at(x - 1, y)) / 2.0;
            let dy = (at(x, y + 1) - at(x, y - 1)) / 2.0;
            let len = (dx * dx + dy * dy + 1.0).sqrt();
            *o = [(-dx / len) as f32, (-dy / len) as f32, 0.0, 0.0];
        }
    })?;
    let n = |x: i64, y: i64, c: usize| {
        normals.get(edges.index(x, w) as u32, edges.index(y, h) as u32)[c] as f64
    };
    by_rows(call, w, h, |y, out| {
        let y = y as i64;
        for (x, o) in out.iter_mut().enumerate() {
            let x = x as i64;
            let k =
                (n(x + 1, y, 0) - n(x - 1, y, 0)) / 2.0 + (n(x, y + 1, 1) - n(x, y - 1, 1)) / 2.0;
            *o = [k as f32, 0.0, 0.0, 1.0];
        }
    })
}

/// Horizon-based ambient occlusion of a height (red): in `directions` directions marched out
/// to `radius` pixels, the steepest rise s (heights times `depth`) occludes s / sqrt(1 +
/// s^2); AO = clamp(1 - strength * mean, 0, 1), grey, 1 where nothing rises around.
#[kiln_core::op("image.ambient_occlusion", out = "the occlusion, grey in [0, 1]")]
pub fn ambient_occlusion_map(
    call: &OpCall<'_>,
    #[input("the height field")] height: &Image,
    #[param(
        "how far to look, pixels",
        default = 16,
        rule = Rule::Ints { min: 1, max: 256 }
    )]
    radius: i64,
    #[param(
        "how many pixels high a height of 1 stands",
        default = 8.0,
        rule = Rule::between(0.0, 65536.0)
    )]
    depth: f64,
    #[param(
        "directions marched",
        default = 8,
        rule = Rule::Ints { min: 1, max: 64 },
        plan_time
    )]
    directions: i64,
    #[param(
        "how dark occlusion gets",
        default = 1.0,
        rule = Rule::between(0.0, 100.0)
    )]
    strength: f64,
    #[param(
        "neighbours outside the image: wrap (tiles) or clamp",
        default = "wrap",
        rule = EDGES
    )]
    edges: &str,
) -> Result<Image, OpError> {
    let radius = radius.clamp(1, 256) as u32;
    let dirs = directions.clamp(1, 64) as u32;
    let edges = Edges::parse(edges);
    ambient_occlusion(call, height, radius, depth, dirs, strength, edges)
}

/// Curvature of a height (red, times `depth` pixels): k = div of the normal's x and y
/// (central differences), positive on bumps, negative in pits; `output` map gives grey
/// saturate(0.5 + 0.5 * strength * k), raw gives k (1 / pixels) in r.
#[kiln_core::op("image.curvature", out = "the curvature")]
pub fn curvature_map(
    call: &OpCall<'_>,
    #[input("the height field")] height: &Image,
    #[param(
        "how many pixels high a height of 1 stands",
        default = 8.0,
        rule = Rule::between(0.0, 65536.0)
    )]
    depth: f64,
    #[param(
        "scale of k in the map",
        default = 8.0,
        rule = Rule::between(0.0, 1.0e6)
    )]
    strength: f64,
    #[param("map or raw", default = "map", rule = Rule::OneOf(&["map", "raw"]))] output: &str,
    #[param(
        "neighbours outside the image: wrap (tiles) or clamp",
        default = "wrap",
        rule = EDGES
    )]
    edges: &str,
) -> Result<Image, OpError> {
    let raw = output == "raw";
    let mut k = curvature(call, height, depth, Edges::parse(edges))?;
    if !raw {
        for p in &mut k.pixels {
            let g = (0.5 + 0.5 * strength * p[0] as f64).clamp(0.0, 1.0) as f32;
            *p = [g, g, g, 1.0];
        }
    }
    Ok(k)
}

/// Register the material maps.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(AmbientOcclusionMapOp::new())?;
    reg.register(CurvatureMapOp::new())
}
