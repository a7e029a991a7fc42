//! The node library of the `kiln` command: which crates' ops a graph file may use.

use kiln_core::registry::{Registry, RegistryError};

/// Every op the `kiln` command knows: the standard library (`kiln-std`) and the nodes of each
/// domain crate (`kiln-image`, `kiln-audio`, `kiln-mesh`). An error only if two libraries claim the same op id.
pub(crate) fn registry() -> Result<Registry, RegistryError> {
    let mut reg = kiln_image::registry();
    kiln_audio::register(&mut reg)?;
    kiln_mesh::register(&mut reg)?;
    Ok(reg)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_library_holds_the_standard_image_audio_and_mesh_ops() {
        let reg = super::registry().expect("the libraries do not collide");
        for id in [
            "math.add",
            "image.noise",
            "latch",
            "osc.sine",
            "delay",
            "resample",
            "mesh.icosphere",
        ] {
            assert!(reg.get(id).is_some(), "{id} is missing");
        }
    }
}
