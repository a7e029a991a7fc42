//! The edges of the command line: a closed pipe ends a command quietly; thread counts are
//! capped; a huge cycle is reported in one readable line; special and oversized files are
//! refused as inputs instead of blocking or being read whole.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

mod support;
use support::*;

/// Run `kiln args` with stdout a pipe whose reading end is closed before it starts, so its
/// first write meets a closed pipe. Returns the exit code (`None`: ended by a signal) and
/// stderr.
fn with_closed_stdout(args: &[&str], cwd: &Path) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Run `kiln args` with stdout a pipe, read one line of it (as `head -1` does) and close it.
fn after_one_line(args: &[&str], cwd: &Path) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    assert!(!line.is_empty());
    drop(reader);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_quiet_end(code: Option<i32>, stderr: &str) {
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.is_empty(), "nothing on stderr: {stderr}");
    // 0 if everything fitted in the pipe before it closed; else the SIGPIPE status.
    assert!(matches!(code, Some(0) | Some(141)), "{code:?}");
}

#[test]
fn a_closed_pipe_ends_ops_and_dot_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let g = examples().join("clouds.json");
    let g = g.to_str().unwrap();
    for args in [
        vec!["ops"],
        vec!["dot", g],
        vec!["info", g],
        vec!["validate", g],
    ] {
        let (code, stderr) = with_closed_stdout(&args, dir.path());
        assert_quiet_end(code, &stderr);
        // Closed before anything was written: the first write meets it.
        assert_eq!(code, Some(141), "{args:?}");
    }
    // As `kiln ops | head -1`: whether the rest fitted in the pipe or not, a quiet end.
    let (code, stderr) = after_one_line(&["ops"], dir.path());
    assert_quiet_end(code, &stderr);
}

#[test]
fn a_huge_thread_count_is_refused_before_any_pool() {
    let dir = tempfile::tempdir().unwrap();
    let g = examples().join("arithmetic.json");
    for cmd in [
        vec![
            "run",
            g.to_str().unwrap(),
            "--out",
            "o",
            "--parallel",
            "100000",
        ],
        vec![
            "render",
            g.to_str().unwrap(),
            "--ticks",
            "1",
            "--out",
            "o",
            "--parallel",
            "100000",
        ],
    ] {
        let o = kiln(&cmd, dir.path());
        let (_, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("100000 threads"), "{stderr}");
        assert!(stderr.contains("4 x its cores, at least 256"), "{stderr}");
        assert!(!dir.path().join("o").exists());
    }
}

#[test]
fn a_cycle_of_100k_nodes_is_one_short_line() {
    let dir = tempfile::tempdir().unwrap();
    let n = 100_000;
    let mut g = String::from("{\"kiln\": 1, \"nodes\": {\n");
    for i in 0..n {
        // Node i reads node i - 1, and node 0 reads the last: n0 -> n1 -> … -> n0.
        let prev = (i + n - 1) % n;
        let comma = if i + 1 < n { "," } else { "" };
        g.push_str(&format!(
            "\"n{i}\": {{\"op\": \"math.add\", \"inputs\": {{\"a\": \"n{prev}.out\", \"b\": 1.0}}}}{comma}\n"
        ));
    }
    g.push_str("}, \"outputs\": {\"x\": \"n0.out\"}}\n");
    std::fs::write(dir.path().join("cycle.json"), g).unwrap();

    let o = kiln(&["validate", "cycle.json"], dir.path());
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    let line = stdout
        .lines()
        .find(|l| l.contains("cycle"))
        .unwrap_or_else(|| panic!("no cycle line: {stdout}"));
    assert!(line.len() < 1000, "{} bytes: {line:.300}", line.len());
    // The first and last few nodes of the loop, and how many are left out.
    assert!(line.contains("n0 -> n1 -> n2 -> n3 -> "), "{line}");
    assert!(line.contains("n99999 -> n0"), "{line}");
    assert!(line.contains(&format!("{} more", n - 8)), "{line}");
    assert!(line.contains("a cycle of 100000 nodes"), "{line}");

    let o = kiln(&["run", "cycle.json", "--out", "o", "-q"], dir.path());
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr.len() < 2000, "{} bytes of stderr", stderr.len());
    assert!(stderr.contains("a cycle of 100000 nodes"), "{stderr:.300}");
}

#[cfg(unix)]
#[test]
fn special_files_are_refused_as_graphs_and_params() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let status = Command::new("mkfifo")
        .arg(cwd.join("g.fifo"))
        .status()
        .unwrap();
    assert!(status.success());
    let o = kiln_watchdog(&["run", "g.fifo", "--out", "o"], cwd);
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("`g.fifo` is not a regular file (it is a FIFO)"),
        "{stderr}"
    );
    let o = kiln_watchdog(&["validate", "/dev/zero"], cwd);
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("(it is a device)"), "{stderr}");

    let g = examples().join("arithmetic.json");
    let o = kiln_watchdog(
        &[
            "watch",
            g.to_str().unwrap(),
            "--out",
            "live",
            "--params",
            "g.fifo",
            "--max-presents",
            "1",
        ],
        cwd,
    );
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("`g.fifo` is not a regular file (it is a FIFO)"),
        "{stdout}"
    );
}

#[test]
fn a_graph_file_over_the_limit_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    // Sparse: 257 MiB of size, no data on the disk.
    let f = std::fs::File::create(&path).unwrap();
    f.set_len(257 << 20).unwrap();
    drop(f);
    let o = kiln(&["validate", "big.json"], dir.path());
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "`big.json` is {} bytes, more than the limit of {} bytes (256 MiB)",
            257u64 << 20,
            256u64 << 20
        )),
        "{stderr}"
    );
}
