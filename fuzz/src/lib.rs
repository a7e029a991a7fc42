//! What every fuzz target shares: the registry of every node library (the standard ops and
//! each domain's ops and codecs), as the `kiln` command builds it.

use kiln_core::registry::Registry;
use std::sync::OnceLock;

/// The standard ops, images, audio, meshes and simulations, built once.
pub fn registry() -> &'static Registry {
    static REG: OnceLock<Registry> = OnceLock::new();
    REG.get_or_init(|| {
        let mut r = kiln_image::registry();
        kiln_audio::register(&mut r).expect("the audio ops are distinct");
        kiln_mesh::register(&mut r).expect("the mesh ops are distinct");
        kiln_sim::register(&mut r).expect("the simulation ops are distinct");
        r
    })
}
