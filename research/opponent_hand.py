"""What knowing the opponent's hand is worth to the Qwirkle heuristics: what limits them.

Both heuristics value a turn partly by its *risk*: the chance that the next player's hand
holds the kinds a line lacks (in Qwirkle Cards the one or two kinds a line lacks on the table
the turn leaves, which the next player may then take as a Qwirkle; in Qwirkle the tile that
completes a line of five, or the two a line of four lacks, that the turn leaves on the board),
a hypergeometric estimate over what the player cannot see (the agents'
``next_player_chance``). Each variant changes only that chance and plays the heuristic (or
``--opponent``), seats rotated:

- ``hand`` (both games): the chance is 1 when the opponent's actual hand holds every missing
  kind and 0 otherwise. The variant reads the hidden hand, which no player can: it measures
  what the information is worth, the most any estimate of the risk could gain.
- ``passes`` (both games): the estimate corrected by the public record of the Qwirkles the
  opponent passed up. When the table the opponent faced lacked one kind of a line, taking that
  line's Qwirkle with one card of it would have left a valid table, and the opponent took no
  Qwirkle that turn, its hand (the heuristic takes the most Qwirkles it can) held no card of
  that kind: from then on only the cards it has drawn since may be that kind. For every kind
  the variant counts the opponent's cards that may be it (the whole hand when nothing was
  learnt; a new hand after a redraw) and draws that many from the unseen cards for the chance.
  In Qwirkle the same with the Qwirkles the opponent left on the board it faced: a line of
  five whose missing kind fits one of its ends alone, not completed in a turn that laid no
  tile of that kind, means its rack held none (the heuristic takes a Qwirkle unless another
  move is worth more), but for the tiles it drew after the turn; an exchange or a pass tells
  nothing about what it drew.

- ``choices`` (Qwirkle Cards): the estimate over the hands the opponent may hold given its
  whole last turn, read as the heuristic's choice. What it kept is sampled from the hands
  (its cards played and the rest drawn from what we could not see) from which that turn was
  one of the heuristic's best (:mod:`turn_choices`: no legal turn takes more Qwirkles and,
  when none takes any, none is worth more), 200 proposed per turn; its hand now is what it
  kept and cards drawn from the unseen ones, and the chance is the mean over the samples.
  It reads the opponent as the heuristic it plays against, the most that one turn can tell.

``python research/opponent_hand.py qwirkle_cards_v0 hand --games 1000`` prints the
variant's win rate with its Wilson 95% interval; the deals and the opponent's ties come from
``--seed`` (12345, the feature screens' deals, by default).
"""

from __future__ import annotations

import argparse
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np
from decisions import play_against, win_rate_text
from turn_choices import hands_kept

from tabletop_rl.baselines.agents.qwirkle_cards_heuristic import (
    QwirkleCardsHeuristicAgent,
    hand_holds_all,
)
from tabletop_rl.baselines.agents.qwirkle_heuristic import QwirkleHeuristicAgent, laid_placements
from tabletop_rl.envs import make
from tabletop_rl.envs.qwirkle.board import (
    QWIRKLE_LENGTH,
    Board,
    fits_alone,
    missing_tiles,
    run_tiles,
)
from tabletop_rl.envs.qwirkle_cards.actions import CANNOT_PLAY, END_TURN
from tabletop_rl.envs.qwirkle_cards.cards import LINE_KINDS, NUM_KINDS, NUM_LINES
from tabletop_rl.envs.qwirkle_cards.compiled_solver import is_valid_counts
from tabletop_rl.envs.qwirkle_cards.turns import qwirkle_cards

CARDS = "qwirkle_cards_v0"
QWIRKLE = "qwirkle_v0"


@lru_cache(maxsize=1 << 16)
def misses(copies: int, total: int, drawn: int) -> float:
    """Probability that ``drawn`` cards from ``total`` miss all ``copies`` given ones.

    >>> round(1 - misses(3, 60, 9), 3)  # the heuristic's chance for one missing kind
    0.391
    """
    if copies <= 0 or drawn <= 0:
        return 1.0
    if drawn > total - copies:
        return 0.0
    return comb(total - copies, drawn) / comb(total, drawn)


