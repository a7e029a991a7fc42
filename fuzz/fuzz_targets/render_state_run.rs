//! Fuzz target `render_state_run`: any bytes into `kiln_io::fuzzing::render_state_run` (a render state whose heavy values, rigid-body worlds among them, are run through the ops that take them), with every op and codec of the standard library and the domains registered.
//!
//! Loading a rigid-body world runs a trial step under `catch_unwind` on purpose (rapier
//! panics on some damaged worlds; `kiln_sim::rigid` refuses them by that panic), so a caught
//! panic is not a finding here: the panic hook is quiet. A panic that escapes the target (an
//! op that panicked, which the target turns into a panic) is still caught by libFuzzer's
//! harness and aborts the run.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::Once;

static QUIET_HOOK: Once = Once::new();

fuzz_target!(|data: &[u8]| {
    QUIET_HOOK.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    kiln_io::fuzzing::render_state_run(data, kiln_fuzz::registry());
});
