"""Collection on the batch, in the training process (Pgx / CleanRL style): how training
collects, for every config.

:class:`BatchedCollector` steps :class:`~tabletop_rl.envs.vector.VectorGames` (one compiled
call per step for all ``num_envs`` games) in **rounds**: the games that ended start anew and
the scripted opponents move (round after round of their moves, each one batch step over the
games where one is to move) until every game waits for the learner or a snapshot of the pool;
then one network forward takes the learner's decision in every game where it sits, and one per
pool snapshot in the games where that snapshot sits, and one batch step plays them. So each
round is one decision in every game, as in :mod:`envs.gym_vector <tabletop_rl.envs.gym_vector>`,
whose opponents move the same way. The opponents are drawn by
:meth:`.selfplay.SelfPlayCollector.new_setup` (the learner holds one random *primary* seat,
whose results are logged; ``self`` fills a seat with the learner, ``pool`` with a snapshot, a
scripted agent's name with that agent), and every game is dealt from its setup's
``env_seed``, its scripted agents drawing from ``default_rng(agent_seed)``, as a
:class:`~.rollout.GameSlot` (evaluation's games) deals and seeds them: given the learner's
actions, a game here is a GameSlot's game (but with Qwirkle's greedy, heuristic or mcts,
whose ties follow the views built before from the same state: here every view is built on a
new copy of the game).

Scripted opponents and teachers:

- An opponent with a batch form (:func:`~tabletop_rl.envs.core.batch_policy.batch_form`:
  ``random``, the ``value:FIELD=W,...`` agents, Liniell's ``greedy`` with ``features: true``)
  moves in all its games with one call per round of the opponents' moves. Liniell's batch
  ``greedy`` breaks ties among every legal action of its best value (its agent among
  distinct placements), so it plays the same values as its agent, not the same games move
  for move.
- A ``value:`` teacher labels all the learner's decisions of a batch step in one call: the
  legal actions of the highest weighted sum of its fields (as
  :meth:`~..agents.feature_value.FeatureValueAgent.best_actions`).
- Agents without a batch form (Qwirkle's and Qwirkle Cards' ``greedy``, the heuristics,
  ``mcts``, ``ppo:PATH``), as opponents or as teacher, are asked game by game in Python on
  the game model's state of their game (:meth:`VectorGames.state`), as a
  :class:`~.rollout.GameSlot` asks them. Such an agent may remember its plan within a game,
  so a checkpoint holds the actions of each game where one sits, and resuming replays them
  on the game model to rebuild that memory (an error if an agent then plays otherwise).

Per-seat transitions, as in :mod:`.selfplay`: a learner seat's transition collects every
reward that reaches the seat until it acts again (the other seats' moves in between, the
terminal reward included), and is finalised then, bootstrapped from the value of that next
observation; a seat's consecutive decisions (the parts of one Qwirkle or Qwirkle Cards turn)
are consecutive transitions with no reward in between. When the game ends, on any seat's
move, every pending transition of the game is finalised: with no bootstrap when the game
ended by its rules, and bootstrapped when the game was cut by its turn limit: the seat the
batch shows at the cut from the value of that final observation, every other seat from the
value of its own last observation (the batch keeps one observation per game). A transition
still pending when a rollout ends is carried over to the next rollout, with its teacher
labels. The rows go to the PPO update (:func:`.ppo.ppo_update`) grouped per stream (game
slot, seat) in time order, as a :class:`~.selfplay.Batch`.

Which configs collect here: every config. A registered game with a compiled batch
(Liniell, Qwirkle, Qwirkle Cards, with only the options the compiled core takes) is stepped
by its compiled core, whose games a checkpoint saves as they are; ``symmetry_augmentation``
included (each learner decision is seen in a frame drawn from its own generator, as in
:mod:`.selfplay`). A game of one's own (``module:factory``, built by
:func:`tabletop_rl.envs.registry.make`), or a registered game with an option the compiled core does
not take, is stepped on its game model (:meth:`VectorGames.of_env`), which cannot save its
games: a checkpoint then holds every game's actions since its deal, and resuming deals each
game again from its ``env_seed`` and replays them (the same replay that rebuilds the Python
agents' memory).

Why the slot path (game slots in worker processes, scripted moves played in the workers
between the learner's decisions) is gone: with the opponents' moves inside each round, the
batch collects at least as fast for every shipped config. Measured before its removal, the
shipped configs with their own settings, collection alone (learner decisions per second,
both collectors alternated in one run on a shared, loaded 2-core machine, the slot path with
its 2 workers; mean of the reps, and the median of each rep's batch/slot ratio)::

    config                      reps   slot   batch   batch/slot   median ratio
    configs/liniell_ppo.yaml       5    729     972   1.33         1.21
    configs/qwirkle_cards_ppo      5    692     885   1.28         1.21
    configs/qwirkle_ppo            3    240     382   1.59         1.29

(The load varied within the run by up to ten times; the ratios of neighbouring reps are the
figures to read.) Before the opponents moved inside the round, a scripted opponent's move
took a whole batch step, and the batch measured 0.77 (Liniell), 1.19 (Qwirkle Cards) and
0.78 (Qwirkle) of the slot path. Qwirkle's greedy (a turn search in Python) still runs game
by game on one core here. The budgets (``max_minutes``, ``max_cpu_minutes``) are checked at
every round and every minibatch step, so a run stops within seconds of its budget.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import nn

from tabletop_rl.envs import available_envs
from tabletop_rl.envs.core.batch_policy import (
    BatchPolicy,
    FeatureValuePolicy,
    GameGenerators,
    batch_form,
)
from tabletop_rl.envs.core.model import Ending
from tabletop_rl.envs.core.simulator import agent_view
from tabletop_rl.envs.errors import ConfigError
from tabletop_rl.envs.registry import make
from tabletop_rl.envs.vector import VectorGames

from ..agents.base import best_choices
from ..agents.feature_value import FeatureValueAgent
from ..arena.agent_specs import resolve_agent
from ..stats import win_credits
from .config import PPOConfig
from .rollout import LEARNER, POOL_PREFIX, GameSetup
from .selfplay import Batch, RolloutStats, SelfPlayCollector, opponent_key, policy_step
from .stopping import BudgetSpent

KIND = "batched"
"""The ``kind`` entry of a batched collector's checkpoint state."""
SELF_PLAY = frozenset({"self", "pool"})
"""The opponents played by networks (the learner, a snapshot of the pool)."""
SCRIPTED = -2
"""``who`` code of scripted opponent ``j`` (of :attr:`BatchedCollector.scripted`): ``-2 - j``."""


