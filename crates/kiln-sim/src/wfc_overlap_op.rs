//! `sim.wfc.overlap`: the overlapping model of wave function collapse (see
//! [`crate::wfc_overlap`]) from a sample image to an output image, in one node. The
//! sample's colours are told apart by their exact bits, in order of first appearance.

use crate::image_bridge::{IMAGE_TYPE, Image};
use crate::sim_op::{SimOp, image_size_params, with_image_size_params};
use crate::wfc_overlap::{MAX_SAMPLE, generate, learn};
use kiln_core::op::{InputSpec, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};
use std::collections::HashMap;

fn run(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let (w, h) = image_size_params(call)?;
    let sample = call.heavy::<Image>(0, "a sample image")?;
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
    let n = call.param_int(2)? as u32;
    let symmetry = call.param_int(3)? as u32;
    let patterns = learn(
        &indices,
        sample.width,
        sample.height,
        n,
        symmetry,
        call.param_bool(4)?,
    )
    .map_err(|e| OpError::input(0, e.to_string()))?;
    let cancel = || call.check_cancel().is_err();
    let colours = generate(
        &patterns,
        w,
        h,
        call.param_bool(5)?,
        call.param_int(6)? as u64,
        call.param_int(7)? as u32,
        &cancel,
    )
    .map_err(|e| OpError::new(e.to_string()))?;
    call.check_cancel()?;
    let mut img = Image::filled(w, h, [0.0; 4]);
    for (px, c) in img.pixels.iter_mut().zip(colours) {
        *px = palette.get(c as usize).copied().unwrap_or([0.0; 4]);
    }
    out[0] = img.into_value();
    Ok(())
}

/// Register `sim.wfc.overlap`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    let spec = OpSpec::new(
        "sim.wfc.overlap",
        "Wave function collapse, overlapping model: an image every N × N window of which is \
         an N × N window of the sample (or of its rotations and reflections), seeded; a \
         contradiction starts again with the next seed, up to `attempts` times, then fails.",
    )
    .input(InputSpec::required(
        "sample",
        IMAGE_TYPE,
        "the sample image (a few colours)",
    ))
    .output(OutputSpec::new("out", IMAGE_TYPE, "the generated image"));
    let p = |name, ty, v, doc| ParamSpec::new(name, ty, v, doc);
    let spec = with_image_size_params(spec, 32)
        .param(
            p("n", ValueType::Int, Value::Int(3), "window side, 2 to 4")
                .with_rule(Rule::Ints { min: 2, max: 4 }),
        )
        .param(
            p(
                "symmetry",
                ValueType::Int,
                Value::Int(8),
                "variants of each window learnt: 1 (as is), 2 (and its mirror) to 8 (every rotation and reflection)",
            )
            .with_rule(Rule::Ints { min: 1, max: 8 }),
        )
        .param(p(
            "periodic_input",
            ValueType::Bool,
            Value::Bool(true),
            "whether windows wrap around the sample's edges",
        ))
        .param(p(
            "periodic",
            ValueType::Bool,
            Value::Bool(false),
            "whether the output tiles (its windows wrap around)",
        ))
        .param(p("seed", ValueType::Int, Value::Int(1), "random seed"))
        .param(
            p(
                "attempts",
                ValueType::Int,
                Value::Int(10),
                "runs tried before a contradiction fails the node",
            )
            .with_rule(Rule::Ints { min: 1, max: 1000 }),
        );
    reg.register(SimOp::new(spec, run))
}
