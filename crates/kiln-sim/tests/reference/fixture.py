"""Writers of the fixture format that crates/kiln-sim/tests/common/fixture.rs reads.

A text fixture is a list of cases. Each line is a comment (`# ...`), a field
(`key = value`) or a data row (anything else), which belongs to the field above it.
A case starts at its `case = NAME` field. Float fields live in little-endian f32 files
(`.bin`, row-major, the channels of a cell adjacent) named by a field.
"""

import pathlib

import numpy as np

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures"


def write_text(name, header, cases):
    """Write `cases` (lists of `(key, value)` or `(key, value, rows)`) to fixtures/NAME."""
    lines = ["# " + h if h else "#" for h in header.strip().splitlines()]
    for case in cases:
        lines.append("")
        for field in case:
            key, value = field[0], field[1]
            lines.append(f"{key} = {value}".rstrip())
            if len(field) > 2:
                lines.extend(field[2])
    FIXTURES.mkdir(exist_ok=True)
    (FIXTURES / name).write_text("\n".join(lines) + "\n")


def write_f32(name, array):
    """Write `array` as little-endian f32 to fixtures/NAME and return NAME."""
    FIXTURES.mkdir(exist_ok=True)
    np.ascontiguousarray(array, dtype="<f4").tofile(FIXTURES / name)
    return name


def rows_of(cells, live="O", dead="."):
    """The rows of a 0/1 array as text."""
    return ["".join(live if c else dead for c in row) for row in np.asarray(cells)]


def py_float(x):
    """A float written so that Rust's `str::parse::<f64>` reads the same double."""
    return repr(float(x))
