//! Clock inputs, the fields of the evaluation context: `clock.time`, `clock.frame`,
//! `clock.dt`, `clock.seed`. Each declares the field it reads, so it is keyed by its value.

use kiln_core::context::EvalContext;
use kiln_core::op;
use kiln_core::registry::{Registry, RegistryError};

/// Time in seconds.
#[op("clock.time", reads = "time", out = "Time in seconds.")]
pub fn time(ctx: &EvalContext) -> f64 {
    ctx.time
}

/// Frame number.
#[op("clock.frame", reads = "frame", out = "Frame number.")]
pub fn frame(ctx: &EvalContext) -> i64 {
    ctx.frame
}

/// Seconds since the previous evaluation.
#[op(
    "clock.dt",
    reads = "dt",
    out = "Seconds since the previous evaluation."
)]
pub fn dt(ctx: &EvalContext) -> f64 {
    ctx.dt
}

/// The evaluation's seed, as an int.
#[op(
    "clock.seed",
    reads = "seed",
    out = "The evaluation's seed, as an int."
)]
pub fn seed(ctx: &EvalContext) -> i64 {
    ctx.seed as i64
}

/// Register the ops of this module.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(TimeOp::new())?;
    reg.register(FrameOp::new())?;
    reg.register(DtOp::new())?;
    reg.register(SeedOp::new())
}
