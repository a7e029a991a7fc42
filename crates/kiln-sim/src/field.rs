//! A per-cell rate: a number for every cell, or a map of one (a grid's first channel or an
//! image's red channel, of the state's size).

use crate::grid::Grid;
use crate::image_bridge::Image;
use kiln_core::op::OpError;
use kiln_core::value::Value;

/// A rate read per cell (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Field<'a> {
    /// The same value at every cell.
    Uniform(f32),
    /// Channel 0 of a grid, channels apart.
    Grid(&'a [f32], usize),
    /// The red channel of an image.
    Image(&'a [[f32; 4]]),
}

impl Field<'_> {
    /// The value at cell index `i` (row-major).
    #[inline(always)]
    pub(crate) fn at(&self, i: usize) -> f32 {
        match self {
            Field::Uniform(v) => *v,
            Field::Grid(d, c) => d[i * c],
            Field::Image(p) => p[i][0],
        }
    }
}

/// `v` (input `i`) as a field over a `w` x `h` state: a number, or a grid or image of that
/// size.
pub(crate) fn field(v: &Value, i: usize, w: u32, h: u32) -> Result<Field<'_>, OpError> {
    if let Some(f) = v.as_f64() {
        return Ok(Field::Uniform(f as f32));
    }
    let size_error = |what: &str, fw: u32, fh: u32| {
        OpError::input(
            i,
            format!(
                "the {what} is {fw} x {fh}, the state is {w} x {h}: a map must match the state's size"
            ),
        )
    };
    if let Some(g) = v.as_heavy::<Grid>() {
        if (g.width(), g.height()) != (w, h) {
            return Err(size_error("grid", g.width(), g.height()));
        }
        return Ok(Field::Grid(g.data(), g.channels() as usize));
    }
    if let Some(img) = v.as_heavy::<Image>() {
        if (img.width, img.height) != (w, h) || img.pixels.len() != w as usize * h as usize {
            return Err(size_error("image", img.width, img.height));
        }
        return Ok(Field::Image(&img.pixels));
    }
    Err(OpError::input(
        i,
        format!(
            "expected a number, a grid or an image, found {}",
            v.type_name()
        ),
    ))
}
