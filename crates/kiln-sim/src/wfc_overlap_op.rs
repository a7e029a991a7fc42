//! `sim.wfc.overlap`: the overlapping model of wave function collapse (see
//! [`crate::wfc_overlap`]) from a sample image to an output image, in one node. The
//! sample's colours are told apart by their exact bits, in order of first appearance.

use crate::image_bridge::Image;
use crate::ports::{SIDE, image_size};
use crate::wfc_overlap::{MAX_SAMPLE, generate, learn};
use kiln_core::op;
use kiln_core::op::{OpCall, OpError};
use kiln_core::registry::{Registry, RegistryError};
use std::collections::HashMap;

/// Wave function collapse, overlapping model: an image every N × N window of which is an
/// N × N window of the sample (or of its rotations and reflections), seeded; a contradiction
/// starts again with the next seed, up to `attempts` times, then fails.
#[op("sim.wfc.overlap",
    params_rule = kiln_image::image::pixels_rule, out = "the generated image")]
#[allow(clippy::too_many_arguments)]
fn wfc_overlap(
    #[input("the sample image (a few colours)")] sample: &Image,
    #[param("width in cells", default = 32, rule = SIDE, plan_time)] width: i64,
    #[param("height in cells", default = 32, rule = SIDE, plan_time)] height: i64,
    #[param("window side, 2 to 4", default = 3, range = 2..=4)] n: i64,
    #[param(
        "variants of each window learnt: 1 (as is), 2 (and its mirror) to 8 (every rotation and reflection)",
        default = 8,
        range = 1..=8
    )]
    symmetry: i64,
    #[param("whether windows wrap around the sample's edges", default = true)] periodic_input: bool,
    #[param("whether the output tiles (its windows wrap around)", default = false)] periodic: bool,
    #[param("random seed", default = 1)] seed: i64,
    #[param(
        "runs tried before a contradiction fails the node",
        default = 10,
        range = 1..=1000
    )]
    attempts: i64,
    call: &OpCall,
) -> Result<Image, OpError> {
    let (w, h) = image_size(width, height)?;
    if sample.pixels.len() > MAX_SAMPLE {
        return Err(OpError::input(
            0,
            format!(
                "the sample has {} pixels, over {MAX_SAMPLE} (MAX_SAMPLE)",
                sample.pixels.len()
            ),
        ));
    }
    let mut palette: Vec<[f32; 4]> = vec![];
    let mut index: HashMap<[u32; 4], u32> = HashMap::new();
    let indices: Vec<u32> = sample
        .pixels
        .iter()
        .map(|p| {
            *index.entry(p.map(f32::to_bits)).or_insert_with(|| {
                palette.push(*p);
                palette.len() as u32 - 1
            })
        })
        .collect();
    let patterns = learn(
        &indices,
        sample.width,
        sample.height,
        n as u32,
        symmetry as u32,
        periodic_input,
    )
    .map_err(|e| OpError::input(0, e.to_string()))?;
    let cancel = || call.check_cancel().is_err();
    let colours = generate(
        &patterns,
        w,
        h,
        periodic,
        seed as u64,
        attempts as u32,
        &cancel,
    )
    .map_err(|e| OpError::new(e.to_string()))?;
    call.check_cancel()?;
    let mut img = Image::filled(w, h, [0.0; 4]);
    for (px, c) in img.pixels.iter_mut().zip(colours) {
        *px = palette.get(c as usize).copied().unwrap_or([0.0; 4]);
    }
    Ok(img)
}

/// Register `sim.wfc.overlap`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(WfcOverlapOp::new())
}
