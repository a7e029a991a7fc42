//! Fuzz target `cache_entry`: any bytes into `kiln_io::fuzzing::cache_entry`, with every op and codec of the standard library and the domains registered.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kiln_io::fuzzing::cache_entry(data, kiln_fuzz::registry());
});
