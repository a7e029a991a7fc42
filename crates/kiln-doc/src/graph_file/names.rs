//! Names of graph inputs, nodes and outputs: valid, and unique across the three sections
//! (each becomes a node, so they share one set of ids).

use super::LoadError;
use super::section::Section;
use kiln_io::convert::child;
use std::collections::HashMap;

/// Whether `s` matches `[A-Za-z_][A-Za-z0-9_-]*`.
pub fn is_valid_name(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The names claimed so far, with the section of each.
#[derive(Default)]
pub(super) struct Names<'a> {
    seen: HashMap<&'a str, Section>,
}

impl<'a> Names<'a> {
    /// Claim `name` for `section`: an error if it is not a valid name or already taken.
    pub(super) fn claim(&mut self, name: &'a str, section: Section) -> Result<(), LoadError> {
        let path = child(section.key(), name);
        let valid = match section {
            // A baked or planned graph holds the flat ids the plan writes
            // (`rows[3]/bricks[2]/brick`, `f/out~0-1`).
            Section::Nodes => is_valid_flat_id(name),
            _ => is_valid_name(name),
        };
        if !valid {
            return Err(LoadError::format(
                section.key(),
                format!("invalid {} name `{}`", section.what(), name.escape_debug()),
                Some(
                    "names start with a letter or `_` and continue with letters, digits, `_` or `-`"
                        .into(),
                ),
            ));
        }
        if let Some(prev) = self.seen.insert(name, section) {
            return Err(if prev == section {
                LoadError::format(
                    &path,
                    format!("{} `{name}` is defined twice", section.what()),
                    Some("names must be unique: rename or remove one".into()),
                )
            } else {
                LoadError::format(
                    &path,
                    format!(
                        "{} `{name}` has the same name as {} `{name}`",
                        section.what(),
                        prev.what()
                    ),
                    Some(
                        "inputs, nodes and outputs each become a node, so they share one set of names: rename one"
                            .into(),
                    ),
                )
            });
        }
        Ok(())
    }
}

/// Whether `s` is a name, or names joined the way the plan writes flat ids: `/` between call
/// levels, `[n]` after a scope's copies, `~` in the ids of generated nodes.
pub fn is_valid_flat_id(s: &str) -> bool {
    is_valid_name(s)
        || (s
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| {
                c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '/' | '[' | ']' | '~')
            }))
}
