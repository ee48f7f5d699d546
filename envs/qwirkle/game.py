"""The full state of a Qwirkle game: hands, bag, scores, turns, start rule and end of game.

Pure and deterministic given the ``numpy.random.Generator`` passed in (it deals, breaks the
start tie and returns exchanged tiles to random places in the bag; the state keeps it, so
clones continue alike).

Rules (see ``docs/rules/qwirkle.md``):

- Start: each player's start number is the size of the largest set of their tiles sharing a
  colour or a shape, identical tiles counted once. The highest start number starts;
  **[decision]** ties are broken uniformly at random (with the game's generator). The starter
  must lay exactly one of their largest sets as one line; here the start row covers the
  centre cell ``(0, 0)`` ("in the middle of the table"). It scores like any line; a lone
  tile scores 1 (**[boxed game]**).
- A turn is one of: place 1 or more tiles (score, then draw up to 6 as far as the bag
  allows); exchange 1 to 6 tiles (draw first, then return the tiles to the bag;
  **[decision]** at most as many as the bag holds); pass (**[decision]** only when the player
  can neither place nor exchange).
- End: a player who empties their hand after a placement (and refill) ends the game at once
  and earns a 6-point bonus (**[boxed game]**). **[decision]** The game also ends, without a
  bonus, after as many consecutive passes as there are players. Highest score wins;
  **[decision]** equal highest scores share the win.
- **[decision]** Exchanges can repeat without end (nothing in the rules stops two players
  exchanging forever), so an optional ``max_turns`` truncates the game after that many turns.

>>> import numpy as np
>>> game = GameState(2, np.random.default_rng(0))
>>> game.first_turn, len(game.bag), [len(h) for h in game.hands]
(True, 96, [6, 6])
>>> move = game.legal_moves()[0]
>>> result = game.place(move)
>>> result.points == len(move) + (6 if len(move) == 6 else 0), game.first_turn
(True, False)
>>> sum(game.tile_count().values())
108
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import chain

import numpy as np

from ..core.checks import check_rng
from ..errors import ConfigError, IllegalMoveError, InvariantError, NotationError
from .board import QWIRKLE_BONUS, Board, Move, normalise_move
from .moves import first_turn_moves, format_move, largest_sets, legal_moves, start_number
from .tiles import COPIES, HAND_SIZE, NUM_KINDS, Tile, format_tiles, full_set, parse_tile, tile_name

CENTRE = (0, 0)
END_BONUS = 6


def _tiles(tiles: Iterable[Tile | str], what: str) -> list[Tile]:
    """Tiles given in notation or as ids, as a list of ids (a ``ConfigError`` names a bad one)."""
    if isinstance(tiles, str | bytes):
        raise ConfigError(f"{what}: a list of tiles such as ['Ro', 'Rx'], got {tiles!r}")
    try:
        return [parse_tile(t) for t in tiles]
    except (NotationError, TypeError) as exc:
        raise ConfigError(f"{what}: {exc}") from None


def redeal_hidden(
    hands: Sequence[Sequence[Tile]], bag: Sequence[Tile], player: int, rng: np.random.Generator
) -> tuple[list[list[Tile]], list[Tile]]:
    """The hands and bag after redealing everything ``player`` cannot see: the tiles of the
    bag and of the other hands, sorted and shuffled with ``rng``, dealt to the other hands in
    seat order (each keeps its size), the rest the new bag. Sorted first, so the result
    depends on what is hidden, never on how it was arranged.

    >>> hands, bag = redeal_hidden([[1, 2], [3, 4]], [5, 6], 0, np.random.default_rng(0))
    >>> hands[0], sorted(hands[1] + bag)
    ([1, 2], [3, 4, 5, 6])
    """
    pool: list[Tile] = list(bag)
    for p, h in enumerate(hands):
        if p != player:
            pool.extend(h)
    pool.sort()
    rng.shuffle(pool)
    out = [list(h) for h in hands]
    for p, h in enumerate(hands):
        if p != player:
            out[p], pool = pool[: len(h)], pool[len(h) :]
    return out, pool


class TurnKind(Enum):
    """What a turn did."""

    PLACE = "place"
    EXCHANGE = "exchange"
    PASS = "pass"


@dataclass(frozen=True)
class TurnResult:
    """The outcome of one turn."""

    kind: TurnKind
    player: int
    points: int = 0
    """Points scored this turn, the end bonus included."""
    end_bonus: int = 0
    game_over: bool = False
    truncated: bool = False


class GameState:
    """A Qwirkle game for ``num_players`` (2 to 4) players, dealt with ``rng``."""

    def __init__(
        self,
        num_players: int,
        rng: np.random.Generator,
        max_turns: int | None = None,
        *,
        hands: Sequence[Iterable[Tile | str]] | None = None,
        board: Board | None = None,
        bag: Iterable[Tile | str] | None = None,
    ) -> None:
        """Deal a new game; ``hands``, ``board`` and ``bag`` set up a position instead.

        With ``hands`` given, the bag defaults to every tile not in a hand or on the board,
        shuffled; with a non-empty ``board`` the first turn is over. A position is checked
        (:meth:`position_problem`): a :class:`ConfigError` names what is wrong.
        """
        if isinstance(num_players, bool) or not isinstance(num_players, int | np.integer):
            raise ConfigError(f"num_players must be an int from 2 to 4, got {num_players!r}")
        if not 2 <= num_players <= 4:
            raise ConfigError(f"Qwirkle is for 2 to 4 players, got {num_players}")
        if max_turns is not None and (
            isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1
        ):
            raise ConfigError(f"max_turns must be None or a positive int, got {max_turns!r}")
        check_rng(rng)
        if board is not None and not isinstance(board, Board):
            raise ConfigError(f"board must be a Board (Board.from_text), got {board!r}")
        if hands is None and bag is not None:
            raise ConfigError("bag is given without hands; give the hands too, or neither")
        self.num_players = int(num_players)
        self.rng = rng
        self.max_turns = max_turns
        self.board = board.copy() if board is not None else Board()
        if hands is None:
            pool = full_set()
            for t in self.board.tiles.values():
                pool.remove(t)
            if len(pool) < HAND_SIZE * num_players:
                raise ConfigError(
                    f"the board holds {len(self.board)} tiles, leaving {len(pool)}: too few to "
                    f"deal {num_players} hands of {HAND_SIZE}; give the hands too"
                )
            rng.shuffle(pool)
            self.bag: list[Tile] = pool
            self.hands: list[list[Tile]] = [
                [self.bag.pop() for _ in range(HAND_SIZE)] for _ in range(num_players)
            ]
        else:
            if isinstance(hands, str | bytes) or len(hands) != num_players:
                raise ConfigError(
                    f"hands: one hand (a list of tiles) per player ({num_players}), got {hands!r}"
                )
            self.hands = [_tiles(h, f"hand {p}") for p, h in enumerate(hands)]
            if bag is None:  # every tile not on the board or in a hand (none if overused)
                pool = Counter(full_set())
                pool.subtract(Counter([*self.board.tiles.values(), *chain(*self.hands)]))
                self.bag = sorted(pool.elements())
                rng.shuffle(self.bag)
            else:
                self.bag = _tiles(bag, "bag")
        self.scores = [0] * num_players
        self.start_numbers = [start_number(h) for h in self.hands]
        best = max(self.start_numbers)
        tied = [p for p, k in enumerate(self.start_numbers) if k == best]
        self.start_player = tied[0] if len(tied) == 1 else int(tied[int(rng.integers(len(tied)))])
        self.current = self.start_player
        self.first_turn = self.board.is_empty()
        self.consecutive_passes = 0
        self.turns = 0
        self.game_over = False
        self.truncated = False
        self.end_bonus_player: int | None = None
        self.changed_cells: set[tuple[int, int]] = set()
        """Cells whose anchor mask the last placement changed (for incremental callers)."""
        self.log: list[tuple[TurnKind, int, Move | int, int]] = []
        """One entry per turn: (kind, player, placements or exchange size, points)."""
        self._tiles_at_start = sum(self.tile_count().values())
        if hands is not None and (problem := self.position_problem()):
            raise ConfigError(f"impossible Qwirkle position: {problem}")

    # ------------------------------------------------------------ queries
    @property
    def hand(self) -> list[Tile]:
        """The hand of the player to act."""
        return self.hands[self.current]

    @property
    def finished(self) -> bool:
        return self.game_over or self.truncated

    def legal_moves(self) -> list[Move]:
        """Every legal placement of the player to act (start rows on the first turn)."""
        if self.first_turn:
            return first_turn_moves(self.hand, CENTRE)
        return legal_moves(self.board, self.hand)

    def can_place(self) -> bool:
        """Whether the player to act has a legal placement."""
        if self.first_turn:
            return True
        hand_mask = 0
        for t in self.hand:
            hand_mask |= 1 << t
        return any(fit & hand_mask for fit in self.board.anchors.values())

    def max_exchange(self) -> int:
        """How many tiles the player to act may exchange (0: no exchange possible)."""
        if self.first_turn:
            return 0
        return min(len(self.hand), len(self.bag))

    def must_pass(self) -> bool:
        """Whether passing is the only thing the player to act can do."""
        return not self.can_place() and self.max_exchange() == 0

    def winners(self) -> list[int]:
        """The players with the highest score (several on a shared win)."""
        best = max(self.scores)
        return [p for p, s in enumerate(self.scores) if s == best]

    def tile_count(self) -> Counter:
        """Where the 108 tiles are: ``{"board": n, "bag": n, "hand 0": n, ...}``."""
        count = Counter({"board": len(self.board), "bag": len(self.bag)})
        for p, h in enumerate(self.hands):
            count[f"hand {p}"] = len(h)
        return count

    def _kind_counts(self) -> Counter:
        return Counter([*self.board.tiles.values(), *self.bag, *(t for h in self.hands for t in h)])

    def unseen_counts(self, player: int) -> np.ndarray:
        """Per tile kind, how many copies ``player`` cannot see (in the bag or other hands)."""
        counts = np.full(NUM_KINDS, COPIES, dtype=np.int64)
        for t in self.board.tiles.values():
            counts[t] -= 1
        for t in self.hands[player]:
            counts[t] -= 1
        return counts

    # ------------------------------------------------------------ checks
    def position_problem(self) -> str | None:
        """What makes this position impossible, or None: at most 3 tiles of a kind across the
        board, the hands and the bag; hands of 1 to 6 tiles while the game runs (a game ends
        when a hand empties); counters in range; a valid board (its lines are checked when it
        is built)."""
        over = {k: n for k, n in self._kind_counts().items() if n > COPIES}
        if over:
            return "more than {} copies of {}; the game has {} of each kind".format(
                COPIES, " ".join(f"{tile_name(k)} ({n})" for k, n in over.items()), COPIES
            )
        running = not self.finished
        for p, h in enumerate(self.hands):
            if len(h) > HAND_SIZE or (running and not h and self.end_bonus_player is None):
                return (
                    f"hand {p} holds {len(h)} tiles; allowed: 1 to {HAND_SIZE} while the game "
                    "runs (a player who empties their hand ends the game)"
                )
        limit = self.max_turns
        if limit is not None and (self.turns > limit or (running and self.turns == limit)):
            return f"turn {self.turns} is past max_turns ({limit})"
        if not 0 <= self.current < self.num_players:
            return f"player {self.current} to act is not a seat (0 to {self.num_players - 1})"
        if running and not 0 <= self.consecutive_passes < self.num_players:
            return (
                f"{self.consecutive_passes} consecutive passes while the game runs; "
                f"allowed: 0 to {self.num_players - 1}"
            )
        if self.first_turn != self.board.is_empty():
            return "the first turn is the one on the empty board"
        return None

    def check_invariants(self) -> None:
        """Raise :class:`InvariantError` naming a broken engine invariant (a bug): the position
        is possible (:meth:`position_problem`), no tile was created or lost since the game was
        set up (108 for a dealt game), every line on the board is valid, and the board's
        anchor masks match a fresh computation."""
        if problem := self.position_problem():
            raise InvariantError(f"Qwirkle position broken: {problem}")
        total = sum(self.tile_count().values())
        if total != self._tiles_at_start:
            raise InvariantError(
                f"tile conservation broken: {total} tiles in play, {self._tiles_at_start} when "
                "the game was set up"
            )
        if problem := self.board.problem():
            raise InvariantError(f"board broken: {problem}")

    def monotone_scores(self) -> tuple[int, ...]:
        """Every player's score: points are only ever added."""
        return tuple(self.scores)

    def explain_move(self, move: Iterable[Sequence]) -> str | None:
        """Why the player to act may not place ``move`` (``None`` if they may)."""
        try:
            self._check_move(normalise_move(move))
        except IllegalMoveError as exc:
            return str(exc)
        return None

    def _check_move(self, move: Move) -> int:
        if self.finished:
            raise IllegalMoveError("the game is over")
        missing = Counter(t for _, _, t in move) - Counter(self.hand)
        if missing:
            raise IllegalMoveError(
                f"tiles not in the hand: {format_tiles(missing.elements())}; "
                f"hand: {format_tiles(self.hand)}"
            )
        points = self.board.evaluate(move)
        if self.first_turn:
            laid = frozenset(t for _, _, t in move)
            sets = largest_sets(self.hand)
            if len(laid) != len(move) or laid not in sets:
                raise IllegalMoveError(
                    "the start row must be exactly one largest set of the hand: "
                    + " or ".join(format_tiles(sorted(s)) for s in sets)
                )
            if CENTRE not in {(r, c) for r, c, _ in move}:
                raise IllegalMoveError(f"the start row must cover the centre cell {CENTRE}")
        return points

    # ------------------------------------------------------------- turns
    def place(self, move: Iterable[Sequence]) -> TurnResult:
        """Place ``move`` for the player to act, score it, refill, pass the turn on."""
        placements = normalise_move(move)
        points = self._check_move(placements)
        return self._place_checked(placements, points)

    def place_legal(self, placements: Move) -> TurnResult:
        """Place a move already known to be legal (tile ids), skipping the rule checks.

        For callers that built the move from the legal moves (the environment's masks); the
        points come from :meth:`Board.points`. Anything else should call :meth:`place`.
        """
        return self._place_checked(placements, self.board.points(placements))

    def _place_checked(self, placements: Move, points: int) -> TurnResult:
        player = self.current
        hand = self.hand
        for _, _, t in placements:
            hand.remove(t)
        self.changed_cells = self.board.lay(placements)
        self.first_turn = False
        while len(hand) < HAND_SIZE and self.bag:
            hand.append(self.bag.pop())
        bonus = 0
        if not hand:
            bonus = END_BONUS
            self.game_over = True
            self.end_bonus_player = player
        total = points + bonus
        self.scores[player] += total
        self.consecutive_passes = 0
        self.log.append((TurnKind.PLACE, player, placements, total))
        return self._next(TurnResult(TurnKind.PLACE, player, total, bonus, self.game_over))

    def exchange(self, tiles: Iterable[Tile | str]) -> TurnResult:
        """Exchange ``tiles`` of the player to act: draw as many first, then return them."""
        given = [parse_tile(t) for t in tiles]
        if self.finished:
            raise IllegalMoveError("the game is over")
        if self.first_turn:
            raise IllegalMoveError("no exchange on the first turn: the starter lays a largest set")
        if not 1 <= len(given) <= self.max_exchange():
            raise IllegalMoveError(
                f"cannot exchange {len(given)} tiles: allowed 1 to {self.max_exchange()} "
                f"(hand {len(self.hand)}, bag {len(self.bag)})"
            )
        player = self.current
        hand = self.hand
        remaining = list(hand)
        for t in given:
            if t not in remaining:
                missing = Counter(given) - Counter(hand)
                raise IllegalMoveError(
                    f"tiles not in the hand: {format_tiles(missing.elements())}; "
                    f"hand: {format_tiles(hand)}"
                )
            remaining.remove(t)
        hand[:] = remaining
        bag = self.bag
        for _ in given:
            hand.append(bag.pop())
        # return each tile to a uniformly random place in the bag (an insertion shuffle:
        # the bag stays in uniformly random order, which is what drawing from its end needs)
        for t, u in zip(given, self.rng.random(len(given)).tolist(), strict=True):
            bag.insert(int(u * (len(bag) + 1)), t)
        self.consecutive_passes = 0
        self.log.append((TurnKind.EXCHANGE, player, len(given), 0))
        return self._next(TurnResult(TurnKind.EXCHANGE, player))

    def pass_turn(self, forced: bool = False) -> TurnResult:
        """Pass: only when the player to act can neither place nor exchange.

        ``forced=True`` lets a caller that cannot offer the player's legal placements (an
        environment whose board window hides them) pass anyway; it still needs an
        impossible exchange.
        """
        if self.finished:
            raise IllegalMoveError("the game is over")
        if forced and self.max_exchange() == 0:
            pass
        elif not self.must_pass():
            raise IllegalMoveError(
                "passing is allowed only when no tile can be placed and none exchanged"
            )
        player = self.current
        self.consecutive_passes += 1
        self.log.append((TurnKind.PASS, player, 0, 0))
        if self.consecutive_passes >= self.num_players:
            self.game_over = True
        return self._next(TurnResult(TurnKind.PASS, player, game_over=self.game_over))

    def _next(self, result: TurnResult) -> TurnResult:
        self.turns += 1
        if not self.game_over:
            self.current = (self.current + 1) % self.num_players
            if self.max_turns is not None and self.turns >= self.max_turns:
                self.truncated = True
                result = TurnResult(
                    result.kind, result.player, result.points, result.end_bonus, False, True
                )
        return result

    # --------------------------------------------------------- utilities
    def clone(self) -> GameState:
        """An independent copy (the generator included) that continues identically."""
        return copy.deepcopy(self)

    def resample_hidden(self, player: int, rng: np.random.Generator) -> None:
        """Redeal the other hands and the bag at random, keeping what ``player`` can see
        (:func:`redeal_hidden`)."""
        hands, self.bag = redeal_hidden(self.hands, self.bag, player, rng)
        for p in range(len(hands)):
            if p != player:
                self.hands[p] = hands[p]

    def dump(self) -> str:
        """The whole state as readable text, for bug reports."""
        lines = [
            f"Qwirkle, {self.num_players} players, turn {self.turns}"
            + (f" of at most {self.max_turns}" if self.max_turns else ""),
            f"to act: player {self.current}"
            + (" (first turn: lay a largest set)" if self.first_turn else ""),
            f"start: player {self.start_player}, start numbers {self.start_numbers}",
            f"consecutive passes: {self.consecutive_passes}",
            f"status: {'over' if self.game_over else 'truncated' if self.truncated else 'running'}",
        ]
        for p in range(self.num_players):
            lines.append(
                f"player {p}: score {self.scores[p]}, hand {format_tiles(self.hands[p]) or '-'}"
            )
        lines.append(f"bag ({len(self.bag)}, next draw last): {format_tiles(self.bag) or '-'}")
        if self.board.is_empty():
            lines.append("board: empty")
        else:
            r0, c0, _, _ = self.board.bounds()
            lines.append(f"board (top-left cell is ({r0}, {c0})):")
            lines.append(self.board.to_text())
        if self.log:
            lines.append("turns:")
            for i, (kind, player, what, points) in enumerate(self.log):
                if kind is TurnKind.PLACE:
                    text = f"placed {format_move(what)}: {points}"  # type: ignore[arg-type]
                elif kind is TurnKind.EXCHANGE:
                    text = f"exchanged {what} tiles"
                else:
                    text = "passed"
                lines.append(f"  {i + 1}. player {player} {text}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<GameState turn {self.turns}, player {self.current} to act, scores {self.scores}>"


__all__ = ["CENTRE", "END_BONUS", "QWIRKLE_BONUS", "GameState", "TurnKind", "TurnResult"]
