"""Scoring: the route of each occupied line, and the players' totals (rules reference).

For each line occupied by a player's pawn, one *route* is found: a path along the line
between two of its ends that uses no line piece twice. The ends of a line are its diamonds
and the points where it runs off the laid area (the edge of the square, or **[decision]** the
side of a missing tile when the game ended early). A route's two ends are different points.

- Two or more diamonds on the line: the longest route between two diamonds.
- Exactly one diamond: the longest route from that diamond to the edge.
- No diamond: the longest route from edge to edge.

A route earns 1 point per tile it passes (the tiles holding its end diamonds and the edge
tiles included), each tile counted once even if the route passes it twice; **[decision]** the
length that decides "longest" is this same count of distinct tiles. +1 if the route is
closed by two diamonds, +1 per blue diamond at an end. **[decision]** Among routes of equal
length, the one worth most counts. A line with no route of its kind scores 0 (a closed loop
with no diamond and no edge, one diamond and no edge point, or no diamond and a single edge
point).

Highest total wins; ties go to the player with more blue diamonds at the ends of their
scored routes; **[decision]** still tied, the tied players share the win.

>>> from tabletop_rl.envs.liniell import score_position
>>> score_position('''
... straight_eb:1 star:0
... pawns: 0@0,0:W
... ''')[0].routes[0].describe()
'diamond to edge: 2 tiles = 2'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from .tiles import Diamond

if TYPE_CHECKING:
    from .board import Board


class RouteKind(Enum):
    """Which route a line is scored by, from the number of diamonds on it."""

    TWO_DIAMONDS = "diamond to diamond"
    ONE_DIAMOND = "diamond to edge"
    NO_DIAMOND = "edge to edge"


@dataclass(frozen=True)
class RouteScore:
    """The scored route of one line (``path`` is empty when the line has no such route)."""

    kind: RouteKind
    tiles: int = 0
    closed: bool = False
    blue: int = 0
    path: tuple[int, ...] = ()

    @property
    def points(self) -> int:
        return self.tiles + int(self.closed) + self.blue

    @property
    def found(self) -> bool:
        return bool(self.path)

    def describe(self) -> str:
        if not self.found:
            return f"no {self.kind.value} route: 0"
        parts = [f"{self.tiles} tiles"]
        if self.blue:
            parts.append(f"{self.blue} blue")
        if self.closed:
            parts.append("1 closed")
        return f"{self.kind.value}: " + " + ".join(parts) + f" = {self.points}"


@dataclass(frozen=True)
class PlayerScore:
    """A player's scored routes, one per occupied line."""

    routes: tuple[RouteScore, ...]

    @property
    def points(self) -> int:
        return sum(r.points for r in self.routes)

    @property
    def blue(self) -> int:
        """Blue diamonds at the ends of the scored routes (the tie-break)."""
        return sum(r.blue for r in self.routes)


def winners(scores: list[PlayerScore]) -> list[int]:
    """Indices of the winners: most points, then most blue diamonds at route ends, then shared.

    >>> a = PlayerScore((RouteScore(RouteKind.TWO_DIAMONDS, 5, True, 2, (1, 2)),))
    >>> b = PlayerScore((RouteScore(RouteKind.TWO_DIAMONDS, 6, True, 1, (1, 2)),))
    >>> winners([a, b]), winners([a, a])
    ([0], [0, 1])
    """
    best = max((s.points, s.blue) for s in scores)
    return [i for i, s in enumerate(scores) if (s.points, s.blue) == best]


