//! `image.fused`: a chain of per-pixel ops run as one node. Its `chain` param lists the
//! members in order, each `[op, params, args]`: the op id, its params (every one, defaults
//! filled) and one arg per input port of the op: `int j >= 0` the image member `j` makes
//! (an earlier member), `int -1 - k` the node's input `in{k}`, and a one-element list
//! `[value]` a constant. Every member's builder ([`crate::per_pixel::builder`]) appends to
//! one tape, and the last member's pixel is rendered: one pass, one image, the same bits as
//! the members run one by one. [`crate::fuse::fuse`] writes these nodes; nobody needs to.

use crate::field::{Px, Tape, Unary};
use crate::image::Image;
use crate::per_pixel::{Arg, builder};
use kiln_core::context::EvalContext;
use kiln_core::key::KeyHasher;
use kiln_core::op::{OpCall, OpError, Reads};
use kiln_core::value::Value;

/// The op id.
pub const FUSED_OP: &str = "image.fused";

/// Most external inputs a fused node has (`in0` .. `in7`).
pub const FUSED_INPUTS: usize = 8;

const INPUT_NAMES: [&str; FUSED_INPUTS] = ["in0", "in1", "in2", "in3", "in4", "in5", "in6", "in7"];

/// One member of a chain, read from the `chain` param.
struct Member<'v> {
    op: &'v str,
    params: &'v [Value],
    args: &'v [Value],
}

fn members(list: &[Value]) -> Result<Vec<Member<'_>>, OpError> {
    let bad = |i: usize, what: &str| OpError::param(0, format!("chain member #{i}: {what}"));
    let mut out = Vec::with_capacity(list.len());
    for (i, m) in list.iter().enumerate() {
        let parts = m.as_list().ok_or_else(|| bad(i, "not a list"))?;
        let [op, params, args] = parts else {
            return Err(bad(i, "expected [op, params, args]"));
        };
        out.push(Member {
            op: op
                .as_str()
                .ok_or_else(|| bad(i, "the op is not a string"))?,
            params: params
                .as_list()
                .ok_or_else(|| bad(i, "params not a list"))?,
            args: args.as_list().ok_or_else(|| bad(i, "args not a list"))?,
        });
    }
    Ok(out)
}

/// Whether a member reads the clock (the key then holds the time).
fn reads_time(op: &str) -> bool {
    op == crate::expr::IMAGE_EXPR_OP
}

/// Build the tape of a whole chain over `inputs`, returning the last member's pixel.
pub(crate) fn build_chain<'a>(
    tape: &mut Tape<'a>,
    chain: &'a [Value],
    inputs: &'a [Value],
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    let members = members(chain)?;
    let mut made: Vec<Px> = Vec::with_capacity(members.len());
    for (i, m) in members.iter().enumerate() {
        let build = builder(m.op).ok_or_else(|| {
            OpError::param(
                0,
                format!("chain member #{i}: {} is not a per-pixel op", m.op),
            )
        })?;
        let mut args = Vec::with_capacity(m.args.len());
        for a in m.args {
            args.push(match a {
                Value::Int(j) if *j >= 0 => {
                    Arg::Pixels(*made.get(*j as usize).ok_or_else(|| {
                        OpError::param(
                            0,
                            format!("chain member #{i} reads member #{j}, not made yet"),
                        )
                    })?)
                }
                Value::Int(k) => {
                    let k = (-1 - *k) as usize;
                    let v = inputs.get(k).ok_or_else(|| {
                        OpError::param(0, format!("chain member #{i} reads a missing input"))
                    })?;
                    match v.as_heavy::<Image>() {
                        Some(img) => Arg::Pixels(tape.image(img, k)?),
                        None => Arg::Value(v),
                    }
                }
                other => match other.as_list() {
                    Some([v]) => Arg::Value(v),
                    _ => return Err(OpError::param(0, format!("chain member #{i}: a bad arg"))),
                },
            });
        }
        let px = build(tape, &args, m.params, ctx)
            .map_err(|e| OpError::new(format!("in fused member #{i} ({}): {}", m.op, e.message)))?;
        // What the member alone would store and its reader read back: f32 channels.
        let mut stored = px;
        for r in stored.iter_mut() {
            *r = tape.unary(Unary::Round32, *r)?;
        }
        made.push(stored);
    }
    made.last()
        .copied()
        .ok_or_else(|| OpError::param(0, "an empty chain"))
}

/// A chain of per-pixel image ops run as one pass (written by the fusion of a graph; `chain`
/// lists the members).
#[kiln_core::op(
    "image.fused",
    reads = "seed, time, resolution, preview",
    hash_context = hash_chain,
    out = "the last member's image"
)]
pub fn fused(
    call: &OpCall<'_>,
    #[input("an input of a member of the chain", ports = INPUT_NAMES)] inputs: &[Value],
    #[param("the members: [op, params, args] each", default = Vec::new(), plan_time)]
    chain: &[Value],
) -> Result<Image, OpError> {
    let mut tape = Tape::new();
    let px = build_chain(&mut tape, chain, inputs, call.ctx)?;
    crate::field::render(call, &tape, px)
}

/// What a fused node reads of the context, into its key: the seed, the request's size and
/// preview flag, and the time when a member reads the clock.
fn hash_chain(params: &[Value], ctx: &EvalContext, h: &mut KeyHasher) {
    Reads::SEED
        .with(Reads::RESOLUTION)
        .with(Reads::PREVIEW)
        .hash_fields(ctx, h);
    let timed = params
        .first()
        .and_then(Value::as_list)
        .and_then(|c| members(c).ok())
        .is_some_and(|ms| ms.iter().any(|m| reads_time(m.op)));
    if timed {
        h.f64(ctx.time);
    }
}
