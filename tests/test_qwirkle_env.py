"""qwirkle_v0: exact masks (against the brute-force oracle), hidden information, window, rewards."""

from __future__ import annotations

import copy
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop_rl.envs import ConfigError, IllegalActionError, make, qwirkle_v0
from tabletop_rl.envs.qwirkle import first_turn_moves, legal_moves

sys.path.insert(0, str(Path(__file__).parent))
from test_qwirkle_oracle import oracle_moves


def random_steps(env: qwirkle_v0.raw_env, rng: np.random.Generator, steps: int) -> None:
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))


def reachable_turns(env: qwirkle_v0.raw_env) -> set[frozenset]:
    """Every complete turn reachable through the masks from the current (turn-start) state."""
    env = copy.deepcopy(env)
    hand = env.game_state.game.hand
    found: set[frozenset] = set()
    seen: set[frozenset] = set()

    def dfs() -> None:
        key = frozenset(env.game_state.turn.pending.items())
        if key in seen:
            return
        seen.add(key)
        mask = env.model.legal_mask(env.game_state)
        end = env.model.codec.end
        if env.game_state.turn.pending and not env.game_state.game.first_turn:
            # every sequence of legal sub-actions can end here, in a legal move
            assert mask[end] == 1
        if mask[end]:
            move = [(r, c, hand[s]) for r, c, s in env.game_state.turn.order]
            assert env.game_state.game.explain_move(move) is None
            found.add(key)
        for action in np.flatnonzero(mask[:end]):
            saved = env.game_state.turn.copy()
            env.model.step(env.game_state, int(action))  # a placement changes only the turn
            dfs()
            env.game_state.turn = saved

    dfs()
    return found


def test_first_turn_masks_give_exactly_the_start_rows() -> None:
    for seed in range(4):
        env = qwirkle_v0.raw_env(engine="reference")
        env.reset(seed=seed)
        state = env.game_state.game
        mask = env.action_mask()
        assert not mask[env.model.codec.end :].any(), (
            "no exchange, pass or end turn before the start row"
        )
        expected = {frozenset(((r, c), t) for r, c, t in m) for m in first_turn_moves(state.hand)}
        assert reachable_turns(env) == expected


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(2, 30))
def test_masks_reach_exactly_the_legal_moves(seed: int, steps: int) -> None:
    env = qwirkle_v0.raw_env(engine="reference")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    random_steps(env, rng, steps)
    # finish the turn in progress so that the comparison starts at a turn start
    while env.agents and env.game_state.turn.pending:
        mask = env.action_mask()
        env.step(env.model.codec.end if mask[env.model.codec.end] else int(np.flatnonzero(mask)[0]))
    if not env.agents or env.terminations[env.agent_selection] or env.game_state.game.first_turn:
        return
    state = env.game_state.game
    assert env.lost_moves() == 0
    expected = oracle_moves(state.board, state.hand)
    assert reachable_turns(env) == expected
    mask = env.action_mask()
    assert bool(mask[env.model.codec.end + 1 : env.model.codec.pass_action].any()) == (
        state.max_exchange() > 0
    )
    assert bool(mask[env.model.codec.pass_action]) == state.must_pass()


def test_exchange_mask_follows_the_bag() -> None:
    env = qwirkle_v0.raw_env(engine="reference")
    env.reset(seed=2)
    env.step(int(np.flatnonzero(env.action_mask())[0]))
    while env.game_state.turn.pending or env.game_state.game.first_turn:
        env.step(int(np.flatnonzero(env.action_mask())[-1]))
    state = env.game_state.game
    state.bag = state.bag[:2]
    codec = env.model.codec
    ex = env.model.legal_mask(env.game_state)[codec.end + 1 : codec.pass_action]
    sizes = [bin(m).count("1") for m in range(1, 64)]
    assert [bool(x) for x in ex] == [n <= 2 for n in sizes]
    with pytest.raises(IllegalActionError, match="cannot exchange 3 tiles .* at most 2"):
        env.step(env.model.codec.end + 0b111)
    env.step(env.model.codec.end + 0b11)
    assert len(env.game_state.game.bag) == 2


def test_no_exchange_after_laying_a_tile() -> None:
    env = qwirkle_v0.raw_env(engine="reference")
    env.reset(seed=5)
    random_steps(env, np.random.default_rng(0), 12)
    while not env.game_state.turn.pending:
        placements = np.flatnonzero(env.action_mask()[: env.model.codec.end])
        if placements.size:
            env.step(int(placements[0]))
        else:
            env.step(int(np.flatnonzero(env.action_mask())[0]))
    assert not env.action_mask()[env.model.codec.end + 1 :].any()
    with pytest.raises(IllegalActionError, match="exchange only at the start of a turn"):
        env.step(env.model.codec.end + 1)


