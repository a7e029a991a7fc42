//! The Rust types of the simulation ops' ports (`#[op]` port types): the heavy states as
//! ports ([`HeavyPort`]), a `list<vec3>` input, and the checks the ops share (the size params,
//! a state's channel count).

use crate::cloth::{CLOTH_TYPE, Cloth};
use crate::colonize::{TREE_TYPE, Tree};
use crate::grid::{GRID_TYPE, Grid, MAX_SIDE};
use crate::particles::{PARTICLES_TYPE, Particles};
use crate::rigid::{RIGID_TYPE, RigidWorld};
use crate::wfc::{WAVE_TYPE, Wave};
use kiln_core::list_type::list_of;
use kiln_core::op::port::{FromPort, HeavyPort, IntoPort};
use kiln_core::op::{OpError, Rule};
use kiln_core::value::{Value, ValueType};
use std::sync::Arc;

impl HeavyPort for Grid {
    const TYPE: ValueType = GRID_TYPE;
}

impl HeavyPort for Particles {
    const TYPE: ValueType = PARTICLES_TYPE;
}

impl HeavyPort for Cloth {
    const TYPE: ValueType = CLOTH_TYPE;
}

impl HeavyPort for Wave {
    const TYPE: ValueType = WAVE_TYPE;
}

impl HeavyPort for Tree {
    const TYPE: ValueType = TREE_TYPE;
}

impl HeavyPort for RigidWorld {
    const TYPE: ValueType = RIGID_TYPE;
}

/// The rule of the `width` and `height` params of an op with a size of its own, in cells or
/// pixels: from 1 to [`MAX_SIDE`].
pub(crate) const SIDE: Rule = Rule::Ints {
    min: 1,
    max: MAX_SIDE as i64,
};

/// The size params `width` and `height` (params 0 and 1), checked as a grid's size.
pub(crate) fn grid_size(w: i64, h: i64) -> Result<(u32, u32), OpError> {
    crate::grid::check_shape(w, h, 1)
        .map(|(w, h, _)| (w, h))
        .map_err(|m| {
            OpError::param(
                if (1..=MAX_SIDE as i64).contains(&w) {
                    1
                } else {
                    0
                },
                m,
            )
        })
}

/// The size of the image an op makes from its `width` and `height` params: [`grid_size`],
/// then at most [`kiln_image::image::MAX_PIXELS`] pixels, checked before anything is
/// allocated. (Such an op declares [`kiln_image::image::pixels_rule`] over the pair too, see
/// `params_rule`, so validation refuses what running would.)
pub(crate) fn image_size(w: i64, h: i64) -> Result<(u32, u32), OpError> {
    let (w, h) = grid_size(w, h)?;
    kiln_image::image::check_pixels(u64::from(w), u64::from(h))
        .map_err(|m| OpError::param(0, m))?;
    Ok((w, h))
}

/// `g` (the grid at input `i`) when it has `channels` channels, else an error naming the
/// input and `what` was expected.
pub(crate) fn with_channels<'a>(
    g: &'a Grid,
    i: usize,
    channels: u32,
    what: &str,
) -> Result<&'a Grid, OpError> {
    if g.channels() != channels {
        return Err(OpError::input(
            i,
            format!(
                "expected {what} (a grid of {channels} channel(s)), found a grid of {} channel(s)",
                g.channels()
            ),
        ));
    }
    Ok(g)
}

/// A `list<vec3>` input: its elements as they came (see [`Vec3s::finite`]).
pub(crate) struct Vec3s<'a>(pub &'a [Value]);

impl<'a> FromPort<'a> for Vec3s<'a> {
    fn port_type() -> ValueType {
        list_of(ValueType::Vec3)
    }
    fn from_port(v: &'a Value) -> Option<Self> {
        v.as_list().map(Vec3s)
    }
}

/// The list as a value (a default).
impl IntoPort for Vec3s<'_> {
    fn port_type() -> ValueType {
        list_of(ValueType::Vec3)
    }
    fn into_port(self) -> Value {
        Value::List(Arc::from(self.0))
    }
}

impl Vec3s<'_> {
    /// The elements (of input `i`) as finite vec3, the length checked against
    /// [`kiln_std::lists::MAX_LIST_LEN`] before the copy is made.
    pub(crate) fn finite(&self, i: usize) -> Result<Vec<[f32; 3]>, OpError> {
        let items = self.0;
        let limit = kiln_std::lists::MAX_LIST_LEN;
        if items.len() as u64 > limit {
            return Err(OpError::input(
                i,
                format!(
                    "the list has {} elements, over the limit of {limit} \
                     (kiln_std::lists::MAX_LIST_LEN)",
                    items.len()
                ),
            ));
        }
        items
            .iter()
            .enumerate()
            .map(|(k, v)| match v {
                Value::Vec3(p) if p.iter().all(|c| c.is_finite()) => Ok(p.map(|c| c as f32)),
                v => Err(OpError::input(
                    i,
                    format!(
                        "element {k}: expected a finite vec3, found {}",
                        v.type_name()
                    ),
                )),
            })
            .collect()
    }
}

/// A vec3 as three `f32`.
pub(crate) fn f32s(v: [f64; 3]) -> [f32; 3] {
    v.map(|c| c as f32)
}
