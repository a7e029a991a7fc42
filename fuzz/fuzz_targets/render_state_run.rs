//! Fuzz target `render_state_run`: any bytes into `kiln_io::fuzzing::render_state_run` (a render state whose heavy values, rigid-body worlds among them, are run through the ops that take them), with every op and codec of the standard library and the domains registered.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kiln_io::fuzzing::render_state_run(data, kiln_fuzz::registry());
});
