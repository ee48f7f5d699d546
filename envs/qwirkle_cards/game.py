"""The full state of a game of Qwirkle Cards and the rules that move it on.

Pure and deterministic given the ``numpy.random.Generator`` passed in (it deals, breaks start
ties and shuffles at forced redraws); no rendering, no PettingZoo.

Rules implemented (``docs/rules/qwirkle_cards.md``; **[decision]** points marked):

- 108 cards, 9 per player, the rest face down as the pile.
- **Start:** each player's start number is the size of their largest set sharing a colour or
  symbol, identical cards counted once. If nobody has 3, all cards are shuffled and dealt
  again. The highest start number starts; **[decision]** ties are broken uniformly at random.
  The starter lays exactly one of their largest sets as the first row (their first turn); a
  6-card start row is a Qwirkle taken at once. Then they draw back up to 9.
- **A turn** plays at least one card and takes any Qwirkles the player arranges, such that
  the table afterwards splits into valid rows (see :mod:`.turns`; several Qwirkles of one line
  may be taken when the cards exist). Then the player draws back up to 9, as far as the pile
  allows.
- **Cannot play:** the hand is shown, shuffled into the pile, and 9 new cards are drawn (as
  many as the pile holds); that is the turn. **[decision]** With an empty pile the player passes.
- **End** (``end_rule``): once the pile is empty after a draw, ``"finish_round"`` (default,
  German edition) plays the round to its end — the game ends after the turn of the player
  seated just before the starter; **[decision]** ``"final_turn_each"`` (English edition) gives
  every player, the one who drew the last card included, exactly one more turn.
  **[decision]** The game also ends when, with an empty pile, as many consecutive turns as
  there are players are passes; ``max_turns`` (default 500) truncates a game that cycles.
- **Winner:** most Qwirkles; **[decision]** equal most share the win.

>>> import numpy as np
>>> game = QwirkleCardsGame(num_players=2, rng=np.random.default_rng(0))
>>> game.first_turn, sum(game.hand(game.to_move))
(True, 9)
>>> turn = game.legal_turns()[0]
>>> game.apply_turn(turn)
>>> game.first_turn, game.turn_count, game.is_valid()
(False, 1, True)
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from ..core.checks import check_rng
from ..core.model import check_num_players
from ..errors import ConfigError, IllegalMoveError, InvariantError
from .cards import (
    COPIES,
    HAND_SIZE,
    LINE_KINDS,
    NUM_KINDS,
    NUM_LINES,
    TOTAL_CARDS,
    card_name,
    line_name,
)
from .position import position_problem
from .solver import find_split
from .turns import Counts, Turn, TurnBuilder, largest_sets, legal_turns, qwirkle_cards

END_RULES = ("finish_round", "final_turn_each")
DEFAULT_MAX_TURNS = 500


class Status(Enum):
    """Whether the game goes on, ended by the rules, or was cut off by the turn limit."""

    RUNNING = "running"
    FINISHED = "finished"
    TRUNCATED = "truncated"


class TurnEnd(Enum):
    """How a completed turn went."""

    PLAYED = "played"
    REDRAW = "redraw"
    PASS = "pass"


@dataclass
class QwirkleCardsState:
    """Everything about a position. Hands and the table are 36 kind counts; the pile is a list
    of kinds, drawn from its end; ``qwirkles[p][line]`` counts player ``p``'s Qwirkles."""

    num_players: int
    hands: list[list[int]]
    table: list[int]
    pile: list[int]
    qwirkles: list[list[int]]
    starter: int
    to_move: int
    turn_count: int = 0
    first_turn: bool = True
    played: list[int] = field(default_factory=lambda: [0] * NUM_KINDS)
    taken: list[int] = field(default_factory=lambda: [0] * NUM_LINES)
    end_rule: str = "finish_round"
    max_turns: int = DEFAULT_MAX_TURNS
    turns_left: int | None = None
    """Turns still to be played once the end is triggered (None: not triggered)."""
    passes: int = 0
    status: Status = Status.RUNNING
    redeals: int = 0