def _play(env: qwirkle_v0.raw_env, rng: np.random.Generator, check) -> None:
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        check(env)
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(2, 4))
def test_tiles_conserved_and_hidden_information_never_shows(seed: int, players: int) -> None:
    env = qwirkle_v0.raw_env(num_players=players, engine="reference")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    step = [0]

    def check(env: qwirkle_v0.raw_env) -> None:
        count = env.game_state.game.tile_count()
        assert sum(count.values()) == 108
        step[0] += 1
        if step[0] % 41:
            return
        before = {a: env.observe(a)["observation"] for a in env.possible_agents}
        for agent in env.possible_agents:
            clone = copy.deepcopy(env)
            clone.resample_hidden(agent, np.random.default_rng(step[0]))
            assert sum(clone.game_state.game.tile_count().values()) == 108
            after = clone.observe(agent)["observation"]
            assert np.array_equal(after, before[agent]), f"{agent}'s observation changed"
            assert (
                clone.game_state.game.hands[env.possible_agents.index(agent)]
                == env.game_state.game.hands[env.possible_agents.index(agent)]
            )

    _play(env, rng, check)
    assert env.game_state.game.finished


def test_observation_fields_say_what_the_player_sees() -> None:
    env = qwirkle_v0.raw_env(num_players=3, engine="reference")
    env.reset(seed=4)
    random_steps(env, np.random.default_rng(1), 25)
    agent = env.agent_selection
    player = env.possible_agents.index(agent)
    view = env.layout.decode(env.observe(agent)["observation"])
    state = env.game_state.game
    hand = [t for s, t in enumerate(state.hand) if not env.game_state.turn.used >> s & 1]
    assert view["hand_colour"].sum() == len(hand)
    assert view["scores"][:3].tolist() == [state.scores[(player + i) % 3] for i in range(3)]
    assert view["seated"].tolist() == [1, 1, 1, 0]
    assert view["to_act"][0] == 1
    assert view["bag_size"][0] == len(state.bag)
    assert view["unseen"].tolist() == state.unseen_counts(player).tolist()
    assert view["unseen"].sum() == len(state.bag) + sum(
        len(h) for p, h in enumerate(state.hands) if p != player
    )
    board = view["board"]
    assert board[12].sum() == len(state.board) + len(env.game_state.turn.pending)
    assert board[13].sum() == len(env.game_state.turn.pending)
    assert (board[:6].sum(axis=0) == board[12]).all() and (
        board[6:12].sum(axis=0) == board[12]
    ).all()


def test_public_view_holds_no_hidden_information() -> None:
    env = qwirkle_v0.raw_env(engine="reference")
    env.reset(seed=8)
    random_steps(env, np.random.default_rng(3), 10)
    other = next(a for a in env.possible_agents if a != env.agent_selection)
    view = env.public_view(other)
    assert view.hand == tuple(env.game_state.game.hands[env.possible_agents.index(other)])
    assert view.bag_size == len(env.game_state.game.bag)
    text = repr(view)
    assert "bag=" not in text and "hands=" not in text
    assert sum(view.unseen) == len(env.game_state.game.bag) + len(env.game_state.game.hand)


def test_same_seed_same_trajectory_and_clones_continue_alike() -> None:
    def trajectory(env: qwirkle_v0.raw_env) -> list[bytes]:
        rng = np.random.default_rng(0)
        out = []
        while env.agents and not env.terminations[env.agent_selection]:
            obs = env.observe(env.agent_selection)
            out.append(obs["observation"].tobytes() + obs["action_mask"].tobytes())
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            if len(out) > 300:
                break
        return out

    a, b = qwirkle_v0.raw_env(engine="reference"), qwirkle_v0.raw_env(engine="reference")
    a.reset(seed=11)
    b.reset(seed=11)
    assert trajectory(a) == trajectory(b)
    env = qwirkle_v0.raw_env(engine="reference")
    env.reset(seed=12)
    random_steps(env, np.random.default_rng(5), 40)
    if not env.game_state.turn.pending:  # lay a tile so that the copies are made mid-turn
        env.step(int(np.flatnonzero(env.action_mask()[: env.model.codec.end])[0]))
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    originals = trajectory(copy.deepcopy(env))
    assert all(trajectory(c) == originals for c in copies)


def test_score_rewards_add_up_to_the_scores() -> None:
    env = qwirkle_v0.raw_env(reward="score", engine="reference")
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        agent = env.agent_selection
        for a in env.agents:
            totals[a] += env.rewards[a]
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
    assert [totals[a] for a in env.possible_agents] == env.game_state.game.scores


def test_turn_limit_truncates_with_zero_reward() -> None:
    env = qwirkle_v0.raw_env(max_turns=4, engine="reference")
    assert env.info.max_game_length == 7 * 4
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    steps = 0
    while not any(env.truncations.values()):
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
        steps += 1
    assert env.game_state.game.turns == 4 and steps <= 28
    assert all(r == 0 for r in env.rewards.values())


