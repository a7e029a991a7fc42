//! The indices of an OBJ file's faces, checked before `tobj` reads them: `tobj` turns an
//! index into a position in its arrays with unchecked arithmetic (a huge index overflows,
//! a relative index past the start wraps around), which panics in a debug build and may
//! read the wrong element in a release one. An index here must name an element the file
//! has: `1..=count` counted over the file, or `-1..=-count` counted up to the face. A texture
//! coordinate or normal index of 0 means none, as `tobj` reads it; a point index of 0 is
//! refused.

/// Check every index of every face (`f` line) of `text`.
pub(super) fn check_face_indices(text: &str) -> Result<(), String> {
    let mut total = [0usize; 3];
    for line in text.lines() {
        if let Some(k) = kind(keyword(line)) {
            total[k] += 1;
        }
    }
    let mut so_far = [0usize; 3];
    for (n, line) in text.lines().enumerate() {
        let word = keyword(line);
        if let Some(k) = kind(word) {
            so_far[k] += 1;
            continue;
        }
        if word != "f" {
            continue;
        }
        for corner in line.split_whitespace().skip(1) {
            for (k, part) in corner.split('/').take(3).enumerate() {
                let Ok(x) = part.parse::<i64>() else {
                    // Empty (`v//vn`) or not a number: `tobj` reads or refuses it itself.
                    continue;
                };
                let fits = match x {
                    0 => k != 0,
                    x if x > 0 => x.unsigned_abs() <= total[k] as u64,
                    x => x.unsigned_abs() <= so_far[k] as u64,
                };
                if !fits {
                    return Err(format!(
                        "line {}: a face names {} {x}, which the file does not have",
                        n + 1,
                        ["point", "texture coordinate", "normal"][k]
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The first word of a line.
fn keyword(line: &str) -> &str {
    line.split_whitespace().next().unwrap_or("")
}

/// Which array a line adds to: points (`v`), texture coordinates (`vt`), normals (`vn`).
fn kind(word: &str) -> Option<usize> {
    match word {
        "v" => Some(0),
        "vt" => Some(1),
        "vn" => Some(2),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::check_face_indices;

    const TRIANGLE: &str = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\n";

    #[test]
    fn indices_within_the_file_pass() {
        for face in ["f 1 2 3", "f -3 -2 -1", "f 1/1 2/1 3/0", "f 1//0 2// 3"] {
            let text = format!("{TRIANGLE}{face}\n");
            assert!(check_face_indices(&text).is_ok(), "{face}");
        }
    }

    #[test]
    fn indices_past_the_file_or_before_its_start_are_refused() {
        // Found by the `mesh_obj` fuzz target: these overflowed inside `tobj`.
        for (face, what) in [
            ("f 1 2 4", "point 4"),
            ("f -4 -2 -1", "point -4"),
            ("f 0 1 2", "point 0"),
            ("f 1/2 2/1 3/1", "texture coordinate 2"),
            ("f 1/-2 2 3", "texture coordinate -2"),
            ("f 1//1 2 3", "normal 1"),
            (
                "f 1/9223372036854775807 2 3",
                "texture coordinate 9223372036854775807",
            ),
        ] {
            let text = format!("{TRIANGLE}{face}\n");
            let e = check_face_indices(&text).unwrap_err();
            assert!(e.contains(what) && e.contains("line 5"), "{face}: {e}");
        }
    }

    #[test]
    fn a_relative_index_counts_only_what_came_before_the_face() {
        let text = "v 0 0 0\nf -2 -1 -1\nv 1 0 0\n";
        let e = check_face_indices(text).unwrap_err();
        assert!(e.contains("point -2"), "{e}");
    }
}
