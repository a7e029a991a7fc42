"""Elementary cellular automata reference (Wolfram 1983, the rule-number definition).

Run: `python3 elementary.py` from this folder (Python 3, NumPy); it writes
../fixtures/elementary.txt.

What it computes: a row of cells 0 or 1; the next state of a cell with left neighbour l,
itself c and right neighbour r is bit 4l + 2c + r of the rule number (its binary digits,
read from the least significant, are the outputs for the neighbourhoods 000 ... 111).
The ends either see dead cells beyond them or join into a ring. Each case lists every
generation from the first, one text row each (`O` live, `.` dead); as the rows of a
kiln-sim `sim.ca1d` diagram of height generations + 1, they are the grid after that many
steps. The script also checks two facts of the definition on its own output: rule 30's
centre column starts 1101110011 (OEIS A051023) and rule 110 from one cell grows only to
the left.
"""

import numpy as np

from fixture import rows_of, write_text


def next_row(row, rule, ring):
    """The next generation of `row` by `rule` (the definition, all cells at once)."""
    if ring:
        left, right = np.roll(row, 1), np.roll(row, -1)
    else:
        pad = np.pad(row, 1)
        left, right = pad[:-2], pad[2:]
    table = np.array([(rule >> n) & 1 for n in range(8)], dtype=np.uint8)
    return table[4 * left + 2 * row + right]


def diagram(first, rule, ring, gens):
    rows = [np.asarray(first, dtype=np.uint8)]
    for _ in range(gens):
        rows.append(next_row(rows[-1], rule, ring))
    return np.array(rows)


def main():
    cases = []
    w = 65
    centre = np.zeros(w, dtype=np.uint8)
    centre[w // 2] = 1  # where sim.ca1d.init's `center` start puts it
    for rule in (30, 110, 90):
        d = diagram(centre, rule, False, 40)
        if rule == 30:
            column = "".join(str(c) for c in d[:10, w // 2])
            assert column == "1101110011", column
        if rule == 110:
            assert not d[:, w // 2 + 1 :].any()
        cases.append(
            [("case", f"rule{rule}_centre"), ("rule", rule), ("width", w), ("wrap", "false"),
             ("start", "center"), ("generations", 40), ("rows", "", rows_of(d))]
        )
    rng = np.random.default_rng(30)
    for rule in (30, 110):
        for ring in (True, False):
            first = (rng.random(48) < 0.5).astype(np.uint8)
            d = diagram(first, rule, ring, 36)
            name = f"rule{rule}_random_{'ring' if ring else 'ends'}"
            cases.append(
                [("case", name), ("rule", rule), ("width", 48), ("wrap", str(ring).lower()),
                 ("start", "row 0"), ("generations", 36), ("rows", "", rows_of(d))]
            )
    write_text("elementary.txt", __doc__.split("\n\n")[0] + "\nWritten by tests/reference/elementary.py.", cases)


if __name__ == "__main__":
    main()
