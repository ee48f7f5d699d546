"""The greedy Liniell agent: the best immediate turn by provisional score margin.

Issue 3: *greedy* picks the placement and occupation that most improve its provisional score
(the score it would get if the game ended now) minus the best opponent's. It searches every
legal placement of the drawn tile (rotations that give the same tile counted once), each
followed by every legal occupation or none — or, after a join of occupied lines, every
sequence of compulsory moves — and plays the turn whose position is worth most. It emits the
turn as the environment's two sub-actions: the lay action first, and on its next call the
occupation, which it chooses again on the position after the lay (the same evaluation, so
the same turn). Ties are broken by the agent's generator.

The agent reads the position from ``view`` (``env.public_view(agent)``: the game with the
stack order hidden), never from hidden information.

>>> import numpy as np
>>> from tabletop_rl.envs import liniell_v0
>>> env = liniell_v0.raw_env()
>>> env.reset(seed=3)
>>> agent = LiniellGreedyAgent(np.random.default_rng(0))
>>> obs = env.observe(env.agent_selection)
>>> action = agent.act(obs, env.public_view(env.agent_selection))
>>> bool(obs["action_mask"][action])
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tabletop_rl.envs.core.batch_policy import FeatureValuePolicy
from tabletop_rl.envs.errors import ConfigError
from tabletop_rl.envs.liniell.actions import SKIP, Lay, LiniellCodec, Occupy
from tabletop_rl.envs.liniell.board import Board
from tabletop_rl.envs.liniell.game import Game, Occupation, PawnSource, Phase
from tabletop_rl.envs.liniell.tiles import Port

from .base import SeededAgent

CODEC = LiniellCodec()
GREEDY_FIELDS = ("lay_turn_margin", "occupy_turn_margin", "skip_turn_margin")
"""The feature fields that hold this agent's value of every lay, occupation and skip."""


def margin(points: list[int], player: int) -> int:
    """``player`` 's points minus the best opponent's.

    >>> margin([7, 3, 9], 0), margin([7, 3], 0)
    (-2, 4)
    """
    return points[player] - max(p for i, p in enumerate(points) if i != player)


def _occupy_values(board: Board, player: int, cell: int, pairs: list[tuple[int, int]]) -> list[int]:
    """Margins after each optional occupation ``(port, source)`` of the tile on ``cell``
    (the lines' scores do not depend on pawns, so only the player's total changes)."""
    points = board.points()
    find = board.lines.find
    placed = board.placed_pieces(player)
    orient = board.cell_orient[cell]
    out = []
    for port, source in pairs:
        gain = board.line_score(find(cell * 4 + orient.port_group[port])).points  # type: ignore[union-attr]
        if source:
            gain -= board.line_score(find(placed[source - 1])).points
        changed = list(points)
        changed[player] += gain
        out.append(margin(changed, player))
    return out


class LiniellGreedyAgent(SeededAgent):
    """Best provisional score margin after this turn (see the module docstring)."""

    name = "greedy"

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    # ----------------------------------------------------------------- search
    def _finish(self, game: Game, player: int) -> int:
        """The best margin reachable from ``game`` (after its lay) by the rest of the turn."""
        if game.phase is Phase.OCCUPY:
            pairs = game.occupation_pairs()
            values = _occupy_values(game.board, player, game.last_cell, pairs)
            return max([margin(game.board.points(), player), *values])
        if game.phase is Phase.MOVE:
            best = None
            for port, source in game.occupation_pairs():
                g = game.copy()
                g.occupy(Occupation(Port(port), PawnSource(source)), check=False)
                value = self._finish(g, player)
                best = value if best is None else max(best, value)
            assert best is not None
            return best
        return margin(game.board.points(), player)

    def _lay_choices(self, game: Game, player: int) -> list[tuple[int, int]]:
        """(margin, lay action) of every distinct legal placement."""
        kind = game.board.tile_set.kinds[game.drawn]  # type: ignore[index]
        seen: set[tuple[int, tuple]] = set()
        out = []
        for cell, rotation in game.legal_placements():
            key = (cell, kind.orient(rotation).groups)
            if key in seen:
                continue
            seen.add(key)
            g = game.copy()
            g.lay(cell, rotation)
            out.append((self._finish(g, player), CODEC.encode(Lay.at_cell(cell, rotation))))
        return out

    def _occupy_choices(self, game: Game, player: int) -> list[tuple[int, int]]:
        pairs = game.occupation_pairs()
        if game.phase is Phase.OCCUPY:
            values = _occupy_values(game.board, player, game.last_cell, pairs)
            out = [(margin(game.board.points(), player), SKIP)]
        else:
            values = []
            for port, source in pairs:
                g = game.copy()
                g.occupy(Occupation(Port(port), PawnSource(source)), check=False)
                values.append(self._finish(g, player))
            out = []
        out += [
            (v, CODEC.encode(Occupy(Port(p), PawnSource(s))))
            for v, (p, s) in zip(values, pairs, strict=True)
        ]
        return out

    def _pick(self, choices: list[tuple[int, int]]) -> int:
        best = max(v for v, _ in choices)
        actions = [a for v, a in choices if v == best]
        return int(actions[int(self.rng.integers(len(actions)))])

    def batch_policy(self, model: Any) -> FeatureValuePolicy | None:
        """The batch form (:mod:`tabletop_rl.envs.core.batch_policy`) where the observation
        holds greedy's values as feature fields (``features=True``), else None: the legal
        action of the best margin, as this agent values it, with ties drawn among every
        legal action of that margin (this agent draws among distinct placements, so the
        two play the same turns' values but not the same games move for move)."""
        policy = FeatureValuePolicy(dict.fromkeys(GREEDY_FIELDS, 1.0))
        fields = {f.name for f in model.layout}
        return policy.bind(model) if set(GREEDY_FIELDS) <= fields else None

    def act(self, observation: Mapping[str, np.ndarray], view: Game | None = None) -> int:
        if not isinstance(view, Game):
            raise ConfigError(
                "LiniellGreedyAgent needs view=env.public_view(agent) (the game without the "
                "stack order) to plan its turn"
            )
        game = view.copy()
        game.stack = []  # plan this turn only: no tile is drawn after it
        player = game.current
        if game.phase is Phase.LAY:
            choices = self._lay_choices(game, player)
        elif game.phase in (Phase.OCCUPY, Phase.MOVE):
            choices = self._occupy_choices(game, player)
        else:
            raise ConfigError("LiniellGreedyAgent.act called on a finished game")
        action = self._pick(choices)
        mask = observation.get("action_mask") if observation is not None else None
        if mask is not None and not mask[action]:
            raise ConfigError(
                f"LiniellGreedyAgent chose action {action}, which the mask forbids; the view "
                "does not belong to the observation"
            )
        return action
