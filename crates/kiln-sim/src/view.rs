//! `sim.view`: a grid's channel as a grey image, `low` mapped to black and `high` to white
//! (clamped), alpha 1. Colour it with `image.ramp`.

use crate::grid::Grid;
use crate::image_bridge::Image;
use kiln_core::op;
use kiln_core::op::{OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};

/// A grid's channel as a grey image: `low` is black, `high` white (clamped), alpha 1.
#[op("sim.view", out = "the grey image")]
fn view(
    #[input("the grid to show")] grid: &Grid,
    #[param("which channel", default = 0, range = 0..=15)] channel: i64,
    #[param("the value shown black", default = 0.0, rule = Rule::Finite)] low: f64,
    #[param("the value shown white", default = 1.0, rule = Rule::Finite)] high: f64,
) -> Result<Image, OpError> {
    let (g, c) = (grid, channel);
    if c < 0 || c >= g.channels() as i64 {
        return Err(OpError::param(
            0,
            format!(
                "the grid has {} channel(s), there is no channel {c}",
                g.channels()
            ),
        ));
    }
    let (low, high) = (low as f32, high as f32);
    let span = if high != low { high - low } else { 1.0 };
    // A grid may hold more cells than an image may hold pixels: refused before allocating.
    kiln_image::image::check_pixels(u64::from(g.width()), u64::from(g.height()))
        .map_err(|m| OpError::new(format!("cannot view the grid as an image: {m}")))?;
    let n = g.width() as usize * g.height() as usize;
    let mut pixels = kiln_core::memory::try_vec(n, || {
        format!("an image of {} x {} pixels", g.width(), g.height())
    })
    .map_err(|e| OpError::new(e.to_string()))?;
    let ch = g.channels() as usize;
    pixels.extend(g.data().chunks_exact(ch).map(|cell| {
        let v = ((cell[c as usize] - low) / span).clamp(0.0, 1.0);
        [v, v, v, 1.0]
    }));
    Ok(Image {
        width: g.width(),
        height: g.height(),
        pixels,
    })
}

/// Register `sim.view`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(ViewOp::new())
}
