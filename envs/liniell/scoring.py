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

from collections.abc import Callable
from enum import Enum
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from .board import Board


class RouteKind(Enum):
    """Which route a line is scored by, from the number of diamonds on it."""

    TWO_DIAMONDS = "diamond to diamond"
    ONE_DIAMOND = "diamond to edge"
    NO_DIAMOND = "edge to edge"


class RouteScore(NamedTuple):
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


class PlayerScore(NamedTuple):
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


def _search_from(
    starts: list[int],
    dfs: Callable[[int, int, int], bool],
    visited: dict[int, bool],
    count: dict[int, int],
    path: list[int],
) -> None:
    """Run the route search ``dfs`` from each start piece in turn, until one reports that no
    better route can exist."""
    for s in starts:
        visited[s] = True
        count[s >> 2] = 1
        path.append(s)
        done = dfs(s, 1, s)
        path.pop()
        count[s >> 2] = 0
        visited[s] = False
        if done:
            break


def score_line(board: Board, root: int) -> RouteScore:
    """The scored route of the line of ``board`` whose root piece is ``root``.

    A depth-first search over the line's pieces enumerates the routes of the line's kind
    (each pair of ends once) and keeps the longest, then the one worth most; it stops early
    once a route reaches the line's tile count and the kind's best possible bonus.
    """
    members = board.lines.members(root)
    orients = board.cell_orient
    adjacent, open_ports = board.adjacent, board.open_ports
    if len(members) == 1:
        piece = members[0]
        code = orients[piece >> 2].diamond_codes[piece & 3]  # type: ignore[union-attr]
        n_open = open_ports[piece]
        if code:
            if n_open:
                return RouteScore(RouteKind.ONE_DIAMOND, 1, False, int(code == 2), (piece,))
            return RouteScore(RouteKind.ONE_DIAMOND)
        if n_open >= 2:
            return RouteScore(RouteKind.NO_DIAMOND, 1, False, 0, (piece,))
        return RouteScore(RouteKind.NO_DIAMOND)

    codes = {piece: orients[piece >> 2].diamond_codes[piece & 3] for piece in members}  # type: ignore[union-attr]
    stubs = [piece for piece in members if codes[piece]]
    max_tiles = len({piece >> 2 for piece in members})
    visited = dict.fromkeys(members, False)
    count = {piece >> 2: 0 for piece in members}
    path: list[int] = []
    best = [-1, -1]
    best_path: list[int] = []

    if len(stubs) >= 2:
        kind = RouteKind.TWO_DIAMONDS
        blue_stubs = sum(1 for s in stubs if codes[s] == 2)
        ceiling = max_tiles + 1 + min(2, blue_stubs)
        rank = {s: k for k, s in enumerate(stubs)}

        def dfs2(u: int, tiles: int, start: int) -> bool:
            for v in adjacent[u]:
                if visited[v]:
                    continue
                c = v >> 2
                k = count[c]
                t = tiles + (k == 0)
                if codes[v]:
                    if rank[v] > rank[start]:
                        pts = t + 1 + (codes[start] == 2) + (codes[v] == 2)
                        if t > best[0] or (t == best[0] and pts > best[1]):
                            best[0], best[1] = t, pts
                            best_path[:] = [*path, v]
                            if t >= max_tiles and pts >= ceiling:
                                return True
                    continue  # a stub is a dead end
                visited[v] = True
                count[c] = k + 1
                path.append(v)
                done = dfs2(v, t, start)
                path.pop()
                count[c] = k
                visited[v] = False
                if done:
                    return True
            return False

        _search_from(stubs, dfs2, visited, count, path)
    else:
        if stubs:
            kind = RouteKind.ONE_DIAMOND
            starts = stubs
            bonus = int(codes[stubs[0]] == 2)
            ceiling = max_tiles + bonus
        else:
            kind = RouteKind.NO_DIAMOND
            starts = sorted(piece for piece in members if open_ports[piece])
            bonus = 0
            ceiling = max_tiles

        def dfs1(u: int, tiles: int, start: int) -> bool:
            # an edge end at u (for edge-to-edge routes each pair of ends once: u > start)
            n_open = open_ports[u]
            if n_open and (codes[start] or u > start or (u == start and n_open >= 2)):
                pts = tiles + bonus
                if tiles > best[0] or (tiles == best[0] and pts > best[1]):
                    best[0], best[1] = tiles, pts
                    best_path[:] = path
                    if tiles >= max_tiles and pts >= ceiling:
                        return True
            for v in adjacent[u]:
                if visited[v]:
                    continue
                c = v >> 2
                k = count[c]
                visited[v] = True
                count[c] = k + 1
                path.append(v)
                done = dfs1(v, tiles + (k == 0), start)
                path.pop()
                count[c] = k
                visited[v] = False
                if done:
                    return True
            return False

        _search_from(starts, dfs1, visited, count, path)
    if best[0] < 0:
        return RouteScore(kind)
    first, last = best_path[0], best_path[-1]
    blue = (codes[first] == 2) + (codes[last] == 2 and last != first)
    return RouteScore(
        kind,
        tiles=best[0],
        closed=kind is RouteKind.TWO_DIAMONDS,
        blue=blue,
        path=tuple(best_path),
    )


def score_position(position: str | Board, tile_set: str = "default") -> list[PlayerScore]:
    """Every player's score for a position given in the text notation (or as a Board).

    One line scores a position from a bug report: ``score_position(text)[player].points``.
    """
    if isinstance(position, str):
        from .notation import from_text

        position = from_text(position, tile_set=tile_set)
    return position.player_scores()
