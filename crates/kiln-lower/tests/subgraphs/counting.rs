//! `test.count`: passes `x` through and counts its executions per thread, so a test can say
//! exactly how many copies cooked.

use kiln_core::prelude::*;
use std::cell::Cell;

thread_local! {
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

/// Executions of `test.count` on this thread since the last call.
pub fn take() -> usize {
    COUNT.with(|c| c.replace(0))
}

/// Count `n` more executions (to put back what a check in between took).
pub fn add(n: usize) {
    COUNT.with(|c| c.set(c.get() + n));
}

/// x, counted.
#[kiln_core::op("test.count", out_type = ValueType::Float, out = "x")]
fn count(#[input("value", default = 0.0, ty = ValueType::Float)] x: &Value) -> Value {
    COUNT.with(|n| n.set(n.get() + 1));
    x.clone()
}

/// Register `test.count`.
pub fn register(reg: &mut Registry) {
    reg.register(CountOp::new()).unwrap();
}
