//! The process-wide memory budget, and large buffers allocated without aborting.
//!
//! Ops that allocate from a size a user controls (an image's pixels, a delay line's samples)
//! first check the size against a named limit of their own, then make the buffer with
//! [`try_vec`] or [`try_filled`]: a buffer of at least [`LARGE`] bytes is refused when the
//! process's resident memory plus the buffer would pass the budget ([`set_limit`]; none by
//! default), and the allocation itself is a fallible reservation
//! (`Vec::try_reserve_exact`), so running out of memory (an address-space limit, say) is an
//! error the evaluator reports as the node's, never an abort.
//!
//! The resident size and the machine's memory are read from `/proc/self/status` and
//! `/proc/meminfo` where they exist; elsewhere they are unknown and the budget counts the
//! buffer alone.

use std::sync::atomic::{AtomicU64, Ordering};

/// Buffers at least this large (1 MiB) are checked against the budget; smaller ones are
/// only reserved fallibly.
pub const LARGE: usize = 1 << 20;

/// The budget in bytes; `u64::MAX` is none.
static LIMIT: AtomicU64 = AtomicU64::new(u64::MAX);

/// Set the process-wide budget in bytes (`None`: no budget).
pub fn set_limit(bytes: Option<u64>) {
    LIMIT.store(bytes.unwrap_or(u64::MAX), Ordering::Relaxed);
}

/// The process-wide budget in bytes, if one is set.
pub fn limit() -> Option<u64> {
    match LIMIT.load(Ordering::Relaxed) {
        u64::MAX => None,
        b => Some(b),
    }
}

/// Why a buffer was not made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MemoryError {
    /// The buffer would take the process past the budget.
    #[error(
        "{what} needs {}, which with the {} in use passes the memory limit of {}",
        bytes_text(*bytes),
        bytes_text(*resident),
        bytes_text(*limit)
    )]
    OverBudget {
        /// What the buffer was for.
        what: String,
        /// Its size in bytes.
        bytes: u64,
        /// The process's resident memory before it.
        resident: u64,
        /// The budget.
        limit: u64,
    },
    /// The allocator could not reserve the buffer.
    #[error("{what} needs {}, which could not be reserved (out of memory)", bytes_text(*bytes))]
    OutOfMemory {
        /// What the buffer was for.
        what: String,
        /// Its size in bytes.
        bytes: u64,
    },
}

/// A byte count as messages print it: `4294967296 bytes (4.0 GiB)`.
pub fn bytes_text(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{bytes} bytes ({v:.1} {})", UNITS[unit])
}

/// Check that a buffer of `bytes` fits the budget (always, below [`LARGE`] or without one).
/// `what` names it in the error (`an image of 8192 x 8192 pixels`).
pub fn check(bytes: u64, what: impl FnOnce() -> String) -> Result<(), MemoryError> {
    let Some(limit) = limit() else {
        return Ok(());
    };
    if bytes < LARGE as u64 {
        return Ok(());
    }
    let resident = resident().unwrap_or(0);
    if resident.saturating_add(bytes) > limit {
        return Err(MemoryError::OverBudget {
            what: what(),
            bytes,
            resident,
            limit,
        });
    }
    Ok(())
}

/// An empty vector with room for exactly `n` items, checked against the budget and reserved
/// fallibly (see the module docs).
pub fn try_vec<T>(n: usize, what: impl Fn() -> String) -> Result<Vec<T>, MemoryError> {
    let bytes = (n as u64).saturating_mul(std::mem::size_of::<T>() as u64);
    check(bytes, &what)?;
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| MemoryError::OutOfMemory {
            what: what(),
            bytes,
        })?;
    Ok(v)
}

/// A vector of `n` copies of `value`, made as [`try_vec`] does.
pub fn try_filled<T: Clone>(
    n: usize,
    value: T,
    what: impl Fn() -> String,
) -> Result<Vec<T>, MemoryError> {
    let mut v = try_vec(n, what)?;
    v.resize(n, value);
    Ok(v)
}

/// The process's resident memory in bytes (`VmRSS`), where the system says.
pub fn resident() -> Option<u64> {
    proc_field("/proc/self/status", "VmRSS:")
}

/// The process's peak resident memory in bytes (`VmHWM`), where the system says.
pub fn peak_resident() -> Option<u64> {
    proc_field("/proc/self/status", "VmHWM:")
}

/// The machine's memory in bytes (`MemTotal`), where the system says.
pub fn physical() -> Option<u64> {
    proc_field("/proc/meminfo", "MemTotal:")
}

/// The default budget of the command line: three quarters of the machine's memory or of
/// the process's address-space limit (`ulimit -v`, `prlimit --as`), the smaller, when known.
pub fn default_limit() -> Option<u64> {
    let physical = physical().map(|b| b / 4 * 3);
    let space = address_space().map(|b| b / 4 * 3);
    match (physical, space) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The process's address-space limit in bytes (the soft `Max address space` of
/// `/proc/self/limits`), when there is one.
pub fn address_space() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    address_space_in(&text)
}

/// The soft address-space limit a `/proc/PID/limits` text states (`None`: unlimited or not
/// stated).
fn address_space_in(limits: &str) -> Option<u64> {
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    line["Max address space".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A `NAME:   1234 kB` line of a `/proc` file, in bytes.
fn proc_field(path: &str, name: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kb: u64 = line[name.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kb.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_space_limit_is_read_from_the_limits_table() {
        let head = "Limit                     Soft Limit           Hard Limit           Units\n";
        let unlimited =
            "Max address space         unlimited            unlimited            bytes\n";
        let four = "Max address space         4000000000           unlimited            bytes\n";
        assert_eq!(address_space_in(&format!("{head}{unlimited}")), None);
        assert_eq!(
            address_space_in(&format!("{head}{four}")),
            Some(4_000_000_000)
        );
        assert_eq!(address_space_in(head), None);
    }

    #[test]
    fn sizes_read_in_bytes_and_units() {
        assert_eq!(bytes_text(512), "512 bytes");
        assert_eq!(bytes_text(1 << 30), "1073741824 bytes (1.0 GiB)");
        assert_eq!(bytes_text(3 << 19), "1572864 bytes (1.5 MiB)");
    }

    #[test]
    fn an_impossible_buffer_is_an_error_not_an_abort() {
        // More than any address space: the reservation fails, the process goes on.
        let e = try_vec::<u64>(usize::MAX / 8, || "a test buffer".into()).unwrap_err();
        assert!(matches!(e, MemoryError::OutOfMemory { .. }), "{e}");
        assert!(e.to_string().starts_with("a test buffer needs"), "{e}");
        let v = try_filled(3, 7u8, || "three bytes".into()).unwrap();
        assert_eq!(v, [7, 7, 7]);
    }
}
