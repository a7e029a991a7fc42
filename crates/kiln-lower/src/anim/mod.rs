//! Animated values: keyframed curves ([`Curve`]) and the op that samples one at the clock
//! ([`CURVE_SAMPLE_OP`], `curve.sample`).
//!
//! **Curves.** Keys of (time, value), times strictly increasing; values are floats (an int
//! reads as a float), vec2/3/4 or colours, all of one kind, interpolated per component.
//! Before the first key the curve holds the first value, after the last key the last value,
//! at a key's time its exact value. Between keys, by the curve's [`Interp`]:
//! * `step` holds the previous key's value;
//! * `linear` is `a + (b - a) · u` with `u = (t - t0) / (t1 - t0)`;
//! * `bezier` is the cubic Bézier whose control points are the two keys and, between them,
//!   the right handle of the first and the left handle of the second. A handle is an
//!   offset (dt, dv) from its key; the curve parameter `s` for a time solves x(s) = t, and
//!   the value is y(s).
//!
//! **Automatic handles** ("auto-clamped", for keys without explicit ones): each handle
//! lies a third of the way to the neighbouring key in time, on the line through the key
//! with slope `m`, so a segment between two such keys is a cubic Hermite in
//! `u = (t - t0) / (t1 - t0)` with end slopes `m`. Per component, `m` is 0 at the first and
//! last key and at a key that is a local extremum or level with a neighbour; elsewhere the
//! Catmull–Rom slope (v[k+1] − v[k−1]) / (t[k+1] − t[k−1]), limited to three times the
//! smaller secant slope of the two segments beside the key, so no handle passes a
//! neighbouring key's value and a segment between monotone keys never overshoots. Two equal
//! neighbouring keys thus hold exactly still between them.
//!
//! **Explicit handles.** A left handle's time offset lies in `[t[k-1] - t[k], 0]`, a right
//! one's in `[0, t[k+1] - t[k]]` (so time never runs backwards inside a segment); the value
//! offset is of the curve's kind. Only `bezier` reads handles.
//!
//! **As params.** `keys` is a list of keys, each `[t, v]` (automatic handles) or
//! `[t, v, [dt, dv], [dt, dv]]` (left and right handles); `v` and `dv` are a number, a
//! vec2/3/4, a list of 2 to 4 numbers (a vector, as a graph file writes it), or a colour (a
//! colour value or a `#rrggbb` / `#rrggbbaa` hex string). `interp` is `step`, `linear` or
//! `bezier`. [`Curve::from_params`] reads them; [`Curve::to_value`] and
//! [`Curve::interp_value`] write them.
//!
//! **`curve.sample`** takes the params `keys` and `interp` (default `linear`) and outputs
//! `out`, the curve's value at the context's time, of the keys' type (a bad curve is a
//! validation error). Its key holds the sampled value, not the time, so over a stretch where
//! the curve holds still the node and everything downstream key equal and nothing cooks
//! again.

mod curve;
mod encode;
mod kind;
mod sample_op;
mod segment;

pub use curve::{Curve, CurveError, CurveKey, Handle, Interp};
pub use kind::CurveKind;
pub use sample_op::CurveSampleOp;

use kiln_core::registry::{Registry, RegistryError};

/// The op id of the curve sampler.
pub const CURVE_SAMPLE_OP: &str = CurveSampleOp::ID;

/// Register the curve sampler ([`CURVE_SAMPLE_OP`]).
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(CurveSampleOp::new())
}
