//! The overlapping model against its definition: every N × N window of an output is an
//! N × N window of the sample or of one of its eight rotations and reflections (found here
//! by mapping coordinates, independently of the model's own pattern code), the same seed
//! gives the same bits, another seed another output, and a sample whose only pattern cannot
//! sit beside itself fails with a contradiction after the attempts allowed.

use kiln_core::prelude::*;
use kiln_image::image::Image;
use kiln_sim::wfc_overlap::{OverlapError, generate, learn};
use std::collections::HashSet;

/// A sample of walls (`X`) round rooms, and a red door (`r`).
const SAMPLE: [&str; 8] = [
    "........", ".XXXX...", ".X..X...", ".X..XXXX", ".XXrX..X", "....X..X", "....XXXX", "........",
];

fn sample() -> (Vec<u32>, u32, u32) {
    let px = SAMPLE
        .iter()
        .flat_map(|row| {
            row.chars().map(|c| match c {
                'X' => 1,
                'r' => 2,
                _ => 0,
            })
        })
        .collect();
    (px, 8, 8)
}

/// A map of window coordinates (i, j), given n − 1, to sample offsets.
type Symmetry = fn(i64, i64, i64) -> (i64, i64);

/// Every n × n window of the sample, wrapping, under all eight symmetries of the square:
/// window pixel (i, j) is sample pixel (x, y) + T(i, j) for T among the maps of (i, j) to
/// (±i or ±j, ±j or ±i) (taking n − 1 − i for −i).
fn windows_of_sample(px: &[u32], w: u32, h: u32, n: u32) -> HashSet<Vec<u32>> {
    let m = n as i64 - 1;
    let maps: [Symmetry; 8] = [
        |i, j, _| (i, j),
        |i, j, m| (m - i, j),
        |i, j, m| (i, m - j),
        |i, j, m| (m - i, m - j),
        |i, j, _| (j, i),
        |i, j, m| (m - j, i),
        |i, j, m| (j, m - i),
        |i, j, m| (m - j, m - i),
    ];
    let mut set = HashSet::new();
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            for f in maps {
                let win = (0..n as i64)
                    .flat_map(|j| (0..n as i64).map(move |i| (i, j)))
                    .map(|(i, j)| {
                        let (a, b) = f(i, j, m);
                        let (sx, sy) = ((x + a).rem_euclid(w as i64), (y + b).rem_euclid(h as i64));
                        px[(sy * w as i64 + sx) as usize]
                    })
                    .collect();
                set.insert(win);
            }
        }
    }
    set
}

/// Every n × n window of a `w × h` output, wrapping when `periodic`.
fn windows_of_output(px: &[u32], w: u32, h: u32, n: u32, periodic: bool) -> Vec<Vec<u32>> {
    let (xs, ys) = if periodic {
        (w, h)
    } else {
        (w - n + 1, h - n + 1)
    };
    let mut out = vec![];
    for y in 0..ys {
        for x in 0..xs {
            out.push(
                (0..n)
                    .flat_map(|j| (0..n).map(move |i| (i, j)))
                    .map(|(i, j)| px[(((y + j) % h) * w + (x + i) % w) as usize])
                    .collect(),
            );
        }
    }
    out
}

#[test]
fn every_window_of_the_output_is_a_window_of_the_sample() {
    let (px, w, h) = sample();
    for (n, periodic) in [(2, false), (3, false), (3, true)] {
        let p = learn(&px, w, h, n, 8, true).unwrap();
        let known = windows_of_sample(&px, w, h, n);
        assert_eq!(
            p.cells.iter().cloned().collect::<HashSet<_>>(),
            known,
            "the model learns exactly the sample's windows"
        );
        let out = generate(&p, 24, 20, periodic, 5, 50, &|| false).unwrap();
        assert_eq!(out.len(), 24 * 20);
        for (k, win) in windows_of_output(&out, 24, 20, n, periodic)
            .iter()
            .enumerate()
        {
            assert!(known.contains(win), "n {n}, window {k}: {win:?}");
        }
        // Walls appear and so does open floor: the output is not one colour.
        assert!(out.contains(&0) && out.contains(&1));
    }
}

