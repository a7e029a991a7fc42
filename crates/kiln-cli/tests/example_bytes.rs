//! Every example's output files keep their bytes: `tests/data/example_outputs.sha256` holds
//! the SHA-256 of each file every example wrote (a line per file: example, command and
//! arguments, file name, digest), recorded with the `kiln` of before the `Project` API (issue
//! 28), and each is made again here and compared.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// `(example, arguments)` to the expected `file -> digest` of its outputs.
type Expected = BTreeMap<(String, Vec<String>), BTreeMap<String, String>>;

fn expected() -> Expected {
    let text = include_str!("data/example_outputs.sha256");
    let mut runs: Expected = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let words: Vec<&str> = line.split(' ').collect();
        assert!(
            words.len() >= 4,
            "a line of example, command, file, digest: {line}"
        );
        let (example, rest) = (words[0], &words[1..]);
        let (args, tail) = rest.split_at(rest.len() - 2);
        runs.entry((
            example.to_string(),
            args.iter().map(|a| a.to_string()).collect(),
        ))
        .or_default()
        .insert(tail[0].to_string(), tail[1].to_string());
    }
    runs
}

fn sha256(path: &Path) -> String {
    let bytes = std::fs::read(path).expect("the output reads");
    Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn every_example_writes_the_bytes_it_wrote_before() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let runs = expected();
    // Every example is covered.
    let mut covered: Vec<&str> = runs.keys().map(|(e, _)| e.as_str()).collect();
    covered.dedup();
    let mut all: Vec<String> = std::fs::read_dir(&examples)
        .expect("examples")
        .filter_map(|e| {
            let name = e.ok()?.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".json").map(str::to_string)
        })
        .collect();
    all.sort();
    assert_eq!(covered, all, "every example has recorded outputs");
    let mut differ = vec![];
    for ((example, args), files) in &runs {
        let dir = tempfile::tempdir().expect("a folder");
        let graph = examples.join(format!("{example}.json"));
        let out = Command::new(env!("CARGO_BIN_EXE_kiln"))
            .arg(&args[0])
            .arg(&graph)
            .arg("--out")
            .arg(dir.path())
            .arg("-q")
            .args(&args[1..])
            .output()
            .expect("kiln runs");
        assert!(
            out.status.success(),
            "{example} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut made: Vec<String> = std::fs::read_dir(dir.path())
            .expect("the output folder")
            .filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned()))
            .filter(|n| !n.starts_with('.') && n != "kiln-render.json")
            .collect();
        made.sort();
        let want: Vec<String> = files.keys().cloned().collect();
        assert_eq!(made, want, "{example} {args:?} writes the same files");
        for (file, digest) in files {
            let got = sha256(&dir.path().join(file));
            if &got != digest {
                differ.push(format!("{example} {args:?} {file}: {got}, was {digest}"));
            }
        }
    }
    assert!(differ.is_empty(), "outputs changed: {differ:#?}");
}
