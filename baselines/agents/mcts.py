"""Information-set Monte Carlo tree search, generic over the suite's environments.

The agent plans with the rules engine but never sees hidden information: it receives a
:class:`~tabletop_rl.envs.core.simulator.Simulator`, and each search iteration starts from a
fresh *determinisation* — a copy of the game in which everything the player cannot see
(other hands, the bag or stack order) is redrawn consistently with what it can see. Chance
(tile or card draws) is thereby sampled too, so the same search serves hidden-information
games and perfect-information games with chance (Liniell).

Two searches share this machinery (option ``search``):

**Sub-action search** (``search="actions"``, Liniell and any environment): single-observer
ISMCTS (Cowling, Powley & Whitehouse 2012) over the environment's actions. One tree, whose
nodes are the action sequences played from the current decision; each iteration

1. samples a determinisation,
2. descends the tree, at each node choosing among the children *legal in this
   determinisation* by UCB1 with availability counts
   (``mean + c * sqrt(ln(available) / visits)``), the mean taken from the perspective of the
   player who chose that action,
3. adds one untried legal action as a new node,
4. plays out with the rollout policy (``"random"``: uniform over the mask; ``"greedy"``:
   the game's greedy agent), and
5. backs up every player's result along the path.

The move played is the most visited child of the root.

**Whole-turn search** (``search="turns"``, Qwirkle and Qwirkle Cards): the tree's edges are
*complete turns* (every tile of a move and "end turn"; an exchange; Qwirkles taken and cards
played; the forced redraw or pass), listed by :mod:`.turns` from the rules engine's move
generators: exactly the legal complete turns of the position (the tests compare them with a
brute-force walk through the action masks). Each turn has a *prior*, the game's scripted
heuristic's value of it, and only the ``candidates`` turns of highest prior are searched
(a fixed K rather than progressive widening: the heuristic ranks well, and a fixed K
keeps the cost per decision predictable). At the root the candidates are the searching
player's own turns, the same in every determinisation (they depend only on its hand and the
table). Selection is PUCT, ``Q + c * P * sqrt(N) / (1 + n)``, with ``P`` the softmax of the
priors at ``prior_temperature`` and an unvisited turn valued at the mean of the visited
ones; ``tree_turns`` bounds the tree's depth in turns (deeper nodes list the turns of the
player to act in that determinisation). Below the tree each player plays ``rollout_turns``
greedy turns. The chosen turn (most visited; ties to the better prior) is then played out
sub-action by sub-action over the following decisions; the agent checks before each one
that the turn so far looks as planned (and the action is unmasked), and otherwise searches
that decision alone with the sub-action search.

A result is the player's share of the win (1 for a sole win, ``1/k`` for a win shared by
``k`` players, 0 for a loss; a truncated game is a draw). Rollouts may be cut after
``max_rollout_steps`` agent steps or after ``rollout_turns`` changes of the player to act
(long games such as Qwirkle need this; ``rollout_turns`` is ignored by the sub-action search
for a game without scores, whose rollouts run to the end). The cut game is judged by the
game's ``final_scores()`` if it provides them: with ``margin_scale=None`` the leaders share
the win; otherwise each player gets ``1 / (1 + exp(-margin / margin_scale))``, the margin
being its score minus the best other score (the sub-action search) or its points gained
since the search's position minus the best other player's gain (the whole-turn search, so
that a lead or a deficit does not flatten the comparison). A game without scores is judged a
draw at the cut.

As a kickstarting teacher (``teacher: mcts``) the agent labels the decisions of a learner
it does not play for: :meth:`MCTSAgent.best_actions` names the move :meth:`act` would play,
and once the learner leaves a planned turn, nothing for the rest of it.

The budget is ``simulations`` iterations per decision, or ``time_ms`` milliseconds if given.
:func:`make_mcts` (what the arena and the CLI use for ``mcts``) applies per-game defaults
(each game's :attr:`~tabletop_rl.envs.games.GameSpec.mcts_defaults`), chosen so that a
decision costs well under a second of CPU (the figures there: process time per searched
decision over one game against greedy, on a 2-core machine shared with other work).
With a simulation budget the agent is deterministic given its generator, its observation
and what it may see.
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from tabletop_rl.envs.core.simulator import Playout
from tabletop_rl.envs.errors import ConfigError
from tabletop_rl.envs.registry import game_spec

from ..stats import win_credits
from .base import SeededAgent
from .turns import TurnModel, TurnOption, top_options, turn_model_class

ROLLOUTS = ("random", "greedy")
SEARCHES = ("actions", "turns")


def make_mcts(rng: np.random.Generator, env_name: str, **options: Any) -> MCTSAgent:
    """An :class:`MCTSAgent` with the defaults of ``env_name``'s game (its
    :attr:`~tabletop_rl.envs.games.GameSpec.mcts_defaults`, where the figures behind them are
    given).

    >>> make_mcts(np.random.default_rng(0), "qwirkle_v0", simulations=20).rollout_turns
    2
    """
    defaults = game_spec(env_name).mcts_defaults
    return MCTSAgent(rng, env_name=env_name, **{**defaults, **options})


class _Node:
    __slots__ = ("avail", "children", "parent", "player", "total", "visits")

    def __init__(self, parent: _Node | None, player: int) -> None:
        self.parent = parent
        self.player = player  # who chose the action leading here
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.avail = 0
        self.total = 0.0


class _TurnNode:
    """A node of the whole-turn tree: children by turn key; ``player`` chose the turn that
    led here (the root: the searching player); ``visits_in`` counts descents through it."""

    __slots__ = (
        "children",
        "options",
        "parent",
        "player",
        "priors",
        "total",
        "visits",
        "visits_in",
    )

    def __init__(self, parent: _TurnNode | None, player: int) -> None:
        self.parent = parent
        self.player = player
        self.children: dict[Hashable, _TurnNode] = {}
        self.options: list[TurnOption] | None = None
        self.priors: list[float] | None = None
        self.visits = 0
        self.visits_in = 0
        self.total = 0.0


@dataclass
class _Plan:
    """A chosen turn being played out: its sub-actions and, after each, what the player's
    turn progress must look like (found by playing the turn on a determinisation: one's own
    sub-actions change only what one sees oneself)."""

    actions: tuple[int, ...]
    progress: list[Hashable]
    done: int = 0

    @classmethod
    def of(
        cls, option: TurnOption, simulator: Any, model: TurnModel, rng: np.random.Generator
    ) -> _Plan:
        game = simulator.sample(rng)
        progress = []
        for action in option.actions[:-1]:
            game.step(action)
            progress.append(model.progress(game.public_view(simulator.player)))
        return cls(option.actions, progress)

    def next_fits(self, progress: Hashable, mask: np.ndarray) -> bool:
        i = self.done
        return (
            0 < i < len(self.actions)
            and self.progress[i - 1] == progress
            and bool(mask[self.actions[i]])
        )

    def advance(self) -> int:
        action = self.actions[self.done]
        self.done += 1
        return int(action)


class MCTSAgent(SeededAgent):
    """Information-set MCTS (see the module docstring).

    >>> import numpy as np
    >>> MCTSAgent(np.random.default_rng(0), simulations=50).simulations
    50
    """

    name = "mcts"
    needs_simulator = True

    def __init__(
        self,
        rng: np.random.Generator,
        simulations: int = 300,
        time_ms: float | None = None,
        rollout: str = "random",
        c: float = 0.7,
        max_rollout_steps: int | None = None,
        rollout_turns: int | None = None,
        margin_scale: float | None = None,
        env_name: str | None = None,
        search: str = "actions",
        candidates: int | None = None,
        prior_temperature: float = 1.0,
        tree_turns: int = 1,
    ) -> None:
        if rollout not in ROLLOUTS:
            raise ConfigError(f"rollout={rollout!r} is not supported; allowed: {ROLLOUTS}")
        if search not in SEARCHES:
            raise ConfigError(f"search={search!r} is not supported; allowed: {SEARCHES}")
        if search == "turns" and env_name is not None:
            turn_model_class(env_name)  # a clear error now if the game has none
        if candidates is not None and candidates < 1:
            raise ConfigError(f"candidates must be at least 1 (or None for all), got {candidates}")
        if prior_temperature <= 0:
            raise ConfigError(f"prior_temperature must be positive, got {prior_temperature}")
        if tree_turns < 1:
            raise ConfigError(f"tree_turns must be at least 1, got {tree_turns}")
        if simulations < 1:
            raise ConfigError(f"simulations must be at least 1, got {simulations}")
        if time_ms is not None and time_ms <= 0:
            raise ConfigError(f"time_ms must be positive, got {time_ms}")
        for option, value in (
            ("max_rollout_steps", max_rollout_steps),
            ("rollout_turns", rollout_turns),
        ):
            if value is not None and value < 0:
                raise ConfigError(f"{option} must be >= 0, got {value}")
        if margin_scale is not None and margin_scale <= 0:
            raise ConfigError(f"margin_scale must be positive, got {margin_scale}")
        self.rng = rng
        self.simulations = int(simulations)
        self.time_ms = time_ms
        self.rollout = rollout
        self.c = float(c)
        self.max_rollout_steps = max_rollout_steps
        self.rollout_turns = rollout_turns
        self.margin_scale = margin_scale
        self.env_name = env_name
        self.search = search
        self.candidates = candidates
        self.prior_temperature = float(prior_temperature)
        self.tree_turns = int(tree_turns)
        self._greedy: dict[str, Any] = {}
        self._models: dict[str, TurnModel] = {}
        self._plan: _Plan | None = None
        self.last_iterations = 0
        self.last_turn: TurnOption | None = None
        """The whole turn chosen at the last turn start (turn search), else None."""

    def forget_game(self) -> None:
        """Drop the planned turn and the greedy rollout agents (they hold the old generator)."""
        self._plan = None
        self._greedy = {}

    # ---------------------------------------------------------------- the search
    def act(self, observation: Mapping[str, np.ndarray], view: Any = None) -> int:
        mask = np.asarray(observation["action_mask"])
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("MCTSAgent.act: the action mask has no legal action")
        if view is None or not hasattr(view, "sample"):
            if legal.size == 1:
                self.last_iterations = 0
                return int(legal[0])
            raise ConfigError(
                "MCTSAgent needs a Simulator as its view (tools pass one to agents with "
                "needs_simulator = True; see tabletop_rl.envs.core.simulator)"
            )
        if self.search == "turns":
            return self._act_turns(mask, view)
        if legal.size == 1:
            self.last_iterations = 0
            return int(legal[0])
        return self._search_actions(mask, view)

    def best_actions(self, observation: Mapping[str, np.ndarray], view: Any = None) -> list[int]:
        """The moves the search rates best here, as a teacher names them (kickstarting).

        A teacher is asked at every decision of the learner it watches but does not choose
        what is played. With the sub-action search this is the action :meth:`act` plays.
        With the whole-turn search the turn is searched at its start, and the labels are the
        sub-actions that go on playing the chosen turn in any order of its remaining ones
        (:meth:`TurnModel.continuations`: the order of a turn's tiles or cards is not a choice
        the search made), the one :meth:`act` would play first. Once the learner leaves the
        chosen turn, the rest of that turn gets no label (an empty list): the search said
        nothing about it, and the sub-action search :meth:`act` would fall back to is weak in
        these games.
        """
        if self.search != "turns" or view is None or not hasattr(view, "sample"):
            return [self.act(observation, view)]
        mask = np.asarray(observation["action_mask"])
        model = self._model(view)
        public = view.public_view()
        first: list[int] = []
        if not model.turn_started(public):
            first = [self._act_turns(mask, view)]
        elif self._plan is not None and self._plan.next_fits(model.progress(public), mask):
            first = [self._plan.advance()]
        turn = self.last_turn
        rest = [] if turn is None else model.continuations(public, turn, mask)
        if not rest:  # the learner left the chosen turn
            self._plan = None
            return []
        return first + [a for a in rest if a not in first]

    def _budget_left(self, iterations: int, deadline: float | None) -> bool:
        if deadline is None:
            return iterations < self.simulations
        return iterations == 0 or time.perf_counter() < deadline

    def _deadline(self) -> float | None:
        return None if self.time_ms is None else time.perf_counter() + self.time_ms / 1000

    def _search_actions(self, mask: np.ndarray, view: Any) -> int:
        """Sub-action ISMCTS for one decision (see the module docstring)."""
        legal = np.flatnonzero(mask)
        root = _Node(None, view.player)
        deadline = None if self.time_ms is None else time.perf_counter() + self.time_ms / 1000
        iterations = 0
        while True:
            self._iterate(root, view)
            iterations += 1
            if deadline is None:
                if iterations >= self.simulations:
                    break
            elif time.perf_counter() >= deadline:
                break
        self.last_iterations = iterations
        best, best_visits = [], -1
        for action, child in root.children.items():
            if not mask[action]:
                continue
            if child.visits > best_visits:
                best, best_visits = [action], child.visits
            elif child.visits == best_visits:
                best.append(action)
        if not best:
            return int(self.rng.choice(legal))
        return int(best[0] if len(best) == 1 else self.rng.choice(sorted(best)))

    # ------------------------------------------------------ the whole-turn search
    def _model(self, simulator: Any) -> TurnModel:
        name = self.env_name or simulator.env_name or simulator.info.name
        if name not in self._models:
            self._models[name] = turn_model_class(name)()
        return self._models[name]

    def _act_turns(self, mask: np.ndarray, simulator: Any) -> int:
        """Play the planned turn on, or plan a new one at the start of a turn."""
        model = self._model(simulator)
        view = simulator.public_view()
        if model.turn_started(view):
            plan = self._plan
            if plan is not None and plan.next_fits(model.progress(view), mask):
                return plan.advance()
            # not our plan (or it no longer fits what we see): search this step alone
            self._plan = None
            legal = np.flatnonzero(mask)
            if legal.size == 1:
                return int(legal[0])
            return self._search_actions(mask, simulator)
        options = top_options(model.options(view), self.candidates)
        if len(options) == 1:
            self.last_iterations = 0
            choice = options[0]
        else:
            choice = self._search_turns(options, simulator, model)
        self.last_turn = choice
        self._plan = _Plan.of(choice, simulator, model, self.rng)
        if not mask[choice.actions[0]]:
            raise RuntimeError(f"MCTSAgent planned the masked action {choice.actions[0]}")
        return self._plan.advance()

    def _priors(self, options: list[TurnOption]) -> list[float]:
        values = np.array([o.prior for o in options], dtype=float) / self.prior_temperature
        weights = np.exp(values - values.max())
        return list(weights / weights.sum())

    def _search_turns(
        self, options: list[TurnOption], simulator: Any, model: TurnModel
    ) -> TurnOption:
        root = _TurnNode(None, simulator.player)
        root.options = options
        root.priors = self._priors(options)
        deadline = self._deadline()
        iterations = 0
        while self._budget_left(iterations, deadline):
            self._iterate_turns(root, simulator, model)
            iterations += 1
        self.last_iterations = iterations
        best, best_visits = options[0], -1
        for option in options:  # ordered by prior: ties go to the better prior
            child = root.children.get(option.key)
            visits = child.visits if child is not None else 0
            if visits > best_visits:
                best, best_visits = option, visits
        return best

    def _iterate_turns(self, root: _TurnNode, simulator: Any, model: TurnModel) -> None:
        env = simulator.sample(self.rng)
        reference = _scores(env)
        node, depth = root, 0
        done, result = False, None
        while True:
            options, priors = node.options, node.priors
            if options is None:  # a deeper node: this determinisation's turns
                view = env.public_view(env.current_player())
                options = top_options(model.options(view), self.candidates)
                priors = self._priors(options)
            assert priors is not None
            node.visits_in += 1
            explore = self.c * math.sqrt(node.visits_in)
            # an unvisited turn starts at the mean of the visited ones (0.5 before any)
            seen_visits = sum(c.visits for c in node.children.values())
            fpu = sum(c.total for c in node.children.values()) / seen_visits if seen_visits else 0.5
            best_i, best_value = 0, -math.inf
            for i, option in enumerate(options):
                child = node.children.get(option.key)
                n = child.visits if child is not None else 0
                q = child.total / n if n else fpu
                value = q + explore * priors[i] / (1 + n)
                if value > best_value:
                    best_i, best_value = i, value
            option = options[best_i]
            child = node.children.get(option.key)
            expanded = child is None
            if child is None:
                child = _TurnNode(node, env.current_player())
                node.children[option.key] = child
            for action in option.actions:
                done, result = self._play(env, action)
                if done:
                    break
            node, depth = child, depth + 1
            if done or expanded or depth >= self.tree_turns:
                break
        if not done:
            result = self._turn_rollout(env, model, reference)
        assert result is not None
        while node is not None:
            node.visits += 1
            node.total += result[node.player]
            node = node.parent

    def _turn_rollout(self, env: Playout, model: TurnModel, reference: list[float]) -> list[float]:
        """``rollout_turns`` greedy turns, then the score gains since the root judged."""
        for _ in range(self.rollout_turns or 0):
            for action in model.greedy_actions(env, self.rng):
                done, result = self._play(env, action)
                if done:
                    assert result is not None
                    return result
        return _judge_unfinished(env, self.margin_scale, reference)

    def _iterate(self, root: _Node, simulator: Any) -> None:
        env = simulator.sample(self.rng)
        node = root
        done, result = False, None
        # selection and expansion
        while True:
            legal = np.flatnonzero(env.action_mask())
            player = env.current_player()
            untried = []
            best_child, best_action, best_value = None, -1, -math.inf
            for a in legal:
                a = int(a)
                child = node.children.get(a)
                if child is None:
                    untried.append(a)
                    continue
                child.avail += 1
                if untried:
                    continue
                value = child.total / child.visits + self.c * math.sqrt(
                    math.log(child.avail) / child.visits
                )
                if value > best_value:
                    best_child, best_action, best_value = child, a, value
            if untried:
                action = untried[int(self.rng.integers(len(untried)))]
                child = _Node(node, player)
                node.children[action] = child
                done, result = self._play(env, action)
                node = child
                break
            node = best_child
            done, result = self._play(env, best_action)
            if done:
                break
        # rollout
        if not done:
            result = self._rollout(env)
        # backpropagation
        while node is not None:
            node.visits += 1
            node.total += result[node.player]
            node = node.parent

    def _play(self, env: Playout, action: int) -> tuple[bool, list[float] | None]:
        step = env.step(action)
        if step.game_over:
            outcome = env.outcome()
            assert outcome is not None
            return True, win_credits(list(outcome.winners), env.num_players)
        if step.truncated:
            return True, [1.0 / env.num_players] * env.num_players
        return False, None

    def _rollout(self, env: Playout) -> list[float]:
        steps, turns = 0, 0
        player = env.current_player()
        # a game without scores cannot judge a cut rollout: play those to the end
        cut_turns = self.rollout_turns if env.has_scores else None
        while True:
            if (self.max_rollout_steps is not None and steps >= self.max_rollout_steps) or (
                cut_turns is not None and turns >= cut_turns
            ):
                return _judge_unfinished(env, self.margin_scale)
            if self.rollout == "greedy":
                action = self._greedy_action(env)
            else:
                legal = np.flatnonzero(env.action_mask())
                action = int(legal[int(self.rng.integers(legal.size))])
            done, result = self._play(env, action)
            steps += 1
            if done:
                return result
            now = env.current_player()
            turns += now != player
            player = now

    def _greedy_action(self, env: Playout) -> int:
        from . import make_agent

        name = self.env_name or env.info.name
        if name not in self._greedy:
            self._greedy[name] = make_agent("greedy", name, self.rng)
        player = env.current_player()
        return int(self._greedy[name].act(env.observe(player), env.public_view(player)))


def _scores(env: Playout) -> list[float]:
    """The game's current scores (zeros for a game without points)."""
    return env.scores()


def _judge_unfinished(
    env: Playout, margin_scale: float | None, reference: list[float] | None = None
) -> list[float]:
    """Each player's result of a game cut short: by the scores, or by the points gained
    since ``reference`` (the scores where the search started) when given."""
    n = env.num_players
    if not env.has_scores:
        return [1.0 / n] * n
    values = env.scores()
    if reference is not None:
        values = [v - r for v, r in zip(values, reference, strict=True)]
    if margin_scale is None:
        best = max(values)
        return win_credits([i for i, v in enumerate(values) if v == best], n)
    out = []
    for i, v in enumerate(values):
        margin = v - max(values[:i] + values[i + 1 :])
        out.append(1.0 / (1.0 + math.exp(-margin / margin_scale)))
    return out


__all__ = ["MCTSAgent", "make_mcts"]
