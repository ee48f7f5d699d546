"""Liniell's lay features (``features=True``) against the rules engine, on both engines."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_rl.baselines.agents.liniell import LiniellGreedyAgent
from tabletop_rl.envs import ConfigError, liniell_v0, make
from tabletop_rl.envs.core.conformance import check_env
from tabletop_rl.envs.core.features import with_features
from tabletop_rl.envs.liniell.actions import NUM_LAY, SKIP
from tabletop_rl.envs.liniell.board import NEIGHBOUR, NUM_CELLS
from tabletop_rl.envs.liniell.compiled_model import LiniellCompiledModel
from tabletop_rl.envs.liniell.features import FIELDS, LAY_FIELDS, LINIELL_FEATURES, OPEN_ENDS
from tabletop_rl.envs.liniell.model import LiniellModel
from tabletop_rl.envs.liniell.turn_values import fillable_cells, open_cells
from tabletop_rl.envs.vector import VectorGames

NAMES = [f.name for f in LAY_FIELDS]


def features_of(model, obs: np.ndarray) -> dict[str, np.ndarray]:
    """The lay feature fields of ``obs``, each flat in lay action order."""
    views = model.layout.decode(obs)
    return {name: views[name].reshape(-1) for name in NAMES}


def random_positions(model, games: int, seed: int):
    """Every position of ``games`` random games (the state before each step)."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = model.new_state(rng)
        while not model.is_over(state):
            yield state
            state = model.copy(state)
            model.step(state, int(rng.choice(np.flatnonzero(model.legal_mask(state)))))


def split(scores: tuple[float, ...], player: int) -> tuple[float, float]:
    return scores[player], max(x for p, x in enumerate(scores) if p != player)


@pytest.mark.parametrize("num_players", [2, 4])
def test_each_lay_equals_stepping_it_in_the_rules_engine(num_players: int) -> None:
    """Every legal lay's gains and join flag are what stepping it on a copy gives; illegal
    lays and the other steps read 0."""
    model = with_features(LiniellModel(num_players), LINIELL_FEATURES)
    lays = joins = 0
    for state in random_positions(model, games=3, seed=num_players):
        player = model.current_player(state)
        feats = features_of(model, model.observe(state, player))
        mask = model.legal_mask(state)[:NUM_LAY]
        np.testing.assert_array_equal(feats["lay_legal"], mask)
        for name in NAMES:
            assert not feats[name][mask == 0].any(), name
        own0, opp0 = split(model.scores(state), player)
        for action in np.flatnonzero(mask):
            after = model.copy(state)
            model.step(after, int(action))
            own, opp = split(model.scores(after), player)
            assert feats["lay_gain"][action] == own - own0
            assert feats["lay_opponent_gain"][action] == opp - opp0
            joined = model.current_player(after) == player and not model.legal_mask(after)[SKIP]
            assert feats["lay_join"][action] == joined
            lays += 1
            joins += joined
    assert lays > 100 and joins > 0


def test_turn_margin_is_the_greedy_agents_lay() -> None:
    """The greedy agent (the rules engine's best immediate turn, searched separately) lays
    where ``lay_turn_margin`` is highest, whichever of its tied choices it takes."""
    env = liniell_v0.raw_env(num_players=3, features=True)
    rng = np.random.default_rng(5)
    checked = 0
    for game in range(4):
        env.reset(seed=game)
        while not all(env.terminations.values()):
            agent = env.agent_selection
            obs = env.observe(agent)
            feats = features_of(env.unwrapped.model, obs["observation"])
            view = env.public_view(agent)
            if obs["action_mask"][:NUM_LAY].any():
                margins = feats["lay_turn_margin"][obs["action_mask"][:NUM_LAY] == 1]
                for seed in range(3):
                    greedy = LiniellGreedyAgent(np.random.default_rng(seed))
                    assert feats["lay_turn_margin"][greedy.act(obs, view)] == margins.max()
                checked += 1
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 40


def best_finish(model, state, player: int) -> float:
    """The best margin ``player`` reaches by finishing its turn from ``state`` (brute force)."""
    if model.is_over(state) or model.current_player(state) != player:
        own, opp = split(model.scores(state), player)
        return own - opp
    values = []
    for action in np.flatnonzero(model.legal_mask(state)):
        child = model.copy(state)
        model.step(child, int(action))
        values.append(best_finish(model, child, player))
    return max(values)


