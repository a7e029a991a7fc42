//! Channels as separate images: `image.split` (one image to four grey images, one per
//! channel: outputs `r`, `g`, `b`, `a`) and `image.merge_channels` (up to four inputs into
//! the channels of one image). A grey image's channel is its red one, so a split merged back
//! is the image it came from, bit for bit. `image.merge_channels` is a per-pixel builder (it
//! fuses); `image.split` has four outputs, so it ends a fused chain (one channel alone, as a
//! per-pixel op, is `image.swizzle` with `"rrr1"`, `"ggg1"`, ...).

use crate::field::{Px, Tape};
use crate::filters::by_rows;
use crate::image::Image;
use crate::per_pixel::Arg;
use kiln_core::op::{OpCall, OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// Split an image into four grey images, one per channel (`r`, `g`, `b`, `a`): each output
/// holds its channel in r, g and b, alpha 1.
#[kiln_core::op(
    "image.split",
    outputs(
        "r" = "the red channel as grey",
        "g" = "the green channel as grey",
        "b" = "the blue channel as grey",
        "a" = "the alpha channel as grey"
    )
)]
pub fn split(
    call: &OpCall<'_>,
    #[input("the source image")] image: &Image,
) -> Result<(Image, Image, Image, Image), OpError> {
    let img = image;
    if img.pixels.len() as u64 != u64::from(img.width) * u64::from(img.height) {
        return Err(OpError::input(
            0,
            format!(
                "holds {} pixels, not {} x {}",
                img.pixels.len(),
                img.width,
                img.height
            ),
        ));
    }
    let w = img.width as usize;
    let channel = |c: usize| {
        by_rows(call, img.width, img.height, |y, row| {
            let src = &img.pixels[y as usize * w..(y as usize + 1) * w];
            for (o, p) in row.iter_mut().zip(src) {
                *o = [p[c], p[c], p[c], 1.0];
            }
        })
    };
    Ok((channel(0)?, channel(1)?, channel(2)?, channel(3)?))
}

/// Merge up to four inputs into one image's r, g, b and a: an image input gives its red
/// channel (a grey image's value), a number a constant; unwired, r, g and b are 0 and a is 1.
/// At least one input must be an image; images must share a size.
#[kiln_core::op("image.merge_channels", per_pixel, out = "the merged image")]
pub fn merge_channels(
    tape: &mut Tape<'_>,
    #[input(
        "red: a grey image or a number",
        ty = ValueType::Any,
        default = 0.0,
        rule = Rule::Check(image_or_number)
    )]
    r: Arg<'_>,
    #[input(
        "green: a grey image or a number",
        ty = ValueType::Any,
        default = 0.0,
        rule = Rule::Check(image_or_number)
    )]
    g: Arg<'_>,
    #[input(
        "blue: a grey image or a number",
        ty = ValueType::Any,
        default = 0.0,
        rule = Rule::Check(image_or_number)
    )]
    b: Arg<'_>,
    #[input(
        "alpha: a grey image or a number",
        ty = ValueType::Any,
        default = 1.0,
        rule = Rule::Check(image_or_number)
    )]
    a: Arg<'_>,
) -> Result<Px, OpError> {
    let channels = [r, g, b, a];
    if !channels.iter().any(|x| matches!(x, Arg::Pixels(_))) {
        return Err(OpError::input(
            0,
            "none of r, g, b, a is an image: at least one must be, to give the size",
        ));
    }
    let mut px = [0; 4];
    for (k, (reg, arg)) in px.iter_mut().zip(channels).enumerate() {
        *reg = match arg {
            Arg::Pixels(p) => p[0],
            Arg::Value(v) => {
                let f = v.as_f64().ok_or_else(|| {
                    OpError::input(
                        k,
                        format!("expected an image or a number, found {}", v.type_name()),
                    )
                })?;
                tape.constant(f as f32 as f64)?
            }
        };
    }
    Ok(px)
}

/// Register `image.split` and `image.merge_channels`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(SplitOp::new())?;
    reg.register(MergeChannelsOp::new())
}

fn image_or_number(v: &Value, _: &kiln_core::op::RuleEnv) -> Result<(), kiln_core::op::Violation> {
    match v {
        Value::Heavy(_) => Ok(()),
        _ if v.as_f64().is_some_and(f64::is_finite) => Ok(()),
        _ => Err(kiln_core::op::Violation::new(
            "an image or a finite number",
            v.type_name(),
        )),
    }
}
