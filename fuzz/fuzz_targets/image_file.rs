//! Fuzz target `image_file`: any bytes into `kiln_io::fuzzing::image_file` (the PNG, JPEG and
//! OpenEXR image decoder).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kiln_io::fuzzing::image_file(data);
});
