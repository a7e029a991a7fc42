//! Fuzz target `graph_file`: any bytes into `kiln_doc::fuzzing::graph_file`, with every op and codec of the standard library and the domains registered.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kiln_doc::fuzzing::graph_file(data, kiln_fuzz::registry());
});
