//! The manifest of a tick render: which ticks of `kiln render --ticks N` are whole in its
//! output folder, so a killed render can tell what it left and continue from there.
//!
//! The manifest is `DIR/kiln-render.json`, rewritten atomically after each tick's files have
//! all landed (so it never names a tick with a file missing):
//!
//! ```json
//! {
//!   "kiln_render": 1,
//!   "render": "3f2a…",
//!   "ticks": 240,
//!   "whole": 57,
//!   "files": ["trails_{tick}.png"],
//!   "tick_digits": 3
//! }
//! ```
//!
//! * `render` is the fingerprint of what was rendered (the graph and every setting that
//!   changes its bytes), as 32 hex digits: a resume refuses a folder rendered from something
//!   else.
//! * `whole`: ticks `0` to `whole - 1` are whole: every file of each has landed.
//! * `files`: the file of each output at a tick, `{tick}` standing for the tick padded to
//!   `tick_digits` digits.
//!
//! The latch state a resume continues from is in a file of its own
//! ([`crate::render_state`]).

use crate::input_file::read_input_file;
use crate::values::{WriteError, write_atomic};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The manifest's file name in the output folder.
pub const MANIFEST_NAME: &str = "kiln-render.json";

/// The manifest version this build reads and writes.
pub const MANIFEST_VERSION: u32 = 1;

/// The largest manifest read (1 MiB).
const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// What a manifest records (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenderManifest {
    /// The format version, [`MANIFEST_VERSION`].
    pub kiln_render: u32,
    /// The fingerprint of what was rendered, 32 hex digits.
    pub render: String,
    /// The ticks asked for.
    pub ticks: u64,
    /// Ticks `0..whole` are whole.
    pub whole: u64,
    /// Each output's file at a tick, `{tick}` standing for the padded tick.
    pub files: Vec<String>,
    /// The digits a tick is padded to.
    pub tick_digits: usize,
}

impl RenderManifest {
    /// The files of tick `t`, in output order.
    pub fn files_of(&self, t: u64) -> Vec<String> {
        let tick = format!("{t:0width$}", width = self.tick_digits);
        self.files
            .iter()
            .map(|f| f.replace("{tick}", &tick))
            .collect()
    }
}

/// Why a manifest could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] crate::input_file::InputFileError),
    /// The file is not a manifest this build reads.
    #[error("{} is not a render manifest: {reason}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// The manifest's path in output folder `dir`.
pub fn manifest_path(dir: &Path) -> PathBuf {
    dir.join(MANIFEST_NAME)
}

/// Write the manifest of folder `dir` atomically (an existing one is replaced whole, or
/// untouched on failure).
pub fn write_manifest(dir: &Path, m: &RenderManifest) -> Result<(), WriteError> {
    let mut text = serde_json::to_string_pretty(m).unwrap_or_default();
    text.push('\n');
    write_atomic(&manifest_path(dir), text.as_bytes())
}

/// The manifest of folder `dir`, or `None` when there is none.
pub fn read_manifest(dir: &Path) -> Result<Option<RenderManifest>, ManifestError> {
    let path = manifest_path(dir);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let bytes = read_input_file(&path, MAX_MANIFEST_BYTES)?;
    parse_manifest(&bytes)
        .map(Some)
        .map_err(|reason| ManifestError::Invalid { path, reason })
}

/// Parse the bytes of a manifest, checking its version and that it is consistent (no more
/// whole ticks than ticks, a `{tick}` in every file name).
pub fn parse_manifest(bytes: &[u8]) -> Result<RenderManifest, String> {
    let m: RenderManifest = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    if m.kiln_render != MANIFEST_VERSION {
        return Err(format!(
            "version {} (this build reads {MANIFEST_VERSION})",
            m.kiln_render
        ));
    }
    if m.whole > m.ticks {
        return Err(format!("{} whole ticks of {}", m.whole, m.ticks));
    }
    if m.tick_digits > 20 || m.files.iter().any(|f| !f.contains("{tick}")) {
        return Err("its file names do not say where the tick goes".into());
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_reads_back_and_names_the_files_of_a_tick() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read_manifest(dir.path()).unwrap().is_none());
        let m = RenderManifest {
            kiln_render: MANIFEST_VERSION,
            render: "00ff".into(),
            ticks: 1200,
            whole: 7,
            files: vec!["trails_{tick}.png".into(), "level_{tick}.json".into()],
            tick_digits: 4,
        };
        write_manifest(dir.path(), &m).unwrap();
        let back = read_manifest(dir.path()).unwrap().unwrap();
        assert_eq!(back, m);
        assert_eq!(back.files_of(7), ["trails_0007.png", "level_0007.json"]);
        for bad in [
            &b"{}"[..],
            br#"{"kiln_render": 2, "render": "", "ticks": 1, "whole": 0, "files": [], "tick_digits": 3}"#,
            br#"{"kiln_render": 1, "render": "", "ticks": 1, "whole": 2, "files": [], "tick_digits": 3}"#,
            br#"{"kiln_render": 1, "render": "", "ticks": 1, "whole": 0, "files": ["x.png"], "tick_digits": 3}"#,
        ] {
            assert!(parse_manifest(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }
}
