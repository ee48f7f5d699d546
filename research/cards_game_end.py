"""What Qwirkle Cards' heuristic leaves out of a turn's value, measured in paired games.

The heuristic (``baselines/agents/qwirkle_cards_heuristic.py``) takes the most Qwirkles and
then values a turn the same way at every point of the game: the next player's chance of
completing the lines the table leaves with at most two kinds missing, the lines its kept cards
complete or nearly complete, the cards played. Each variant adds one thing it leaves out and
plays the same games as the heuristic itself:

- ``ending``: the end of the game (two players, the default ``finish_round`` end). The last
  player of a round (seated just before the starter, read off the observation's ``starter``)
  whose draw empties the pile ends the game with that turn. Among the turns that take the most
  Qwirkles the variant then prefers one that ends the game when it leads after the turn (a
  sure win) and one that does not when it trails (ending it is a sure loss); level, it values
  turns as the heuristic does. (With two players and ``finish_round`` the last turn is
  always the second seat's: once the starter's draw empties the pile, the opponent's reply
  ends the game, whatever the starter chooses.)
- ``three``: lines missing three kinds from the table are charged the next player's chance of
  holding all three as well.
- ``pace:W`` (the score, not the end): the value of each card played changes by ``W`` when
  the viewer leads after the turn and by ``-W`` when it trails (level, as the heuristic). The
  game ends when the pile is empty and every card played is drawn again, so with ``W > 0`` a
  leader hastens the end and a trailer holds it off (``W < 0`` the other way round).
- ``safe:W``: the next player's chance charged for the lines left open is multiplied by
  ``1 + W`` when the viewer leads after the turn and by ``1 - W`` when it trails (a leader
  plays safer, a trailer takes more risk).

**Paired games** (``decisions.play_paired``). Game ``g`` is dealt from ``[seed, 3, g]``, the
subject's ties from ``[seed, 4, g]`` and the opponent heuristic's from ``[seed, 2, g]`` (the
subject in seat ``g % 2``), once with the variant as the subject and once with the heuristic
itself, so the two play the same game up to the variant's first different choice. The
script prints both win rates (Wilson 95%) and the games whose result differs, with the
variant's net gain in them.

``python research/cards_game_end.py ending --games 1000`` (``--seed`` 12345 by default:
its own deals, not those of the scripts that share one generator over the games); several
variants in one run share the heuristic's games (``pace:0.1 pace:-0.1 safe:0.5``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from decisions import agent_decide, paired_text, play_paired, win_rate_text

from tabletop_rl.baselines.agents.qwirkle_cards_heuristic import QwirkleCardsHeuristicAgent
from tabletop_rl.envs.qwirkle_cards.cards import HAND_SIZE
from tabletop_rl.envs.qwirkle_cards.model import QwirkleCardsModel
from tabletop_rl.envs.qwirkle_cards.turns import Turn

ENV = "qwirkle_cards_v0"
ENDING_PREFERENCE = 5.0
"""Added to (leading) or taken from (trailing) the value of a turn that ends the game: five
lines' worth of risk (a line's is at most 1). ``tests/test_cards_game_end.py`` checks that it
decides among the turns of the most Qwirkles at the turn starts of a heuristic game."""


def lead_after(view: Any, turn: Turn) -> int:
    """The viewer's Qwirkles after ``turn`` less the most any other player has.

    >>> from types import SimpleNamespace
    >>> view = SimpleNamespace(player=1, qwirkles=((1, 0) + (0,) * 10, (2,) + (0,) * 11))
    >>> lead_after(view, Turn((0,) * 36, (0,) * 11 + (1,)))
    2
    """
    mine = sum(view.qwirkles[view.player]) + sum(turn.taken)
    return mine - max(sum(q) for p, q in enumerate(view.qwirkles) if p != view.player)


class EndingAware(QwirkleCardsHeuristicAgent):
    """The heuristic that knows the end of the game (the module docstring's ``ending``):
    two players, ``finish_round``. :meth:`act` reads who started off the observation."""

    def __init__(self, rng: np.random.Generator, starter_of: Callable[[Any, Any], int]) -> None:
        super().__init__(rng)
        self.starter_of = starter_of
        self.last_of_round = False
        """Whether the viewer is seated just before the starter (set by :meth:`act`)."""

    def act(self, observation: Mapping[str, np.ndarray], view: Any = None) -> int:
        if view is not None:
            starter = self.starter_of(observation, view)
            self.last_of_round = (starter - 1 - view.player) % len(view.hand_sizes) == 0
        return super().act(observation, view)

    def turn_value(self, view: Any, hand: Sequence[int], turn: Turn) -> float:
        value = super().turn_value(view, hand, turn)
        kept = sum(hand) - turn.num_played
        ends = view.turns_left is None and view.pile_size <= HAND_SIZE - kept
        if ends and self.last_of_round:
            lead = lead_after(view, turn)
            if lead:
                value += ENDING_PREFERENCE if lead > 0 else -ENDING_PREFERENCE
        return value


class ThreeMissing(QwirkleCardsHeuristicAgent):
    """The heuristic that also charges lines missing three kinds (``three``)."""

    max_missing_charged = 3


class LeadAware(QwirkleCardsHeuristicAgent):
    """The heuristic whose turn value depends on the score (``pace:W``, ``safe:W``): the
    sign of the viewer's lead after the turn scales ``pace`` per card played and ``safe``
    times the next player's chance."""

    def __init__(self, rng: np.random.Generator, pace: float = 0.0, safe: float = 0.0) -> None:
        super().__init__(rng)
        self.pace = pace
        self.safe = safe
        self._sign = 0.0
        """The sign of the lead after the turn being valued (set by :meth:`turn_value`)."""

    def turn_value(self, view: Any, hand: Sequence[int], turn: Turn) -> float:
        self._sign = float(np.sign(lead_after(view, turn)))
        value = super().turn_value(view, hand, turn)
        return value + self._sign * self.pace * turn.num_played

    def next_player_chance(self, view: Any, missing: Sequence[int]) -> float:
        return (1.0 + self.safe * self._sign) * super().next_player_chance(view, missing)


def variant_maker(
    spec: str, starter_of: Callable[[Any, Any], int]
) -> Callable[[np.random.Generator], Any]:
    """The agent factory of a variant spec: ``ending``, ``three``, ``pace:W`` or ``safe:W``.

    >>> agent = variant_maker("pace:0.1", lambda obs, view: 0)(np.random.default_rng(0))
    >>> agent.pace, agent.safe
    (0.1, 0.0)
    """
    name, _, weight = spec.partition(":")
    if name in ("pace", "safe") and weight:
        try:
            w = float(weight)
        except ValueError:
            raise SystemExit(f"{spec!r}: the weight after {name}: must be a number") from None
        return lambda rng: LeadAware(rng, **{name: w})
    if name == "ending" and not weight:
        return lambda rng: EndingAware(rng, starter_of)
    if name == "three" and not weight:
        return ThreeMissing
    raise SystemExit(f"unknown variant {spec!r}; allowed: ending, three, pace:W, safe:W")


def starter_reader(model: QwirkleCardsModel) -> Callable[[Any, Any], int]:
    """``starter_of(observation, view)``: the starting seat, read off the observation's
    ``starter`` field (one-hot, observer first)."""

    def starter_of(observation: Any, view: Any) -> int:
        seen = model.layout.decode(observation["observation"])["starter"]
        return (view.player + int(np.argmax(seen))) % model.num_players

    return starter_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("variants", nargs="+", help="ending, three, pace:W or safe:W")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args()
    model = QwirkleCardsModel(num_players=2)
    starter_of = starter_reader(model)
    makers = [variant_maker(spec, starter_of) for spec in args.variants]

    def credits(make: Callable[[np.random.Generator], Any]) -> np.ndarray:
        return play_paired(model, ENV, args.games, args.seed, lambda rng: agent_decide(make(rng)))

    plain = credits(QwirkleCardsHeuristicAgent)
    for spec, make in zip(args.variants, makers, strict=True):
        variant = credits(make)
        print(
            f"{ENV}: {spec!r} against the heuristic, {args.games} games: "
            f"{win_rate_text(variant)}; the heuristic itself on the same games: "
            f"{win_rate_text(plain)}; {paired_text(variant, plain)}",
            flush=True,
        )


if __name__ == "__main__":
    main()
