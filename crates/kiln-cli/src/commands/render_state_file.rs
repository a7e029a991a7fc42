//! The state files of `kiln render --save-state / --load-state`: the latch state after a
//! render's last tick (heavy values such as images and grids included, in the binary form of
//! `kiln_io::render_state`), to continue the simulation in a later render.

use super::render_journal::fingerprint;
use crate::common::CliError;
use kiln_core::graph::Graph;
use kiln_core::recurrence::Snapshot;
use kiln_core::registry::Registry;
use kiln_io::render_state::{decode_state, encode_state};
use std::path::Path;

/// The largest state file read (4 GiB).
const MAX_STATE_BYTES: u64 = 1 << 32;

/// What a state file is bound to: the graph, --dt, --seed and --set (not the tick count nor
/// the outputs, which do not change the latches).
pub(crate) fn state_fingerprint(
    g: &Graph,
    reg: &Registry,
    dt: f64,
    seed: u64,
    set: &[String],
) -> u128 {
    fingerprint(g, reg, u64::MAX, dt, seed, set, &[])
}

/// Write `state` to `path` atomically.
pub(crate) fn save(
    path: &Path,
    print: u128,
    state: Option<&Snapshot>,
    reg: &Registry,
) -> Result<(), CliError> {
    let state = state.ok_or_else(|| CliError("no tick ran: there is no state to save".into()))?;
    let bytes = encode_state(print, state, reg).ok_or_else(|| {
        CliError(format!(
            "cannot save the state to {}: a latch holds a value with no binary form",
            path.display()
        ))
    })?;
    kiln_io::write_atomic(path, &bytes)
        .map_err(|e| CliError(format!("cannot write {}: {e}", path.display())))
}

/// Read the state at `path`, refusing one saved from another graph or other settings.
pub(crate) fn load(path: &Path, print: u128, reg: &Registry) -> Result<Snapshot, CliError> {
    let bytes = kiln_io::input_file::read_input_file(path, MAX_STATE_BYTES)
        .map_err(|e| CliError(e.to_string()))?;
    let (fp, state) = decode_state(&bytes, reg)
        .map_err(|e| CliError(format!("{} is not a readable state: {e}", path.display())))?;
    if fp != print {
        return Err(CliError(format!(
            "{} was saved from another graph or other settings (--dt, --seed, --set)",
            path.display()
        )));
    }
    Ok(state)
}
