"""One description per game: the table every per-game lookup of the suite reads.

A :class:`GameSpec` says everything the suite knows about one game: its environment, game
model, compiled batch and Gymnasium id (read by :mod:`tabletop_rl.envs`), and the scripted
agents, whole-turn model, move notation, MCTS defaults and hint agents of the baselines.
Classes are named by ``"module:attr"`` text and imported only when used (:func:`resolve`), so
this module imports nothing and the environments never import the baselines. Every other
table (:data:`~tabletop_rl.envs.registry.GYMNASIUM_IDS`, :func:`~tabletop_rl.envs.registry.
available_envs`, the baselines' agent and parser lookups) is read from :data:`GAMES`.

A game of your own (an environment named ``"module:factory"``) may describe itself the same
way with a ``GAME_SPEC`` in the factory's module (:func:`tabletop_rl.envs.registry.game_spec`);
the PPO trainer's tic-tac-toe (``tabletop_rl.baselines.ppo.toy``) does, to name its agent.

>>> spec = GAMES_BY_NAME["liniell_v0"]
>>> spec.gymnasium_id, sorted(spec.agents)
('tabletop_rl/Liniell-v0', ['greedy', 'heuristic'])
>>> resolve(spec.model, "game model").__name__
'LiniellModel'
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .errors import ConfigError

DEFAULT_HINT_AGENTS = ("heuristic", "greedy", "mcts", "random")
"""The agents ``tabletop-rl play --hint`` tries, strongest first, for a game that names none."""


@dataclass(frozen=True)
class GameSpec:
    """Everything the suite knows about one game. ``"module:attr"`` fields name an object
    that :func:`resolve` imports on use; only ``name`` and ``env`` are needed."""

    name: str
    """The registry name (``liniell_v0``): the game's ``info.name`` and ``make``'s name."""
    env: str
    """``"module:factory"``: ``factory(**kwargs)`` builds the raw environment
    (a :class:`~tabletop_rl.envs.core.aec.TabletopAECEnv`); the module's docstring is the
    environment's documentation page."""
    model: str | None = None
    """``"module:Class"``: the reference :class:`~tabletop_rl.envs.core.model.GameModel`."""
    gymnasium_id: str | None = None
    """The Gymnasium id of the single-agent environment (its version follows ``name``'s)."""
    compiled_batch: str | None = None
    """``"module:Class"``: the compiled batched backend of
    :class:`~tabletop_rl.envs.vector.VectorGames`; None: the game model's."""
    agents: Mapping[str, str] = field(default_factory=dict)
    """Scripted agent name -> ``"module:Class"``, built as ``Class(rng, **options)``
    (``random`` is every game's and needs no entry)."""
    turn_model: str | None = None
    """``"module:Class"``: the whole-turn model MCTS's ``search="turns"`` uses; None: none."""
    move_parser: str | None = None
    """``"module:Class"``: the move notation of terminal play and replays; None: the generic
    one (action numbers and names)."""
    mcts_defaults: Mapping[str, Any] = field(default_factory=dict)
    """The options ``mcts`` means in the arena and the CLI (given options override them)."""
    hint_agents: tuple[str, ...] = DEFAULT_HINT_AGENTS
    """Agents tried for ``tabletop-rl play --hint``, strongest first (the first available)."""

    def __post_init__(self) -> None:
        # read-only views, so that a spec cannot be changed through its mappings
        object.__setattr__(self, "agents", MappingProxyType(dict(self.agents)))
        object.__setattr__(self, "mcts_defaults", MappingProxyType(dict(self.mcts_defaults)))

    @property
    def module(self) -> str:
        """The module of :attr:`env` (the environment's documentation page)."""
        return self.env.partition(":")[0]


