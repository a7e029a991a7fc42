//! The `kiln` command: run, render, validate, inspect and draw Kiln graph files.

mod cli;
mod library;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::main_with_args(std::env::args_os()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
