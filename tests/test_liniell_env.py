"""liniell_v0: exact masks (against brute force), invariants over random playouts, rewards,
observations, hidden information, rendering."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop_rl.envs import make
from tabletop_rl.envs.liniell import NUM_CELLS, WINDOW, Game, Phase
from tabletop_rl.envs.liniell.board import NEIGHBOUR
from tabletop_rl.envs.liniell.scoring import score_line
from tabletop_rl.envs.liniell_v0 import NUM_ACTIONS, OCCUPY, SKIP, raw_env


def _brute_lay_mask(game: Game) -> np.ndarray:
    """Try every cell and rotation on a copy and check the rules from their definitions."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    board = game.board
    laid = [c for c in range(NUM_CELLS) if board.cell_kind[c] >= 0]
    for cell in range(NUM_CELLS):
        if board.cell_kind[cell] >= 0:
            continue
        if not laid:
            touches = cell == (WINDOW // 2) * WINDOW + WINDOW // 2
        else:
            touches = any(n >= 0 and board.cell_kind[n] >= 0 for n in NEIGHBOUR[cell])
        if not touches:
            continue
        rows = [c // WINDOW for c in [*laid, cell]]
        cols = [c % WINDOW for c in [*laid, cell]]
        if max(rows) - min(rows) > 3 or max(cols) - min(cols) > 3:
            continue
        for rotation in range(4):
            trial = board.copy()
            trial.put(cell, game.drawn, rotation)
            per_line: dict[int, list[int]] = {}
            for player, slots in enumerate(trial.pawns):
                for piece in slots:
                    if piece >= 0:
                        per_line.setdefault(trial.line(piece), []).append(player)
            if all(len(set(owners)) == len(owners) for owners in per_line.values()):
                mask[cell * 4 + rotation] = 1
    return mask


def _brute_occupy_mask(game: Game) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    board, player, cell = game.board, game.current, game.last_cell
    placed = sorted((p for p in board.pawns[player] if p >= 0), key=board.piece_key)
    occupied = {board.line(p) for slots in board.pawns for p in slots if p >= 0}
    target = board.line(game.pending[0].piece) if game.phase is Phase.MOVE else None
    for port in range(4):
        line = board.line(board.piece(cell, port))
        if any(board.line(board.piece(cell, q)) == line for q in range(port)):
            continue  # a line is named by its first port on the tile
        if target is None and line in occupied:
            continue
        if target is not None and line != target:
            continue
        if board.supply(player):
            mask[OCCUPY + 3 * port] = 1
        for i, piece in enumerate(placed):
            if board.line(piece) != line:
                mask[OCCUPY + 3 * port + 1 + i] = 1
    if game.phase is Phase.OCCUPY:
        mask[SKIP] = 1
    return mask


def _check_invariants(game: Game) -> None:
    board = game.board
    for slots in board.pawns:
        assert len(slots) == 2
        for piece in slots:
            if piece >= 0:
                orient = board.cell_orient[piece >> 2]
                assert orient is not None and (piece & 3) < len(orient.groups)
    per_line: dict[int, list[int]] = {}
    for player, slots in enumerate(board.pawns):
        for piece in slots:
            if piece >= 0:
                per_line.setdefault(board.line(piece), []).append(player)
    for owners in per_line.values():
        assert len(set(owners)) == len(owners), "two pawns of one colour on one line"
        if game.phase is not Phase.MOVE:
            assert len(owners) == 1, "two pawns on one line outside a compulsory move"


def _play(seed: int, players: int, check_masks: bool) -> tuple[list[int], raw_env]:
    env = make("liniell_v0", raw=True, engine="reference", num_players=players, reward="score")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = []
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        agent = env.agent_selection
        totals[agent] += env._cumulative_rewards[agent]
        if env.terminations[agent]:
            env.step(None)
            continue
        game = env.game_state.game
        mask = env.observe(agent)["action_mask"]
        if check_masks:
            brute = _brute_lay_mask(game) if game.phase is Phase.LAY else _brute_occupy_mask(game)
            assert np.array_equal(mask, brute), game.to_text()
        _check_invariants(game)
        action = int(rng.choice(np.flatnonzero(mask)))
        actions.append(action)
        env.step(action)
    final = env.game_state.game.scores()
    assert [totals[a] for a in env.possible_agents] == [float(s.points) for s in final]
    return actions, env


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from([2, 2, 3, 4]))
def test_masks_match_brute_force_and_invariants_hold(seed: int, players: int) -> None:
    actions, env = _play(seed, players, check_masks=True)
    assert len(actions) <= env.info.max_game_length
    assert env.game_state.game.is_over


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_same_seed_same_trajectory(seed: int) -> None:
    a, env_a = _play(seed, 3, check_masks=False)
    b, env_b = _play(seed, 3, check_masks=False)
    assert a == b and env_a.dump() == env_b.dump()


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(0, 30))
def test_clone_and_pickle_continue_identically(seed: int, steps: int) -> None:
    env = make("liniell_v0", raw=True, engine="reference")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if env.game_state.game.is_over:
            break
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
    clones = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    while not env.game_state.game.is_over:
        action = int(rng.choice(np.flatnonzero(env.action_mask())))
        for e in [env, *clones]:
            e.step(action)
    for clone in clones:
        assert clone.dump() == env.dump()
        assert np.array_equal(
            clone.observe("player_0")["observation"], env.observe("player_0")["observation"]
        )


def test_many_random_games_keep_the_invariants() -> None:
    early = 0
    for seed in range(150):
        _, env = _play(seed, 2 + seed % 3, check_masks=False)
        early += env.game_state.game.ended_early
    assert early < 15  # the rules reference's simulation: about 1.5% end early