def resolve(target: str, what: str) -> Any:
    """The object ``"module:attr"`` names (``what`` it is, for the errors), imported now.

    >>> resolve("tabletop_rl.envs.vector:VectorGames", "batch").__name__
    'VectorGames'
    >>> resolve("tabletop_rl.envs.vector:Nothing", "batch")
    Traceback (most recent call last):
    ...
    tabletop_rl.envs.errors.ConfigError: module 'tabletop_rl.envs.vector' has no batch 'Nothing'
    """
    module_name, colon, attr = target.rpartition(":")
    if not colon or not module_name or not attr:
        raise ConfigError(f"{what} {target!r} is not 'module:attr'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"cannot import the module of {what} {target!r}: {exc}") from None
    found = getattr(module, attr, None)
    if found is None:
        raise ConfigError(f"module {module_name!r} has no {what} {attr!r}")
    return found


_AGENTS = "tabletop_rl.baselines.agents"
_PARSERS = "tabletop_rl.baselines.move_parsers"

GAMES: tuple[GameSpec, ...] = (
    GameSpec(
        name="liniell_v0",
        env="tabletop_rl.envs.liniell_v0:raw_env",
        model="tabletop_rl.envs.liniell.model:LiniellModel",
        gymnasium_id="tabletop_rl/Liniell-v0",
        compiled_batch="tabletop_rl.envs.liniell.batch:LiniellBatch",
        agents={
            "greedy": f"{_AGENTS}.liniell:LiniellGreedyAgent",
            "heuristic": f"{_AGENTS}.liniell_heuristic:LiniellHeuristicAgent",
        },
        move_parser=f"{_PARSERS}:LiniellParser",
        # Sub-action search, 300 simulations, random rollouts cut after two turns and judged
        # by the margin of provisional points. Against greedy: 0.800 (Wilson 95%:
        # 0.711-0.867) over 100 games (`tabletop-rl arena --env liniell_v0 --agents mcts
        # greedy --games 100 --seed 2026 --workers 1`); earlier, 52.5 of 80 games with
        # --seed 0, 1, 2 (0.656), and full random rollouts 21 of 40. The horizon needs
        # final_scores(); without it rollouts run to the end (32 agent steps a game).
        # Against the heuristic it loses: 0.335 (0.250-0.432) over 100 games (same command,
        # --agents mcts heuristic). About 0.3-0.5 s of CPU a decision.
        mcts_defaults={"rollout_turns": 2, "margin_scale": 3.0},
        # measured: MCTS won 52.5 of 80 games against greedy (the mcts_defaults above)
        hint_agents=("mcts", "heuristic", "greedy", "random"),
    ),
    GameSpec(
        name="qwirkle_v0",
        env="tabletop_rl.envs.qwirkle_v0:raw_env",
        model="tabletop_rl.envs.qwirkle.model:QwirkleModel",
        gymnasium_id="tabletop_rl/Qwirkle-v0",
        compiled_batch="tabletop_rl.envs.qwirkle.compiled_batch:QwirkleBatch",
        agents={
            "greedy": f"{_AGENTS}.qwirkle:QwirkleGreedyAgent",
            "heuristic": f"{_AGENTS}.qwirkle_heuristic:QwirkleHeuristicAgent",
        },
        turn_model=f"{_AGENTS}.turns:QwirkleTurnModel",
        move_parser=f"{_PARSERS}:QwirkleParser",
        # Whole turns: the 8 best by the heuristic's value, 120 simulations, each playing the
        # turn and two greedy turns (the opponent's reply and our next), judged by the points
        # gained. (The sub-action search lost 4 of 4 games to greedy: its fan-out,
        # placements x cells and 63 exchanges, is far larger than any affordable budget.)
        # Against greedy: 0.650 (Wilson 95%: 0.582-0.713), 200.2 points a game against
        # 193.6, over 200 games (`tabletop-rl arena --env qwirkle_v0 --agents mcts greedy
        # --games 200 --seed 2026 --workers 1`; its first 100 games, 0.595, are those of the
        # same command with --games 100). The heuristic alone beats greedy 0.545 over 1000.
        # About 0.4 s of CPU a decision (most 0.6 s) then. Since the playouts' greedy turns
        # and the determinisations' redeal work on the compiled engine's arrays (no reference
        # board built), about 0.1 s: 0.092 and 0.129 s against 1.007 and 1.021 s before, on
        # one machine (`python benchmarks/mcts_decision_cpu.py qwirkle_v0 mcts 2`, and 3).
        # The playouts now break ties between best placements one tile at a time and count
        # the end bonus; on the same first 100 games (--games 100) mcts wins 0.715
        # (0.620-0.794) against greedy (0.595 before) and 0.550 (0.452-0.644) against the
        # heuristic (0.625 before, --agents mcts heuristic): the intervals overlap.
        mcts_defaults={
            "search": "turns",
            "simulations": 120,
            "candidates": 8,
            "prior_temperature": 3.0,
            "c": 1.0,
            "rollout_turns": 2,
            "margin_scale": 10.0,
        },
    ),
    GameSpec(
        name="qwirkle_cards_v0",
        env="tabletop_rl.envs.qwirkle_cards_v0:raw_env",
        model="tabletop_rl.envs.qwirkle_cards.model:QwirkleCardsModel",
        gymnasium_id="tabletop_rl/QwirkleCards-v0",
        compiled_batch="tabletop_rl.envs.qwirkle_cards.compiled_batch:QwirkleCardsBatch",
        agents={
            "greedy": f"{_AGENTS}.qwirkle_cards:QwirkleCardsGreedyAgent",
            "heuristic": f"{_AGENTS}.qwirkle_cards_heuristic:QwirkleCardsHeuristicAgent",
        },
        turn_model=f"{_AGENTS}.turns:QwirkleCardsTurnModel",
        move_parser=f"{_PARSERS}:QwirkleCardsParser",
        # Whole turns: the 6 best by the heuristic's value (plus 10 per Qwirkle taken), 32
        # simulations, each playing the turn and the opponent's greedy reply, judged by the
        # Qwirkles gained. c=3 leans on the heuristic's prior: 17.5 of 20 games against
        # greedy with --seed 78, where c=1 won 6 of 10 with --seed 77. Against greedy: 0.890
        # (Wilson 95%: 0.814-0.937), 8.3 Qwirkles a game against 4.6, over 100 games
        # (`tabletop-rl arena --env qwirkle_cards_v0 --agents mcts greedy --games 100 --seed
        # 2026 --workers 1`). Against the heuristic (its prior's source): 0.550
        # (0.452-0.644) over 100 games (same command, --agents mcts heuristic). About
        # 0.4-0.6 s of CPU a decision (most 0.8-1.2 s, late in the game) then. Since the
        # greedy playouts and the heuristic's priors test a selection's validity with the
        # compiled solver (same turns, same games), about half: 0.904 and 1.066 s before,
        # 0.460 and 0.528 s after on one machine (`python benchmarks/mcts_decision_cpu.py
        # qwirkle_cards_v0 mcts 2`, and 3). Since the greedy turns are searched by a
        # compiled kernel, the root's turns listed with the compiled solver and the game
        # copied field by field (same turns, same games): 0.058 and 0.097 s against 0.240
        # and 0.286 s before, on one machine (the same commands).
        mcts_defaults={
            "search": "turns",
            "simulations": 32,
            "candidates": 6,
            "prior_temperature": 0.5,
            "c": 3.0,
            "rollout_turns": 1,
            "margin_scale": 1.0,
        },
    ),
)
"""The suite's games, one :class:`GameSpec` each."""

GAMES_BY_NAME: Mapping[str, GameSpec] = MappingProxyType({spec.name: spec for spec in GAMES})
""":data:`GAMES` by registry name."""


__all__ = ["DEFAULT_HINT_AGENTS", "GAMES", "GAMES_BY_NAME", "GameSpec", "resolve"]
