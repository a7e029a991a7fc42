//! Writing a mesh under the memory budget (issue 37, item 3): what a writer would hold is
//! known before it takes anything, so a mesh too large to write under the budget is refused
//! by name instead of aborting; the estimate bounds the file written. One test in its own
//! binary, since the budget is the process's.

use kiln_io::mesh_files::{MeshFormat, encoding_bytes};

const FORMATS: [MeshFormat; 4] = [
    MeshFormat::Glb,
    MeshFormat::Obj,
    MeshFormat::Ply,
    MeshFormat::Stl,
];

#[test]
fn a_mesh_too_large_for_the_budget_is_refused_by_name_and_a_small_one_is_written() {
    let grid = |n| kiln_mesh::generate::grid("g", glam::Vec2::ONE, n, n).expect("a grid");
    // The estimate bounds what is written.
    let small = grid(40);
    for f in FORMATS {
        let bytes = f.encode(&small).expect("a small mesh is written");
        assert!(
            bytes.len() as u64 <= encoding_bytes(f, &small),
            "{f:?}: {} bytes written, {} estimated",
            bytes.len(),
            encoding_bytes(f, &small)
        );
    }
    // A million quads under a budget 40 MB above what the process holds now.
    let big = grid(1000);
    let resident = kiln_core::memory::resident().expect("Linux says how much is resident");
    kiln_core::memory::set_limit(Some(resident + (40 << 20)));
    for f in FORMATS {
        let e = f.encode(&big).expect_err("over the budget");
        assert!(
            e.contains("memory limit") && e.contains(f.extension()) && e.contains("points"),
            "{f:?}: {e}"
        );
    }
    // Small buffers are always allowed.
    for f in FORMATS {
        f.encode(&grid(4))
            .expect("a small mesh is written under any budget");
    }
    kiln_core::memory::set_limit(None);
    // Without a budget the big mesh is written (once, as the smallest file).
    let stl = MeshFormat::Stl.encode(&big).expect("written");
    // An 80-byte header, a count, and 50 bytes for each of the 2 million triangles.
    assert_eq!(stl.len(), 84 + 2_000_000 * 50);
}
