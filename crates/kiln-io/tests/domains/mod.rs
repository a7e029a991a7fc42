//! The registry of every node library: the standard ops and each domain's ops and codecs.

use kiln_core::registry::Registry;

/// The standard ops, images, audio, meshes and simulations.
pub fn every_domain() -> Registry {
    let mut r = kiln_image::registry();
    kiln_audio::register(&mut r).expect("the image and audio ops are distinct");
    kiln_mesh::register(&mut r).expect("the mesh ops are distinct");
    kiln_sim::register(&mut r).expect("the simulation ops are distinct");
    r
}
