//! (being written)

use kiln_core::registry::{Registry, RegistryError};

/// Register the ops of this module.
pub fn register(_reg: &mut Registry) -> Result<(), RegistryError> {
    Ok(())
}
