//! `input.image`: a named graph input of an image, with the `color` setting that says how a
//! file given for it is read (the value the op returns does not depend on it).

use crate::image::IMAGE_TYPE;
use kiln_core::context::EvalContext;
use kiln_core::key::KeyHasher;
use kiln_core::op::{OpError, Role, Rule};
use kiln_core::value::Value;

/// A named graph input of an image (a graph used as a node takes one from its call).
#[kiln_core::op(
    "input.image",
    purity = "user-input",
    role = Role::GraphInput,
    hash_context = hash_image_input,
    out_type = IMAGE_TYPE,
    out = "the input's value"
)]
pub fn input_image(
    #[param("the input's name")] name: &str,
    #[param(
        "how a PNG or JPEG file given for the input is read: `auto` (as the file says: linear \
         when it states gamma 1.0, else sRGB), `srgb` (sRGB-decoded) or `data` (the codes as \
         values: normal and height maps); OpenEXR is always linear",
        default = "auto",
        rule = Rule::OneOf(&["auto", "srgb", "data"])
    )]
    color: &str,
    ctx: &EvalContext,
) -> Result<Value, OpError> {
    kiln_std::graph_io::input_value(IMAGE_TYPE, name, None, ctx)
}

fn hash_image_input(params: &[Value], ctx: &EvalContext, h: &mut KeyHasher) {
    kiln_std::graph_io::hash_input(IMAGE_TYPE, false, params, ctx, h)
}
