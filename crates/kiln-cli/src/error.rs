//! The error every command reports: `error: ...` on stderr and exit code 1.

/// A failure the CLI reports as `error: ...` and exit code 1.
#[derive(Debug)]
pub struct CliError(pub(crate) String);

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<String> for CliError {
    fn from(s: String) -> Self {
        CliError(s)
    }
}
