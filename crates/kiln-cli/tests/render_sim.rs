//! Simulations rendered from the command line: the examples look like their names, an
//! animated GIF has a frame per tick at its rate, and a render saved and continued from its
//! state gives the same bits as one that ran straight through.

mod support;

use std::path::Path;
use support::{examples, kiln, text};

fn render(cwd: &Path, example: &str, args: &[&str]) -> String {
    let graph = examples().join(format!("{example}.json"));
    let mut all = vec!["render", graph.to_str().unwrap(), "-q"];
    all.extend_from_slice(args);
    let o = kiln(&all, cwd);
    let (stdout, stderr) = text(&o);
    assert!(
        o.status.success(),
        "kiln {}: {stdout}{stderr}",
        all.join(" ")
    );
    stdout
}

/// Where an 8-bit code of a linear value (`code / 255`, as frames were written before they
/// were sRGB-encoded) lands in an sRGB-encoded frame: round(255 · srgb(code / 255)), by the
/// formula of IEC 61966-2-1. The curve is increasing, so a threshold on the old codes is the
/// same test on the new ones through it.
fn enc(code: i32) -> u8 {
    let v = code.clamp(0, 255) as f64 / 255.0;
    let e = if v <= 0.0031308 {
        12.92 * v
    } else {
        1.055 * v.powf(1.0 / 2.4) - 0.055
    };
    (e * 255.0).round() as u8
}

/// The RGBA frames of a GIF with each frame's delay.
fn gif_frames(path: &Path) -> (u16, u16, Vec<(u16, Vec<u8>)>) {
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::RGBA);
    let mut d = opts.read_info(std::fs::File::open(path).unwrap()).unwrap();
    let (w, h) = (d.width(), d.height());
    let mut frames = vec![];
    while let Some(f) = d.read_next_frame().unwrap() {
        assert_eq!((f.width, f.height), (w, h), "every frame is whole");
        frames.push((f.delay, f.buffer.to_vec()));
    }
    (w, h, frames)
}

#[test]
fn coral_grows_into_a_gif_of_a_frame_per_tick() {
    let dir = tempfile::tempdir().unwrap();
    let out = render(
        dir.path(),
        "coral",
        &["--ticks", "40", "--out", "o", "--gif", "--fps", "20"],
    );
    assert!(out.contains("coral.gif (40 frames)"), "{out}");
    assert!(dir.path().join("o/coral_039.png").exists());
    let (w, h, frames) = gif_frames(&dir.path().join("o/coral.gif"));
    assert_eq!((w, h, frames.len()), (128, 128, 40));
    assert!(
        frames.iter().all(|(delay, _)| *delay == 5),
        "20 fps: 5 hundredths a frame"
    );
    // Coral: the warm colour of the reacting chemical covers a growing part of the field,
    // neither nothing nor everything, in branching strands rather than a blob: most warm
    // pixels have a cold pixel within 6 cells along their row or column.
    let warm = |px: &[u8]| px[0] > 160 && px[0] > px[2];
    let share = |f: &[u8]| f.chunks(4).filter(|p| warm(p)).count() as f64 / (w as f64 * h as f64);
    let (first, last) = (share(&frames[0].1), share(&frames[39].1));
    assert!(
        first < last && (0.15..0.75).contains(&last),
        "{first} then {last}"
    );
    let at = |x: i64, y: i64| {
        let i = ((y.rem_euclid(h as i64)) * w as i64 + x.rem_euclid(w as i64)) as usize * 4;
        warm(&frames[39].1[i..i + 4])
    };
    let (mut strands, mut total) = (0, 0);
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            if at(x, y) {
                total += 1;
                strands += (-6..=6).any(|d| !at(x + d, y) || !at(x, y + d)) as usize;
            }
        }
    }
    assert!(strands as f64 > 0.9 * total as f64, "{strands} of {total}");
}