def holds_all(missing: Sequence[int], unseen: Sequence[int], may: Sequence[int]) -> float:
    """Chance that a hand holds every kind of ``missing`` (one or two kinds) when ``may[k]``
    of its cards may be kind ``k``, drawn from the ``unseen`` copies. With the whole hand
    possible for each kind this is the heuristic's exact hypergeometric chance.

    >>> unseen = [3, 3] + [1] * 34  # 40 unseen cards
    >>> round(holds_all([0, 1], unseen, [9] * 36), 3)  # the heuristic's chance
    0.282
    >>> round(holds_all([0, 1], unseen, [2] + [9] * 35), 3)  # 2 cards may be kind 0
    0.074
    """
    total = sum(unseen)
    if len(missing) == 1:
        (a,) = missing
        return 1.0 - misses(unseen[a], total, may[a])
    a, b = sorted(missing, key=lambda k: may[k])
    first = may[a]
    # none of either among the cards that may be both, then no b among the rest
    neither = misses(unseen[a] + unseen[b], total, first) * misses(
        unseen[b], total - first, may[b] - first
    )
    no_a = misses(unseen[a], total, may[a])
    no_b = misses(unseen[b], total, may[b])
    return max(0.0, 1.0 - no_a - no_b + neither)


class SeesHand:
    """Mixin for a heuristic agent: the risk read off the kinds the opponent actually holds,
    :attr:`opponent_kinds`, which the caller sets before each decision."""

    opponent_kinds: frozenset[int] = frozenset()

    def next_player_chance(self, view: Any, missing: Sequence[int]) -> float:
        return 1.0 if all(k in self.opponent_kinds for k in missing) else 0.0


class CardsHandSeeing(SeesHand, QwirkleCardsHeuristicAgent):
    """Qwirkle Cards' heuristic with the risk read off the opponent's hand."""


class QwirkleHandSeeing(SeesHand, QwirkleHeuristicAgent):
    """Qwirkle's heuristic with the risk read off the opponent's hand."""


def held_kinds(env_name: str, hand: Sequence[int]) -> frozenset[int]:
    """The kinds in a public view's ``hand``: Qwirkle Cards' 36 counts, Qwirkle's tiles."""
    if env_name == CARDS:
        return frozenset(k for k, count in enumerate(hand) if count)
    return frozenset(hand)


class ReadsOpponent(ABC):
    """Mixin for a heuristic agent that reads the opponent's turns: the agent notes what each
    of its turns leaves (``remember_turn``, when ``ends_turn``) and reads the opponent's turn
    since (``read_opponent_turn``) at its next decision."""

    unread: bool = True
    """Whether the opponent has moved since its last turn was read."""

    def act(self, observation: Any, view: Any = None) -> int:
        if self.unread:
            self.read_opponent_turn(view)
            self.unread = False
        action = super().act(observation, view)  # type: ignore[misc]
        if self.ends_turn(view, action):
            self.remember_turn(view, action)
            self.unread = True
        return action

    @abstractmethod
    def ends_turn(self, view: Any, action: int) -> bool:
        """Whether ``action`` ends the agent's turn."""

    @abstractmethod
    def remember_turn(self, view: Any, action: int) -> None:
        """Note what the turn ending with ``action`` leaves the opponent."""

    @abstractmethod
    def read_opponent_turn(self, view: Any) -> None:
        """Update what the agent knows of the opponent's hand from its turn since."""


class ReadsPasses(ReadsOpponent):
    """Mixin for a heuristic agent: the risk drawn, per kind, from only the opponent's cards
    that may be it (:attr:`may`), which ``read_opponent_turn`` updates."""

    may: list[int] | None = None
    """Per kind, the opponent's cards that may be that kind (None: nothing read yet)."""

    def next_player_chance(self, view: Any, missing: Sequence[int]) -> float:
        if not missing or self.may is None:
            return super().next_player_chance(view, missing)  # type: ignore[misc]
        size = view.hand_sizes[(view.player + 1) % len(view.hand_sizes)]
        return holds_all(missing, view.unseen, [min(size, m) for m in self.may])


class ReadsCardsTurns(ReadsOpponent):
    """Mixin for Qwirkle Cards' readers: our turn ends with its end or a redraw, and what it
    leaves is noted in :attr:`left` for :func:`turn_since`."""

    left: tuple[tuple[int, ...], tuple[int, ...], int] | None = None
    """The table our last turn left, the opponent's Qwirkles and its hand size then."""

    def ends_turn(self, view: Any, action: int) -> bool:
        return card_turn_ends(action)

    def remember_turn(self, view: Any, action: int) -> None:
        """Note the table our turn ending with ``action`` leaves, the opponent's Qwirkles and
        its hand size."""
        opponent = (view.player + 1) % len(view.hand_sizes)
        self.left = (table_left(view, action), view.qwirkles[opponent], view.hand_sizes[opponent])


