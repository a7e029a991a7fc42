//! Fuzz target `graph_file`: any bytes into `kiln_io::fuzzing::graph_file`, with every standard and audio
//! op and codec registered.
#![no_main]

use kiln_core::registry::Registry;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn registry() -> &'static Registry {
    static REG: OnceLock<Registry> = OnceLock::new();
    REG.get_or_init(|| { let mut r = kiln_image::registry(); kiln_audio::register(&mut r).expect("the image and audio ops are distinct"); r })
}

fuzz_target!(|data: &[u8]| {
    kiln_io::fuzzing::graph_file(data, registry());
});
