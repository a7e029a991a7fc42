//! `kiln cache du DIR` and `kiln cache trim DIR --max SIZE`: the size of a persistent cache
//! directory, and trimming it to a budget (oldest entries first; see
//! [`kiln_io::cache::budget`]).

use crate::args::CacheCmd;
use crate::common::CliError;
use kiln_io::cache::budget::{self, human_bytes};
use std::path::Path;
use std::process::ExitCode;

/// Refuse a `DIR` that is not a folder.
fn check_dir(dir: &Path) -> Result<(), CliError> {
    if dir.is_dir() {
        Ok(())
    } else {
        Err(CliError(format!(
            "`{}` is not a cache directory (no such folder)",
            dir.display()
        )))
    }
}

/// `kiln cache ...`.
pub(crate) fn cache(action: &CacheCmd) -> Result<ExitCode, CliError> {
    match action {
        CacheCmd::Du { dir } => {
            check_dir(dir)?;
            let usage = budget::disk_usage(dir)
                .map_err(|e| CliError(format!("cannot read {}: {e}", dir.display())))?;
            crate::outln!(
                "{}: {} entries, {} bytes ({})",
                dir.display(),
                usage.entries,
                usage.bytes,
                human_bytes(usage.bytes)
            );
        }
        CacheCmd::Trim { dir, max } => {
            check_dir(dir)?;
            crate::outln!("{}: {}", dir.display(), trim(dir, *max)?);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Trim the cache directory `dir` to `max` bytes; what was done, as a line.
pub(crate) fn trim(dir: &Path, max: u64) -> Result<String, CliError> {
    let report = budget::trim(dir, max)
        .map_err(|e| CliError(format!("cannot trim {}: {e}", dir.display())))?;
    let mut line = format!(
        "removed {} entries ({}), {} entries ({}) left, budget {}",
        report.removed.entries,
        human_bytes(report.removed.bytes),
        report.left.entries,
        human_bytes(report.left.bytes),
        human_bytes(max)
    );
    if report.leftovers > 0 {
        line.push_str(&format!(
            "; removed {} temporary file(s) of stopped processes",
            report.leftovers
        ));
    }
    Ok(line)
}
