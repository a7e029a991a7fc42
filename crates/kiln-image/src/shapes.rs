//! Drawing shapes onto images: `image.rect`, a filled axis-aligned rectangle given in the
//! image's unit square (`[0, 0]` is the top-left corner, `[1, 1]` the bottom-right), so the
//! same graph draws the same picture at any resolution.
//!
//! A pixel is inside when its centre is: pixel `(x, y)` has centre
//! `((x + 0.5) / width, (y + 0.5) / height)`, and the rectangle holds the centres `c` with
//! `min <= c < max` on both axes.

use crate::fn_op::FnOp;
use crate::image::{IMAGE_TYPE, Image};
use crate::image_ops::build_rows;
use kiln_core::op::{InputSpec, OpCall, OpError, OpSpec, OutputSpec};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

fn vec2(call: &OpCall<'_>, i: usize) -> Result<[f64; 2], OpError> {
    match call.inputs.get(i) {
        Some(Value::Vec2(v)) => Ok(*v),
        other => Err(OpError::input(
            i,
            format!(
                "expected vec2, found {}",
                other.map_or("nothing", |v| v.type_name())
            ),
        )),
    }
}

/// Register `image.rect`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(FnOp::new(
        OpSpec::new(
            "image.rect",
            "Paint the rectangle from `min` to `max` (in the image's unit square, y down) with `color`.",
        )
        .input(InputSpec::required("image", IMAGE_TYPE, "the image painted on"))
        .input(InputSpec::optional("min", ValueType::Vec2, Value::Vec2([0.25, 0.25]), "top-left corner"))
        .input(InputSpec::optional("max", ValueType::Vec2, Value::Vec2([0.75, 0.75]), "bottom-right corner"))
        .input(InputSpec::optional("color", ValueType::Color, Value::Color([1.0, 1.0, 1.0, 1.0]), "the paint"))
        .output(OutputSpec::new("out", IMAGE_TYPE, "the image with the rectangle")),
        |call, out| {
            let img = call.heavy::<Image>(0, "image")?;
            let [x0, y0] = vec2(call, 1)?;
            let [x1, y1] = vec2(call, 2)?;
            let color = call.color(3)?;
            let (w, h) = (img.width as f64, img.height as f64);
            let inside = |c: f64, lo: f64, hi: f64| c >= lo && c < hi;
            let res = build_rows(call, img.width, img.height, |y, row| {
                let cy = (y as f64 + 0.5) / h;
                let start = y as usize * img.width as usize;
                for x in 0..img.width as usize {
                    let cx = (x as f64 + 0.5) / w;
                    let p = img.pixels[start + x];
                    row.push(if inside(cx, x0, x1) && inside(cy, y0, y1) { color } else { p });
                }
            })?;
            out[0] = res.into_value();
            Ok(())
        },
    ))
}
