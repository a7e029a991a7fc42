//! The automatic layered layout of nodes the file stores no position for: each node in the
//! column after the furthest of its sources (longest path from the sources, found by a
//! worklist in topological order; a node on a cycle, through a latch, goes after the
//! columns already placed), then each node that feeds only later columns moved up to the
//! column before its first reader, each column ordered by the mean row of its sources and stacked
//! by the nodes' heights.

use std::collections::HashMap;

/// The horizontal distance between columns.
pub const COLUMN_STEP: i64 = 250;
/// The vertical gap between nodes of a column.
pub const ROW_GAP: i64 = 28;
/// Where the first column and row start.
pub const MARGIN: i64 = 40;

/// Positions (`[x, y]`, the top-left corner) of `nodes` (id and height, in drawing order)
/// given `edges` (source index, destination index).
pub fn layered(nodes: &[(String, i64)], edges: &[(usize, usize)]) -> Vec<[i64; 2]> {
    let n = nodes.len();
    let mut succ: Vec<Vec<usize>> = vec![vec![]; n];
    let mut preds: Vec<Vec<usize>> = vec![vec![]; n];
    let mut indeg = vec![0usize; n];
    for &(a, b) in edges {
        if a < n && b < n && a != b {
            succ[a].push(b);
            preds[b].push(a);
            indeg[b] += 1;
        }
    }
    let mut layer = vec![0usize; n];
    let mut placed = vec![false; n];
    let mut order: Vec<usize> = vec![];
    let mut ready: Vec<usize> = (0..n).rev().filter(|&i| indeg[i] == 0).collect();
    loop {
        while let Some(i) = ready.pop() {
            placed[i] = true;
            order.push(i);
            for &s in &succ[i] {
                if placed[s] || indeg[s] == 0 {
                    continue;
                }
                layer[s] = layer[s].max(layer[i] + 1);
                indeg[s] -= 1;
                if indeg[s] == 0 {
                    ready.push(s);
                }
            }
        }
        // Nodes on cycles: take the first one left, after every column placed so far.
        let Some(i) = (0..n).find(|&i| !placed[i]) else {
            break;
        };
        let deepest = order.iter().map(|&j| layer[j]).max().map_or(0, |d| d + 1);
        layer[i] = layer[i].max(deepest);
        indeg[i] = 0;
        ready.push(i);
    }
    // A node feeding only later columns moves up to the column before its first reader, so
    // a source sits beside what reads it (in reverse order: readers are settled first).
    for &i in order.iter().rev() {
        let readers = succ[i].iter().map(|&s| layer[s]).filter(|&l| l > layer[i]);
        if let Some(first) = readers.min()
            && succ[i].iter().all(|&s| layer[s] > layer[i])
        {
            layer[i] = first - 1;
        }
    }
    let columns = layer.iter().copied().max().map_or(0, |m| m + 1);
    let mut by_column: Vec<Vec<usize>> = vec![vec![]; columns];
    for &i in &order {
        by_column[layer[i]].push(i);
    }
    let mut row: HashMap<usize, f64> = HashMap::new();
    let mut out = vec![[0, 0]; n];
    for (c, col) in by_column.iter_mut().enumerate() {
        if c > 0 {
            let key = |i: &usize| {
                let ps: Vec<f64> = preds[*i]
                    .iter()
                    .filter_map(|p| row.get(p))
                    .copied()
                    .collect();
                if ps.is_empty() {
                    f64::MAX
                } else {
                    ps.iter().sum::<f64>() / ps.len() as f64
                }
            };
            col.sort_by(|a, b| key(a).total_cmp(&key(b)).then(a.cmp(b)));
        }
        let mut y = MARGIN;
        for (r, &i) in col.iter().enumerate() {
            row.insert(i, r as f64);
            out[i] = [MARGIN + c as i64 * COLUMN_STEP, y];
            y += nodes[i].1 + ROW_GAP;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: usize) -> Vec<(String, i64)> {
        (0..n).map(|i| (format!("n{i}"), 100)).collect()
    }

    #[test]
    fn each_node_goes_one_column_after_its_furthest_source() {
        // 0 -> 1 -> 2, 0 -> 2: 2 is in column 2, not 1.
        let p = layered(&ids(3), &[(0, 1), (1, 2), (0, 2)]);
        assert_eq!(p[0], [MARGIN, MARGIN]);
        assert_eq!(p[1], [MARGIN + COLUMN_STEP, MARGIN]);
        assert_eq!(p[2], [MARGIN + 2 * COLUMN_STEP, MARGIN]);
    }

    #[test]
    fn a_source_sits_just_before_its_first_reader() {
        // 0 -> 1 -> 2 -> 3 and 4 -> 3: 4 goes in column 2, beside 2, not in column 0.
        let p = layered(&ids(5), &[(0, 1), (1, 2), (2, 3), (4, 3)]);
        assert_eq!(p[4][0], MARGIN + 2 * COLUMN_STEP);
        assert_eq!(p[3][0], MARGIN + 3 * COLUMN_STEP);
    }

    #[test]
    fn a_column_stacks_by_height_and_a_cycle_still_gets_placed() {
        // Two sources stacked: the second starts below the first's height and the gap.
        let p = layered(&ids(2), &[]);
        assert_eq!(p[1], [MARGIN, MARGIN + 100 + ROW_GAP]);
        // 0 <-> 1 (a latch loop): both placed, in different columns.
        let p = layered(&ids(2), &[(0, 1), (1, 0)]);
        assert_ne!(p[0][0], p[1][0]);
    }
}
