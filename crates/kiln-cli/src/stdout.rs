//! Writing to stdout, where a closed pipe ends the command quietly.
//!
//! Rust ignores `SIGPIPE`, so a write to a pipe whose reader has gone (`kiln ops | head -1`)
//! fails with `BrokenPipe`, and `println!` panics on it. [`outln!`](crate::outln) and
//! [`out!`](crate::out) write through [`write_out`] instead: on a closed pipe the process
//! exits at once with the status a shell gives a process ended by `SIGPIPE` (141), printing
//! nothing; on any other write error (a full disk behind a redirection) it says so and exits
//! with 1.

use std::io::Write;

/// The exit status of a process ended by `SIGPIPE` (128 + 13), as shells report it.
pub(crate) const SIGPIPE_STATUS: i32 = 141;

/// Write `args` to stdout, or end the process as the module docs say.
pub(crate) fn write_out(args: std::fmt::Arguments<'_>) {
    let written = std::io::stdout().lock().write_fmt(args);
    if let Err(e) = written {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(SIGPIPE_STATUS);
        }
        eprintln!("error: cannot write to stdout: {e}");
        std::process::exit(1);
    }
}

/// `println!` that ends the command quietly on a closed pipe (see [`crate::stdout`]).
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::stdout::write_out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` that ends the command quietly on a closed pipe (see [`crate::stdout`]).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::stdout::write_out(format_args!($($arg)*))
    };
}
