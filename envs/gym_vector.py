"""Gymnasium vector environments over the compiled batch: the learner's games in one call.

Two ways lead to N single-agent games of a registered id, and they cost very differently:

**The batched path** (``vectorization_mode="vector_entry_point"``, and Gymnasium's default
for these ids, since they register a vector entry point)::

    import gymnasium
    import numpy as np
    import tabletop_rl.envs  # registers the ids

    envs = gymnasium.make_vec("tabletop_rl/Liniell-v0", num_envs=64, opponent="random")
    obs, info = envs.reset(seed=0)
    actions = np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
    obs, rewards, terminated, truncated, info = envs.step(actions)

builds one :class:`SingleAgentVectorEnv`: the N games live in one
:class:`~tabletop_rl.envs.vector.VectorGames` batch (the compiled core of Liniell, Qwirkle
and Qwirkle Cards), a step plays the learners' N moves with one compiled call, then the
opponents' moves, each round of them one compiled call for every game where an opponent is
to move and one call of the opponent's batch form (:mod:`.core.batch_policy`) for all of
them; the compiled cores of all three games play ``random`` opponents inside the learners'
call itself (each opponent's move gets its mask, not its observation: the learner's view is
written once, for the position it meets). Python work per step does not grow with the
games' count, beyond a few array operations. With ``copy=False`` (as Gymnasium's vector
envs' ``copy``) the observation returned is the batch's own buffer, rewritten in place by
the next step, rather than a new array (for 64 Qwirkle games, 5.5 MB not copied a step).

**The one-by-one path** (``vectorization_mode="sync"`` or ``"async"``) builds Gymnasium's
``SyncVectorEnv`` / ``AsyncVectorEnv`` of N :class:`~tabletop_rl.envs.core.SingleAgentEnv`:
one Python environment object per game, each stepping its game and its opponents in Python.
It takes every opponent the arena knows (``heuristic``, ``mcts:...``, ``ppo:PATH``) and the
game's rendering.

What each costs, measured with ``python benchmarks/bench_gym_vector.py --rounds 3 --seconds
3`` (64 games, a random learner against the ``random`` opponent, two players; learner steps
per second, both paths alternated in the same run on a shared 2-core machine, load 3 to 5,
so the ratio is the figure to keep; ``--no-copy``: both paths with ``copy=False``)::

    game              batched   one by one   ratio   ratio, copy=False
    liniell_v0        103,637       14,327    7.2x    8.1x
    qwirkle_v0         24,086        5,566    4.3x    5.5x
    qwirkle_cards_v0   29,170        6,278    4.6x    4.5x

The batched path gains most where the game's compiled step is cheap next to Python's
bookkeeping (Liniell). Where the compiled step itself is most of the one-by-one path's cost,
batching saves the bookkeeping only: with ``copy=False`` the compiled step (the learner's
move, the random opponents' moves with their legal-move generation, the observation) is
about 60% of a batched Qwirkle step (Qwirkle's move generation for every tile laid) and of a
batched Qwirkle Cards step (its turn search for every move), dealing new games in Python
another 13% in Qwirkle Cards; the benchmark's own learner (a random pick over Qwirkle's 9,200
actions) adds another 40% to a Qwirkle step. In the batched Liniell step a third is the
compiled step; the rest is the returned arrays' copies, array bookkeeping and
setting up each new game's generators.

Self-play (:class:`SelfPlayVectorEnv`, and SB3's ``SelfPlayVecEnv``, every seat of every
game one sub-environment) runs on the same batch; ``python benchmarks/bench_gym_vector.py
--self-play`` (SB3's ``SelfPlayVecEnv``, 32 games x 2 seats, game steps per second, against
its game-by-game engine of before, same machine and run)::

    game              batched   one by one   ratio
    liniell_v0        102,826       24,974    4.1x
    qwirkle_cards_v0   29,610        9,341    3.2x
    qwirkle_v0         22,114        9,899    2.2x

A self-play step observes every seat of every game, and SB3 reads every seat's view (a
waiting seat's trains the value function): Liniell updates each seat's view in place, Qwirkle
and Qwirkle Cards write each seat's view whole, straight into the returned array. For
Qwirkle, writing 64 views of 21,424 floats (5.5 MB) is the largest part of the step, and the
benchmark's learner (a random pick over 9,200 actions per slot) costs as much as the
compiled step and the observations together.

**RLlib** (ray 2.60): its single-agent env runner builds its environments with
``gymnasium.make_vec``, so ``config.environment("tabletop_rl/Liniell-v0",
env_config={"opponent": "random"}).env_runners(num_envs_per_env_runner=64,
gym_env_vectorize_mode=gymnasium.VectorizeMode.VECTOR_ENTRY_POINT)`` steps the games through
this batch (the masks are in the infos, not in the observation RLlib's masking module reads).
Its multi-agent env runner, the one self-play (:mod:`tabletop_rl.baselines.rllib`) uses,
does not allow it: RLlib's own ``make_vec`` vectorises a ``MultiAgentEnv`` only as a
``SyncVectorMultiAgentEnv`` of one env object per game, and the runner reads each game's
object while sampling. Measured with ``python benchmarks/rllib_env_cost.py`` (32 games x 2
seats, random legal moves, one run, shared machine): RLlib's vector env steps a game in
54.6 us, the compiled batch (same self-play semantics) in 15.2 us; but the runner's sampling
with the masked PPO module costs 561 us an env step, of which the game's step is a tenth,
so the batch would speed RLlib's self-play sampling up by about a tenth at most.

**Stable-Baselines3**: ``tabletop_rl.baselines.sb3.GymnasiumVecEnv(envs)`` hands the batched
path (made with ``autoreset_mode=AutoresetMode.SAME_STEP``) to SB3 and SB3-contrib's
``MaskablePPO``; ``benchmarks/sb3_maskable_batch.py`` trains it for a wall-clock budget and
reports its learner steps per second and win rates.

Both paths play **the same games**: with the same seeds, opponents and actions, the batched
environment returns what the sync vector environment returns, step for step: observations,
masks, rewards, terminations, truncations and infos (tested at 2, 3 and 4 players, in both
autoreset modes, with opponents inside the batch). The conventions are the single-agent
wrapper's (:mod:`tabletop_rl.envs.core.single_agent`):

- **Seats.** ``learner_seat=0`` (default) or any seat; ``None`` draws the learner's seat for
  every game from that sub-environment's seed.
- **Opponents** move inside the step, until it is the learner's turn or the game is over;
  the reward of a step is everything the learner received since its previous action.
- **Masks.** ``info["action_mask"]`` is the ``(N, A)`` ``int8`` array of the learners' legal
  actions (all zeros for a sub-environment whose episode just ended), and
  :meth:`SingleAgentVectorEnv.action_masks` returns the same; ``call("action_masks")``
  gives them row by row, as the sync vector environment does.
- **Autoreset.** ``autoreset_mode=AutoresetMode.NEXT_STEP`` (default) or ``SAME_STEP``
  (``final_obs`` and ``final_info`` in the infos), or ``DISABLED`` (reset ended
  sub-environments with ``reset(options={"reset_mask": mask})``), as Gymnasium's vector
  environments do. In ``make_vec`` the batched path takes it as a keyword
  (``autoreset_mode=...``); the sync path through ``vector_kwargs``.
- **Seeds.** ``reset(seed=s)`` seeds sub-environment ``i`` with ``s + i`` (a list: one seed
  each), and each draws its learner seat, its game and its opponents' generators as the
  single-agent wrapper does; autoresets continue from those generators. So a seed replays
  every sub-environment exactly as the sync vector environment with the same seeds does.
- **Illegal actions.** ``illegal_action="terminate"`` (default): the sub-environment's
  episode ends with reward -1 and ``info["illegal_action"]``; ``"raise"``: an
  :class:`~tabletop_rl.envs.errors.IllegalActionError` naming the sub-environment, before
  anything is played.

**Opponents in the batch**: ``"random"``; any agent with a batch form (an agent object with
a ``batch_policy()`` method: the baselines' ``random``, ``value:FIELD=W,...`` agents, and
Liniell's ``greedy``, whose value is a feature field, so it needs ``features=True``; Liniell's
batch ``greedy`` breaks ties among every legal action of the best value, where the one-by-one
``greedy`` breaks them among distinct placements, so the two do not play the same games move
for move); a :class:`~.core.batch_policy.BatchPolicy`; or a plain callable
``policy(observation, action_mask) -> action``, called once per game and move in Python (a
slower path, but still inside the batch). Any other opponent (``heuristic``, ``mcts``,
``ppo:PATH``, an agent that reads ``env.public_view``) and ``render_mode`` take the
one-by-one path: :func:`make_vector_env` then returns the sync vector environment and says
so in a warning that names the opponents that batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space
from numpy.random import PCG64, Generator

from .core.batch_policy import BatchPolicy, GameGenerators, RandomPolicy, batch_form
from .core.compiled_random import (
    bitgen_address,
    draw_integers_each,
    pcg64_seed_states,
    set_pcg64_state,
)
from .errors import ConfigError, IllegalActionError
from .vector import VectorGames

AUTORESET_MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED)

BATCH_OPPONENTS = (
    "'random', agents with a batch form (the baselines' random and value:FIELD=W,... agents, "
    "Liniell's greedy with features=True), batch policies and plain callables "
    "policy(observation, action_mask)"
)
"""The opponents the batched path plays inside the batch, for error messages."""


def _autoreset_mode(mode: Any) -> AutoresetMode:
    try:
        return AutoresetMode(mode)
    except ValueError:
        allowed = ", ".join(f"AutoresetMode.{m.name}" for m in AUTORESET_MODES)
        raise ConfigError(f"autoreset_mode={mode!r} is not allowed; allowed: {allowed}") from None


def _seeds(seed: int | Sequence[int | None] | None, n: int) -> list[int | None]:
    """Gymnasium's vector seeds: None for all, ``seed + i``, or one per sub-environment."""
    if seed is None:
        return [None] * n
    if isinstance(seed, int | np.integer) and not isinstance(seed, bool):
        return [int(seed) + i for i in range(n)]
    seeds = list(seed)  # type: ignore[arg-type]
    if len(seeds) != n:
        raise ConfigError(f"reset needs {n} seeds (one per sub-environment), got {len(seeds)}")
    return seeds


