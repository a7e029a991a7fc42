//! Drawing shapes onto images: `image.rect`, a filled axis-aligned rectangle given in the
//! image's unit square (`[0, 0]` is the top-left corner, `[1, 1]` the bottom-right), so the
//! same graph draws the same picture at any resolution.
//!
//! A pixel is inside when its centre is: pixel `(x, y)` has centre
//! `((x + 0.5) / width, (y + 0.5) / height)`, and the rectangle holds the centres `c` with
//! `min <= c < max` on both axes.

use crate::fn_op::FnOp;
use crate::image::IMAGE_TYPE;
use kiln_core::op::{InputSpec, OpSpec, OutputSpec};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

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
        |call, out| crate::per_pixel::exec(call, out, crate::per_pixel::rect),
    ))
}