def teacher_batch_form(teacher: Any, model: Any) -> FeatureValuePolicy | None:
    """The batch form whose values label the teacher's best actions in many games at once:
    a ``value:`` agent's (the legal actions of the highest weighted sum, as its
    :meth:`~.FeatureValueAgent.best_actions`); None for other teachers (asked game by game)."""
    if isinstance(teacher, FeatureValueAgent):
        return teacher.batch_policy(model)
    return None


def padded_label_rows(labels: np.ndarray) -> np.ndarray:
    """``(rows, A)`` label flags as the ``(rows, K)`` actions padded with -1 of
    :attr:`.Batch.teacher_actions`, each row's actions in increasing order.

    >>> padded_label_rows(np.array([[0, 1, 0, 1], [0, 0, 0, 0], [1, 0, 0, 0]], np.int8)).tolist()
    [[1, 3], [-1, -1], [0, -1]]
    """
    counts = labels.sum(axis=1, dtype=np.int64)
    width = max(1, int(counts.max(initial=0)))
    out = np.full((len(labels), width), -1, dtype=np.int64)
    rows, actions = np.nonzero(labels)
    out[rows, np.arange(rows.size) - np.repeat(np.cumsum(counts) - counts, counts)] = actions
    return out


def is_batched_state(state: dict[str, Any]) -> bool:
    """Whether a checkpoint's collector state is a batched collector's."""
    return state.get("kind") == KIND