def _call_action_masks(env: Any, name: str) -> tuple[np.ndarray, ...]:
    """``env.call(name)`` for the one method a batched vector env's sub-environments have
    (``action_masks``, what MaskablePPO asks for): each sub-environment's mask."""
    if name != "action_masks":
        raise AttributeError(
            f"{type(env).__name__} sub-environments have no method {name!r}; "
            "allowed: 'action_masks'"
        )
    return tuple(env.action_masks())


class SingleAgentVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` single-agent games of ``env_name`` in one compiled batch (module
    docstring): the learner plays ``learner_seat`` of each, ``opponents`` (one batch policy
    per other seat, in seat order around the learner) play the others.

    ``copy`` (as for Gymnasium's vector envs): True (default), the observations returned
    by :meth:`reset` and :meth:`step` are new arrays; False, they are the batch's own
    buffer, the same array every time, rewritten in place by the next :meth:`step` or
    :meth:`reset`: read or copy it before stepping again (it saves copying ``(N, obs)``
    floats a step: 5.5 MB for 64 Qwirkle games). ``info["action_mask"]``, ``final_obs``
    and the other infos are new arrays either way.

    Keyword arguments other than those named go to the game's constructor (``reward``,
    ``features``, ...), as for the single-agent wrapper.
    """

    def __init__(
        self,
        env_name: str,
        num_envs: int,
        opponents: Sequence[Any] | None = None,
        num_players: int = 2,
        learner_seat: int | None = 0,
        illegal_action: str = "terminate",
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        threads: int = 1,
        copy: bool = True,
        **env_kwargs: Any,
    ) -> None:
        if not isinstance(copy, bool):
            raise ConfigError(f"copy={copy!r} is not allowed; allowed: True or False")
        if illegal_action not in ("terminate", "raise"):
            raise ConfigError(
                f"illegal_action={illegal_action!r} is not supported; allowed: 'terminate', 'raise'"
            )
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        reward = env_kwargs.pop("reward", "win")
        self.games = VectorGames(
            env_name, num_envs, num_players, seed=0, threads=threads, reward=reward, **env_kwargs
        )
        n, players = self.games.num_envs, self.games.num_players
        if learner_seat is not None and not (
            isinstance(learner_seat, int | np.integer) and 0 <= learner_seat < players
        ):
            raise ConfigError(
                f"learner_seat={learner_seat!r} is not a seat; allowed: 0 to {players - 1} or None"
            )
        given = ["random"] * (players - 1) if opponents is None else list(opponents)
        if len(given) != players - 1:
            raise ConfigError(
                f"{players}-player game needs {players - 1} opponents, got {len(given)}"
            )
        # one object (or "random") for several seats acts once for all of their games
        forms: dict[int | str, BatchPolicy] = {}
        self._groups: list[tuple[BatchPolicy, np.ndarray]] = []
        for k, opponent in enumerate(given):
            key = opponent if isinstance(opponent, str) else id(opponent)
            if key not in forms:
                form = batch_form(opponent, self.games.model)
                if form is None:
                    raise ConfigError(
                        f"opponent {opponent!r} has no batch form for this environment; the "
                        f"batched path plays {BATCH_OPPONENTS}"
                    )
                forms[key] = form
                self._groups.append((form, np.zeros(0, dtype=np.int64)))
            index = [id(g[0]) for g in self._groups].index(id(forms[key]))
            policy, ks = self._groups[index]
            self._groups[index] = (policy, np.append(ks, k))
        bound = [forms[o if isinstance(o, str) else id(o)] for o in given]
        # random opponents are played inside the compiled step where the backend can
        self._compiled_opponents = self.games.plays_random_opponents and all(
            isinstance(policy, RandomPolicy) for policy, _ in self._groups
        )
        self.env_name = env_name
        self.num_envs = n
        self.num_players = players
        self.illegal_action = illegal_action
        self.copy = copy
        self.opponents = bound
        self.single_observation_space = self.games.single_observation_space
        self.single_action_space = gymnasium.spaces.Discrete(self.games.num_actions)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self.metadata = {"autoreset_mode": self.autoreset_mode, "render_modes": []}
        self.render_mode = None
        self._fixed_seat = learner_seat
        self.seats = np.full(n, 0 if learner_seat is None else int(learner_seat), dtype=np.int64)
        """Each sub-environment's learner seat in its current game."""
        self._generators: list[np.random.Generator | None] = [None] * n
        """Each sub-environment's generator (the single-agent wrapper's ``np_random``)."""
        self._generator_bits = np.zeros(n, dtype=np.intp)
        # generators reused game after game, each given the state default_rng(seed) has
        self._game_rngs = [Generator(PCG64(0)) for _ in range(n)]
        self._opponent_rngs = GameGenerators(n, players - 1)
        for i in range(n):
            self._opponent_rngs.set(i, [Generator(PCG64(0)) for _ in range(players - 1)])
        # what each new game draws from its sub-environment's generator, in order: the
        # learner's seat (when drawn), the game's seed, each opponent's seed
        counts = [players] if learner_seat is None else []
        self._draws = np.array([*counts, 2**31, *[2**63] * (players - 1)], dtype=np.uint64)
        self._running = np.zeros(n, dtype=np.bool_)
        self._ended = np.zeros(n, dtype=np.bool_)
        self._masks = np.zeros((n, self.games.num_actions), dtype=np.int8)
        self._final: dict[int, np.ndarray] = {}
        """The learner's last observation of ended games whose batch row shows another seat."""
        self._started = False
        self._noop = np.zeros(n, dtype=np.int64)

    # ------------------------------------------------------------------ masks
    def action_masks(self) -> np.ndarray:
        """Every sub-environment's legal learner actions, ``(N, A)`` ``int8`` (all zeros once
        its episode is over, until it is reset)."""
        return self._masks.copy()

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """``call("action_masks")``: each sub-environment's mask, as the sync vector env."""
        return _call_action_masks(self, name)

    # ------------------------------------------------------------- games
    def _deal(self, slots: np.ndarray, seeds: Sequence[int | None]) -> None:
        """Deal the next game of each of ``slots`` as the single-agent wrapper's reset does:
        its learner seat, game and opponents' generators drawn from the slot's generator
        (seeded anew where a seed is given), the same numbers in the same order, compiled
        (:mod:`.core.compiled_random`). The games start on the batch's next step."""
        players = self.num_players
        for i, seed in zip(slots.tolist(), seeds, strict=True):
            if seed is not None or self._generators[i] is None:
                self._generators[i] = seeding.np_random(seed)[0]
                self._generator_bits[i] = bitgen_address(self._generators[i])
        draws = np.zeros((slots.size, self._draws.size), dtype=np.int64)
        draw_integers_each(self._generator_bits[slots], self._draws, draws)
        if self._fixed_seat is None:
            self.seats[slots] = draws[:, 0]
        seeds_drawn = draws[:, -players:]  # the game's seed, then each opponent's
        states = np.zeros((seeds_drawn.size, 4), dtype=np.uint64)
        pcg64_seed_states(seeds_drawn.reshape(-1).astype(np.uint64), states)
        states = states.reshape(slots.size, players, 4)
        games = []
        for row, i in enumerate(slots.tolist()):
            set_pcg64_state(self._game_rngs[i], states[row, 0])
            opponents = self._opponent_rngs.generators[i]
            for k in range(players - 1):
                set_pcg64_state(opponents[k], states[row, k + 1])  # type: ignore[arg-type]
            games.append(self._game_rngs[i])
        if not self._started:
            self.games.reset()
            self._started = True
        self.games.restart(slots, games)
        self._ended[slots] = False
        for i in slots.tolist():
            self._final.pop(i, None)

    def _play(self, actions: np.ndarray, moving: np.ndarray, starting: np.ndarray) -> np.ndarray:
        """The learners' ``actions`` in the games ``moving`` and the first position of the
        games ``starting`` (dealt by :meth:`_deal`), in one batch step; then the opponents'
        moves in all of them until it is the learner's turn or the game is over. Returns the
        learners' rewards in the games ``moving`` (everything they received meanwhile)."""
        rows = moving | starting
        seats = self.seats
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        mine = np.flatnonzero(moving)
        if self._compiled_opponents:  # the moves and the random opponents' in one call
            out = self.games.step_versus_random(actions, rows, seats, self._opponent_rngs)
        else:
            out = self.games.step(actions, rows)
        rewards[mine] += out.rewards[mine, seats[mine]]
        picks = np.zeros(self.num_envs, dtype=np.int64)
        while not self._compiled_opponents:
            waiting = rows & ~(out.terminated | out.truncated) & (out.current_player != seats)
            if not waiting.any():
                break
            movers = np.flatnonzero(waiting)
            current = out.current_player[movers]
            opponent = current - (current > seats[movers])
            for policy, ks in self._groups:
                group = slice(None) if len(self._groups) == 1 else np.isin(opponent, ks)
                games, of = movers[group], opponent[group]
                if games.size:
                    draw = self._opponent_rngs.drawer(games, of)
                    picks[games] = policy.act_batch(out.observation, out.action_mask, games, draw)
            self.games.step(picks, waiting)
            mine = movers[moving[movers]]
            rewards[mine] += out.rewards[mine, seats[mine]]
        if rows.all():  # a plain copy: ten times faster than copyto(where=) on big masks
            np.copyto(self._masks, out.action_mask)
        else:
            self._masks[rows] = out.action_mask[rows]
        over = rows & (out.terminated | out.truncated)
        for i in np.flatnonzero(over & (out.current_player != seats)).tolist():
            # the batch shows the seat to act; the learner's last view is observed for it
            self._final[i] = self.games.observe(i, int(seats[i]))
        self._masks[over] = 0
        self._running[rows] = ~over[rows]  # a game over before the learner's first move too
        return rewards

    def _observations(self) -> np.ndarray:
        """Every sub-environment's learner observation: the batch's rows (a game waits at
        its learner's turn, or shows its end), the learner's view patched in where an ended
        game shows another seat. A new array with ``copy``; else the batch's own buffer,
        patched in place (an ended game's row is written whole when its next game starts)."""
        observation = self.games._result.observation
        if self.copy:
            observation = observation.copy()
        for i, final in self._final.items():
            observation[i] = final
        return observation

    def _info(self, rows: np.ndarray | None = None) -> dict[str, Any]:
        """The sub-environments' infos, as Gymnasium's vector envs group them; with ``rows``,
        those of ``rows`` only (the others' entries zero and unmarked)."""
        n = self.num_envs
        info: dict[str, Any] = {"action_mask": self._masks.copy()}
        info.update(self.games.player_info(self.seats))
        marked = np.ones(n, dtype=np.bool_) if rows is None else rows
        return _grouped(info, marked)

    # ------------------------------------------------------------- the API
    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset every sub-environment (or those of ``options["reset_mask"]``)."""
        seeds = _seeds(seed, self.num_envs)
        rows = np.ones(self.num_envs, dtype=np.bool_)
        if options is not None and "reset_mask" in options:
            rows = np.asarray(options["reset_mask"])
            if rows.shape != (self.num_envs,) or rows.dtype != np.bool_ or not rows.any():
                raise ConfigError(
                    f"options['reset_mask'] must be {self.num_envs} bools, at least one True"
                )
        slots = np.flatnonzero(rows)
        self._deal(slots, [seeds[i] for i in slots])
        self._play(self._noop, np.zeros_like(rows), rows)
        return self._observations(), self._info(rows)

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One learner move in every sub-environment (a sub-environment whose episode ended on
        the step before starts its next one instead, with ``AutoresetMode.NEXT_STEP``)."""
        n = self.num_envs
        actions = np.asarray(actions)
        if actions.shape != (n,) or not np.issubdtype(actions.dtype, np.integer):
            raise IllegalActionError(
                f"actions must be {n} integers (one per sub-environment), got shape "
                f"{actions.shape} of {actions.dtype}"
            )
        starting = self._ended & (self.autoreset_mode == AutoresetMode.NEXT_STEP)
        stale = np.flatnonzero(~starting & ~self._running)
        if stale.size:
            raise IllegalActionError(
                f"sub-environment {int(stale[0])}: step() called after its episode ended; "
                "reset it first (options={'reset_mask': ...})"
            )
        num_actions = self._masks.shape[1]
        in_range = (actions >= 0) & (actions < num_actions)
        legal = in_range & (self._masks[np.arange(n), np.where(in_range, actions, 0)] == 1)
        illegal = ~starting & ~legal
        if illegal.any() and self.illegal_action == "raise":
            i = int(np.flatnonzero(illegal)[0])
            raise IllegalActionError(
                f"sub-environment {i}: action {int(actions[i])} is not legal now (its "
                "action-mask entry is 0, or it is out of range)"
            )
        if starting.any():
            slots = np.flatnonzero(starting)
            self._deal(slots, [None] * slots.size)
        moving = ~starting & legal
        out = self.games._result
        rewards = self._play(np.where(moving, actions, 0), moving, starting)
        over = moving & (out.terminated | out.truncated)
        terminated = over & out.terminated
        truncated = over & out.truncated
        rewards[illegal] = -1.0
        terminated |= illegal
        ended = terminated | truncated
        self._masks[illegal] = 0
        self._running[illegal] = False
        self._ended[:] = ended
        info = self._info()
        if illegal.any():
            reasons = np.full(n, None, dtype=object)
            for i in np.flatnonzero(illegal).tolist():
                reasons[i] = f"action {int(actions[i])} is not legal now"
            info["illegal_action"], info["_illegal_action"] = reasons, illegal.copy()
        observation = self._observations()
        if self.autoreset_mode == AutoresetMode.SAME_STEP and ended.any():
            # as Gymnasium's sync vector env: the last observation and info go to final_obs
            # and final_info, and the sub-environment is reset at once
            final_obs = np.full(n, None, dtype=object)
            for i in np.flatnonzero(ended).tolist():
                final_obs[i] = observation[i].copy()  # the reset below rewrites the row
            final_info = _grouped({k: v for k, v in info.items() if k[0] != "_"}, ended, info)
            slots = np.flatnonzero(ended)
            self._deal(slots, [None] * slots.size)
            self._play(self._noop, np.zeros_like(ended), ended)
            info = self._info()
            info["final_obs"], info["_final_obs"] = final_obs, ended.copy()
            info["final_info"], info["_final_info"] = final_info, ended.copy()
            observation = self._observations()
        return observation, rewards, terminated, truncated, info

    def close_extras(self, **kwargs: Any) -> None:
        self.games.close()


def _grouped(
    entries: dict[str, np.ndarray], rows: np.ndarray, marks: dict[str, Any] | None = None
) -> dict[str, Any]:
    """``entries`` (one array per key, a row per sub-environment) as Gymnasium's vector envs
    give infos: each key's rows of ``rows`` (and of ``marks["_key"]``, where given), the
    others zero (None for objects), with the ``_key`` array saying which rows are set."""
    out: dict[str, Any] = {}
    for key, values in entries.items():
        set_rows = rows if marks is None else rows & marks[f"_{key}"]
        if marks is not None and not set_rows.any():
            continue
        if set_rows.all():
            kept = values
        else:
            kept = np.full_like(values, None) if values.dtype == object else np.zeros_like(values)
            kept[set_rows] = values[set_rows]
        out[key], out[f"_{key}"] = kept, set_rows.copy()
    return out


class SelfPlayVectorEnv(gymnasium.vector.VectorEnv):
    """Self-play as a Gymnasium vector environment: every seat of ``num_games`` games of
    ``env_name`` is one sub-environment (slot ``game * num_players + seat``), so one learner
    makes every seat's decisions and each slot gets exactly the rewards the game gave its
    seat. The rules (waiting seats send the one action their mask allows, rewards,
    discounting, illegal actions) are those of :mod:`tabletop_rl.envs.core.self_play`; the
    games run in one compiled batch (:class:`~tabletop_rl.envs.core.self_play.SelfPlayBatch`).

    Autoreset is ``SAME_STEP``: when a game ends, every slot of it reports ``terminated``
    (or ``truncated``) and the returned observation and mask are the next game's; the last
    observations are in ``info["final_obs"]`` and the last infos (the game's per-player
    entries, ``illegal_action`` where one ended it) in ``info["final_info"]``.
    ``info["action_mask"]`` and :meth:`action_masks` give every slot's mask. ``reset(seed=s)``
    seeds the whole batch (one int; the games' deals are drawn from it in order).

    >>> envs = SelfPlayVectorEnv("liniell_v0", num_games=2, num_players=3)
    >>> obs, info = envs.reset(seed=0)
    >>> obs.shape[0], envs.num_envs, info["action_mask"].sum(axis=1).tolist()
    (6, 6, [1, 4, 1, 1, 1, 4])
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        env_name: str,
        num_games: int = 1,
        num_players: int = 2,
        threads: int = 1,
        **env_kwargs: Any,
    ) -> None:
        from .core.self_play import SelfPlayBatch

        self.games = SelfPlayBatch(env_name, num_games, num_players, threads, **env_kwargs)
        self.env_name = env_name
        self.num_envs = self.games.num_slots
        self.single_observation_space = self.games.observation_space
        self.single_action_space = self.games.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None

    def action_masks(self) -> np.ndarray:
        """Every slot's mask, ``(slots, A)`` ``int8`` (a waiting seat's allows action 0)."""
        return self.games.action_masks()

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """``call("action_masks")``: each slot's mask."""
        return _call_action_masks(self, name)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start every game afresh (``seed``: one int for the whole batch, or None)."""
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int | np.integer)):
            raise ConfigError(f"seed={seed!r}: self-play takes one int seed for all its games")
        if options:
            raise ConfigError("self-play's reset takes no options (its games reset together)")
        obs, masks = self.games.reset(seed=seed)
        ones = np.ones(self.num_envs, dtype=np.bool_)
        return obs, {"action_mask": masks, "_action_mask": ones}

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        obs, rewards, terminated, truncated, slot_infos = self.games.step(actions)
        info: dict[str, Any] = {
            "action_mask": self.games.action_masks(),
            "_action_mask": np.ones(self.num_envs, dtype=np.bool_),
        }
        for slot in np.flatnonzero(terminated | truncated).tolist():
            entry = slot_infos[slot]
            last = dict(entry["final_info"])
            last["action_mask"] = np.zeros_like(info["action_mask"][slot])
            if "illegal_action" in entry:
                last["illegal_action"] = entry["illegal_action"]
            info = self._add_info(info, {"final_obs": entry["final_obs"], "final_info": last}, slot)
        return obs, rewards.astype(np.float64), terminated, truncated, info

    def close_extras(self, **kwargs: Any) -> None:
        self.games.close()


def make_vector_env(
    num_envs: int,
    env_name: str,
    opponent: Any = "random",
    num_players: int = 2,
    learner_seat: int | None = 0,
    illegal_action: str = "terminate",
    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    threads: int = 1,
    copy: bool = True,
    **env_kwargs: Any,
) -> gymnasium.vector.VectorEnv:
    """The vector entry point of the Gymnasium ids (``gymnasium.make_vec``): the batched
    :class:`SingleAgentVectorEnv` when every opponent has a batch form, else the sync
    vector environment of single-agent wrappers, with a warning (module docstring).

    ``opponent`` is one opponent for every other seat or one per other seat: ``"random"``,
    an agent spec (resolved as the single-agent wrapper resolves it), an agent object, a
    batch policy or a callable. ``copy=False``: the observations returned are the vector
    env's own buffer, rewritten by the next step (:class:`SingleAgentVectorEnv`; the sync
    vector env's ``copy`` alike).
    """
    from .registry import _opponent_agents, make, make_single_agent

    mode = _autoreset_mode(autoreset_mode)
    reason = ""
    opponents: list[Any] | None = None
    if "render_mode" in env_kwargs:
        reason = "render_mode is drawn by the single-agent wrapper only"
    else:
        model = make(env_name, raw=True, num_players=num_players, **env_kwargs).model
        count = model.num_players - 1
        if isinstance(opponent, str) and opponent == "random":
            opponents = ["random"] * count
        else:
            agents = _opponent_agents(opponent, env_name, count)
            specs = [opponent] * count if isinstance(opponent, str) else list(opponent)
            if isinstance(opponent, str):
                agents = [agents[0]] * count  # one agent object: its batch form acts once
            pairs = zip(specs, agents, strict=True)
            missing = [spec for spec, agent in pairs if batch_form(agent, model) is None]
            if missing:
                reason = f"opponent {missing[0]!r} has no batch form for this environment"
            else:
                opponents = agents
    if opponents is not None:
        return SingleAgentVectorEnv(
            env_name,
            num_envs,
            opponents,
            num_players=num_players,
            learner_seat=learner_seat,
            illegal_action=illegal_action,
            autoreset_mode=mode,
            threads=threads,
            copy=copy,
            **env_kwargs,
        )
    gymnasium.logger.warn(
        f"{reason}: stepping {num_envs} single-agent environments one by one "
        f"(SyncVectorEnv, several times slower per step); the batch plays {BATCH_OPPONENTS}"
    )

    def single() -> gymnasium.Env:
        return make_single_agent(
            env_name,
            opponent=opponent,
            num_players=num_players,
            learner_seat=learner_seat,
            illegal_action=illegal_action,
            **env_kwargs,
        )

    return gymnasium.vector.SyncVectorEnv([single] * num_envs, autoreset_mode=mode, copy=copy)


__all__ = [
    "AUTORESET_MODES",
    "BATCH_OPPONENTS",
    "SelfPlayVectorEnv",
    "SingleAgentVectorEnv",
    "make_vector_env",
]