class PassReading(ReadsPasses, ReadsCardsTurns, QwirkleCardsHeuristicAgent):
    """Qwirkle Cards' heuristic with the risk corrected by the Qwirkles the opponent passed up
    (module docstring), read off the table each of its turns leaves (a redraw's too)."""

    def read_opponent_turn(self, view: Any) -> None:
        """Update :attr:`may` from the opponent's turn since the table we left."""
        opponent = (view.player + 1) % len(view.hand_sizes)
        size = view.hand_sizes[opponent]
        if self.may is None or self.left is None:
            self.may = [size] * NUM_KINDS
            return
        table, qwirkles, _ = self.left
        cards, took = turn_since(view, table, qwirkles)
        played = sum(cards)
        if played == 0:
            self.may = [size] * NUM_KINDS  # it could not play: a new hand
            return
        lacked = set() if any(took) else passed_up(table)
        self.may = [
            played if k in lacked else min(size, m + played) for k, m in enumerate(self.may)
        ]


class ChoiceReading(ReadsCardsTurns, QwirkleCardsHeuristicAgent):
    """Qwirkle Cards' heuristic with the risk drawn from the hands the opponent may hold after
    its last turn (module docstring): what it kept is sampled from the hands from which the
    heuristic could have played that turn (``turn_choices.hands_kept``), the rest of its hand
    is drawn from the unseen cards, and the chance is the mean over the samples (exact over
    the draws). Before the opponent has played a turn (and after a redraw) it is the
    heuristic's chance."""

    PROPOSALS = 200
    """Hands proposed per opponent turn."""
    MIN_KEPT = 8
    """Fewer consistent hands than this and the heuristic's chance is used."""

    def __init__(self, rng: np.random.Generator) -> None:
        super().__init__(rng)
        self.draws = rng.spawn(1)[0]
        """The generator of the sampled hands."""
        self.kept: list[np.ndarray] | None = None
        """What the opponent may have kept after its last turn (None: nothing read)."""
        self.chances: dict[tuple[int, ...], float] = {}
        """The chances asked this turn, by missing kinds."""

    def read_opponent_turn(self, view: Any) -> None:
        """Sample what the opponent kept from its turn since the table we left."""
        self.kept, self.chances = None, {}
        if self.left is None:
            return
        table, qwirkles, size = self.left
        cards, took = turn_since(view, table, qwirkles)
        if not any(cards):
            return  # it could not play: a new hand
        played = np.array(cards, dtype=np.int64)
        kept = hands_kept(
            np.array(table, dtype=np.int64),
            np.array(view.unseen, dtype=np.int64) + played,  # the pile and its hand then
            np.array(view.hand, dtype=np.int64),
            size,
            played,
            np.array(took, dtype=np.int64),
            self.PROPOSALS,
            self.draws,
        )
        if len(kept) >= self.MIN_KEPT:
            self.kept = kept

    def next_player_chance(self, view: Any, missing: Sequence[int]) -> float:
        if not missing or self.kept is None:
            return super().next_player_chance(view, missing)
        key = tuple(missing)
        if key not in self.chances:
            size = view.hand_sizes[(view.player + 1) % len(view.hand_sizes)]
            unseen = np.array(view.unseen, dtype=np.int64)
            chance = 0.0
            for kept in self.kept:
                pool = unseen - kept
                need = [k for k in missing if not kept[k]]
                chance += hand_holds_all(need, pool, int(pool.sum()), size - int(kept.sum()))
            self.chances[key] = chance / len(self.kept)
        return self.chances[key]


