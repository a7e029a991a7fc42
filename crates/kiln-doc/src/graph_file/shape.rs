//! Checks of the JSON's shape shared by every part of a graph file: objects, their keys
//! (no repeats, only allowed ones, with a suggestion for a near miss) and key lookup.

use super::LoadError;
use kiln_core::registry::edit_distance;
use kiln_io::convert::child;
use kiln_io::json::Json;
use std::collections::HashSet;

/// The allowed keys, naming the one closest to `key` if it is a near miss.
fn suggest(key: &str, allowed: &[&str]) -> String {
    let close = allowed
        .iter()
        .map(|a| (edit_distance(a, key), *a))
        .filter(|(d, _)| *d <= 2 && 2 * d < key.chars().count())
        .min();
    match close {
        Some((_, a)) => format!("did you mean `{a}`? allowed keys: {}", allowed.join(", ")),
        None => format!("allowed keys: {}", allowed.join(", ")),
    }
}

/// Entries of an object, or an error saying what `what` must be.
pub(super) fn object<'a>(
    j: &'a Json,
    path: &str,
    what: &str,
) -> Result<&'a [(String, Json)], LoadError> {
    match j {
        Json::Object(entries) => Ok(entries),
        other => Err(LoadError::format(
            path,
            format!("{what} must be an object, found {}", other.kind()),
            None,
        )),
    }
}

/// Check that no key repeats and every key is allowed (`what`: "node `a`", empty at the top).
pub(super) fn check_keys(
    entries: &[(String, Json)],
    path: &str,
    what: &str,
    allowed: &[&str],
) -> Result<(), LoadError> {
    let mut seen = HashSet::new();
    for (k, _) in entries {
        if !seen.insert(k.as_str()) {
            return Err(LoadError::format(
                &child(path, k),
                format!("key `{k}` appears twice"),
                Some("keep one".into()),
            ));
        }
        if !allowed.contains(&k.as_str()) {
            let message = if what.is_empty() {
                format!("unknown top-level key `{k}`")
            } else {
                format!("unknown key `{k}` in {what}")
            };
            return Err(LoadError::format(
                &child(path, k),
                message,
                Some(suggest(k, allowed)),
            ));
        }
    }
    Ok(())
}

/// The value of `key` among `entries` (its first occurrence).
pub(super) fn get<'a>(entries: &'a [(String, Json)], key: &str) -> Option<&'a Json> {
    entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}