class QwirkleCardsGame:
    """A game of Qwirkle Cards: the state plus the rules that change it.

    A turn is played either whole (:meth:`apply_turn`) or by sub-actions
    (:meth:`play_card`, :meth:`take_qwirkle`, :meth:`end_turn`, :meth:`cannot_play`), whose
    legality :meth:`builder` decides exactly.
    """

    turn_builder: type[TurnBuilder] = TurnBuilder
    """The class that decides the sub-actions' legality (the compiled engine's game swaps in
    its own, with the same interface)."""

    def __init__(
        self,
        num_players: int = 2,
        rng: np.random.Generator | None = None,
        end_rule: str = "finish_round",
        max_turns: int = DEFAULT_MAX_TURNS,
        state: QwirkleCardsState | None = None,
    ) -> None:
        if end_rule not in END_RULES:
            raise ConfigError(
                f"end_rule={end_rule!r} is unknown; allowed: " + ", ".join(map(repr, END_RULES))
            )
        if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
            raise ConfigError(f"max_turns must be a positive int, got {max_turns!r}")
        check_num_players("Qwirkle Cards", num_players, 2, 4)
        self.rng = check_rng(rng) if rng is not None else np.random.default_rng()
        if state is None:
            state = self._deal(num_players, end_rule, max_turns)
        else:
            given = (state.num_players, state.end_rule, state.max_turns)
            if given != (num_players, end_rule, max_turns):
                raise ConfigError(
                    f"the position has players, end_rule, max_turns {given}; the game was asked "
                    f"for {(num_players, end_rule, max_turns)}"
                )
            if problem := position_problem(state):
                raise ConfigError(f"impossible Qwirkle Cards position: {problem}")
        self.state = state
        self._builder: TurnBuilder | None = None
        self._cards_at_start = self.card_total()

    # ------------------------------------------------------------------ setup
    def _deal(self, num_players: int, end_rule: str, max_turns: int) -> QwirkleCardsState:
        deck = np.repeat(np.arange(NUM_KINDS), COPIES)
        redeals = 0
        while True:
            order = self.rng.permutation(deck).tolist()
            hands = []
            for _ in range(num_players):
                hand = [0] * NUM_KINDS
                for _ in range(HAND_SIZE):
                    hand[order.pop()] += 1
                hands.append(hand)
            numbers = [largest_sets(h)[0] for h in hands]
            best = max(numbers)
            if best >= 3:
                break
            redeals += 1
        candidates = [p for p in range(num_players) if numbers[p] == best]
        starter = int(candidates[int(self.rng.integers(len(candidates)))])
        return QwirkleCardsState(
            num_players=num_players,
            hands=hands,
            table=[0] * NUM_KINDS,
            pile=order,
            qwirkles=[[0] * NUM_LINES for _ in range(num_players)],
            starter=starter,
            to_move=starter,
            end_rule=end_rule,
            max_turns=max_turns,
            redeals=redeals,
        )

    # ------------------------------------------------------------------ reading
    @property
    def num_players(self) -> int:
        return self.state.num_players

    @property
    def to_move(self) -> int:
        return self.state.to_move

    @property
    def first_turn(self) -> bool:
        return self.state.first_turn

    @property
    def turn_count(self) -> int:
        return self.state.turn_count

    @property
    def status(self) -> Status:
        return self.state.status

    @property
    def over(self) -> bool:
        return self.state.status is not Status.RUNNING

    def hand(self, player: int) -> Counts:
        """Player's hand as counts, cards played this turn already out of it."""
        h = self.state.hands[player]
        if player == self.state.to_move:
            return tuple(a - b for a, b in zip(h, self.state.played, strict=True))
        return tuple(h)

    def table(self) -> Counts:
        return tuple(self.state.table)

    def qwirkle_counts(self) -> list[int]:
        return [sum(q) for q in self.state.qwirkles]

    def is_valid(self) -> bool:
        """Whether the table (between turns) splits into valid rows."""
        return find_split(self.state.table) is not None

    def card_total(self) -> int:
        """All cards in hands, on the table, in the pile and in Qwirkles (always 108)."""
        s = self.state
        return sum(map(sum, s.hands)) + sum(s.table) + len(s.pile) + 6 * sum(map(sum, s.qwirkles))

    def winners(self) -> list[int]:
        """Players with the most Qwirkles (all of them on a full tie)."""
        counts = self.qwirkle_counts()
        best = max(counts)
        return [p for p in range(self.num_players) if counts[p] == best]

    def legal_turns(self) -> list[Turn]:
        """Every legal turn of the player to move (empty: they cannot play)."""
        s = self.state
        return legal_turns(s.table, s.hands[s.to_move], first_turn=s.first_turn)

    def turns_remaining(self) -> int | None:
        """Turns still to be played once the end is triggered (None before)."""
        return self.state.turns_left

    # ------------------------------------------------------------------ sub-actions
    def builder(self) -> TurnBuilder:
        """The turn under construction (legality of sub-actions)."""
        if self._builder is None:
            s = self.state
            b = self.turn_builder(s.table, s.hands[s.to_move], first_turn=s.first_turn)
            for k in range(NUM_KINDS):
                for _ in range(s.played[k]):
                    b.play(k)
            for line in range(NUM_LINES):
                for _ in range(s.taken[line]):
                    b.take(line)
            self._builder = b
        return self._builder

    def must_redraw(self) -> bool:
        """Whether the player to move cannot play (only the redraw or pass is left)."""
        if any(self.state.played):
            return False
        return not self.builder().can_play_any()

    def _check_running(self) -> None:
        if self.over:
            raise IllegalMoveError(f"the game is over ({self.state.status.value})")

    def play_card(self, kind: int) -> None:
        """Play one card of ``kind`` from the hand of the player to move."""
        self._check_running()
        b = self.builder()
        if not b.can_play(kind):
            raise IllegalMoveError(self.why_not_play(kind))
        b.play(kind)
        self.state.played[kind] += 1

    def why_not_play(self, kind: int) -> str:
        s = self.state
        name = card_name(kind)
        if s.hands[s.to_move][kind] - s.played[kind] < 1:
            return f"no {name} left in the hand"
        if s.first_turn:
            if largest_sets(s.hands[s.to_move])[0] == 6 and not any(s.taken):
                return "a 6-card start row is a Qwirkle: take it (its take action) first"
            return f"{name} is not part of a largest set with the cards played so far"
        taken = " with the Qwirkles taken" if any(s.taken) else ""
        return f"no valid table can be reached with {name} and the cards played so far{taken}"

    def take_qwirkle(self, line: int) -> int:
        """Take a Qwirkle of ``line``; returns the points (1) for ``reward="score"``."""
        self._check_running()
        b = self.builder()
        if not b.can_take(line):
            raise IllegalMoveError(self.why_not_take(line))
        b.take(line)
        self.state.taken[line] += 1
        return 1

    def why_not_take(self, line: int) -> str:
        s = self.state
        name = line_name(line)
        if any(s.played):
            return "Qwirkles are taken before cards are played; a card was already played"
        if s.first_turn:
            return "the start turn takes a Qwirkle only when its row is a complete 6-card set"
        gone = qwirkle_cards(s.taken)
        hand = s.hands[s.to_move]
        have = [s.table[k] + hand[k] - gone[k] for k in range(NUM_KINDS)]
        if not all(have[k] for k in LINE_KINDS[line]):
            return f"the table and the hand do not hold all six cards of another {name}"
        return (
            f"no choice of cards from the hand leaves the table splitting into valid rows "
            f"without a Qwirkle of {name}"
        )

    def end_turn(self) -> TurnEnd:
        """End the turn: lay the selection, keep the Qwirkles, draw back up to 9."""
        self._check_running()
        if not self.builder().can_end():
            raise IllegalMoveError(
                "the turn cannot end yet: "
                + (
                    "play at least one card"
                    if not any(self.state.played)
                    else "the selection is not a legal turn (table invalid, or the start row "
                    "is incomplete or its Qwirkle not taken)"
                )
            )
        s = self.state
        p = s.to_move
        hand = s.hands[p]
        for k in range(NUM_KINDS):
            hand[k] -= s.played[k]
            s.table[k] += s.played[k]
        for line in range(NUM_LINES):
            if s.taken[line]:
                for k in LINE_KINDS[line]:
                    s.table[k] -= s.taken[line]
                s.qwirkles[p][line] += s.taken[line]
        self._draw(p, HAND_SIZE - sum(hand))
        self._finish_turn(TurnEnd.PLAYED)
        return TurnEnd.PLAYED

    def cannot_play(self) -> TurnEnd:
        """The forced redraw (or pass, with an empty pile) of a player who cannot play."""
        self._check_running()
        if not self.must_redraw():
            raise IllegalMoveError(
                "the player can play a card, so no redraw or pass is allowed"
                if not any(self.state.played)
                else "the turn is under way (cards were played)"
            )
        s = self.state
        p = s.to_move
        if not s.pile:
            self._finish_turn(TurnEnd.PASS)
            return TurnEnd.PASS
        hand = s.hands[p]
        for k in range(NUM_KINDS):
            s.pile.extend([k] * hand[k])
            hand[k] = 0
        self.rng.shuffle(s.pile)
        self._draw(p, HAND_SIZE)
        self._finish_turn(TurnEnd.REDRAW)
        return TurnEnd.REDRAW

    def apply_turn(self, turn: Turn) -> None:
        """Play a whole turn (Qwirkles first, then cards), checking every step."""
        for line in range(NUM_LINES):
            for _ in range(turn.taken[line]):
                self.take_qwirkle(line)
        for k in range(NUM_KINDS):
            for _ in range(turn.played[k]):
                self.play_card(k)
        self.end_turn()

    # ------------------------------------------------------------------ bookkeeping
    def _draw(self, player: int, n: int) -> None:
        s = self.state
        hand = s.hands[player]
        for _ in range(min(n, len(s.pile))):
            hand[s.pile.pop()] += 1

    def _finish_turn(self, how: TurnEnd) -> None:
        s = self.state
        n = s.num_players
        s.played = [0] * NUM_KINDS
        s.taken = [0] * NUM_LINES
        s.first_turn = False
        s.turn_count += 1
        s.passes = s.passes + 1 if how is TurnEnd.PASS else 0
        self._builder = None
        if s.turns_left is not None:
            s.turns_left -= 1
        elif not s.pile:
            # the pile emptied by this turn's draw: the end is triggered
            if s.end_rule == "finish_round":
                s.turns_left = (s.starter - 1 - s.to_move) % n
            else:
                s.turns_left = n
        if (s.turns_left is not None and s.turns_left <= 0) or (not s.pile and s.passes >= n):
            s.status = Status.FINISHED
            return
        if s.turn_count >= s.max_turns:
            s.status = Status.TRUNCATED
            return
        s.to_move = (s.to_move + 1) % n

    # ------------------------------------------------------------------ hidden information
    def resample_hidden(self, player: int, rng: np.random.Generator) -> None:
        """Redeal the other players' hands and the pile (sizes kept) and reseed the game's
        generator, so nothing ``player`` cannot see survives.

        When another player's turn is under way, their new hand must still let the turn be
        completed (what they played and the Qwirkles they announced tell the others that
        much): the redeal is repeated until it does. If 50 redeals fail, that player's
        remaining hand is kept and only the rest is redealt.
        """
        s = self.state
        mover = s.to_move
        mid_turn = mover != player and (any(s.played) or any(s.taken))
        others = [q for q in range(s.num_players) if q != player]
        # sorted first: the redeal depends only on what is hidden and on rng, not on its order
        hidden = sorted(self._hidden_cards(others))
        for _ in range(50 if mid_turn else 1):
            hands, pile = self._redeal(others, hidden, rng)
            if not mid_turn or self._completable(hands[mover]):
                break
        else:
            keep = [q for q in others if q != mover]
            hands, pile = self._redeal(keep, sorted(self._hidden_cards(keep)), rng)
        for q, hand in hands.items():
            s.hands[q] = hand
        s.pile = pile
        self.rng = np.random.default_rng(rng.integers(2**63))
        self._builder = None

    def _hidden_cards(self, players: list[int]) -> list[int]:
        """The pile and the given players' hands (cards played this turn excluded)."""
        s = self.state
        pool = list(s.pile)
        for q in players:
            hand = s.hands[q]
            played = s.played if q == s.to_move else [0] * NUM_KINDS
            for k in range(NUM_KINDS):
                pool.extend([k] * (hand[k] - played[k]))
        return pool

    def _redeal(
        self, players: list[int], hidden: list[int], rng: np.random.Generator
    ) -> tuple[dict[int, list[int]], list[int]]:
        """New hands (same sizes, played cards kept) for ``players`` and the new pile."""
        s = self.state
        pool = rng.permutation(np.array(hidden, dtype=np.int64)).tolist()
        hands = {}
        for q in players:
            played = s.played if q == s.to_move else [0] * NUM_KINDS
            size = sum(s.hands[q]) - sum(played)
            new = list(played)
            for _ in range(size):
                new[pool.pop()] += 1
            hands[q] = new
        return hands, pool

    def _completable(self, hand: list[int]) -> bool:
        """Whether the turn under way could be completed with this hand of the mover."""
        s = self.state
        b = self.turn_builder(s.table, hand, first_turn=s.first_turn)
        for line in range(NUM_LINES):
            for _ in range(s.taken[line]):
                b.take(line)
        for k in range(NUM_KINDS):
            for _ in range(s.played[k]):
                b.play(k)
        plays, takes, end = b.legal()
        return bool(plays or takes or end)

    def to_text(self) -> str:
        """The whole position in the text notation of :mod:`.notation`."""
        from .notation import to_text

        return to_text(self.state)

    @classmethod
    def from_text(cls, text: str, rng: np.random.Generator | None = None) -> QwirkleCardsGame:
        """A game continuing from a position written by :meth:`to_text`."""
        from .notation import from_text

        state = from_text(text)
        return cls(state.num_players, rng, state.end_rule, state.max_turns, state=state)

    def copy(self) -> QwirkleCardsGame:
        """An independent copy: the position's lists copied, the generator copied (the copy
        draws what this game would), and the turn under way rebuilt from the position when the
        copy is next asked (:meth:`builder`). A search copies the game for every
        simulation; a deep copy of every object spent a third of Qwirkle Cards' search there."""
        new = copy.copy(self)
        s = copy.copy(self.state)
        s.hands = [list(hand) for hand in s.hands]
        s.table = list(s.table)
        s.pile = list(s.pile)
        s.qwirkles = [list(q) for q in s.qwirkles]
        s.played = list(s.played)
        s.taken = list(s.taken)
        new.state = s
        new.rng = copy.deepcopy(self.rng)
        new._builder = None
        return new

    def check_invariants(self) -> None:
        """Raise :class:`InvariantError` naming a broken engine invariant (a bug).

        The position is one the rules can continue from (:func:`.position.position_problem`:
        at most 3 copies of a kind, hands of at most 9, a valid table between turns, counters
        in range, the turn under way completable), and no card was created or lost since the
        game was set up (108 for a dealt game).
        """
        if problem := position_problem(self.state):
            raise InvariantError(f"Qwirkle Cards position broken: {problem}")
        if self.card_total() != self._cards_at_start:
            raise InvariantError(
                f"card conservation broken: {self.card_total()} cards in play, "
                f"{self._cards_at_start} when the game was set up"
            )

    def monotone_scores(self) -> tuple[int, ...]:
        """Every player's Qwirkles: a score the rules never decrease."""
        return tuple(self.qwirkle_counts())

    def check_conservation(self) -> None:
        """Raise if cards were lost or created (a bug)."""
        if self.card_total() != TOTAL_CARDS:
            raise AssertionError(f"{self.card_total()} cards in play, expected {TOTAL_CARDS}")
