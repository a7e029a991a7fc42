//! Fuzz target `wav`: any bytes into `kiln_io::fuzzing::wav` (the WAV decoder).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kiln_io::fuzzing::wav(data);
});