def turn_since(
    view: Any, table: Sequence[int], qwirkles: Sequence[int]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The opponent's turn between the ``table`` we left, when it had taken ``qwirkles`` (12
    counts), and ``view``: the cards it played (36 counts; none after a redraw) and the
    Qwirkles it took (12 counts)."""
    opponent = (view.player + 1) % len(view.hand_sizes)
    took = tuple(a - b for a, b in zip(view.qwirkles[opponent], qwirkles, strict=True))
    gone = qwirkle_cards(took)
    cards = tuple(view.table[k] - table[k] + gone[k] for k in range(NUM_KINDS))
    return cards, took


def card_turn_ends(action: int) -> bool:
    """Whether a Qwirkle Cards ``action`` ends the turn: its end, or the redraw."""
    return action in (END_TURN, CANNOT_PLAY)


def tile_turn_ends(view: Any, action: int) -> bool:
    """Whether a Qwirkle ``action`` in ``view`` ends the turn: its move, an exchange or a
    pass."""
    return action >= view.codec.end


def table_left(view: Any, action: int) -> tuple[int, ...]:
    """The table (36 counts) that the turn in ``view`` leaves when it ends with ``action``
    (``END_TURN``: its cards played, its Qwirkles gone; ``CANNOT_PLAY``: unchanged)."""
    if action != END_TURN:
        return tuple(view.table)
    gone = qwirkle_cards(view.taken)
    return tuple(t + p - g for t, p, g in zip(view.table, view.played, gone, strict=True))


def passed_up(table: Sequence[int]) -> set[int]:
    """The kinds with which a player facing ``table`` takes a Qwirkle with one card: each the
    one kind of a line ``table`` lacks, the rest of the table valid without the line."""
    kinds = set()
    for line in range(NUM_LINES):
        missing = [k for k in LINE_KINDS[line] if not table[k]]
        if len(missing) != 1:
            continue
        after = list(table)
        after[missing[0]] += 1
        for k in LINE_KINDS[line]:
            after[k] -= 1
        if is_valid_counts(tuple(after)):
            kinds.add(missing[0])
    return kinds


class TilePassReading(ReadsPasses, QwirkleHeuristicAgent):
    """Qwirkle's heuristic with the risk corrected by the Qwirkles the opponent left on the
    board it faced (module docstring), read off the board each of its turns leaves."""

    def __init__(self, rng: np.random.Generator) -> None:
        super().__init__(rng)
        self.left: Board | None = None
        """The board our last turn left."""

    def ends_turn(self, view: Any, action: int) -> bool:
        return tile_turn_ends(view, action)

    def remember_turn(self, view: Any, action: int) -> None:
        """Note the board our turn ending with ``action`` leaves."""
        self.left = board_left(view, action)

    def read_opponent_turn(self, view: Any) -> None:
        """Update :attr:`may` from the opponent's turn since the board we left."""
        size = view.hand_sizes[(view.player + 1) % len(view.hand_sizes)]
        if self.may is None or self.left is None:
            self.may = [size] * len(view.unseen)
            return
        before = Counter(self.left.tiles.values())
        now = Counter(view.board.tiles.values())
        laid = len(view.board) - len(self.left)
        if laid == 0:  # an exchange or a pass: what it drew is unknown
            self.may = [size] * len(view.unseen)
            return
        offered = qwirkles_offered(self.left)
        self.may = [
            laid if k in offered and now[k] == before[k] else min(size, m + laid)
            for k, m in enumerate(self.may)
        ]


def board_left(view: Any, action: int) -> Board:
    """The board that the Qwirkle turn in ``view`` leaves when it ends with ``action`` (the
    end of the turn: its tiles laid; an exchange or a pass: unchanged)."""
    board = view.board.copy()
    if action == view.codec.end:
        board.lay(sorted(laid_placements(view)))
    return board


def qwirkles_offered(board: Board) -> set[int]:
    """The tile kinds that take a Qwirkle on ``board`` laid alone: each the one kind a line of
    five lacks, where it fits one of the line's two ends."""
    tiles = board.tiles
    kinds = set()
    for r, c in tiles:
        for dr, dc in ((0, 1), (1, 0)):
            if (r - dr, c - dc) in tiles:
                continue  # not the first tile of its run
            line, low, high = run_tiles(tiles, {}, r, c, dr, dc)
            if len(line) != QWIRKLE_LENGTH - 1:
                continue
            (kind,) = missing_tiles(line)
            if any(fits_alone(tiles, {}, end, kind) for end in (low, high)):
                kinds.add(kind)
    return kinds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("env", choices=(CARDS, QWIRKLE))
    parser.add_argument("variant", choices=("hand", "passes", "choices"))
    parser.add_argument("--opponent", default="heuristic", help="agent spec of the opponent")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args()
    if args.variant == "choices" and args.env != CARDS:
        parser.error(f"the 'choices' variant reads Qwirkle Cards turns only ({CARDS})")
    model = make(args.env, raw=True, num_players=2).model
    ties = np.random.default_rng([args.seed, 4])
    current: dict[str, Any] = {}

    def decide(state: Any, obs: dict[str, np.ndarray], view: Any) -> int:
        if current.get("state") is not state:  # a new game: a fresh agent
            current["state"] = state
            if args.variant == "choices":
                current["agent"] = ChoiceReading(ties)
            elif args.variant == "passes":
                reader = PassReading if args.env == CARDS else TilePassReading
                current["agent"] = reader(ties)
            elif args.env == CARDS:
                current["agent"] = CardsHandSeeing(ties)
            else:
                current["agent"] = QwirkleHandSeeing(ties)
        agent = current["agent"]
        if isinstance(agent, SeesHand):
            opponent = (view.player + 1) % model.num_players
            agent.opponent_kinds = held_kinds(args.env, model.public_view(state, opponent).hand)
        return int(agent.act(obs, view))

    credits = play_against(model, args.env, args.games, args.seed, decide, args.opponent)
    print(
        f"{args.env}: the heuristic with its risk from {args.variant!r} against "
        f"{args.opponent}, {args.games} games: {win_rate_text(credits)}"
    )


if __name__ == "__main__":
    main()
