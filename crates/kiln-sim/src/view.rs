//! `sim.view`: a grid's channel as a grey image, `low` mapped to black and `high` to white
//! (clamped), alpha 1. Colour it with `image.ramp`.

use crate::grid::GRID_TYPE;
use crate::image_bridge::{IMAGE_TYPE, Image};
use crate::sim_op::{SimOp, grid_input, int_param};
use kiln_core::op::{InputSpec, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

fn run_view(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let g = grid_input(call, 0)?;
    let c = int_param(call, 0)?;
    if c < 0 || c >= g.channels() as i64 {
        return Err(OpError::param(
            0,
            format!(
                "the grid has {} channel(s), there is no channel {c}",
                g.channels()
            ),
        ));
    }
    let (low, high) = (call.param_float(1)? as f32, call.param_float(2)? as f32);
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
    out[0] = Image {
        width: g.width(),
        height: g.height(),
        pixels,
    }
    .into_value();
    Ok(())
}

/// Register `sim.view`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    let spec = OpSpec::new(
        "sim.view",
        "A grid's channel as a grey image: `low` is black, `high` white (clamped), alpha 1.",
    )
    .input(InputSpec::required("grid", GRID_TYPE, "the grid to show"))
    .output(OutputSpec::new("out", IMAGE_TYPE, "the grey image"))
    .param(
        ParamSpec::new("channel", ValueType::Int, Value::Int(0), "which channel")
            .with_rule(Rule::Ints { min: 0, max: 15 }),
    )
    .param(
        ParamSpec::new(
            "low",
            ValueType::Float,
            Value::Float(0.0),
            "the value shown black",
        )
        .with_rule(Rule::Finite),
    )
    .param(
        ParamSpec::new(
            "high",
            ValueType::Float,
            Value::Float(1.0),
            "the value shown white",
        )
        .with_rule(Rule::Finite),
    );
    reg.register(SimOp::new(spec, run_view))
}