@pytest.mark.parametrize("num_players", [2, 3])
def test_occupy_step_margins_equal_finishing_the_turn_in_the_rules_engine(
    num_players: int,
) -> None:
    """Features revision 3: every legal occupation's (and compulsory move's)
    ``occupy_turn_margin`` is the best margin of the turn it starts, stepped on the rules
    engine; ``skip_turn_margin`` is the margin of ending the turn now; illegal actions and the
    lay step read 0. The greedy agent plays an action of the highest value."""
    model = with_features(LiniellModel(num_players), LINIELL_FEATURES)
    checked = moves = 0
    # seeds whose random games hold compulsory moves (joins are rare in random play)
    for state in random_positions(model, games=4, seed={2: 27, 3: 21}[num_players]):
        player = model.current_player(state)
        views = model.layout.decode(model.observe(state, player))
        occupy, skip = views["occupy_turn_margin"], views["skip_turn_margin"]
        mask = model.legal_mask(state)
        if mask[:NUM_LAY].any():
            assert not occupy.any() and not skip.any()
            continue
        values = {}
        for k, legal in enumerate(mask[NUM_LAY:SKIP]):
            if not legal:
                assert occupy[k] == 0
                continue
            after = model.copy(state)
            model.step(after, NUM_LAY + k)
            assert occupy[k] == best_finish(model, after, player)
            values[NUM_LAY + k] = occupy[k]
        own, opp = split(model.scores(state), player)
        assert skip[0] == (own - opp if mask[SKIP] else 0)
        if mask[SKIP]:
            values[SKIP] = skip[0]
        else:
            moves += 1
        obs = {"observation": model.observe(state, player), "action_mask": mask}
        greedy = LiniellGreedyAgent(np.random.default_rng(checked))
        assert values[greedy.act(obs, model.public_view(state, player))] == max(values.values())
        checked += 1
    assert checked > 20 and moves > 0, (checked, moves)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_compiled_features_equal_the_reference(num_players: int) -> None:
    """The compiled kernel and the game-model search give the same observation, features
    included, for every seat, over several hundred positions."""
    compiled = with_features(LiniellCompiledModel(num_players), LINIELL_FEATURES)
    reference = with_features(LiniellModel(num_players), LINIELL_FEATURES)
    rng = np.random.default_rng(10 + num_players)
    positions = joins = 0
    for _ in range(7):
        seed = int(rng.integers(1 << 30))
        a = compiled.new_state(np.random.default_rng(seed))
        b = reference.new_state(np.random.default_rng(seed))
        while not compiled.is_over(a):
            to_act = compiled.current_player(a)
            for player in range(num_players):
                obs = compiled.observe(a, player)
                np.testing.assert_array_equal(obs, reference.observe(b, player))
                if player != to_act:
                    assert not any(v.any() for v in features_of(compiled, obs).values())
            joins += int(features_of(compiled, compiled.observe(a, to_act))["lay_join"].sum())
            positions += 1
            action = int(rng.choice(np.flatnonzero(compiled.legal_mask(a))))
            compiled.step(a, action)
            reference.step(b, action)
    assert positions >= 200 and joins > 0


def test_env_with_features_passes_conformance_and_stays_in_its_space() -> None:
    check_env(lambda: liniell_v0.raw_env(num_players=3, features=True), games=2)
    env = liniell_v0.raw_env(features=True)
    space = env.observation_space(env.possible_agents[0])["observation"]
    assert space.shape == (env.unwrapped.model.layout.size,)
    rng = np.random.default_rng(0)
    nonzero = 0
    for game in range(3):
        env.reset(seed=game)
        while not all(env.terminations.values()):
            obs = env.observe(env.agent_selection)
            assert space.contains(obs["observation"])
            nonzero += bool(
                np.abs(features_of(env.unwrapped.model, obs["observation"])["lay_gain"]).any()
            )
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert nonzero > 0


def test_features_are_off_by_default_and_checked() -> None:
    plain = liniell_v0.raw_env()
    with_feats = liniell_v0.raw_env(features=True)
    assert with_feats.layout.size == plain.layout.size + sum(f.size for f in FIELDS)
    with pytest.raises(ConfigError, match="features"):
        liniell_v0.raw_env(features="yes")


def test_docstring_lists_the_feature_fields() -> None:
    layout = liniell_v0.raw_env(features=True).layout
    assert layout.markdown_table([f.name for f in FIELDS]) in (liniell_v0.__doc__ or "")


def test_make_passes_features_through() -> None:
    env = make("liniell_v0", raw=True, features=True)
    assert [f.name for f in env.layout][-len(FIELDS) :] == [f.name for f in FIELDS]


@pytest.mark.parametrize("num_players", [2, 4])
def test_compiled_batch_features_equal_the_feature_model(num_players: int) -> None:
    """``VectorGames(..., features=True)`` stays on the compiled batch, and its rows
    (observations, final observations of ended games, masks) equal those of the feature
    model stepped game by game (the reference engine) through whole games and resets."""
    kwargs = {"num_envs": 4, "num_players": num_players, "seed": 3, "features": True}
    fast = VectorGames("liniell_v0", threads=2, **kwargs)
    slow = VectorGames("liniell_v0", engine="reference", **kwargs)
    assert (fast.backend, slow.backend) == ("compiled", "reference")
    a, b = fast.reset(), slow.reset()
    rng = np.random.default_rng(num_players)
    ended = lays = 0
    for _ in range(120):
        np.testing.assert_array_equal(a.observation, b.observation)
        np.testing.assert_array_equal(a.action_mask, b.action_mask)
        np.testing.assert_array_equal(a.terminated, b.terminated)
        for i in np.flatnonzero(a.terminated):
            np.testing.assert_array_equal(a.final_observation[i], b.final_observation[i])
            ended += 1
        lays += int(a.observation[:, fast.model.layout.slice("lay_legal")].any(axis=1).sum())
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in a.action_mask])
        a, b = fast.step(actions), slow.step(actions)
    assert ended > 0 and lays > 100