#[test]
fn the_life_gun_shoots_gliders() {
    let dir = tempfile::tempdir().unwrap();
    render(
        dir.path(),
        "life",
        &["--ticks", "95", "--out", "o", "--gif", "--no-frames"],
    );
    assert!(
        !dir.path().join("o/life_000.png").exists(),
        "--no-frames writes no frames"
    );
    let (w, _, frames) = gif_frames(&dir.path().join("o/life.gif"));
    assert_eq!(frames.len(), 95);
    // 60 fps (the default dt): 2 hundredths of a second, rounded.
    assert_eq!(frames[0].0, 2);
    let live = |f: &[u8], x0: usize, y0: usize| {
        f.chunks(4)
            .enumerate()
            .filter(|(i, p)| p[0] > 128 && i % w as usize >= x0 && i / w as usize >= y0)
            .count()
    };
    // The gun fits in the top-left 40 x 14 cells; gliders fly down and to the right, 5 cells
    // each, a new one every 30 generations.
    assert_eq!(live(&frames[0].1, 40, 0) + live(&frames[0].1, 0, 14), 0);
    let away = live(&frames[94].1, 0, 14);
    assert!(away >= 10, "{away} live cells below the gun");
}

#[test]
fn twenty_ticks_are_ten_saved_and_ten_continued() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let common = ["--apng", "--set", "feed=0.05"];
    let mut args = vec![
        "--ticks",
        "20",
        "--out",
        "straight",
        "--save-state",
        "straight.state",
    ];
    args.extend(common);
    render(d, "coral", &args);
    let mut args = vec![
        "--ticks",
        "10",
        "--out",
        "first",
        "--save-state",
        "ten.state",
    ];
    args.extend(common);
    let out = render(d, "coral", &args);
    assert!(out.contains("saved the state before tick 10"), "{out}");
    let mut args = vec![
        "--ticks",
        "20",
        "--out",
        "rest",
        "--load-state",
        "ten.state",
        "--save-state",
        "rest.state",
    ];
    args.extend(common);
    render(d, "coral", &args);
    assert!(!d.join("rest/coral_009.png").exists());
    for t in 10..20 {
        let name = format!("coral_{t:03}.png");
        assert_eq!(
            std::fs::read(d.join("straight").join(&name)).unwrap(),
            std::fs::read(d.join("rest").join(&name)).unwrap(),
            "{name}"
        );
    }
    // The grids after tick 19 are the same bits.
    assert_eq!(
        std::fs::read(d.join("straight.state")).unwrap(),
        std::fs::read(d.join("rest.state")).unwrap()
    );
    // Another setting refuses the state.
    let graph = examples().join("coral.json");
    let o = kiln(
        &[
            "render",
            graph.to_str().unwrap(),
            "-q",
            "--ticks",
            "20",
            "--out",
            "x",
            "--load-state",
            "ten.state",
        ],
        d,
    );
    let (_, err) = text(&o);
    assert!(
        !o.status.success() && err.contains("another graph or other settings"),
        "{err}"
    );
}

#[test]
fn smoke_rises_from_its_source_and_spreads() {
    let dir = tempfile::tempdir().unwrap();
    render(
        dir.path(),
        "smoke",
        &[
            "--ticks",
            "45",
            "--out",
            "o",
            "--gif",
            "--no-frames",
            "--dt",
            "1/30",
        ],
    );
    let (w, h, frames) = gif_frames(&dir.path().join("o/smoke.gif"));
    assert_eq!(frames.len(), 45);
    assert_eq!(frames[0].0, 3, "30 fps: 3 hundredths of a second a frame");
    // The smoke's pixels (brighter than the background) and their centre.
    let smoke = |f: &[u8]| -> Vec<(f64, f64)> {
        f.chunks(4)
            .enumerate()
            .filter(|(_, p)| p[0] > enc(60))
            .map(|(i, _)| ((i % w as usize) as f64, (i / w as usize) as f64))
            .collect()
    };
    let (early, late) = (smoke(&frames[12].1), smoke(&frames[44].1));
    let top = |s: &[(f64, f64)]| s.iter().map(|p| p.1).fold(f64::MAX, f64::min);
    let width = |s: &[(f64, f64)]| {
        s.iter().map(|p| p.0).fold(f64::MIN, f64::max)
            - s.iter().map(|p| p.0).fold(f64::MAX, f64::min)
    };
    // The source is at 88% of the height: the smoke climbs above it and widens.
    assert!(
        !early.is_empty() && late.len() > 2 * early.len(),
        "{} then {}",
        early.len(),
        late.len()
    );
    assert!(
        top(&late) < 0.75 * h as f64 && top(&late) < top(&early) - 8.0,
        "top {} then {}",
        top(&early),
        top(&late)
    );
    assert!(
        width(&late) > width(&early),
        "width {} then {}",
        width(&early),
        width(&late)
    );
}