def test_small_window_counts_the_moves_it_hides() -> None:
    env = qwirkle_v0.raw_env(window=13, engine="reference")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    lost_seen = 0
    while (
        env.agents and not env.terminations[env.agent_selection] and env.game_state.game.turns < 150
    ):
        if not env.game_state.turn.pending and not env.game_state.game.first_turn:
            state = env.game_state.game
            o0, o1 = env.game_state.origin
            hidden = sum(
                1
                for m in legal_moves(state.board, state.hand)
                if not all(0 <= r - o0 < 13 and 0 <= c - o1 < 13 for r, c, _ in m)
            )
            assert env.lost_moves() == hidden
            lost_seen += hidden
        mask = env.action_mask()
        placements = np.flatnonzero(mask[: env.model.codec.end])
        action = placements[0] if placements.size and rng.random() < 0.8 else None
        env.step(int(action) if action is not None else int(rng.choice(np.flatnonzero(mask))))
    total = sum(env.infos[a]["lost_moves"] for a in env.possible_agents)
    assert lost_seen > 0 and total > 0


def test_options_are_checked() -> None:
    with pytest.raises(ConfigError, match="window=40 must be odd"):
        qwirkle_v0.raw_env(window=40, engine="reference")
    with pytest.raises(ConfigError, match="max_turns=0 is not allowed; allowed: an int from 1"):
        qwirkle_v0.raw_env(max_turns=0, engine="reference")
    for engine in ("reference", "compiled"):  # an int64 counter: not a C overflow
        with pytest.raises(ConfigError, match=r"max_turns=\d+ is not allowed"):
            qwirkle_v0.raw_env(max_turns=10**20, engine=engine)
        with pytest.raises(ConfigError, match="window=1001 is not allowed; .* 13 to 217"):
            qwirkle_v0.raw_env(window=1001, engine=engine)
    env = make("qwirkle_v0", raw=True, window=21)
    assert env.info.num_actions == 6 * 21 * 21 + 65
    assert env.action_layout().size == env.info.num_actions


def test_illegal_actions_say_why() -> None:
    env = qwirkle_v0.raw_env(engine="reference")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="start row is one largest set"):
        env.step(0)
    with pytest.raises(IllegalActionError, match="ending the turn needs at least one tile"):
        env.step(env.model.codec.end)
    with pytest.raises(IllegalActionError, match="pass only when"):
        env.step(env.model.codec.pass_action)


def test_renders() -> None:
    env = qwirkle_v0.raw_env(render_mode="ansi", engine="reference")
    env.reset(seed=6)
    random_steps(env, np.random.default_rng(6), 15)
    text = env.render()
    assert "hand of player_" in text and "scores:" in text and "\x1b[" in text
    env.render_mode = "rgb_array"
    picture = env.render()
    assert picture.ndim == 3 and picture.shape[2] == 3 and picture.dtype == np.uint8
    assert len(np.unique(picture.reshape(-1, 3), axis=0)) > 6
    dump = env.dump()
    assert "window: 39x39 from board cell" in dump and "player 1: score" in dump
    if env.game_state.turn.order:
        assert "laid this turn so far: slot" in dump


def test_incremental_window_planes_match_a_rebuild() -> None:
    env = qwirkle_v0.raw_env(window=21, engine="reference")
    env.reset(seed=9)
    rng = np.random.default_rng(9)
    origins = set()
    checked = 0
    while (
        env.agents and not env.terminations[env.agent_selection] and env.game_state.game.turns < 120
    ):
        if not env.game_state.turn.pending and env.game_state.fit_cache is not None:
            cached = env.game_state.fit_cache.copy()
            env.game_state.fit_cache = None
            assert np.array_equal(cached, env.model.fit_planes(env.game_state))
            planes = np.zeros_like(env.game_state.planes)
            for (r, c), t in env.game_state.game.board.items():
                wr, wc = r - env.game_state.origin[0], c - env.game_state.origin[1]
                if 0 <= wr < 21 and 0 <= wc < 21:
                    planes[[t // 6, 6 + t % 6, 12], wr, wc] = 1
            assert np.array_equal(planes, env.game_state.planes)
            checked += 1
        origins.add(env.game_state.origin)
        mask = env.action_mask()
        placements = np.flatnonzero(mask[: env.model.codec.end])
        if placements.size and rng.random() < 0.7:
            env.step(int(rng.choice(placements)))
        else:
            env.step(int(rng.choice(np.flatnonzero(mask))))
    assert checked > 20 and len(origins) > 1, "the window should have been recentred"


def test_determinised_start_row_keeps_the_announced_largest_set() -> None:
    """A redeal for a player who is not to act keeps the start row playable: the mover's new
    hand holds a largest set of the announced size (and the tiles it has laid)."""
    from tabletop_rl.envs.qwirkle.moves import largest_sets

    for seed in range(12):
        env = qwirkle_v0.raw_env(num_players=3, engine="reference")
        env.reset(seed=seed)
        if seed % 2:  # one tile of the start row already down
            env.step(int(np.flatnonzero(env.action_mask())[0]))
        announced = len(env.game_state.start_sets[0])
        mover = env.agent_selection
        for agent in env.possible_agents:
            if agent == mover:
                continue
            copy_ = env.determinize(agent, np.random.default_rng(seed))
            assert copy_.action_mask().any()
            hand = copy_.game_state.game.hand
            assert len(largest_sets(hand)[0]) == announced
