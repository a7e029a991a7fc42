//! The registry of every node library with the ops lowering writes scopes into: what
//! `kiln::registry()` holds, assembled here beneath the `kiln` crate.

use kiln_core::registry::Registry;

/// The standard ops, the scope ops, images, audio, meshes and simulations.
pub fn every_domain() -> Registry {
    let mut r = kiln_image::registry();
    kiln_lower::register(&mut r).expect("the scope ops are distinct");
    kiln_audio::register(&mut r).expect("the image and audio ops are distinct");
    kiln_mesh::register(&mut r).expect("the mesh ops are distinct");
    kiln_sim::register(&mut r).expect("the simulation ops are distinct");
    r
}
