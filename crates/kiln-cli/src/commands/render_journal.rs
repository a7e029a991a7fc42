//! What `kiln render --ticks N` records in its output folder as it goes, and how
//! `--resume` reads it back: the manifest of whole ticks (`kiln_io::render_manifest`),
//! rewritten after each tick's files have landed, and every [`STATE_EVERY`] ticks the latch
//! state (`kiln_io::render_state`) a resume restores instead of replaying from tick 0.

use crate::common::CliError;
use kiln_core::key::KeyHasher;
use kiln_core::prelude::*;
use kiln_core::recurrence::Snapshot;
use kiln_io::render_manifest::{
    MANIFEST_VERSION, RenderManifest, manifest_path, read_manifest, write_manifest,
};
use kiln_io::render_state::{read_state, state_path, write_state};
use std::path::{Path, PathBuf};

/// How many whole ticks apart the latch state is saved.
pub(crate) const STATE_EVERY: u64 = 10;

/// The fingerprint of a render: the graph (in its saved form) and every setting that
/// changes the bytes written (ticks, dt, seed, `--set` values as given, outputs).
pub(crate) fn fingerprint(
    g: &Graph,
    reg: &Registry,
    ticks: u64,
    dt: f64,
    seed: u64,
    set: &[String],
    outputs: &[String],
) -> u128 {
    let mut h = KeyHasher::new();
    h.str("kiln render --ticks");
    h.str(&kiln_doc::save_graph(g, reg));
    h.u64(ticks);
    h.f64(dt);
    h.u64(seed);
    h.u64(set.len() as u64);
    set.iter().for_each(|s| h.str(s));
    h.u64(outputs.len() as u64);
    outputs.iter().for_each(|o| h.str(o));
    h.finish_key().0
}

/// The first tick the manifest calls whole that has a file missing from `dir` (or one that
/// is not a regular file), with that file's name.
fn first_missing(dir: &Path, manifest: &RenderManifest) -> Option<(u64, String)> {
    (0..manifest.whole).find_map(|t| {
        manifest
            .files_of(t)
            .into_iter()
            .find(|name| {
                !std::fs::symlink_metadata(dir.join(name)).is_ok_and(|m| m.file_type().is_file())
            })
            .map(|name| (t, name))
    })
}

/// The manifest and state of one render folder.
pub(crate) struct Journal {
    dir: PathBuf,
    manifest: RenderManifest,
    fingerprint: u128,
}

impl Journal {
    /// A render of `ticks` ticks into `dir`, from tick 0.
    pub(crate) fn fresh(dir: &Path, fingerprint: u128, ticks: u64, digits: usize) -> Self {
        Journal {
            dir: dir.to_path_buf(),
            manifest: RenderManifest {
                kiln_render: MANIFEST_VERSION,
                render: format!("{fingerprint:032x}"),
                ticks,
                whole: 0,
                files: vec![],
                tick_digits: digits,
            },
            fingerprint,
        }
    }

    /// The render `dir` holds, to continue: its journal and the latch state to restore (at
    /// or before its last whole tick), if one was saved. A folder without a manifest starts
    /// from tick 0; one rendered from another graph or other settings is refused.
    pub(crate) fn resume(
        dir: &Path,
        fingerprint: u128,
        ticks: u64,
        digits: usize,
        reg: &Registry,
    ) -> Result<(Self, Option<Snapshot>), CliError> {
        let fresh = Journal::fresh(dir, fingerprint, ticks, digits);
        let manifest = read_manifest(dir).map_err(|e| CliError(e.to_string()))?;
        let Some(manifest) = manifest else {
            eprintln!(
                "no render to resume in {}: starting at tick 0",
                dir.display()
            );
            return Ok((fresh, None));
        };
        if manifest.render != fresh.manifest.render || manifest.tick_digits != digits {
            return Err(CliError(format!(
                "{} records a render of another graph or other settings (ticks, dt, seed, \
                 --set, --output); run without --resume to start over",
                manifest_path(dir).display()
            )));
        }
        // The fingerprint covers the ticks asked for, but the manifest's own count is not
        // to be believed because of it: a manifest edited to claim more ticks (or whole
        // ticks) than this render asks for is refused.
        if manifest.ticks != ticks {
            return Err(CliError(format!(
                "{} records a render of {} ticks, not the {ticks} asked for; run without \
                 --resume to start over",
                manifest_path(dir).display(),
                manifest.ticks
            )));
        }
        if let Some(bad) = manifest
            .files
            .iter()
            .find(|f| f.is_empty() || f.contains(['/', '\\', '\0']) || f.starts_with('.'))
        {
            return Err(CliError(format!(
                "{} names a frame file `{bad}` that is not a plain file name; run without \
                 --resume to start over",
                manifest_path(dir).display()
            )));
        }
        let mut manifest = manifest;
        // Ticks are whole only while their files are on disk: from the first tick with a
        // file missing (deleted since), the render is made again.
        if let Some((t, missing)) = first_missing(dir, &manifest) {
            eprintln!(
                "{} is missing: ticks from {t} on are rendered again",
                dir.join(missing).display()
            );
            manifest.whole = t;
        }
        let state = read_state(dir, reg)
            .filter(|(fp, s)| *fp == fingerprint && s.tick <= manifest.whole)
            .map(|(_, s)| s);
        Ok((
            Journal {
                dir: dir.to_path_buf(),
                manifest,
                fingerprint,
            },
            state,
        ))
    }

    /// Ticks `0..whole()` are whole on disk.
    pub(crate) fn whole(&self) -> u64 {
        self.manifest.whole
    }

    /// Record that nothing past the whole ticks is to be trusted (a fresh render: no tick)
    /// before the first tick of this run is written; a fresh render also drops the state of
    /// an earlier one.
    pub(crate) fn begin(&self) -> Result<(), CliError> {
        if self.manifest.whole == 0 {
            let _ = std::fs::remove_file(state_path(&self.dir));
        }
        self.write()
    }

    /// Tick `t` has landed: its `files` (each output's name and path, in output order) are
    /// all in place. `state` is the driver's state after it, saved every [`STATE_EVERY`]
    /// ticks (after the manifest, so a saved state is never ahead of it).
    pub(crate) fn landed(
        &mut self,
        t: u64,
        files: &[(String, PathBuf)],
        state: Option<&Snapshot>,
        reg: &Registry,
    ) -> Result<(), CliError> {
        if self.manifest.files.is_empty() {
            self.manifest.files = files
                .iter()
                .map(|(name, path)| {
                    let ext = path
                        .extension()
                        .map(|e| e.to_string_lossy())
                        .unwrap_or_default();
                    format!("{}_{{tick}}.{ext}", name.replace('.', "_"))
                })
                .collect();
        }
        self.manifest.whole = t + 1;
        self.write()?;
        if let Some(s) = state
            && self.manifest.whole.is_multiple_of(STATE_EVERY)
        {
            // A state that cannot be saved (a value with no binary form) only means a
            // resume replays.
            let _ = write_state(&self.dir, self.fingerprint, s, reg);
        }
        Ok(())
    }

    /// Every tick has landed: the state is no longer needed (the manifest stays).
    pub(crate) fn finish(&self) {
        let _ = std::fs::remove_file(state_path(&self.dir));
    }

    fn write(&self) -> Result<(), CliError> {
        write_manifest(&self.dir, &self.manifest).map_err(|e| {
            CliError(format!(
                "cannot write {}: {e}",
                manifest_path(&self.dir).display()
            ))
        })
    }
}