#[test]
fn fireworks_burst_fade_and_burst_again_in_colours() {
    let dir = tempfile::tempdir().unwrap();
    render(
        dir.path(),
        "fireworks",
        &[
            "--ticks",
            "60",
            "--dt",
            "1/30",
            "--out",
            "o",
            "--gif",
            "--no-frames",
        ],
    );
    let (_, _, frames) = gif_frames(&dir.path().join("o/fireworks.gif"));
    assert_eq!(frames.len(), 60);
    let lit = |f: &[u8]| {
        f.chunks(4)
            .filter(|p| p[0].max(p[1]).max(p[2]) > 40)
            .count()
    };
    let counts: Vec<usize> = frames.iter().map(|(_, f)| lit(f)).collect();
    // A burst every 0.7 s (21 ticks): sparks appear, fade as they age, and a new burst comes.
    let peak = (0..21).max_by_key(|&i| counts[i]).unwrap();
    assert!(counts[peak] > 100, "{counts:?}");
    let dip = (peak..42).min_by_key(|&i| counts[i]).unwrap();
    assert!(
        counts[dip] < counts[peak] && counts[42..].iter().any(|&c| c > counts[dip]),
        "{counts:?}"
    );
    // Each burst has its own colour: the brightest channel's share differs between bursts.
    let tint = |f: &[u8]| {
        let mut sum = [0u64; 3];
        for p in f.chunks(4) {
            for k in 0..3 {
                sum[k] += p[k] as u64;
            }
        }
        let t = (sum[0] + sum[1] + sum[2]).max(1) as f64;
        sum.map(|s| s as f64 / t)
    };
    let (a, b) = (tint(&frames[10].1), tint(&frames[31].1));
    let far = (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f64::max);
    assert!(far > 0.05, "{a:?} vs {b:?}");
}

#[test]
fn the_flag_flies_in_its_three_colours() {
    let dir = tempfile::tempdir().unwrap();
    render(
        dir.path(),
        "flag",
        &[
            "--ticks",
            "40",
            "--dt",
            "1/30",
            "--out",
            "o",
            "--gif",
            "--no-frames",
        ],
    );
    let (w, _, frames) = gif_frames(&dir.path().join("o/flag.gif"));
    assert_eq!(frames.len(), 40);
    let last = &frames[39].1;
    let is = |p: &[u8], c: [u8; 3]| (0..3).all(|k| (p[k] as i32 - c[k] as i32).abs() < 70);
    let xs = |c: [u8; 3]| -> Vec<usize> {
        last.chunks(4)
            .enumerate()
            .filter(|(_, p)| is(p, c))
            .map(|(i, _)| i % w as usize)
            .collect()
    };
    // The bands (red, white, blue; shading darkens them) are all there, and the wind has blown
    // the cloth out to the right of its pinned left edge, across most of the frame.
    let (red, blue) = (xs([217, 26, 31]), xs([26, 51, 153]));
    assert!(
        red.len() > 200 && blue.len() > 200,
        "{} red, {} blue",
        red.len(),
        blue.len()
    );
    assert!(xs([242, 242, 235]).len() > 200);
    assert!(*red.iter().max().unwrap() > w as usize * 3 / 4);
    // And it moves: the last two frames differ.
    assert_ne!(frames[38].1, frames[39].1);
}

#[test]
fn the_dungeon_collapses_into_a_walled_map_of_rooms_and_corridors() {
    let dir = tempfile::tempdir().unwrap();
    render(
        dir.path(),
        "dungeon",
        &["--ticks", "40", "--out", "o", "--gif", "--fps", "15"],
    );
    let (w, h, frames) = gif_frames(&dir.path().join("o/dungeon.gif"));
    assert_eq!((w, h, frames.len()), (144, 108, 40));
    assert_eq!(frames[0].0, 7, "15 fps: 7 hundredths of a second, rounded");
    let grey = |f: &[u8]| {
        f.chunks(4)
            .filter(|p| p[0] == p[1] && p[1] == p[2] && p[0] > enc(90) && p[0] < enc(150))
            .count()
    };
    // Undecided cells (grey) at first, none once every cell has collapsed (432 cells, 12 a tick).
    assert!(grey(&frames[0].1) > grey(&frames[20].1) && grey(&frames[39].1) == 0);
    let last = &frames[39].1;
    let floor = |x: usize, y: usize| last[(y * w as usize + x) * 4] > enc(150);
    let share = (0..h as usize)
        .flat_map(|y| (0..w as usize).map(move |x| (x, y)))
        .filter(|&(x, y)| floor(x, y))
        .count() as f64
        / (w as f64 * h as f64);
    assert!((0.15..0.7).contains(&share), "floor share {share}");
    // Walled in: the outermost blocks are all wall.
    assert!((0..w as usize).all(|x| !floor(x, 0) && !floor(x, h as usize - 1)));
    assert!((0..h as usize).all(|y| !floor(0, y) && !floor(w as usize - 1, y)));
}

