"""The full state of a Liniell game: table, stack, turns, occupation and joins.

A turn (rules reference, "A turn"): the player draws the top tile of the shuffled stack and
must lay it, then may occupy one line of the tile just laid with one of their pawns, from
their supply or moved from another line they occupy (that line becomes free).

Joining occupied lines (seed): a placement may join occupied lines only if all their pawns
have different colours. Then the tile is laid and the lines join; the player moves one of
their own pawns that is not already on the new line onto it (from supply or from another
line, which becomes free) — compulsory, and **[decision]** the player's occupation for the
turn; then all pawns that stood on the joined lines before (the player's own included) go
back to their owners' supplies.

**[decision]** If one tile joins occupied lines in two separate places, the procedure runs
once for each joined line, in the order of the first port of the laid tile (N, E, S, W, laid
orientation) that each joined line touches. A later joined line runs the procedure only if
it still holds two or more pawns when its turn comes; a pawn returned to supply by an earlier
step may be used in a later one.

End (rules reference): after the turn in which the 16th tile is laid, or **[decision]** at
once when a drawn tile cannot be laid in any position and rotation (not only the last tile).

>>> import numpy as np
>>> game = Game.new(np.random.default_rng(0))
>>> game.phase, game.board.num_laid, len(game.stack)
(<Phase.LAY: 'lay'>, 0, 15)
>>> cell, rotation = game.legal_placements()[0]
>>> game.lay(cell, rotation)
>>> game.phase, [str(o) for o in game.occupations()][:2]
(<Phase.OCCUPY: 'occupy'>, ['N/supply', 'E/supply'])
>>> game.skip(); game.phase, game.current != game.start_player
(<Phase.LAY: 'lay'>, True)
"""

from __future__ import annotations

from enum import Enum, IntEnum
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..core.checks import check_rng
from ..errors import ConfigError, IllegalMoveError, InvariantError
from .board import IN_SUPPLY, WINDOW, Board, Join
from .notation import to_text
from .position import board_problem, material_problem
from .scoring import PlayerScore
from .scoring import winners as score_winners
from .tiles import Port
from .tileset import TileSet, load_tile_set


class Phase(Enum):
    """What the player to act does next."""

    LAY = "lay"
    OCCUPY = "occupy"
    MOVE = "compulsory move"
    OVER = "over"


class PawnSource(IntEnum):
    """Which pawn occupies a line: one from supply, or the first or second placed pawn.

    A player's placed pawns are numbered by the window cell of the piece they stand on (row
    by row), then by that piece's first port (N, E, S, W).
    """

    SUPPLY = 0
    PLACED_1 = 1
    PLACED_2 = 2

    def __str__(self) -> str:
        return ("supply", "placed pawn 1", "placed pawn 2")[self]


class Occupation(NamedTuple):
    """Put a pawn from ``source`` on the line of the tile just laid that holds ``port``."""

    port: Port
    source: PawnSource

    def __str__(self) -> str:
        return f"{self.port.name}/{self.source}"


