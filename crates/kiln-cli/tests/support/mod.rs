//! Helpers shared by the CLI's integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Run the `kiln` binary with `args` in `cwd`.
pub fn kiln(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("kiln runs")
}

/// stdout and stderr as text.
pub fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The repository's `examples` folder.
pub fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// Every file of a folder, by name, with its bytes (sorted by name).
pub fn files_in(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// The files of a render folder, as [`files_in`], without the render's manifest
/// (`kiln-render.json`, which records the whole ticks).
pub fn frames_in(dir: &Path) -> Vec<(String, Vec<u8>)> {
    files_in(dir)
        .into_iter()
        .filter(|(n, _)| n != "kiln-render.json")
        .collect()
}

/// Run the `kiln` binary with `args` in `cwd`, killing it and failing the test if it has not
/// finished within 20 seconds (a hang, not a slow run: every use finishes in well under one).
pub fn kiln_watchdog(args: &[&str], cwd: &Path) -> Output {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kiln runs");
    // Read both pipes on threads, so a chatty child never blocks on a full pipe.
    let mut out_pipe = child.stdout.take().unwrap();
    let mut err_pipe = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut b = vec![];
        let _ = out_pipe.read_to_end(&mut b);
        b
    });
    let err = std::thread::spawn(move || {
        let mut b = vec![];
        let _ = err_pipe.read_to_end(&mut b);
        b
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("kiln {args:?} hung (killed after 20 s)");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

/// The Khronos validator installed in `folder` finds no error in the glb at `path`.
pub fn validate(folder: &str, dir: &Path, path: &Path) {
    let script = dir.join("validate.js");
    std::fs::write(
        &script,
        "const v = require(process.argv[2] + '/node_modules/gltf-validator');\n\
         const data = new Uint8Array(require('fs').readFileSync(process.argv[3]));\n\
         v.validateBytes(data).then(r => console.log(r.issues.numErrors + ' ' + JSON.stringify(r.issues.messages)))\n\
         .catch(e => { console.error(e); process.exit(2); });\n",
    )
    .unwrap();
    let o = std::process::Command::new("node")
        .args([script.to_str().unwrap(), folder, path.to_str().unwrap()])
        .output()
        .expect("node runs");
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stdout.starts_with("0 "),
        "{}: the validator reports errors: {stdout}",
        path.display()
    );
}
