"""The 7 x 7 window of cells the game is played in, and which cell lies across each port.

The first tile goes to the middle cell (3, 3); because the laid area must always fit in a
4 x 4 square that holds the first tile, every reachable cell lies in this window. A cell is
numbered ``row * 7 + col``.

>>> NEIGHBOUR[CENTRE_CELL]  # N, E, S, W of the middle cell
(17, 25, 31, 23)
"""

from __future__ import annotations

from .tiles import PORT_DELTA

WINDOW = 7
CENTRE = WINDOW // 2
NUM_CELLS = WINDOW * WINDOW
CENTRE_CELL = CENTRE * WINDOW + CENTRE


def _neighbours() -> tuple[tuple[int, int, int, int], ...]:
    table = []
    for cell in range(NUM_CELLS):
        r, c = divmod(cell, WINDOW)
        row = []
        for dr, dc in PORT_DELTA:
            rr, cc = r + dr, c + dc
            row.append(rr * WINDOW + cc if 0 <= rr < WINDOW and 0 <= cc < WINDOW else -1)
        table.append(tuple(row))
    return tuple(table)  # type: ignore[return-value]


#: NEIGHBOUR[cell][port]: the cell across that port, or -1 outside the window.
NEIGHBOUR = _neighbours()