def test_observation_matches_the_state_and_hides_only_the_stack_order() -> None:
    env = make("liniell_v0", raw=True, engine="reference", num_players=3)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    for _ in range(17):
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
    game = env.game_state.game
    for i, agent in enumerate(env.possible_agents):
        obs = env.observe(agent)["observation"]
        views = env.layout.decode(obs)
        scores = game.scores()
        order = [(i + k) % 3 for k in range(3)]
        assert views["scores"][:3].tolist() == [scores[p].points for p in order]
        assert views["blue"][:3].tolist() == [scores[p].blue for p in order]
        assert views["supply"][:3].tolist() == [game.board.supply(p) for p in order]
        assert views["seated"].tolist() == [1, 1, 1, 0]
        assert views["stack"].tolist() == game.stack_counts()
        assert views["tiles"][0].sum() == game.board.num_laid
        assert views["to_act"][(game.current - i) % 3] == 1
        own = views["pawns"][0:4].sum()
        assert (own > 0) == any(p >= 0 for p in game.board.pawns[i])
        view = env.public_view(agent)
        assert view.stack == sorted(game.stack) and view.to_text() != ""
        before = obs.copy()
        env.resample_hidden(agent, np.random.default_rng(i))
        assert np.array_equal(env.observe(agent)["observation"], before)


def test_route_and_own_pawn_planes_follow_the_rules_engine() -> None:
    """``routes`` holds every port's line score (uncached, from the scoring rules), the
    observer's pawns on it sum to ``scores``; ``own_pawns`` numbers pawns as ``source`` does."""
    moved_checked = 0
    for seed in range(12):
        env = make("liniell_v0", raw=True, engine="reference", num_players=2 + seed % 3)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not env.game_state.game.is_over:
            board = env.game_state.game.board
            for i, agent in enumerate(env.possible_agents):
                views = env.layout.decode(env.observe(agent)["observation"])
                for cell in range(NUM_CELLS):
                    orient = board.cell_orient[cell]
                    for port in range(4):
                        expected = 0
                        if orient is not None:
                            root = board.lines.find(cell * 4 + orient.port_group[port])
                            expected = score_line(board, root).points
                        assert views["routes"][port].reshape(-1)[cell] == expected
                placed = sorted((p for p in board.pawns[i] if p >= 0), key=board.piece_key)
                own = views["own_pawns"].reshape(2, -1)
                assert own.sum() == len(placed)
                mine = 0.0
                for k, piece in enumerate(placed):
                    assert own[k, piece >> 2] == 1
                    port = board.cell_orient[piece >> 2].groups[piece & 3].ports[0]
                    route = views["routes"][port].reshape(-1)[piece >> 2]
                    assert route == board.line_score(board.lines.find(piece)).points
                    mine += route
                assert mine == views["scores"][0]
            mover = env.game_state.game.current
            action = int(rng.choice(np.flatnonzero(env.action_mask())))
            if OCCUPY <= action < SKIP and (action - OCCUPY) % 3:
                source = (action - OCCUPY) % 3
                views = env.layout.decode(env.observe(env.possible_agents[mover])["observation"])
                cell = int(np.flatnonzero(views["own_pawns"][source - 1].reshape(-1))[0])
                (piece,) = [p for p in board.pawns[mover] if p >= 0 and p >> 2 == cell]
                env.step(action)
                assert (
                    piece not in env.game_state.game.board.pawns[mover]
                )  # that pawn was the one moved
                moved_checked += 1
            else:
                env.step(action)
    assert moved_checked > 5


def test_score_reward_sums_to_the_final_score_and_win_reward_follows_the_tie_break() -> None:
    for seed in range(10):
        _play(seed, 2, check_masks=False)  # asserts the sum
    env = make("liniell_v0", raw=True, engine="reference")
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    while not env.game_state.game.is_over:
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
    winners = env.game_state.game.winners()
    for i, agent in enumerate(env.possible_agents):
        expected = 0.0 if len(winners) == 2 else (1.0 if i in winners else -1.0)
        assert env._cumulative_rewards[agent] == expected


def test_game_info_bounds_and_options() -> None:
    assert raw_env().info.max_game_length == 32
    assert raw_env(num_players=4).info.max_game_length == 48
    assert raw_env().info.num_actions == NUM_ACTIONS == 209
    with pytest.raises(ValueError, match="neither a shipped tile set nor a file"):
        raw_env(tile_set="nope")


def test_illegal_actions_are_explained() -> None:
    env = make("liniell_v0", raw=True, engine="reference")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="first tile goes to the middle"):
        env.step(0)
    with pytest.raises(ValueError, match="must be laid first"):
        env.step(SKIP)
    env.step(int(np.flatnonzero(env.action_mask())[0]))
    with pytest.raises(ValueError, match="tile is laid already"):
        env.step(0)


def test_renders_show_the_game() -> None:
    env = make("liniell_v0", render_mode="rgb_array")
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(20):
        agent = env.agent_selection
        if env.terminations[agent]:
            break
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    picture = env.render()
    assert picture.ndim == 3 and picture.shape[2] == 3
    colours = {tuple(c) for c in picture.reshape(-1, 3)}
    assert (35, 90, 215) in colours  # a blue diamond (the default set has 7)
    env2 = make("liniell_v0", render_mode="ansi")
    env2.reset(seed=2)
    env2.step(int(np.flatnonzero(env2.observe(env2.agent_selection)["action_mask"])[0]))
    text = env2.render()
    assert "player_0" in text and "player_1" in text