def facing(board, num_players: int) -> np.ndarray:
    """``(players, cells)``: at each fillable empty cell, the open ends of each player's
    lines that face it, counted on the rules engine's board and checked against the
    heuristic agent's ``open_cells``."""
    fillable = fillable_cells(board)
    out = np.zeros((num_players, NUM_CELLS), dtype=np.float32)
    for p, slots in enumerate(board.pawns):
        for root in {board.lines.find(piece) for piece in slots if piece >= 0}:
            ends = np.zeros(NUM_CELLS, dtype=np.float32)
            for piece in board.lines.members(root):
                cell = piece >> 2
                for port in board.cell_orient[cell].groups[piece & 3].ports:
                    if NEIGHBOUR[cell][port] in fillable:
                        ends[NEIGHBOUR[cell][port]] += 1
            count, cells = open_cells(board, root, fillable)
            assert ends.sum() == count and set(np.flatnonzero(ends)) == cells
            out[p] += ends
    return out


def open_end_margin(board, num_players: int, player: int) -> tuple[float, int]:
    """The observer's open ends less the most of another player's, and the cells that face
    both the observer's lines and another player's (merge points), from :func:`facing`."""
    ends = facing(board, num_players)
    others = np.delete(ends, player, axis=0)
    merges = (ends[player] > 0) & (others > 0).any(axis=0)
    return ends[player].sum() - others.sum(axis=1).max(), int(merges.sum())


@pytest.mark.parametrize("num_players", [2, 4])
def test_open_end_fields_equal_stepping_each_action_on_the_board(num_players: int) -> None:
    """For every legal lay and every legal occupation or compulsory move, the ``_open_ends``
    and ``_merge_points`` fields are the change that stepping it on a copy makes to the
    observer's open-end margin and merge points, counted on the rules engine's board;
    other entries read 0."""
    model = with_features(LiniellModel(num_players), LINIELL_FEATURES)
    changed = {"lay": 0, "occupy": 0}
    for state in random_positions(model, games=3, seed=20 + num_players):
        player = model.current_player(state)
        views = model.layout.decode(model.observe(state, player))
        mask = model.legal_mask(state)
        margin0, merges0 = open_end_margin(
            model.public_view(state, player).board, num_players, player
        )
        for group, actions in (("lay", range(NUM_LAY)), ("occupy", range(NUM_LAY, SKIP))):
            ends = views[f"{group}_open_ends"].reshape(-1)
            merge_points = views[f"{group}_merge_points"].reshape(-1)
            for i, action in enumerate(actions):
                if not mask[action]:
                    assert ends[i] == merge_points[i] == 0
                    continue
                after = model.copy(state)
                model.step(after, action)
                board = model.public_view(after, player).board
                margin, merges = open_end_margin(board, num_players, player)
                assert (ends[i], merge_points[i]) == (margin - margin0, merges - merges0)
                changed[group] += bool(ends[i] or merge_points[i])
    assert changed["lay"] > 50 and changed["occupy"] > 10, changed


@pytest.mark.parametrize("num_players", [2, 4])
def test_open_ends_are_the_heuristic_agents_open_cells(num_players: int) -> None:
    """``open_ends`` counts, per player and fillable empty cell, the open ends of that
    player's lines facing it, as the heuristic agent's ``open_cells`` finds them on the
    rules engine's board, for every observer."""
    env = liniell_v0.raw_env(num_players=num_players, features=True, engine="reference")
    model = env.unwrapped.model
    rng = np.random.default_rng(num_players)
    merges = 0
    for game in range(3):
        env.reset(seed=game)
        while not all(env.terminations.values()):
            expected = facing(env.public_view(env.agent_selection).board, num_players)
            for observer in range(num_players):
                obs = model.observe(env.unwrapped.game_state, observer)
                got = model.layout.decode(obs)[OPEN_ENDS.name].reshape(4, -1)
                order = [(observer + q) % num_players for q in range(num_players)]
                np.testing.assert_array_equal(got[:num_players], expected[order])
                assert not got[num_players:].any()
            merges += int(((expected > 0).sum(axis=0) >= 2).sum())
            action = int(
                rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))
            )
            env.step(action)
    assert merges > 0