class Game:
    """A Liniell game in progress. Build one with :meth:`new`."""

    def __init__(self, board: Board, stack: list[int], start_player: int) -> None:
        """A game continuing from ``board`` with ``stack`` (kind indices, next to draw last);
        the position is checked (:mod:`.position`), a :class:`ConfigError` naming a problem."""
        if not isinstance(board, Board):
            raise ConfigError(f"board must be a Board (see from_text), got {board!r}")
        num_players = board.num_players
        if not 2 <= num_players <= 4:
            raise ConfigError(f"Liniell is played by 2 to 4 players, not {num_players}")
        if (
            isinstance(start_player, bool)
            or not isinstance(start_player, int | np.integer)
            or not 0 <= start_player < num_players
        ):
            raise ConfigError(f"player {start_player!r} is not one of 0 to {num_players - 1}")
        if isinstance(stack, str) or any(
            isinstance(k, bool) or not isinstance(k, int | np.integer) for k in stack
        ):
            raise ConfigError(f"stack: tile kind indices (ints), got {stack!r}")
        laid = [k for k in board.cell_kind if k >= 0]
        if problem := board_problem(board) or material_problem(board, [*laid, *stack]):
            raise ConfigError(f"impossible Liniell position: {problem}")
        self.board = board
        self.num_players = num_players
        self.stack = list(stack)  # the top of the stack is the end of the list
        self.start_player = start_player
        self.current = start_player
        self.phase = Phase.LAY
        self.drawn: int | None = None
        self.last_cell = -1
        self.pending: list[Join] = []
        self.turn = 0
        self.ended_early = False
        self._placements: list[tuple[int, int]] | None = None
        self._tiles_at_start = board.num_laid + len(self.stack)
        self._start_turn()

    @classmethod
    def new(
        cls,
        rng: np.random.Generator,
        num_players: int = 2,
        tile_set: str | Path | TileSet = "default",
    ) -> Game:
        """A new game: shuffled stack and random starting player, both from ``rng``."""
        rng = check_rng(rng)
        ts = load_tile_set(tile_set)
        board = Board(ts, num_players)  # checks the player count before any dealing
        stack = [int(k) for k in rng.permutation(ts.stack())]
        return cls(board, stack, int(rng.integers(num_players)))

    @classmethod
    def from_board(cls, board: Board, stack: list[str], current: int = 0) -> Game:
        """Continue from a position: ``stack`` lists tile kind names, the next to draw last.

        >>> from tabletop_rl.envs.liniell import from_text
        >>> game = Game.from_board(from_text("cross:0"), ["star", "tee"], current=1)
        >>> game.board.tile_set.kinds[game.drawn].name, game.current, game.phase.value
        ('tee', 1, 'lay')
        """
        ts = board.tile_set
        return cls(board, [ts.index(name) for name in stack], current)

    # ------------------------------------------------------------------ flow
    def _start_turn(self) -> None:
        self._placements = None
        if not self.stack:
            self.phase = Phase.OVER
            return
        self.drawn = self.stack.pop()
        self.phase = Phase.LAY
        if not self.legal_placements():
            self.phase = Phase.OVER
            self.ended_early = True

    def _end_turn(self) -> None:
        self.turn += 1
        self.pending = []
        self.current = (self.current + 1) % self.num_players
        self._start_turn()

    def _next_move(self) -> None:
        find = self.board.lines.find
        while self.pending:
            root = find(self.pending[0].piece)
            held = sum(1 for slots in self.board.pawns for p in slots if p >= 0 and find(p) == root)
            if held >= 2:
                self.phase = Phase.MOVE
                return
            self.pending.pop(0)
        self._end_turn()

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def _require(self, *phases: Phase) -> None:
        if self.phase not in phases:
            allowed = " or ".join(p.value for p in phases)
            raise IllegalMoveError(f"the game is in phase {self.phase.value!r}, not {allowed}")

    # ---------------------------------------------------------------- laying
    def legal_placements(self) -> list[tuple[int, int]]:
        """Every legal (cell, rotation) for the drawn tile (empty when none is to be laid)."""
        if self._placements is None:
            if self.phase is not Phase.LAY or self.drawn is None:
                return []
            self._placements = self.board.legal_placements(self.drawn)
        return self._placements

    def lay(self, cell: int, rotation: int) -> None:
        """Lay the drawn tile on window ``cell`` turned ``rotation`` quarter-turns."""
        self._require(Phase.LAY)
        assert self.drawn is not None
        joins = self.board.lay(cell, self.drawn, rotation)
        self.drawn = None
        self._placements = None
        self.last_cell = cell
        if joins:
            self.pending = list(joins)
            self._next_move()
        else:
            self.phase = Phase.OCCUPY

    # ------------------------------------------------------------- occupying
    def move_target(self) -> int:
        """Root piece of the joined line the compulsory move goes to (phase MOVE)."""
        self._require(Phase.MOVE)
        return self.board.lines.find(self.pending[0].piece)

    def occupation_pairs(self) -> list[tuple[int, int]]:
        """The legal occupations as ``(port, source)`` integers (the fast form of
        :meth:`occupations`)."""
        phase = self.phase
        if phase is not Phase.OCCUPY and phase is not Phase.MOVE:
            return []
        board, player = self.board, self.current
        find = board.lines.find
        cell = self.last_cell
        pg = board.cell_orient[cell].port_group  # type: ignore[union-attr]
        base = cell * 4
        roots = [find(base + g) for g in pg]
        slots = board.pawns[player]
        placed = [p for p in slots if p >= 0]
        if len(placed) == 2 and board.piece_key(placed[1]) < board.piece_key(placed[0]):
            placed.reverse()
        has_supply = len(placed) < 2
        if phase is Phase.OCCUPY:
            occupied = {find(p) for ss in board.pawns for p in ss if p >= 0}
            sources = ([0] if has_supply else []) + [1, 2][: len(placed)]
            out = []
            for port in range(4):
                root = roots[port]
                if root in occupied or root in roots[:port]:
                    continue
                out.extend((port, s) for s in sources)
            return out
        target = find(self.pending[0].piece)
        port = roots.index(target)
        out = [(port, 0)] if has_supply else []
        for i, piece in enumerate(placed):
            if find(piece) != target:
                out.append((port, i + 1))
        return out

    def occupations(self) -> list[Occupation]:
        """The legal occupations now (phase OCCUPY: optional; phase MOVE: compulsory)."""
        return [Occupation(Port(p), PawnSource(s)) for p, s in self.occupation_pairs()]

    def occupy(self, occupation: Occupation, check: bool = True) -> None:
        """Occupy a line of the tile just laid (or make the compulsory move).

        ``check=False`` skips the legality check (for callers that took the occupation from
        :meth:`occupation_pairs`, such as the environment's action mask).
        """
        self._require(Phase.OCCUPY, Phase.MOVE)
        if check:
            legal = self.occupations()
            if occupation not in legal:
                raise IllegalMoveError(
                    f"occupation {occupation} is not allowed now; allowed: "
                    + (", ".join(str(o) for o in legal) or "none")
                )
        board, player = self.board, self.current
        piece = board.piece(self.last_cell, occupation.port)
        slots = board.pawns[player]
        if occupation.source is PawnSource.SUPPLY:
            slot = slots.index(IN_SUPPLY)
        else:
            slot = board.placed_slots(player)[occupation.source - 1]
        if self.phase is Phase.OCCUPY:
            slots[slot] = piece
            self._end_turn()
            return
        find = board.lines.find
        root = find(piece)
        old = [
            (pl, s)
            for pl, ss in enumerate(board.pawns)
            for s, p in enumerate(ss)
            if p >= 0 and find(p) == root
        ]
        slots[slot] = piece
        for pl, s in old:
            board.pawns[pl][s] = IN_SUPPLY
        self.pending.pop(0)
        self._next_move()

    def skip(self) -> None:
        """Occupy nothing this turn (not allowed when a compulsory move is due)."""
        if self.phase is Phase.MOVE:
            raise IllegalMoveError(
                "a compulsory pawn move is due after joining occupied lines; it cannot be skipped"
            )
        self._require(Phase.OCCUPY)
        self._end_turn()

    # ---------------------------------------------------------------- results
    def scores(self) -> list[PlayerScore]:
        """Every player's score as if the game ended now (final once it is over)."""
        return self.board.player_scores()

    def winners(self) -> list[int]:
        """Players with the most points, then the most blue diamonds at route ends."""
        return score_winners(self.scores())

    def stack_counts(self) -> list[int]:
        """How many tiles of each kind are still in the stack (the drawn tile excluded)."""
        counts = [0] * len(self.board.tile_set.kinds)
        for k in self.stack:
            counts[k] += 1
        return counts

    # ---------------------------------------------------------------- invariants
    def check_invariants(self) -> None:
        """Raise :class:`InvariantError` naming a broken engine invariant (a bug).

        The board is possible (:func:`.position.board_problem`: connected, within 4 x 4, no
        two pawns on one line except the lines of a compulsory move due now), no tile was
        created or lost (board, stack and drawn tile together; 16 for a new game), and the
        phase agrees with the drawn tile.
        """
        board = self.board
        find = board.lines.find
        joined = {find(j.piece) for j in self.pending} if self.phase is Phase.MOVE else set()
        drawn = [] if self.drawn is None else [self.drawn]
        laid = [k for k in board.cell_kind if k >= 0]
        problem = board_problem(board, joined) or material_problem(
            board, [*laid, *self.stack, *drawn]
        )
        if problem:
            raise InvariantError(f"Liniell position broken: {problem}")
        total = board.num_laid + len(self.stack) + len(drawn)
        if total != self._tiles_at_start:
            raise InvariantError(
                f"tile conservation broken: {total} tiles in the game, "
                f"{self._tiles_at_start} when it was set up"
            )
        waiting = self.phase is Phase.LAY or (self.phase is Phase.OVER and self.ended_early)
        if waiting != (self.drawn is not None):
            raise InvariantError(
                f"phase {self.phase.value!r} with drawn tile {self.drawn!r}: a tile is drawn "
                "exactly while it waits to be laid (or could not be, ending the game early)"
            )
        if not 0 <= self.current < self.num_players:
            raise InvariantError(f"player {self.current} to act is not a seat")

    def monotone_scores(self) -> tuple[int, ...]:
        """None: a provisional route score falls when its pawn goes back to supply or moves."""
        return ()

    # ------------------------------------------------------------------ copies
    def copy(self) -> Game:
        new = Game.__new__(Game)
        new.__dict__.update(self.__dict__)
        new.board = self.board.copy()
        new.stack = self.stack[:]
        new.pending = self.pending[:]
        if self._placements is not None:
            new._placements = self._placements[:]
        return new

    def public_copy(self) -> Game:
        """A copy without the stack order (the stack sorted): what every player may see."""
        new = self.copy()
        new.stack.sort()
        return new

    def to_text(self) -> str:
        """A readable dump of the whole state, for bug reports."""
        kinds = self.board.tile_set.kinds
        lines = [
            to_text(self.board),
            f"tile set: {self.board.tile_set.name}",
            f"turn: {self.turn}  to act: player_{self.current}  phase: {self.phase.value}",
            f"drawn: {kinds[self.drawn].name if self.drawn is not None else '-'}",
            "stack (top last): " + " ".join(kinds[k].name for k in self.stack),
        ]
        if self.last_cell >= 0:
            lines.append(f"last laid: window cell {divmod(self.last_cell, WINDOW)}")
        if self.ended_early:
            lines.append("ended early: the drawn tile could not be laid")
        for i, s in enumerate(self.scores()):
            lines.append(f"player_{i}: {s.points} points, {s.blue} blue at route ends")
        return "\n".join(lines)