#[test]
fn the_tree_grows_a_trunk_and_a_spreading_crown() {
    let dir = tempfile::tempdir().unwrap();
    render(
        dir.path(),
        "tree",
        &["--ticks", "70", "--out", "o", "--gif", "--no-frames"],
    );
    let (w, h, frames) = gif_frames(&dir.path().join("o/tree.gif"));
    assert_eq!(frames.len(), 70);
    let bark = |f: &[u8], x: usize, y: usize| f[(y * w as usize + x) * 4] < enc(120);
    let count = |f: &[u8]| {
        (0..h as usize)
            .flat_map(|y| (0..w as usize).map(move |x| (x, y)))
            .filter(|&(x, y)| bark(f, x, y))
            .count()
    };
    let last = &frames[69].1;
    // It grew: more bark over time.
    assert!(count(&frames[10].1) < count(&frames[40].1) && count(&frames[40].1) < count(last));
    // A trunk rises from the root (bottom centre), and the crown spreads far wider than it.
    let cx = w as usize / 2;
    let row = |y: usize| {
        (0..w as usize)
            .filter(|&x| bark(last, x, y))
            .collect::<Vec<_>>()
    };
    let trunk = row(h as usize * 9 / 10);
    assert!(
        !trunk.is_empty() && trunk.iter().all(|&x| x.abs_diff(cx) < 12),
        "{trunk:?}"
    );
    let crown = row(h as usize * 3 / 10);
    let spread = crown.iter().max().unwrap_or(&0) - crown.iter().min().unwrap_or(&0);
    assert!(
        spread > w as usize * 2 / 5 && spread > 3 * (trunk.len() + 1),
        "crown {spread}, trunk {}",
        trunk.len()
    );
}

#[test]
fn the_stack_leans_topples_and_lies_on_the_ground() {
    let dir = tempfile::tempdir().unwrap();
    render(
        dir.path(),
        "stack",
        &[
            "--ticks",
            "90",
            "--dt",
            "1/30",
            "--out",
            "o",
            "--gif",
            "--no-frames",
        ],
    );
    let (w, h, frames) = gif_frames(&dir.path().join("o/stack.gif"));
    assert_eq!(frames.len(), 90);
    // Box pixels are neither the sky (light blue) nor the ground (dark brown).
    let boxes = |f: &[u8]| -> Vec<(usize, usize)> {
        f.chunks(4)
            .enumerate()
            .filter(|(_, p)| {
                let sky = p[2] > enc(200) && p[0] > enc(180);
                // Within 20 codes of (89, _, 64) before the curve.
                let near = |v: u8, c: i32| enc(c - 20) < v && v < enc(c + 20);
                let ground = near(p[0], 89) && near(p[2], 64);
                !sky && !ground
            })
            .map(|(i, _)| (i % w as usize, i / w as usize))
            .collect()
    };
    let (first, last) = (boxes(&frames[0].1), boxes(&frames[89].1));
    let top = |b: &[(usize, usize)]| b.iter().map(|p| p.1).min().unwrap();
    let spread = |b: &[(usize, usize)]| {
        b.iter().map(|p| p.0).max().unwrap() - b.iter().map(|p| p.0).min().unwrap()
    };
    // At first a tall narrow tower (twelve boxes reach most of the frame's height) ...
    assert!(
        first.len() > 500 && top(&first) < h as usize / 4,
        "top {}",
        top(&first)
    );
    assert!(spread(&first) < w as usize / 3);
    // ... at the end fallen: every box low, near the ground, spread along it.
    assert!(top(&last) > h as usize * 3 / 4, "top {}", top(&last));
    assert!(spread(&last) > w as usize / 2, "spread {}", spread(&last));
}
