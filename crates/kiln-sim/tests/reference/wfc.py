"""Wave function collapse reference (Gumin 2016, simple tiled model): an adjacency checker
and an exhaustive list of solutions, from the tile rules kiln-sim's wfc.rs documents.

Run: `python3 wfc.py` from this folder (Python 3, NumPy); it writes ../fixtures/wfc.txt.

What it computes: a tile is four edge labels (north, east, south, west) and a weight,
written NESW*weight. Tile b may sit east of tile a when a's east label equals b's west
label, and south of it when a's south label equals b's north label; with a border label,
every edge on the grid's outside must carry it. From those rules alone it writes, per case,
the table of allowed east and south neighbours (row a, column b, 1 allowed), which tiles
may lie on each side of the grid, and, for grids small enough to enumerate (every row of
tiles, then rows stacked), every solution as rows of tile indices and their count. A tile
set with no solution lists none, so the Rust test expects a contradiction there.
"""

import itertools

import numpy as np

from fixture import write_text

DUNGEON = "ffff*6 wwww*4 wfwf*2 fwfw*2 ffww fwwf wwff wffw fffw ffwf fwff wfff fwww wfww wwfw wwwf"


def parse(tiles):
    out = []
    for word in tiles.split():
        edges, _, weight = word.partition("*")
        assert len(edges) == 4 and int(weight or 1) > 0, word
        out.append(edges)
    return out


def tables(tiles):
    n = len(tiles)
    east = np.array([[tiles[a][1] == tiles[b][3] for b in range(n)] for a in range(n)])
    south = np.array([[tiles[a][2] == tiles[b][0] for b in range(n)] for a in range(n)])
    return east, south


def solutions(tiles, w, h, border):
    """Every tiling of w × h that obeys the rules (rows of tile indices)."""
    east, south = tables(tiles)
    n = len(tiles)
    ok_edge = lambda t, side: border is None or tiles[t][side] == border
    rows = []
    for row in itertools.product(range(n), repeat=w):
        if all(east[a, b] for a, b in zip(row, row[1:])) and ok_edge(row[0], 3) and ok_edge(row[-1], 1):
            rows.append(row)
    out = [[r] for r in rows if all(ok_edge(t, 0) for t in r)]
    for y in range(1, h):
        out = [s + [r] for s in out for r in rows
               if all(south[a, b] for a, b in zip(s[-1], r))]
    return [s for s in out if all(ok_edge(t, 2) for t in s[-1])]


def table_rows(t):
    return ["".join("1" if v else "0" for v in row) for row in t]


def case(name, tiles_text, w, h, border, enumerate_all):
    tiles = parse(tiles_text)
    east, south = tables(tiles)
    fields = [("case", name), ("tiles", tiles_text), ("width", w), ("height", h),
              ("border", border or ""), ("east", "", table_rows(east)),
              ("south", "", table_rows(south))]
    for side, label in enumerate(["north", "east", "south", "west"]):
        ok = [str(t) for t in range(len(tiles)) if border is None or tiles[t][side] == border]
        fields.append((f"on_{label}_side", " ".join(ok)))
    if enumerate_all:
        sols = solutions(tiles, w, h, border)
        fields.append(("solutions", len(sols),
                       [" ".join(",".join(str(t) for t in r) for r in s) for s in sols]))
    return fields


def main():
    cases = [
        case("dungeon", DUNGEON, 16, 12, "w", False),
        case("dungeon_3x2", DUNGEON, 3, 2, "w", True),
        case("rows_of_one_kind", "abab acac", 4, 3, None, True),
        case("no_solution", "abcd dcba", 3, 3, None, True),
    ]
    write_text("wfc.txt", __doc__.split("\n\n")[0] + "\nWritten by tests/reference/wfc.py.", cases)
    for c in cases:
        print(c[0][1], [f[1] for f in c if f[0] == "solutions"])


if __name__ == "__main__":
    main()
