//! The mesh preview's cost over triangle counts (issue 37, item 10): many large triangles
//! drawn over one another (the case whose cost grew with triangles × pixels covered) beside
//! filling the picture once by hand (`limit`: the least any preview does), in one run.
//!
//! * `stacked_N`: `N` copies of one triangle covering about half of a 512 × 512 preview, for
//!   N = 1,000, 10,000 and 100,000, through `kiln_io::mesh_files::render_preview`.
//! * `limit`: a loop that writes every pixel of a 512 × 512 RGBA picture once.
//!
//! There is no peer: no crate of the workspace's tree rasterises a mesh on the CPU. The
//! summary prints each ratio to the limit and the work the preview counted; the goal is a
//! cost that stops growing with N (100,000 copies within 4 × of 10,000).
//!
//! Run: `cargo bench -p kiln-bench --bench preview`.

use criterion::Criterion;
use kiln_bench::summary::{Plan, bench_mode, loadavg, time_runs, verdict};
use kiln_io::mesh_files::{PREVIEW_SIZE, render_preview, render_preview_counted};
use kiln_mesh::Mesh;
use std::time::Duration;

/// 7 repetitions of about 300 ms.
const PLAN: Plan = Plan {
    reps: 7,
    target: Duration::from_millis(300),
    max_runs: 1_000,
    probes: 2,
};

/// `n` copies of one large triangle (a single point set, `n` triangles over it).
fn stacked(n: usize) -> Mesh {
    let mut m = Mesh::new();
    for p in [
        glam::Vec3::new(-1.0, -1.0, 0.0),
        glam::Vec3::new(1.0, -1.0, 0.0),
        glam::Vec3::new(0.0, 1.0, 0.0),
    ] {
        m.add_point(p);
    }
    for _ in 0..n {
        m.add_polygon(&[0, 1, 2]);
    }
    m
}

/// Every pixel of a `size` × `size` RGBA picture written once.
fn limit(size: usize) -> Vec<u8> {
    let mut rgba = vec![0u8; size * size * 4];
    for (i, px) in rgba.chunks_exact_mut(4).enumerate() {
        let g = (i % 251) as u8;
        px.copy_from_slice(&[g, g, g, 255]);
    }
    rgba
}

fn main() {
    let counts = [1_000usize, 10_000, 100_000];
    let meshes: Vec<Mesh> = counts.iter().map(|&n| stacked(n)).collect();
    let size = PREVIEW_SIZE as usize;
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    let mut g = c.benchmark_group("mesh_preview");
    for (n, m) in counts.iter().zip(&meshes) {
        g.bench_function(format!("stacked_{n}"), |b| {
            b.iter(|| render_preview(m, PREVIEW_SIZE))
        });
    }
    g.bench_function("limit", |b| b.iter(|| limit(size)));
    g.finish();
    c.final_summary();
    if !bench_mode() {
        return;
    }
    let load_start = loadavg();
    let medians = PLAN.medians(counts.len() + 1, |i, n| match meshes.get(i) {
        Some(m) => time_runs(n, || render_preview(m, PREVIEW_SIZE)),
        None => time_runs(n, || limit(size)),
    });
    PLAN.print_opening(&load_start, "");
    println!("| workload | ms | / limit | work (samples) |");
    println!("|---|---:|---:|---:|");
    let lim = medians[counts.len()];
    for (i, (n, m)) in counts.iter().zip(&meshes).enumerate() {
        let work = render_preview_counted(m, PREVIEW_SIZE).1;
        println!(
            "| {n} stacked triangles | {:.2} | {:.1} | {work} |",
            medians[i] / 1e6,
            medians[i] / lim
        );
    }
    println!("| limit (one fill) | {:.3} | 1.0 | |", lim / 1e6);
    let growth = medians[2] / medians[1];
    println!(
        "\n100,000 / 10,000 copies: {growth:.2} × (goal ≤ 4): {}\n",
        verdict(growth <= 4.0)
    );
}
