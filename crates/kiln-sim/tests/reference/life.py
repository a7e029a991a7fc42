"""Life reference (Conway's Game of Life, B3/S23; Gardner 1970).

Run: `python3 life.py` from this folder (Python 3, NumPy); it writes ../fixtures/life.txt.

What it computes: a grid of dead (0) and live (1) cells; each cell's eight neighbours are
counted (np.roll on a torus, or zero padding when cells beyond the edges are dead, the two
boundaries kiln-sim's `sim.life.step` documents by its `wrap` param); a dead cell with 3
live neighbours is born, a live cell with 2 or 3 survives, every other cell is dead next.
Each case lists the generations it keeps (`gen = N` then its rows, `O` live, `.` dead) and
the population of every generation. Before writing, the script checks the known facts of
its patterns on its own output: the blinker has period 2; the glider has period 4 and
moves by (1, 1) (one cell right and one down, y down) each period; Gosper's glider gun
has 36 cells and period 30, and adds one glider (5 cells) every 30 generations.
"""

import numpy as np

from fixture import rows_of, write_text

GOSPER = [
    "........................O...........",
    "......................O.O...........",
    "............OO......OO............OO",
    "...........O...O....OO............OO",
    "OO........O.....O...OO..............",
    "OO........O...O.OO....O.O...........",
    "..........O.....O.......O...........",
    "...........O...O....................",
    "............OO......................",
]


def step(g, wrap):
    """One B3/S23 generation of `g` (a 0/1 array, rows first)."""
    if wrap:
        n = sum(np.roll(g, (dy, dx), axis=(0, 1))
                for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0))
    else:
        p = np.pad(g, 1)
        h, w = g.shape
        n = sum(p[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w]
                for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0))
    return ((n == 3) | ((g == 1) & (n == 2))).astype(np.uint8)


def place(w, h, rows, x, y):
    g = np.zeros((h, w), dtype=np.uint8)
    for dy, row in enumerate(rows):
        for dx, c in enumerate(row):
            if c == "O":
                g[(y + dy) % h, (x + dx) % w] = 1
    return g


def history(g, wrap, gens):
    out = [g]
    for _ in range(gens):
        out.append(step(out[-1], wrap))
    return out


def case(name, w, h, rows, x, y, wrap, gens, keep):
    hist = history(place(w, h, rows, x, y), wrap, gens)
    fields = [("case", name), ("width", w), ("height", h), ("rule", "B3/S23"),
              ("wrap", str(wrap).lower()), ("pattern", "|".join(rows)), ("x", x), ("y", y),
              ("generations", gens),
              ("population", " ".join(str(int(g.sum())) for g in hist))]
    fields += [("gen", t, rows_of(hist[t])) for t in keep]
    return fields, hist


def main():
    cases = []
    c, hist = case("blinker", 5, 5, ["OOO"], 1, 2, True, 4, range(5))
    assert (hist[2] == hist[0]).all() and not (hist[1] == hist[0]).all()
    cases.append(c)

    glider = [".O.", "..O", "OOO"]
    c, hist = case("glider", 12, 9, glider, 2, 2, True, 12, range(13))
    for t in range(1, 4):
        assert not any((hist[t] == np.roll(hist[0], (dy, dx), axis=(0, 1))).all()
                       for dy in range(9) for dx in range(12)), t
    for t in (4, 8, 12):
        k = t // 4
        assert (hist[t] == np.roll(hist[0], (k, k), axis=(0, 1))).all(), t
    cases.append(c)

    # A glider flying into the corner of a grid with dead cells beyond its edges.
    c, _ = case("glider_into_corner", 8, 7, glider, 2, 1, False, 24, range(25))
    cases.append(c)

    c, hist = case("gosper_gun", 64, 48, GOSPER, 1, 1, False, 120, range(0, 121, 30))
    pops = [int(g.sum()) for g in hist]
    assert pops[0] == 36
    for t in range(0, 91, 30):
        assert pops[t + 30] - pops[t] == 5, (t, pops[t], pops[t + 30])
        # The gun itself (rows 0 to 9 of the grid, above the glider stream) repeats every 30 generations.
        box = (slice(0, 10), slice(0, 39))
        assert (hist[t + 30][box] == hist[t][box]).all(), t
    cases.append(c)

    rng = np.random.default_rng(23)
    soup = rows_of(rng.random((16, 20)) < 0.4)
    for wrap in (True, False):
        c, _ = case(f"soup_{'torus' if wrap else 'dead_edges'}", 20, 16, soup, 0, 0, wrap, 40,
                    range(41))
        cases.append(c)
    write_text("life.txt", __doc__.split("\n\n")[0] + "\nWritten by tests/reference/life.py.", cases)


if __name__ == "__main__":
    main()
