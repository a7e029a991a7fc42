//! What the audio ops share: the node's sample rate when a processor is built, and reading
//! signal inputs while it runs.

use kiln_core::op::OpError;
use kiln_core::signal::SignalCall;

/// The node's sample rate, or an error when it is not a positive finite number.
pub(crate) fn sample_rate(call: &SignalCall<'_>) -> Result<f64, OpError> {
    let sr = call.sample_rate;
    if sr.is_finite() && sr > 0.0 {
        Ok(sr)
    } else {
        Err(OpError::new(format!(
            "the sample rate must be a positive number of Hz, found {sr}"
        )))
    }
}

/// Signal input `i`, or an empty slice when the evaluator passed fewer inputs (a broken
/// contract must not panic: the output is then left partly unwritten).
#[inline]
pub(crate) fn input<'a>(inputs: &[&'a [f64]], i: usize) -> &'a [f64] {
    inputs.get(i).copied().unwrap_or(&[])
}

/// The value of a constant signal input for this block: its first sample (the slice holds
/// the constant throughout), or `default` when the slice is empty.
#[inline]
pub(crate) fn constant(inputs: &[&[f64]], i: usize, default: f64) -> f64 {
    input(inputs, i).first().copied().unwrap_or(default)
}

/// Multiply `out` by signal input `amp` (live, or a constant read once; a constant 1 changes
/// no bits and is skipped).
#[inline]
pub(crate) fn apply_amp(out: &mut [f64], amp: &[f64], live: bool) {
    if live {
        for (o, &a) in out.iter_mut().zip(amp) {
            *o *= a;
        }
    } else {
        let a = amp.first().copied().unwrap_or(1.0);
        if a != 1.0 {
            for o in out.iter_mut() {
                *o *= a;
            }
        }
    }
}