class BatchedCollector(SelfPlayCollector):
    """Plays ``cfg.num_envs`` games on the compiled batch with the learner, its snapshots and
    the scripted opponents (module docstring); :meth:`collect` yields finalised batches."""

    def __init__(
        self,
        cfg: PPOConfig,
        learner: nn.Module,
        gen: torch.Generator,
        net_factory: Callable[[], nn.Module],
    ) -> None:
        self.games_seed = int(np.random.SeedSequence([cfg.seed, 4]).generate_state(1)[0])
        """The batch's own seed (every game is then dealt from its setup's ``env_seed``)."""
        if cfg.env in available_envs():
            games = VectorGames(cfg.env, cfg.num_envs, seed=self.games_seed, **cfg.env_kwargs)
        else:  # a game of one's own (module:factory): stepped on its game model
            raw = make(cfg.env, raw=True, **cfg.env_kwargs)
            games = VectorGames.of_env(raw, cfg.num_envs, self.games_seed, reward=raw.reward_mode)
        super().__init__(cfg, games, learner, gen, net_factory)
        self.saves_games = games.backend == "compiled"
        """Whether a checkpoint holds the games' state (the compiled backends), else every
        game's actions since its deal, replayed on resume."""
        self.games = games
        model = games.model
        n, p = games.num_envs, games.num_players
        self.scripted = sorted(k for k in cfg.opponents if k not in SELF_PLAY)
        """The scripted opponents' specs; ``who`` holds ``SCRIPTED - j`` for ``scripted[j]``."""
        probe = np.random.default_rng(0)
        self.forms: list[BatchPolicy | None] = [
            batch_form(resolve_agent(spec, cfg.env, probe), model) for spec in self.scripted
        ]
        """Each scripted opponent's batch form; None: played game by game in Python."""
        self.teacher_form: FeatureValuePolicy | None = None
        if cfg.teacher:
            self.teacher_form = teacher_batch_form(
                resolve_agent(cfg.teacher, cfg.env, probe), model
            )
        self.agent_gens = GameGenerators(n, 1)
        """Per game, the generator of its scripted agents (``default_rng(agent_seed)``, one
        for all its scripted seats, as in a :class:`~.rollout.GameSlot`)."""
        self.py_agents: list[dict[int, Any]] = [{} for _ in range(n)]
        """Per game, the scripted agents without a batch form, by seat."""
        self.py_teacher: list[Any] = [None] * n
        """Per game, the teacher asked game by game (None: none, or a batch-form teacher)."""
        self.taught = np.zeros(n, dtype=np.bool_)
        """Games whose learner decisions are labelled by the teacher (those dealt while
        :attr:`teacher_active`)."""
        self.replays: list[list[int] | None] = [None] * n
        """Per game with a Python agent or teacher, and every game of a batch that cannot save
        its games, every action played since its deal (a checkpoint rebuilds those agents'
        memory, and those games, by replaying them); None elsewhere."""
        self.who = np.full((n, p), -1, dtype=np.int64)
        """Per game and seat: -1 the learner, ``k >= 0`` snapshot ``k`` of the pool,
        ``SCRIPTED - j`` scripted opponent ``j``."""
        self.ended = np.ones(n, dtype=np.bool_)
        """Games that ended with the last step (the next step starts their next game, dealt
        already); all at first."""
        self.primary = np.zeros(n, dtype=np.int64)
        """Per game, the learner's primary seat (whose results are logged)."""
        self.ep_return = np.zeros(n, dtype=np.float64)
        self.length = np.zeros(n, dtype=np.int64)
        # the pending transition of each (game, seat): what the next rollout carries over
        width = games.num_actions if cfg.teacher else 0
        self.p_has = np.zeros((n, p), dtype=np.bool_)
        self.p_obs = np.zeros((n, p, games.single_observation_space.shape[0]), np.float32)
        self.p_mask = np.zeros((n, p, games.num_actions), dtype=np.int8)
        self.p_labels = np.zeros((n, p, width), dtype=np.int8)
        self.p_action = np.zeros((n, p), dtype=np.int64)
        self.p_logp = np.zeros((n, p), dtype=np.float32)
        self.p_value = np.zeros((n, p), dtype=np.float32)
        self.p_reward = np.zeros((n, p), dtype=np.float64)
        self._obs_buf = np.zeros((0, self.p_obs.shape[2]), dtype=np.float32)
        self._mask_buf = np.zeros((0, games.num_actions), dtype=np.int8)
        self._label_buf = np.zeros((0, width), dtype=np.int8)
        self.res = games.reset()
        for i in range(n):
            self._new_game(i)

    # ------------------------------------------------------------------ games
    def _new_game(self, i: int) -> None:
        """Draw who plays game ``i``'s next game and deal it from its setup's ``env_seed``
        (as a :class:`~.rollout.GameSlot` does); it starts on the batch's next step."""
        setup, primary = self.new_setup()
        s = self.slots[i]
        s.setup, s.primary = setup, primary
        self.primary[i] = primary
        self._seat_agents(i, setup, self.teacher_active)
        self.games.restart([i], [np.random.default_rng(setup.env_seed)])
        self.ep_return[i] = 0.0
        self.length[i] = 0

    def _seat_agents(self, i: int, setup: GameSetup, taught: bool) -> None:
        """Who plays each seat of game ``i``, its scripted agents and, if ``taught``, its
        teacher, new from ``setup``'s seeds (the agents are built in seat order from
        ``default_rng(agent_seed)``, as in a :class:`~.rollout.GameSlot`; the teacher from
        its own ``default_rng([agent_seed, 1])``, so the opponents play the same games with
        or without it)."""
        rng = np.random.default_rng(setup.agent_seed)
        self.agent_gens.set(i, [rng])
        self.py_agents[i] = {}
        for seat, c in enumerate(setup.controllers):
            if c == LEARNER:
                self.who[i, seat] = -1
            elif c.startswith(POOL_PREFIX):
                self.who[i, seat] = int(c[len(POOL_PREFIX) :])
            else:
                j = self.scripted.index(c)
                self.who[i, seat] = SCRIPTED - j
                if self.forms[j] is None:
                    self.py_agents[i][seat] = resolve_agent(c, self.cfg.env, rng)
        self.taught[i] = taught
        self.py_teacher[i] = None
        if taught and self.teacher_form is None:
            teacher_rng = np.random.default_rng([setup.agent_seed, 1])
            self.py_teacher[i] = resolve_agent(self.cfg.teacher, self.cfg.env, teacher_rng)
        python = bool(self.py_agents[i]) or self.py_teacher[i] is not None
        self.replays[i] = [] if python or not self.saves_games else None

    def _view(self, agent: Any, i: int, seat: int, state: Any = None) -> Any:
        """What a Python ``agent`` sees to decide for ``seat`` in game ``i``, or in ``state``
        (a replay's): always built on a new copy of the game, made only where the agent reads
        it. A copy in a replay too, so that the agent sees what it saw: Qwirkle's compiled
        model builds a view's board on the boards of the views taken before from the same
        state, and the order of its anchors, which the ties of its greedy, heuristic and mcts
        follow, depends on that history."""
        if not (getattr(agent, "needs_simulator", False) or getattr(agent, "needs_view", True)):
            return None
        copy = self.games.state(i) if state is None else self.games.model.copy(state)
        return agent_view(agent, self.games.model, copy, seat, self.cfg.env)

    def _python_labels(self, teacher: Any, obs: dict[str, np.ndarray], view: Any) -> list[int]:
        """A Python teacher's best actions (:func:`~..agents.base.best_choices`), none where
        it has no choice to offer (a scripted agent may refuse a position it cannot judge with
        a ValueError or RuntimeError)."""
        try:
            return list(best_choices(teacher, obs, view))
        except (ValueError, RuntimeError):
            return []

    def _label(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        """The teacher's best actions as flags into ``out`` (one row per game of ``rows``,
        zeroed first) where the game is taught."""
        out[:] = 0
        taught = self.taught[rows]
        if not taught.any():
            return
        res = self.res
        if self.teacher_form is not None:
            games = rows[taught]
            values = self.teacher_form.values(res.observation[games], res.action_mask[games])
            best = values.max(axis=1, initial=-np.inf)
            out[taught] = (values >= best[:, None] - 1e-9) & np.isfinite(best)[:, None]
            return
        for k in np.flatnonzero(taught).tolist():
            i, teacher = int(rows[k]), self.py_teacher[int(rows[k])]
            obs = {
                "observation": res.observation[i].copy(),
                "action_mask": res.action_mask[i].copy(),
            }
            best = self._python_labels(teacher, obs, self._view(teacher, i, int(seats[k])))
            out[k, best] = 1

    def _forced(self, labels: np.ndarray) -> np.ndarray:
        """Per row, the teacher's action to play instead of the learner's, or -1 (the same
        draws as :meth:`.SelfPlayCollector._teacher_plays` over the same labels)."""
        plays = self.teacher_rng.random(len(labels)) < self.cfg.teacher_plays
        forced = np.full(len(labels), -1, dtype=np.int64)
        for j in np.flatnonzero(plays).tolist():
            best = np.flatnonzero(labels[j])
            if best.size == 1:
                forced[j] = best[0]
            elif best.size > 1:
                forced[j] = best[self.teacher_rng.integers(best.size)]
        return forced

    def _scripted_actions(self, j: int, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Scripted opponent ``j``'s actions in the games ``rows`` (its batch form in one
        call, else its agent of each game in Python)."""
        res, form = self.res, self.forms[j]
        if form is not None:
            draw = self.agent_gens.drawer(rows, np.zeros(rows.size, dtype=np.int64))
            return form.act_batch(res.observation, res.action_mask, rows, draw)
        out = np.zeros(rows.size, dtype=np.int64)
        for k, i in enumerate(rows.tolist()):
            agent = self.py_agents[i][int(seats[k])]
            obs = {
                "observation": res.observation[i].copy(),
                "action_mask": res.action_mask[i].copy(),
            }
            out[k] = int(agent.act(obs, self._view(agent, i, int(seats[k]))))
        return out

    def shaped(self, rewards: np.ndarray, ended: np.ndarray) -> np.ndarray:
        """The rewards the learner trains on (``relative_reward``, ``reward_scale``,
        ``win_bonus``; as :meth:`SelfPlayCollector.shaped_rewards`) of one batch step."""
        cfg, n = self.cfg, rewards.shape[1]
        r = rewards.astype(np.float64) * cfg.reward_scale
        if cfg.relative_reward and n > 1:
            r = r - (r.sum(axis=1, keepdims=True) - r) / (n - 1)
        if cfg.win_bonus:
            for i in np.flatnonzero(ended):
                outcome = self.games.outcome(int(i))
                assert outcome is not None
                if 0 < len(outcome.winners) < n:
                    bonus = np.full(n, -cfg.win_bonus)
                    bonus[list(outcome.winners)] = cfg.win_bonus
                    r[i] += bonus
        return r

    def collect(
        self, rounds: int, should_stop: Callable[[], bool] | None = None
    ) -> tuple[Batch, RolloutStats]:
        """Play ``rounds`` rounds, each one network decision in every game (the scripted
        opponents' moves before it, as many as it takes); the transitions finalised meanwhile.
        ``should_stop()`` is asked before every round (:class:`~.stopping.BudgetSpent` when it
        says so)."""
        stats = RolloutStats()
        games, n, p = self.games, self.games.num_envs, self.games.num_players
        every = np.arange(n)
        cap = n * p + rounds * n
        stream = np.zeros(cap, np.int64)
        action = np.zeros(cap, np.int64)
        logp = np.zeros(cap, np.float32)
        value = np.zeros(cap, np.float32)
        reward = np.zeros(cap, np.float64)
        next_value = np.zeros(cap, np.float32)
        done = np.zeros(cap, np.bool_)  # the game ended by its rules: no bootstrap
        over = np.zeros(cap, np.bool_)  # the game ended (by its rules or cut) after the row
        final = np.zeros(cap, np.bool_)
        last = np.full((n, p), -1, np.int64)  # each (game, seat)'s pending row
        # the pending transitions carried over from the last rollout come first
        carried = np.flatnonzero(self.p_has.ravel())
        count = len(carried)
        if len(self._obs_buf) < cap:  # the rollout's rows, kept from one rollout to the next
            self._obs_buf = np.zeros((cap, self.p_obs.shape[2]), dtype=np.float32)
            self._mask_buf = np.zeros((cap, self.p_mask.shape[2]), dtype=np.int8)
            self._label_buf = np.zeros((cap, self.p_labels.shape[2]), dtype=np.int8)
        obs_buf, mask_buf, label_buf = self._obs_buf, self._mask_buf, self._label_buf
        obs_buf[:count] = self.p_obs.reshape(n * p, -1)[carried]
        mask_buf[:count] = self.p_mask.reshape(n * p, -1)[carried]
        label_buf[:count] = self.p_labels.reshape(n * p, -1)[carried]
        stream[:count] = carried
        action[:count] = self.p_action.ravel()[carried]
        logp[:count] = self.p_logp.ravel()[carried]
        value[:count] = self.p_value.ravel()[carried]
        reward[:count] = self.p_reward.ravel()[carried]
        last.ravel()[carried] = np.arange(count)
        teaching = bool(self.cfg.teacher)
        replaying = np.array([r is not None for r in self.replays])
        res = self.res
        zeros = np.zeros(n, dtype=np.int64)

        def record(actions: np.ndarray, live: np.ndarray) -> None:
            """Append the actions played in the live games that keep their actions."""
            for i in np.flatnonzero(live & replaying).tolist():
                self.replays[i].append(int(actions[i]))  # type: ignore[union-attr]

        def played(stepped: np.ndarray) -> None:
            """Book the step just played in the games ``stepped``: every reward that reached
            a seat goes to its pending transition; the games that ended are finalised,
            logged and dealt anew (they start on their next step)."""
            live = stepped & ~self.ended
            stats.agent_steps += int(live.sum())
            self.length += live
            ended = stepped & (res.terminated | res.truncated)
            self.ended[stepped] = ended[stepped]
            r = self.shaped(res.rewards, ended)
            r[~stepped] = 0.0  # the rows of games not stepped hold an older step's rewards
            waiting = last >= 0
            reward[last[waiting]] += r[waiting]
            self.ep_return += r[every, self.primary]
            cut_games: list[int] = []
            cut_rows: list[int] = []
            for i in np.flatnonzero(ended).tolist():
                rows = last[i][last[i] >= 0]
                final[rows] = over[rows] = True
                if res.truncated[i]:  # bootstrap from the cut
                    next_value[rows] = value[rows]
                    shown = last[i, res.current_player[i]]
                    if shown >= 0:
                        cut_games.append(i)
                        cut_rows.append(int(shown))
                else:
                    done[rows] = True
                last[i] = -1
                outcome = games.outcome(i)
                assert outcome is not None
                s = self.slots[i]
                assert s.setup is not None
                winners = [] if outcome.ending is Ending.TRUNCATED else list(outcome.winners)
                credit = win_credits(winners, p)[s.primary]
                key = opponent_key(s.setup.controllers, s.primary)
                stats.games.append((key, credit, float(self.ep_return[i]), int(self.length[i])))
                self._new_game(i)
                replaying[i] = self.replays[i] is not None
            if cut_rows:
                with torch.no_grad():
                    cut = torch.as_tensor(res.final_observation[cut_games])
                    next_value[cut_rows] = self.learner(cut)[1].numpy()

        def settle() -> None:
            """Start the games that ended and play the scripted opponents' moves, round after
            round, until every game waits for the learner or a snapshot of the pool."""
            while True:
                t0 = time.perf_counter()
                seat = res.current_player
                controller = self.who[every, seat]
                moving = self.ended | (controller <= SCRIPTED)
                if not moving.any():
                    return
                live = moving & ~self.ended
                actions = np.zeros(n, dtype=np.int64)
                for c in sorted(set(controller[live].tolist()), reverse=True):
                    rows = np.flatnonzero(live & (controller == c))
                    actions[rows] = self._scripted_actions(SCRIPTED - c, rows, seat[rows])
                record(actions, live)
                t1 = time.perf_counter()
                games.step(actions, moving)
                stats.net_time += t1 - t0
                stats.env_time += time.perf_counter() - t1
                played(moving)

        self.learner.eval()
        for _ in range(rounds):
            if should_stop is not None and should_stop():
                raise BudgetSpent
            settle()
            t0 = time.perf_counter()
            seat = res.current_player.copy()
            controller = self.who[every, seat]
            actions = zeros.copy()
            # every game waits for a network: the learner first, then each snapshot
            for c in [-1, *sorted(set(controller[controller >= 0].tolist()), reverse=True)]:
                rows = np.flatnonzero(controller == c)
                if rows.size == 0:
                    continue
                if c >= 0:  # a snapshot of the pool: its actions only
                    obs, mask = res.observation[rows], res.action_mask[rows]
                    actions[rows] = policy_step(self.pool_nets[c], obs, mask, self.gen)[0]
                    continue
                idx = np.arange(count, count + rows.size)
                obs, mask = obs_buf[count : count + rows.size], mask_buf[count : count + rows.size]
                np.take(res.observation, rows, axis=0, out=obs)
                np.take(res.action_mask, rows, axis=0, out=mask)
                frames = None
                if self.symmetries is not None:  # each decision seen in a random frame
                    frames = self.sym_rng.integers(len(self.symmetries), size=rows.size)
                    obs[:] = np.take_along_axis(obs, self.symmetries.obs[frames], axis=1)
                    mask[:] = np.take_along_axis(mask, self.symmetries.actions[frames], axis=1)
                forced = None
                if teaching:
                    labels = label_buf[count : count + rows.size]
                    self._label(rows, seat[rows], labels)
                    if self.cfg.teacher_plays > 0:
                        forced = self._forced(labels)
                a, lp, v = policy_step(self.learner, obs, mask, self.gen, forced=forced)
                # the game plays the real action; the transition keeps the frame's
                actions[rows] = a if frames is None else self.symmetries.actions[frames, a]
                prev = last[rows, seat[rows]]
                waiting = prev >= 0
                next_value[prev[waiting]] = v[waiting]  # the seat acts again: bootstrap
                final[prev[waiting]] = True
                last[rows, seat[rows]] = idx
                stream[idx] = rows * p + seat[rows]
                action[idx], logp[idx], value[idx] = a, lp, v
                count += rows.size
                stats.decisions += rows.size
            everyone = np.ones(n, dtype=np.bool_)
            record(actions, everyone)
            t1 = time.perf_counter()
            games.step(actions)
            t2 = time.perf_counter()
            stats.net_time += t1 - t0
            stats.env_time += t2 - t1
            played(everyone)
        self.res = res

        # what is still pending is carried over; the finalised rows go to the update
        self.p_has[:] = last >= 0
        rows = last[self.p_has]
        self.p_obs[self.p_has], self.p_mask[self.p_has] = obs_buf[rows], mask_buf[rows]
        self.p_labels[self.p_has] = label_buf[rows]
        self.p_action[self.p_has], self.p_logp[self.p_has] = action[rows], logp[rows]
        self.p_value[self.p_has], self.p_reward[self.p_has] = value[rows], reward[rows]
        self._drop_unused_snapshots()
        keep = np.flatnonzero(final[:count])
        keep = keep[np.argsort(stream[keep], kind="stable")]  # per stream, in time order
        cont = np.zeros(len(keep), dtype=np.float32)
        if len(keep) > 1:
            same = stream[keep[1:]] == stream[keep[:-1]]
            cont[:-1] = (same & ~over[keep[:-1]]).astype(np.float32)
        batch = Batch(
            obs=obs_buf[keep],
            masks=mask_buf[keep],
            actions=action[keep],
            logps=logp[keep],
            values=value[keep],
            rewards=reward[keep].astype(np.float32),
            dones=done[keep].astype(np.float32),
            next_values=next_value[keep],
            cont=cont,
            teacher_actions=padded_label_rows(label_buf[keep]),
        )
        return batch, stats

    # ------------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict[str, Any]:
        """The collector's state as tensors and plain containers (for ``weights_only`` loads):
        the games' compiled state, who plays each game (its setup), its scripted agents'
        generator, the actions of the games with Python agents, the pending transitions, the
        pool."""
        games = self.games.state_dict() if self.saves_games else None
        has = self.p_has
        setups = []
        for s, taught in zip(self.slots, self.taught.tolist(), strict=True):
            assert s.setup is not None
            setup, teacher = s.setup, self.cfg.teacher if taught else ""
            setups.append([setup.env_seed, setup.agent_seed, list(setup.controllers), teacher])
        agent_rngs = [
            json.dumps(g[0].bit_generator.state)  # type: ignore[union-attr]
            for g in self.agent_gens.generators
        ]
        return {
            "kind": KIND,
            "rng": json.dumps(self.rng.bit_generator.state),
            "teacher_rng": json.dumps(self.teacher_rng.bit_generator.state),
            "teacher_active": self.teacher_active,
            "sym_rng": json.dumps(self.sym_rng.bit_generator.state),
            "games": None
            if games is None
            else {
                "arrays": {k: torch.from_numpy(v) for k, v in games.pop("arrays").items()},
                **games,
            },
            "setups": setups,
            "controllers": [list(s.setup.controllers) if s.setup else [] for s in self.slots],
            "primary": [s.primary for s in self.slots],
            "agent_rngs": agent_rngs,
            "replays": [None if r is None else list(r) for r in self.replays],
            "ended": torch.from_numpy(self.ended.copy()),
            "ep_return": torch.from_numpy(self.ep_return.copy()),
            "length": torch.from_numpy(self.length.copy()),
            "pending": {
                "has": torch.from_numpy(has.copy()),
                "obs": torch.from_numpy(self.p_obs[has]),
                "mask": torch.from_numpy(self.p_mask[has]),
                "labels": torch.from_numpy(self.p_labels[has]),
                "action": torch.from_numpy(self.p_action[has]),
                "logp": torch.from_numpy(self.p_logp[has]),
                "value": torch.from_numpy(self.p_value[has]),
                "reward": torch.from_numpy(self.p_reward[has]),
            },
            **self.pool_state(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore from :meth:`state_dict` (the games continue exactly where they were; the
        Python agents' memory of their games is rebuilt by replaying the games' actions)."""
        if not is_batched_state(state):
            raise ConfigError("the checkpoint's games were collected on the slot path")
        if state["games"] is not None:
            games = dict(state["games"])
            games["arrays"] = {k: v.numpy() for k, v in games["arrays"].items()}
            self.games.load_state_dict(games)
        elif self.saves_games:
            raise ConfigError("the checkpoint holds no state of these games")
        self.ended[:] = state["ended"].numpy()  # which games start on their next step
        self.rng.bit_generator.state = json.loads(state["rng"])
        if "teacher_rng" in state:  # absent in checkpoints of before the batch's teachers
            self.teacher_rng.bit_generator.state = json.loads(state["teacher_rng"])
            self.teacher_active = bool(state["teacher_active"])
            self.sym_rng.bit_generator.state = json.loads(state["sym_rng"])
        self.load_pool_state(state)
        setups = state.get("setups") or [[0, 0, c, ""] for c in state["controllers"]]
        replays = state.get("replays") or [None] * len(setups)
        for i, (entry, primary, actions) in enumerate(
            zip(setups, state["primary"], replays, strict=True)
        ):
            env_seed, agent_seed, controllers, teacher = entry
            s = self.slots[i]
            s.setup = GameSetup(int(env_seed), int(agent_seed), tuple(controllers))
            s.primary = self.primary[i] = int(primary)
            self._seat_agents(i, s.setup, bool(teacher))
            if actions is not None and self.replays[i] is not None:
                self._replay(i, [int(a) for a in actions])
            if "agent_rngs" in state:
                rng = self.agent_gens.generators[i][0]
                assert rng is not None
                rng.bit_generator.state = json.loads(state["agent_rngs"][i])
        self.ep_return[:] = state["ep_return"].numpy()
        self.length[:] = state["length"].numpy()
        pending = state["pending"]
        self.p_has[:] = pending["has"].numpy()
        has = self.p_has
        self.p_obs[has], self.p_mask[has] = pending["obs"].numpy(), pending["mask"].numpy()
        if "labels" in pending:
            self.p_labels[has] = pending["labels"].numpy()
        self.p_action[has], self.p_logp[has] = pending["action"].numpy(), pending["logp"].numpy()
        self.p_value[has] = pending["value"].numpy()
        self.p_reward[has] = pending["reward"].numpy()

    def _replay(self, i: int, actions: list[int]) -> None:
        """Play game ``i``'s ``actions`` again on the game model, asking its Python agents and
        teacher as during the game, so that they remember what they did; a RuntimeError if
        an agent now plays otherwise. Where the batch cannot save its games, its game ``i``
        is played again too (dealt anew, and started unless it waits for its first step)."""
        games, setup = self.games, self.slots[i].setup
        model = games.model
        assert setup is not None
        state = model.new_state(np.random.default_rng(setup.env_seed))
        only = np.arange(games.num_envs) == i
        again = np.zeros(games.num_envs, dtype=np.int64)
        if not self.saves_games:
            games.restart([i], [np.random.default_rng(setup.env_seed)])
            if not self.ended[i]:
                games.step(again, only)  # its first position
        for a in actions:
            seat = model.current_player(state)
            c = int(self.who[i, seat])
            obs = {
                "observation": model.observe_unchecked(state, seat),
                "action_mask": model.legal_mask_unchecked(state),
            }
            agent = self.py_agents[i].get(seat)
            if agent is not None:
                played = int(agent.act(obs, self._view(agent, i, seat, state)))
            elif c <= SCRIPTED:
                form = self.forms[SCRIPTED - c]
                assert form is not None
                draw = self.agent_gens.drawer(np.array([i]), np.zeros(1, dtype=np.int64))
                rows = np.zeros(1, dtype=np.int64)
                played = int(
                    form.act_batch(obs["observation"][None], obs["action_mask"][None], rows, draw)[
                        0
                    ]
                )
            else:
                played = a
                teacher = self.py_teacher[i]
                if c == -1 and teacher is not None:
                    self._python_labels(teacher, obs, self._view(teacher, i, seat, state))
            if played != a:
                raise RuntimeError(
                    f"checkpoint replay diverged: game {i}'s seat {seat} now plays {played}, "
                    f"not {a}"
                )
            model.step_unchecked(state, a)
            if not self.saves_games:
                again[i] = a
                games.step(again, only)
        self.replays[i] = list(actions)
