//! The shape every op of this crate shares: a declaration and one function.

use kiln_core::op::{Op, OpCall, OpError, OpSpec};
use kiln_core::value::Value;

/// The body of an op: reads the call, writes one value per output slot.
pub(crate) type Body = fn(&OpCall<'_>, &mut [Value]) -> Result<(), OpError>;

/// An op made of its spec and a plain function.
pub(crate) struct SimOp {
    spec: OpSpec,
    body: Body,
}

impl SimOp {
    /// The op declared by `spec`, running `body`.
    pub(crate) fn new(spec: OpSpec, body: Body) -> SimOp {
        SimOp { spec, body }
    }
}

impl Op for SimOp {
    fn spec(&self) -> &OpSpec {
        &self.spec
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        (self.body)(call, out)
    }
}

/// Param `i` as an int.
pub(crate) fn int_param(call: &OpCall<'_>, i: usize) -> Result<i64, OpError> {
    call.param_int(i)
}

/// The grid at input `i`.
pub(crate) fn grid_input<'a>(
    call: &'a OpCall<'_>,
    i: usize,
) -> Result<&'a crate::grid::Grid, OpError> {
    call.heavy::<crate::grid::Grid>(i, "a grid")
}

/// A grid of `channels` channels at input `i`, refusing another channel count by name.
pub(crate) fn grid_with_channels<'a>(
    call: &'a OpCall<'_>,
    i: usize,
    channels: u32,
    what: &str,
) -> Result<&'a crate::grid::Grid, OpError> {
    let g = grid_input(call, i)?;
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

/// The size params `width` and `height` (params 0 and 1), checked.
pub(crate) fn size_params(call: &OpCall<'_>) -> Result<(u32, u32), OpError> {
    let w = int_param(call, 0)?;
    let h = int_param(call, 1)?;
    crate::grid::check_shape(w, h, 1)
        .map(|(w, h, _)| (w, h))
        .map_err(|m| {
            OpError::param(
                if (1..=crate::grid::MAX_SIDE as i64).contains(&w) {
                    1
                } else {
                    0
                },
                m,
            )
        })
}

/// The size of the image an op makes from its `width` and `height` params (see
/// [`with_image_size_params`]): [`size_params`], then at most
/// [`kiln_image::image::MAX_PIXELS`] pixels, checked before anything is allocated.
pub(crate) fn image_size_params(call: &OpCall<'_>) -> Result<(u32, u32), OpError> {
    let (w, h) = size_params(call)?;
    kiln_image::image::check_pixels(u64::from(w), u64::from(h))
        .map_err(|m| OpError::param(0, m))?;
    Ok((w, h))
}

/// [`with_size_params`] for an op that makes an image of that size: the pair declares the
/// image pixel limit too ([`kiln_image::image::pixels_rule`]), so validation refuses what
/// running would.
pub(crate) fn with_image_size_params(spec: OpSpec, side: i64) -> OpSpec {
    with_size_params(spec, side).with_params_rule(kiln_image::image::pixels_rule)
}

/// Add the `width` and `height` params (Int, default `side`, from 1 to
/// [`crate::grid::MAX_SIDE`]) as the op's first params.
pub(crate) fn with_size_params(spec: OpSpec, side: i64) -> OpSpec {
    use kiln_core::op::{ParamSpec, Rule};
    use kiln_core::value::ValueType;
    let rule = Rule::Ints {
        min: 1,
        max: crate::grid::MAX_SIDE as i64,
    };
    spec.param(
        ParamSpec::new("width", ValueType::Int, Value::Int(side), "width in cells")
            .plan_time()
            .with_rule(rule),
    )
    .param(
        ParamSpec::new(
            "height",
            ValueType::Int,
            Value::Int(side),
            "height in cells",
        )
        .plan_time()
        .with_rule(rule),
    )
}
