//! Fuzz target `mesh_obj`: any bytes into `kiln_io::fuzzing::obj` (the OBJ mesh decoder).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kiln_io::fuzzing::obj(data);
});
