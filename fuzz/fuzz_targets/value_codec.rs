//! Fuzz target `value_codec`: any bytes into `kiln_io::fuzzing::value_codec`, with every op and codec of the standard library and the domains registered.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kiln_io::fuzzing::value_codec(data, kiln_fuzz::registry());
});
