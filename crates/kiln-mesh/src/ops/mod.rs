//! The mesh ops, registered by [`crate::register`].

mod generators;
pub(crate) mod ports;

use kiln_core::registry::{Registry, RegistryError};

/// Register every mesh op.
pub(crate) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    generators::register(reg)?;
    Ok(())
}
