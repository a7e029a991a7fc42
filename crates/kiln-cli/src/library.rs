//! The node library of the `kiln` command: which crates' ops a graph file may use.

use kiln_core::registry::{Registry, RegistryError};

/// Every op the `kiln` command knows: the standard library (`kiln-std`) and the nodes of each
/// domain crate (`kiln-image`, `kiln-audio`, `kiln-mesh`, `kiln-sim`). An error only if two
/// libraries claim the same op id.
pub(crate) fn registry() -> Result<Registry, RegistryError> {
    let mut reg = kiln_image::registry();
    kiln_audio::register(&mut reg)?;
    kiln_mesh::register(&mut reg)?;
    kiln_sim::register(&mut reg)?;
    Ok(reg)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_library_holds_the_standard_and_every_domain_s_ops() {
        let reg = super::registry().expect("the libraries do not collide");
        for id in [
            "math.add",
            "image.noise",
            "latch",
            "osc.sine",
            "delay",
            "resample",
            "mesh.icosphere",
            "sim.grayscott.step",
            "sim.view",
        ] {
            assert!(reg.get(id).is_some(), "{id} is missing");
        }
    }
}
