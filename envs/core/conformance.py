"""A public conformance check that every environment of the suite passes.

:func:`check_env` runs PettingZoo's own API test and then random playouts that check what
this suite promises beyond it: masks are never empty while a game runs, masked actions are
accepted and unmasked ones rejected, observations lie in their spaces, every game ends within
``info.max_game_length`` agent steps, the same seed gives the same trajectory, and deep-copied
and pickled environments continue exactly like the original. A game that declares symmetries
(``env.symmetries()``) must declare a group of the right sizes whose transformed observations
still lie in the observation space.

Engine invariants: a game's engine object (the raw environment's game state) may declare
``check_invariants()``, raising :class:`~tabletop_rl.envs.errors.InvariantError` naming a
broken invariant (tile and card conservation, a valid table between turns, no two pawns on
one line outside a compulsory move, counters in range), and ``monotone_scores()``, the
per-player scores the rules never decrease. The playouts call both after the reset and after
every step (:func:`check_invariants`), and check that scores never fall.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from pettingzoo import AECEnv

from ..errors import IllegalActionError, InvariantError
from .aec import TabletopAECEnv

EnvFactory = Callable[[], TabletopAECEnv]


def _snapshot(env: AECEnv) -> tuple:
    obs = env.observe(env.agent_selection)
    return (
        env.agent_selection,
        obs["observation"].tobytes(),
        obs["action_mask"].tobytes(),
        tuple(sorted(env._cumulative_rewards.items())),
    )


def game_of(env: AECEnv) -> Any:
    """The engine object behind an environment (raw or wrapped): its game state."""
    raw = env.unwrapped
    return raw.model.engine_state(raw.game_state)


def check_invariants(env: AECEnv, scores_before: Sequence[float] = ()) -> tuple[float, ...]:
    """Run the engine's invariant hook (if the game declares one) and check that no
    ``monotone_scores()`` fell below ``scores_before``; return the scores for the next call.

    Raises :class:`InvariantError` naming the broken invariant.
    """
    raw = env.unwrapped
    raw.model.check_invariants(raw.game_state)
    scores = raw.model.monotone_scores(raw.game_state)
    if scores_before and any(a < b for a, b in zip(scores, scores_before, strict=True)):
        raise InvariantError(f"a score fell: {list(scores_before)} became {list(scores)}")
    return scores


def random_playout(
    env: TabletopAECEnv, rng: np.random.Generator, seed: int, check: bool = True
) -> list[tuple]:
    """Play one uniformly random game from ``reset(seed)``; return its trace of snapshots.

    With ``check``, every promise of the module docstring is checked along the way, the
    engine's invariants included; a broken one raises naming the seed and the step.
    """
    env.reset(seed=seed)
    trace = []
    steps = 0
    scores = _invariants(env, (), seed, steps) if check else ()
    space = env.observation_space(env.possible_agents[0])["observation"]
    sym = env.symmetries() if check else None
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        obs = env.observe(agent)
        mask = obs["action_mask"]
        legal = np.flatnonzero(mask)
        if check:
            assert legal.size > 0, f"empty action mask for {agent} in a running game"
            assert space.contains(obs["observation"]), "observation outside its space"
            if sym is not None:  # the observation seen in every frame of the symmetries
                for g, name in enumerate(sym.names):
                    seen = sym.transform_obs(g, obs["observation"])
                    assert space.contains(seen), f"observation in frame {name} outside its space"
            illegal = np.flatnonzero(mask == 0)
            if illegal.size:
                bad = int(rng.choice(illegal))
                try:
                    env.step(bad)
                except IllegalActionError:
                    pass
                else:
                    raise AssertionError(f"unmasked action {bad} was accepted")
        trace.append(_snapshot(env))
        env.step(int(rng.choice(legal)))
        steps += 1
        assert steps <= env.info.max_game_length, (
            f"game exceeded info.max_game_length ({env.info.max_game_length}) with seed {seed}"
        )
        if check:
            scores = _invariants(env, scores, seed, steps)
    return trace


def _invariants(env: AECEnv, scores: Sequence[float], seed: int, steps: int) -> tuple:
    try:
        return check_invariants(env, scores)
    except InvariantError as exc:
        raise InvariantError(
            f"{env.unwrapped.info.name}, {env.unwrapped.num_players} players, seed {seed}, "
            f"after {steps} steps: {exc}"
        ) from exc


def random_positions(env: AECEnv, games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The observations and action masks at every decision of ``games`` games of masked random
    play (game ``g`` reset with ``seed + g``, the moves drawn from ``default_rng(seed)``): real
    positions for tests and benchmarks of networks."""
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    for game in range(games):
        env.reset(seed=seed + game)
        while not any(env.terminations.values()) and not any(env.truncations.values()):
            o = env.observe(env.agent_selection)
            obs.append(o["observation"])
            masks.append(o["action_mask"])
            env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return np.stack(obs), np.stack(masks)


def random_continuation(env: AECEnv, seed: int, steps: int) -> list[tuple]:
    """Play up to ``steps`` uniformly random legal actions from where ``env`` stands (raw or
    wrapped); return the trace of snapshots. Two copies of one environment give the same
    trace for the same ``seed``: the way copies (deepcopy, pickle, another process) are
    compared."""
    rng = np.random.default_rng(seed)
    trace = []
    for _ in range(steps):
        if not env.agents:
            break
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        mask = env.observe(agent)["action_mask"]
        trace.append(_snapshot(env))
        env.step(int(rng.choice(np.flatnonzero(mask))))
    return trace


