//! Every op Kiln ships, in one registry: the standard nodes and each domain's.

use kiln_core::registry::{Registry, RegistryError};

/// Every op Kiln ships: the standard library (`kiln-std`: maths, logic, lists, graph inputs
/// and outputs), the ops lowering writes scopes into (`kiln-lower`: gathers, queues, flow,
/// the step solver, curves) and the nodes of each domain crate (`kiln-image`, `kiln-audio`,
/// `kiln-mesh`, `kiln-sim`), with the heavy codecs they register.
///
/// ```
/// let reg = kiln::registry();
/// assert!(reg.get("image.noise").is_some() && reg.get("mesh.icosphere").is_some());
/// ```
pub fn registry() -> Registry {
    // The shipped libraries claim distinct op ids; a collision is a bug of Kiln's, which the
    // test below catches, so the fallible form is kept for callers who add their own.
    try_registry().unwrap_or_else(|e| panic!("Kiln's own libraries collide: {e}"))
}

/// [`registry`], with a collision between the shipped libraries as an error.
pub fn try_registry() -> Result<Registry, RegistryError> {
    let mut reg = kiln_image::registry();
    kiln_lower::register(&mut reg)?;
    kiln_audio::register(&mut reg)?;
    kiln_mesh::register(&mut reg)?;
    kiln_sim::register(&mut reg)?;
    Ok(reg)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_registry_holds_the_standard_and_every_domain_s_ops() {
        let reg = super::try_registry().expect("the libraries do not collide");
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
            "scope.flow",
        ] {
            assert!(reg.get(id).is_some(), "{id} is missing");
        }
    }
}
