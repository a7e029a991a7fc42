//! The `graph_file` fuzz corpus kept in the repository (`fuzz/corpus/graph_file/`) replayed
//! through the target's own entry function (`kiln_doc::fuzzing::graph_file`), with every
//! prefix of each file and, for files of at most 2 KiB, each file with every byte flipped in
//! turn; the other targets are replayed by kiln-io's test of the same name.

#[path = "../../kiln-io/tests/domains/mod.rs"]
mod domains;
#[path = "../../kiln-io/tests/corpus/mod.rs"]
mod files;

/// The corpus files of the `graph_file` target, by name.
fn corpus() -> Vec<(String, Vec<u8>)> {
    files::corpus("graph_file")
}

#[test]
fn every_graph_file_of_the_corpus_and_its_damaged_forms_pass_the_target() {
    let reg = domains::every_domain();
    let files = corpus();
    assert!(files.len() >= 3, "{} corpus files", files.len());
    for (name, bytes) in &files {
        kiln_doc::fuzzing::graph_file(bytes, &reg);
        for cut in 0..bytes.len() {
            kiln_doc::fuzzing::graph_file(&bytes[..cut], &reg);
        }
        if bytes.len() <= 2048 {
            let mut flipped = bytes.clone();
            for i in 0..flipped.len() {
                flipped[i] ^= 0x5a;
                kiln_doc::fuzzing::graph_file(&flipped, &reg);
                flipped[i] ^= 0x5a;
            }
        }
        eprintln!(
            "graph_file/{name}: {} bytes and its damaged forms pass",
            bytes.len()
        );
    }
}

#[test]
fn the_hand_made_graph_files_load_unless_truncated() {
    // A loader that refused everything would pass the replay above without testing anything.
    let reg = domains::every_domain();
    for (name, bytes) in corpus().into_iter().filter(|(n, _)| n.ends_with(".json")) {
        let ok = kiln_doc::load_graph_bytes(&bytes, &reg).is_ok();
        assert_eq!(ok, !name.starts_with("truncated"), "graph_file/{name}");
    }
}