def check_clone(env: TabletopAECEnv, seed: int, steps: int) -> None:
    """Copies (deepcopy and pickle) made mid-game continue exactly like the original."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in range(steps):
        if not env.agents or env.terminations[env.agent_selection]:
            return
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
    clones = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    for clone in clones:
        assert _snapshot(clone) == _snapshot(env)
    actions_rng = np.random.default_rng(seed + 1)
    while env.agents and not (
        env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
    ):
        action = int(actions_rng.choice(np.flatnonzero(env.action_mask())))
        for e in [env, *clones]:
            e.step(action)
        for clone in clones:
            assert _snapshot(clone) == _snapshot(env), "clone diverged from the original"


def check_symmetries(env: TabletopAECEnv) -> None:
    """The declared symmetries (if any): sizes, and closure under composition (the observation
    and action maps of each pair composing to the same element). :func:`random_playout` checks
    that transformed observations stay in the observation space."""
    sym = env.symmetries()
    if sym is None:
        return
    n_obs, n_act = env.layout.size, env.info.num_actions
    assert sym.obs.shape == (len(sym), n_obs), f"obs maps {sym.obs.shape}, need (G, {n_obs})"
    assert sym.actions.shape == (len(sym), n_act), f"action maps need (G, {n_act})"
    elements = {
        (tuple(o), tuple(a)): k for k, (o, a) in enumerate(zip(sym.obs, sym.actions, strict=True))
    }
    for g in range(len(sym)):
        for h in range(len(sym)):
            both = (tuple(sym.obs[g][sym.obs[h]]), tuple(sym.actions[g][sym.actions[h]]))
            assert both in elements, f"{sym.names[g]} after {sym.names[h]} is not in the group"


def check_env(env_fn: EnvFactory, games: int = 5, seed: int = 0) -> None:
    """Run the suite's conformance check on environments built by ``env_fn`` (raw envs)."""
    from pettingzoo.test import api_test

    api_test(env_fn(), num_cycles=1000, verbose_progress=False)
    env = env_fn()
    rng = np.random.default_rng(seed)
    for g in range(games):
        random_playout(env, rng, seed=seed + g)
    # determinism: same seed and same action sequence give the same trajectory
    a = random_playout(env_fn(), np.random.default_rng(seed), seed=seed, check=False)
    b = random_playout(env_fn(), np.random.default_rng(seed), seed=seed, check=False)
    assert a == b, "same seed and actions gave different trajectories"
    check_clone(env_fn(), seed=seed, steps=7)
    check_symmetries(env_fn())


def check_batch(
    name: str,
    num_envs: int = 3,
    num_players: int = 2,
    steps: int = 60,
    seed: int = 0,
    **env_kwargs: Any,
) -> int:
    """The batched API keeps its promise for environment ``name``: a batch of ``num_envs``
    games (:class:`~tabletop_rl.envs.vector.VectorGames`) equals as many single games of the
    game model dealt from the same seeds and stepped with the same (random legal) actions —
    observations, masks, players to act, rewards (``reward="score"``), ends, outcomes and
    final scores, through autoresets. ``env_kwargs`` are the environment's options, given to
    both. Returns how many games ended along the way."""
    from ..registry import make
    from ..vector import VectorGames

    games = VectorGames(
        name, num_envs=num_envs, num_players=num_players, seed=seed, reward="score", **env_kwargs
    )
    model = make(name, raw=True, num_players=num_players, **env_kwargs).model
    rngs = [np.random.default_rng([seed, i]) for i in range(num_envs)]
    states = [model.new_state(r) for r in rngs]
    done = [False] * num_envs
    out = games.reset()
    pick = np.random.default_rng(seed + 1)
    finished = 0
    for _ in range(steps):
        for i, state in enumerate(states):
            player = model.current_player(state)
            assert out.current_player[i] == player, f"game {i}: player to act differs"
            assert np.array_equal(out.observation[i], model.observe(state, player)), (
                f"game {i}: observation differs"
            )
            if not done[i]:
                assert np.array_equal(out.action_mask[i], model.legal_mask(state)), (
                    f"game {i}: action mask differs"
                )
        actions = np.argmax(pick.random(out.action_mask.shape) * out.action_mask, axis=1)
        out = games.step(actions)
        for i in range(num_envs):
            if done[i]:  # the slot starts its next game on this step
                states[i], done[i] = model.new_state(rngs[i]), False
                assert not out.terminated[i] and not out.rewards[i].any()
                continue
            result = model.step(states[i], int(actions[i]))
            expected = np.zeros(num_players, dtype=np.float32)
            for p, points in result.points.items():
                expected[p] += points
            assert np.array_equal(out.rewards[i], expected), f"game {i}: rewards differ"
            assert out.terminated[i] == result.game_over and out.truncated[i] == result.truncated
            if result.game_over or result.truncated:
                done[i] = True
                finished += 1
                assert out.action_mask[i].all(), "a finished game's mask row must be all ones"
                assert games.outcome(i) == model.outcome(states[i]), f"game {i}: outcome differs"
                assert np.array_equal(out.episode_scores[i], model.scores(states[i]))
    return finished
