//! Fuzz target `mesh_gltf`: any bytes into `kiln_io::fuzzing::gltf` (the glTF mesh decoder).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kiln_io::fuzzing::gltf(data);
});