def _line_graph(board: Board, root: int) -> tuple[list[int], list[list[int]], list[int], list[int]]:
    """The pieces of a line: their cells, neighbour lists, open-port counts and diamonds.

    Diamond codes: 0 none, 1 empty, 2 blue.
    """
    from .board import NEIGHBOUR

    members = board.lines.members(root)
    index = {piece: i for i, piece in enumerate(members)}
    kinds, orients = board.cell_kind, board.cell_orient
    cells, adj, opens, diamonds = [], [], [], []
    for piece in members:
        cell = piece >> 2
        group = orients[cell].groups[piece & 3]  # type: ignore[union-attr]
        nbrs = []
        n_open = 0
        for p in group.ports:
            nc = NEIGHBOUR[cell][p]
            if nc < 0 or kinds[nc] < 0:
                n_open += 1
            else:
                nbrs.append(index[nc * 4 + orients[nc].port_group[(p + 2) & 3]])  # type: ignore[union-attr]
        cells.append(cell)
        adj.append(nbrs)
        opens.append(n_open)
        d = group.diamond
        diamonds.append(0 if d is None else (2 if d is Diamond.BLUE else 1))
    return cells, adj, opens, diamonds


def score_line(board: Board, root: int) -> RouteScore:
    """The scored route of the line of ``board`` whose root piece is ``root``."""
    members = board.lines.members(root)
    cells, adj, opens, diamonds = _line_graph(board, root)
    n = len(cells)
    stubs = [i for i in range(n) if diamonds[i]]
    max_tiles = len(set(cells))
    if len(stubs) >= 2:
        kind = RouteKind.TWO_DIAMONDS
        starts = stubs
        blue_stubs = sum(1 for i in stubs if diamonds[i] == 2)
        ceiling = max_tiles + 1 + min(2, blue_stubs)
    elif len(stubs) == 1:
        kind = RouteKind.ONE_DIAMOND
        starts = stubs
        ceiling = max_tiles + (diamonds[stubs[0]] == 2)
    else:
        kind = RouteKind.NO_DIAMOND
        starts = [i for i in range(n) if opens[i]]
        ceiling = max_tiles
    best = [-1, -1, ()]  # tiles, points, path
    visited = [False] * n
    cell_count: dict[int, int] = {}
    path: list[int] = []

    def consider(start: int, end: int, tiles: int) -> None:
        if kind is RouteKind.TWO_DIAMONDS:
            if end == start or not diamonds[end]:
                return
            pts = tiles + 1 + (diamonds[start] == 2) + (diamonds[end] == 2)
        elif kind is RouteKind.ONE_DIAMOND:
            if not opens[end]:
                return
            pts = tiles + (diamonds[start] == 2)
        else:
            if not opens[end] or (end == start and opens[end] < 2):
                return
            pts = tiles
        if tiles > best[0] or (tiles == best[0] and pts > best[1]):
            best[0], best[1], best[2] = tiles, pts, tuple(path)

    def dfs(start: int, u: int, tiles: int) -> bool:
        consider(start, u, tiles)
        if best[1] >= ceiling and best[0] >= max_tiles:
            return True
        for v in adj[u]:
            if visited[v]:
                continue
            c = cells[v]
            k = cell_count.get(c, 0)
            visited[v] = True
            cell_count[c] = k + 1
            path.append(v)
            done = dfs(start, v, tiles + (k == 0))
            path.pop()
            cell_count[c] = k
            visited[v] = False
            if done:
                return True
        return False

    for s in starts:
        visited[s] = True
        cell_count[cells[s]] = 1
        path.append(s)
        done = dfs(s, s, 1)
        path.pop()
        cell_count[cells[s]] = 0
        visited[s] = False
        if done:
            break
    if best[0] < 0:
        return RouteScore(kind)
    route = best[2]
    first, last = route[0], route[-1]
    blue = (diamonds[first] == 2) + (diamonds[last] == 2 and last != first)
    return RouteScore(
        kind,
        tiles=best[0],
        closed=kind is RouteKind.TWO_DIAMONDS,
        blue=blue,
        path=tuple(members[i] for i in route),
    )


def score_position(position: str | Board, tile_set: str = "default") -> list[PlayerScore]:
    """Every player's score for a position given in the text notation (or as a Board).

    One line scores a position from a bug report: ``score_position(text)[player].points``.
    """
    if isinstance(position, str):
        from .notation import from_text

        position = from_text(position, tile_set=tile_set)
    return position.player_scores()
