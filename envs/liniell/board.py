"""The table: laid tiles, their lines, and the pawns on them (a Liniell *position*).

Cells live in a 7 x 7 window whose middle cell (3, 3) takes the first tile. Because the laid
area must always fit in a 4 x 4 square that contains the first tile, every reachable
placement lies inside this window. A cell is numbered ``row * 7 + col``; a line piece
(one group of one tile) is numbered ``cell * 4 + group``.

Rules implemented here (rules reference, "Laying a tile"):

- the first tile goes to the middle of the table;
- every later tile shares at least one full side with a laid tile;
- after every placement the laid area fits inside a 4 x 4 square;
- a placement that would join two or more lines occupied by pawns of the same colour is
  forbidden; **[decision]** whether a placement is legal is judged on the pawns as they
  stood before the tile was laid.

>>> from tabletop_rl.envs.liniell.tileset import load_tile_set
>>> board = Board(load_tile_set("default"))
>>> board.legal_placements(board.tile_set.index("cross"))
[(24, 0), (24, 1), (24, 2), (24, 3)]
>>> board.lay(24, board.tile_set.index("cross"), 0)
()
>>> sorted({cell for cell, _ in board.legal_placements(0)})
[17, 23, 25, 31]
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.model import check_num_players
from ..errors import ConfigError, IllegalMoveError
from .grid import CENTRE_CELL, NEIGHBOUR, NUM_CELLS, WINDOW
from .lines import LineSet
from .scoring import PlayerScore, RouteScore, score_line
from .tiles import Orientation, Port
from .tileset import SQUARE, TileSet

#: Pawn slot value of a pawn in its owner's supply.
IN_SUPPLY = -1
PAWNS_PER_PLAYER = 2
#: Players in a game (rules reference, "Material").
MIN_PLAYERS = 2
MAX_PLAYERS = 4


@dataclass(frozen=True)
class Join:
    """Occupied lines joined into one by a placement; a compulsory pawn move follows.

    ``port`` is the first port (N, E, S, W, laid orientation) of the laid tile that the
    joined line touches; ``piece`` is the laid tile's piece at that port.
    """

    port: Port
    piece: int
    occupied_lines: int


class Board:
    """Laid tiles, the lines they form, and every player's two pawns."""

    __slots__ = (
        "_ports",
        "_scores",
        "adjacent",
        "cell_kind",
        "cell_orient",
        "cmax",
        "cmin",
        "frontier",
        "lines",
        "num_laid",
        "num_players",
        "open_ports",
        "pawns",
        "rmax",
        "rmin",
        "tile_set",
    )

    def __init__(self, tile_set: TileSet, num_players: int = 2) -> None:
        if not isinstance(tile_set, TileSet):
            raise ConfigError(
                f"tile_set must be a TileSet (load_tile_set(name)), got {type(tile_set).__name__}"
            )
        self.tile_set = tile_set
        self.num_players = check_num_players("Liniell", num_players, MIN_PLAYERS, MAX_PLAYERS)
        self.cell_kind: list[int] = [-1] * NUM_CELLS
        self.cell_orient: list[Orientation | None] = [None] * NUM_CELLS
        self.lines = LineSet(NUM_CELLS * 4)
        #: pawns[player][slot]: the piece the pawn stands on, or IN_SUPPLY.
        self.pawns: list[list[int]] = [[IN_SUPPLY] * PAWNS_PER_PLAYER for _ in range(num_players)]
        self.num_laid = 0
        self.rmin = self.cmin = WINDOW
        self.rmax = self.cmax = -1
        self._scores: dict[int, RouteScore] = {}
        self._ports: dict[int, list[int]] = {}
        #: adjacent[piece]: the pieces it touches across its ports (kept up to date).
        self.adjacent: list[tuple[int, ...]] = [()] * (NUM_CELLS * 4)
        #: open_ports[piece]: how many of its ports face no tile (edges of the laid area).
        self.open_ports: list[int] = [0] * (NUM_CELLS * 4)
        #: Empty cells next to a laid tile.
        self.frontier: set[int] = set()

    # ----------------------------------------------------------------- queries
    def cell_of(self, row: int, col: int) -> int:
        """The window cell of grid cell (``row``, ``col``) of :func:`to_text` 's grid.

        The grid's top left is the top left of the laid area's bounding box.
        """
        return (self.rmin + row) * WINDOW + self.cmin + col

    def orientation(self, cell: int) -> Orientation:
        o = self.cell_orient[cell]
        if o is None:
            raise IllegalMoveError(f"cell {divmod(cell, WINDOW)} holds no tile")
        return o

    def piece(self, cell: int, port: Port | int) -> int:
        """The piece of the tile on ``cell`` that holds ``port``."""
        return cell * 4 + self.orientation(cell).port_group[port]

    def piece_key(self, piece: int) -> int:
        """Sort key of a piece: its cell, then its first port (N, E, S, W)."""
        cell = piece >> 2
        return cell * 4 + self.cell_orient[cell].groups[piece & 3].ports[0]  # type: ignore[union-attr]

    def line(self, piece: int) -> int:
        """The root piece of the line through ``piece``."""
        return self.lines.find(piece)

    def owners(self) -> dict[int, int]:
        """Occupied lines: root piece -> player."""
        find = self.lines.find
        return {
            find(piece): player
            for player, slots in enumerate(self.pawns)
            for piece in slots
            if piece >= 0
        }

    def supply(self, player: int) -> int:
        """How many pawns ``player`` has in supply."""
        return self.pawns[player].count(IN_SUPPLY)

    def placed_slots(self, player: int) -> list[int]:
        """``player`` 's pawn slots on the board, ordered by :meth:`piece_key`."""
        slots = [s for s, piece in enumerate(self.pawns[player]) if piece >= 0]
        if len(slots) == 2 and self.piece_key(self.pawns[player][slots[1]]) < self.piece_key(
            self.pawns[player][slots[0]]
        ):
            slots.reverse()
        return slots

    def placed_pieces(self, player: int) -> list[int]:
        """The pieces under ``player`` 's pawns on the board, in the numbering of the occupy
        sources (source ``i`` moves the ``i``-th; :meth:`piece_key` order)."""
        return [self.pawns[player][s] for s in self.placed_slots(player)]

    def tile_pieces(self, cell: int) -> list[int]:
        """The pieces of the tile on ``cell``."""
        return [cell * 4 + g for g in range(len(self.orientation(cell).groups))]

    def tile_lines(self, cell: int) -> list[tuple[Port, int]]:
        """Each line through the tile on ``cell`` once: (its first port on the tile, root)."""
        o = self.orientation(cell)
        seen: list[int] = []
        out = []
        for p in range(4):
            root = self.lines.find(cell * 4 + o.port_group[p])
            if root not in seen:
                seen.append(root)
                out.append((Port(p), root))
        return out

    def is_open(self, cell: int, port: int) -> bool:
        """Whether ``port`` of the tile on ``cell`` faces no tile (an edge of the laid area)."""
        nc = NEIGHBOUR[cell][port]
        return nc < 0 or self.cell_kind[nc] < 0

    # --------------------------------------------------------------- placement
    def _fits(self, cell: int) -> bool:
        rows, cols = self.fillable_span()
        return cell // WINDOW in rows and cell % WINDOW in cols

    def fillable_span(self) -> tuple[range, range]:
        """The rows and columns of the window whose cells may still receive a tile (the
        4 x 4 rule: the laid area with the cell fits a ``SQUARE`` square); the whole window
        while nothing is laid. The reference engine's one copy of the rule.

        >>> from tabletop_rl.envs.liniell import from_text
        >>> from_text("cross:0 tee:0").fillable_span()  # row 3, columns 2 and 3 laid
        (range(0, 7), range(0, 6))
        """
        return (
            range(max(self.rmax - SQUARE + 1, 0), min(self.rmin + SQUARE, WINDOW)),
            range(max(self.cmax - SQUARE + 1, 0), min(self.cmin + SQUARE, WINDOW)),
        )

    def candidate_cells(self) -> list[int]:
        """Empty cells where some tile could go (contact and 4 x 4 rules, before the merge ban)."""
        if self.num_laid == 0:
            return [CENTRE_CELL]
        rows, cols = self.fillable_span()
        return sorted(
            cell for cell in self.frontier if cell // WINDOW in rows and cell % WINDOW in cols
        )

    def _neighbour_roots(self, cell: int) -> list[int]:
        find = self.lines.find
        kinds, orients = self.cell_kind, self.cell_orient
        roots = [-1, -1, -1, -1]
        for p, nc in enumerate(NEIGHBOUR[cell]):
            if nc >= 0 and kinds[nc] >= 0:
                roots[p] = find(nc * 4 + orients[nc].port_group[(p + 2) & 3])  # type: ignore[union-attr]
        return roots

    def _joins(
        self, cell: int, orient: Orientation, roots: list[int], owners: dict[int, int]
    ) -> tuple[tuple[Join, ...], str]:
        """Joins made by laying ``orient`` on ``cell``; a reason if the merge ban forbids it."""
        pg = orient.port_group
        comp = list(range(len(orient.groups)))

        def top(g: int) -> int:
            while comp[g] != g:
                g = comp[g]
            return g

        first_group: dict[int, int] = {}
        for p in range(4):
            r = roots[p]
            if r < 0:
                continue
            g = pg[p]
            if r in first_group:
                a, b = top(g), top(first_group[r])
                if a != b:
                    comp[max(a, b)] = min(a, b)
            else:
                first_group[r] = g
        by_comp: dict[int, list[int]] = {}
        for r, g in first_group.items():
            if r in owners:
                by_comp.setdefault(top(g), []).append(owners[r])
        joins = []
        for t, players in by_comp.items():
            if len(players) < 2:
                continue
            if len(set(players)) < len(players):
                dup = next(p for p in players if players.count(p) > 1)
                return (), (
                    f"it would join two lines occupied by player_{dup}'s pawns "
                    "(joining lines occupied by the same colour is always forbidden)"
                )
            port = next(p for p in range(4) if top(pg[p]) == t)
            joins.append(Join(Port(port), cell * 4 + pg[port], len(players)))
        joins.sort(key=lambda j: j.port)
        return tuple(joins), ""

    def check(self, cell: int, kind: int, rotation: int) -> tuple[tuple[Join, ...], str]:
        """``(joins, "")`` if the placement is legal, else ``((), reason)``."""
        if not 0 <= cell < NUM_CELLS:
            return (), f"cell {cell} is outside the {WINDOW} x {WINDOW} window"
        if not 0 <= rotation < 4:
            return (), f"rotation {rotation} is not one of 0, 1, 2, 3"
        if not 0 <= kind < len(self.tile_set.kinds):
            return (), f"tile kind {kind} is not in tile set {self.tile_set.name!r}"
        rc = divmod(cell, WINDOW)
        if self.cell_kind[cell] >= 0:
            return (), f"cell {rc} already holds a tile"
        if self.num_laid == 0:
            if cell != CENTRE_CELL:
                return (
                    (),
                    f"the first tile goes to the middle of the table {divmod(CENTRE_CELL, 7)}",
                )
            return (), ""
        roots = self._neighbour_roots(cell)
        if max(roots) < 0:
            return (), f"a tile on {rc} would share no side with a laid tile"
        if not self._fits(cell):
            return (), f"a tile on {rc} would make the laid area larger than 4 x 4"
        owners = self.owners()
        if sum(1 for r in set(roots) if r in owners) < 2:
            return (), ""  # fewer than two occupied lines to join
        orient = self.tile_set.kinds[kind].orient(rotation)
        return self._joins(cell, orient, roots, owners)

    def legal_placements(self, kind: int) -> list[tuple[int, int]]:
        """Every legal (cell, rotation) for a tile of kind index ``kind``."""
        if self.num_laid == 0:
            return [(CENTRE_CELL, k) for k in range(4)]
        cells = self.candidate_cells()
        # The merge ban can only bite next to two lines of one player.
        pawns = self.pawns
        if not any(slots[0] >= 0 and slots[1] >= 0 for slots in pawns):
            return [(cell, k) for cell in cells for k in range(4)]
        owners = self.owners()
        if len(owners) == len(set(owners.values())):
            return [(cell, k) for cell in cells for k in range(4)]
        tile = self.tile_set.kinds[kind]
        find = self.lines.find
        kinds, orients = self.cell_kind, self.cell_orient
        out = []
        for cell in cells:
            roots = [-1, -1, -1, -1]
            seen: list[int] = []
            clash = False
            for p, nc in enumerate(NEIGHBOUR[cell]):
                if nc >= 0 and kinds[nc] >= 0:
                    r = find(nc * 4 + orients[nc].port_group[p ^ 2])  # type: ignore[union-attr]
                    roots[p] = r
                    owner = owners.get(r)
                    if owner is not None and r not in roots[:p]:
                        clash = clash or owner in seen
                        seen.append(owner)
            if not clash:
                out.extend((cell, k) for k in range(4))
                continue
            for k in range(4):
                if not self._joins(cell, tile.orient(k), roots, owners)[1]:
                    out.append((cell, k))
        return out

    def lay(self, cell: int, kind: int, rotation: int) -> tuple[Join, ...]:
        """Lay a tile; return the joins of occupied lines it makes (pawns are not moved)."""
        joins, reason = self.check(cell, kind, rotation)
        if reason:
            raise IllegalMoveError(
                f"cannot lay {self.tile_set.kinds[kind].name} rotated {rotation} on "
                f"{divmod(cell, WINDOW)}: {reason}"
            )
        self.put(cell, kind, rotation)
        return joins

    def put(self, cell: int, kind: int, rotation: int) -> None:
        """Put a tile on ``cell`` and join its lines, without checking any rule."""
        orient = self.tile_set.kinds[kind].orient(rotation)
        self.cell_kind[cell] = kind
        self.cell_orient[cell] = orient
        lines = self.lines
        scores, ports = self._scores, self._ports
        base = cell * 4
        adjacent, open_ports = self.adjacent, self.open_ports
        for g, ports_of_g in enumerate(orient.group_ports):
            lines.add(base + g)
            adjacent[base + g] = ()
            open_ports[base + g] = len(ports_of_g)
        kinds, orients = self.cell_kind, self.cell_orient
        pg = orient.port_group
        for p, nc in enumerate(NEIGHBOUR[cell]):
            if nc >= 0 and kinds[nc] >= 0:
                other = nc * 4 + orients[nc].port_group[(p + 2) & 3]  # type: ignore[union-attr]
                mine = base + pg[p]
                adjacent[mine] += (other,)
                adjacent[other] += (mine,)
                open_ports[mine] -= 1
                open_ports[other] -= 1
                root = lines.find(other)
                scores.pop(root, None)
                ports.pop(root, None)
                lines.union(base + pg[p], other)
        for g in range(len(orient.groups)):
            root = lines.find(base + g)
            scores.pop(root, None)
            ports.pop(root, None)
        frontier = self.frontier
        frontier.discard(cell)
        for nc in NEIGHBOUR[cell]:
            if nc >= 0 and kinds[nc] < 0:
                frontier.add(nc)
        r, c = divmod(cell, WINDOW)
        self.rmin, self.rmax = min(self.rmin, r), max(self.rmax, r)
        self.cmin, self.cmax = min(self.cmin, c), max(self.cmax, c)
        self.num_laid += 1

    def piece_ports(self, piece: int) -> list[int]:
        """``port * 49 + cell`` for each port of ``piece`` (plane-major window index)."""
        cell = piece >> 2
        return [p * NUM_CELLS + cell for p in self.cell_orient[cell].groups[piece & 3].ports]  # type: ignore[union-attr]

    def line_ports(self, root: int) -> list[int]:
        """``port * 49 + cell`` for every port of every piece of line ``root`` (cached)."""
        out = self._ports.get(root)
        if out is None:
            orients = self.cell_orient
            out = [
                p * NUM_CELLS + (m >> 2)
                for m in self.lines.members(root)
                for p in orients[m >> 2].groups[m & 3].ports  # type: ignore[union-attr]
            ]
            self._ports[root] = out
        return out

    # ----------------------------------------------------------------- scoring
    def line_score(self, root: int) -> RouteScore:
        """The scored route of the line whose root piece is ``root`` (cached)."""
        score = self._scores.get(root)
        if score is None:
            score = score_line(self, root)
            self._scores[root] = score
        return score

    def player_scores(self) -> list[PlayerScore]:
        """Every player's score as if the game ended now (its routes, points, blue ends)."""
        find = self.lines.find
        out = []
        for slots in self.pawns:
            routes = tuple(self.line_score(find(piece)) for piece in slots if piece >= 0)
            out.append(PlayerScore(routes))
        return out

    def points(self) -> list[int]:
        """Every player's points as if the game ended now."""
        find = self.lines.find
        return [
            sum(self.line_score(find(piece)).points for piece in slots if piece >= 0)
            for slots in self.pawns
        ]

    def copy(self) -> Board:
        new = Board.__new__(Board)
        new.tile_set = self.tile_set
        new.num_players = self.num_players
        new.cell_kind = self.cell_kind[:]
        new.cell_orient = self.cell_orient[:]
        new.lines = self.lines.copy()
        new.pawns = [s[:] for s in self.pawns]
        new.num_laid = self.num_laid
        new.rmin, new.rmax, new.cmin, new.cmax = self.rmin, self.rmax, self.cmin, self.cmax
        new._scores = dict(self._scores)
        new._ports = dict(self._ports)
        new.frontier = set(self.frontier)
        new.adjacent = self.adjacent[:]
        new.open_ports = self.open_ports[:]
        return new

    def __getstate__(self) -> dict:
        return {k: getattr(self, k) for k in self.__slots__}

    def __setstate__(self, state: dict) -> None:
        for k, v in state.items():
            setattr(self, k, v)