#[test]
fn the_same_seed_gives_the_same_output_and_another_seed_another() {
    let (px, w, h) = sample();
    let p = learn(&px, w, h, 3, 8, true).unwrap();
    let a = generate(&p, 20, 20, false, 9, 50, &|| false).unwrap();
    let b = generate(&p, 20, 20, false, 9, 50, &|| false).unwrap();
    let c = generate(&p, 20, 20, false, 10, 50, &|| false).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn a_pattern_that_cannot_neighbour_itself_is_a_contradiction() {
    // One 2 × 2 window, read without wrapping: its right column (1, 3) is not its left
    // column (0, 2), so nothing may sit to its right.
    let p = learn(&[0, 1, 2, 3], 2, 2, 2, 1, false).unwrap();
    assert_eq!(p.cells.len(), 1);
    let err = generate(&p, 4, 4, false, 1, 3, &|| false).unwrap_err();
    assert!(
        matches!(err, OverlapError::Contradiction { attempts: 3, x, y } if x < 3 && y < 3),
        "{err:?}"
    );
}

#[test]
fn the_op_turns_a_sample_image_into_an_image_of_its_colours() {
    let (px, w, h) = sample();
    let colours = [
        [1.0, 1.0, 1.0, 1.0],
        [0.1, 0.1, 0.1, 1.0],
        [0.9, 0.1, 0.1, 1.0],
    ];
    let mut img = Image::filled(w, h, colours[0]);
    for (p, &c) in img.pixels.iter_mut().zip(&px) {
        *p = colours[c as usize];
    }
    let mut g = Graph::new();
    g.add_node("wfc", "sim.wfc.overlap").unwrap();
    g.set_const("wfc", "sample", img.into_value()).unwrap();
    g.set_param("wfc", "width", Value::Int(16)).unwrap();
    g.set_param("wfc", "height", Value::Int(12)).unwrap();
    let mut e = LazyEvaluator::new(kiln_sim::registry());
    let out = e
        .evaluate(&g, &Request::new(["wfc"]), &EvalContext::new())
        .unwrap();
    let o = out.get("wfc").unwrap().as_heavy::<Image>().unwrap();
    assert_eq!((o.width, o.height), (16, 12));
    assert!(o.pixels.iter().all(|p| colours.contains(p)));
    let back: Vec<u32> = o
        .pixels
        .iter()
        .map(|p| colours.iter().position(|c| c == p).unwrap() as u32)
        .collect();
    let known = windows_of_sample(&px, w, h, 3);
    assert!(
        windows_of_output(&back, 16, 12, 3, false)
            .iter()
            .all(|w| known.contains(w))
    );
    // A contradiction names the attempts and the cell.
    let mut g2 = Graph::new();
    g2.add_node("wfc", "sim.wfc.overlap").unwrap();
    let mut tiny = Image::filled(2, 2, colours[0]);
    tiny.pixels[1] = colours[1];
    tiny.pixels[2] = colours[2];
    tiny.pixels[3] = [0.0, 0.0, 1.0, 1.0];
    g2.set_const("wfc", "sample", tiny.into_value()).unwrap();
    g2.set_param("wfc", "n", Value::Int(2)).unwrap();
    g2.set_param("wfc", "symmetry", Value::Int(1)).unwrap();
    g2.set_param("wfc", "periodic_input", Value::Bool(false))
        .unwrap();
    g2.set_param("wfc", "attempts", Value::Int(4)).unwrap();
    let err = e
        .evaluate(&g2, &Request::new(["wfc"]), &EvalContext::new())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("contradiction") && err.contains("4 attempt"),
        "{err}"
    );
}
