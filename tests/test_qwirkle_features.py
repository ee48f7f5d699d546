"""Qwirkle's observation features (``qwirkle_v0.raw_env(features=True)``) against the rules.

``place_points`` is checked against the points the engine scores when the placement is made
and the turn ended (the start row against the board's scoring, since it cannot end early),
``place_legal`` against the mask, the line fields against a count cell by cell, and the
compiled engine's features against the reference engine's.
"""

from __future__ import annotations

from collections.abc import Iterator
from math import comb
from typing import Any

import numpy as np
import pytest

from tabletop_rl.baselines.agents.qwirkle import QwirkleGreedyAgent
from tabletop_rl.envs import ConfigError, make, qwirkle_v0
from tabletop_rl.envs.core.conformance import check_batch, check_env
from tabletop_rl.envs.core.features import FeatureModel
from tabletop_rl.envs.qwirkle.board import Board
from tabletop_rl.envs.qwirkle.compiled import QwirkleCompiledModel
from tabletop_rl.envs.qwirkle.compiled_batch import QwirkleBatch
from tabletop_rl.envs.qwirkle.features import MAX_TURN_POINTS, qwirkle_features
from tabletop_rl.envs.qwirkle.model import QwirkleModel
from tabletop_rl.envs.vector import VectorGames

WINDOW = 39
CELLS = WINDOW * WINDOW
PLACEMENTS = 6 * CELLS


def feature_model(num_players: int = 2, engine: str = "compiled") -> FeatureModel:
    cls = QwirkleCompiledModel if engine == "compiled" else QwirkleModel
    return FeatureModel(cls(num_players=num_players), qwirkle_features(WINDOW))


def positions(model: FeatureModel, seed: int, every: int, endgame: bool = False) -> Iterator[Any]:
    """Every ``every``-th position (mid-turn ones included) of a uniformly random masked game
    drawn from ``seed``, to its end; with ``endgame``, every position once the bag is empty."""
    rng = np.random.default_rng(seed)
    state = model.new_state(rng)
    steps = 0
    while not model.is_over(state):
        late = endgame and model.public_view(state, 0).bag_size == 0
        if late or steps % every == 0:
            yield state
        legal = np.flatnonzero(model.legal_mask(state))
        model.step(state, int(rng.choice(legal)))
        steps += 1


def to_act_views(model: FeatureModel, state: Any) -> dict[str, np.ndarray]:
    return model.layout.decode(model.observe(state, model.current_player(state)))


def engine_points(model: FeatureModel, state: Any, action: int) -> int:
    """What the engine scores for the tiles laid this turn plus ``action``'s tile."""
    player = model.current_player(state)
    view = model.public_view(state, player)
    if view.first_turn:  # the start row cannot end early: the board scores it
        slot, cell = divmod(action, CELLS)
        r0, c0 = view.window_origin
        move = [(r, c, view.hand[s]) for r, c, s in view.laid_this_turn]
        move.append((r0 + cell // WINDOW, c0 + cell % WINDOW, view.hand[slot]))
        return view.board.score(move)
    after = model.copy(state)
    model.step(after, action)
    result = model.step(after, model.codec.end)
    return result.points.get(player, 0)


def test_place_points_are_what_the_engine_scores() -> None:
    model = feature_model()
    checked = {"start row": 0, "turn start": 0, "mid-turn": 0, "end bonus": 0}
    for seed in range(4):
        for state in positions(model, seed, every=9, endgame=True):
            views = to_act_views(model, state)
            points = views["place_points"].reshape(-1)
            legal = np.flatnonzero(model.legal_mask(state)[:PLACEMENTS])
            assert not points[np.setdiff1d(np.arange(PLACEMENTS), legal)].any()
            view = model.public_view(state, model.current_player(state))
            kind = (
                "start row"
                if view.first_turn
                else "mid-turn"
                if view.laid_this_turn
                else "turn start"
            )
            for action in legal[:: max(1, legal.size // 12)]:
                expected = engine_points(model, state, int(action))
                assert points[action] == expected, (
                    seed,
                    kind,
                    model.describe_action(state, action),
                )
                checked[kind] += 1
                if view.bag_size == 0 and len(view.hand) == len(view.laid_this_turn) + 1:
                    checked["end bonus"] += 1
    assert all(n > 0 for n in checked.values()), checked


def test_turn_points_are_what_ending_the_turn_now_scores() -> None:
    """Also on a start row still being laid (it cannot end yet: 0)."""
    model = feature_model()
    checked = {"end legal": 0, "start row unfinished": 0}
    for seed in range(12):
        every = 5 if seed < 3 else 1
        for n, state in enumerate(positions(model, seed, every=every)):
            if every == 1 and n > 6:
                break
            views = to_act_views(model, state)
            mask = model.legal_mask(state)
            if not mask[model.codec.end]:
                assert views["turn_points"][0] == 0
                view = model.public_view(state, model.current_player(state))
                checked["start row unfinished"] += bool(view.laid_this_turn)
                continue
            player = model.current_player(state)
            after = model.copy(state)
            result = model.step(after, model.codec.end)
            assert views["turn_points"][0] == result.points.get(player, 0)
            checked["end legal"] += 1
    assert checked["end legal"] > 50 and checked["start row unfinished"] > 0, checked


def greedy_positions(model: FeatureModel, seed: int, every: int) -> Iterator[Any]:
    """Every ``every``-th position of a game that the greedy agent plays (a random legal
    action one step in five), to its end: greedy play builds the long lines that random play
    rarely does."""
    rng = np.random.default_rng(seed)
    agent = QwirkleGreedyAgent(np.random.default_rng(seed))
    state = model.new_state(rng)
    steps = 0
    while not model.is_over(state):
        if steps % every == 0:
            yield state
        mask = model.legal_mask(state)
        view = model.public_view(state, model.current_player(state))
        if rng.random() < 0.2:
            action = int(rng.choice(np.flatnonzero(mask)))
        else:
            action = agent.act({"action_mask": mask}, view)
        model.step(state, action)
        steps += 1


def handed_on(model: FeatureModel, state: Any) -> float:
    """What ending the turn now hands the next player, counted on the board after the turn:
    each line of five through a tile laid this turn whose missing kind the rules let the next
    player lay on one of its ends, 12 times the chance that a hand of the next player's size,
    drawn from the tiles the player to act cannot see, holds a copy of that kind."""
    player = model.current_player(state)
    view = model.public_view(state, player)
    if view.bag_size == 0 and len(view.laid_this_turn) == len(view.hand):
        return 0.0  # the game ends
    after = model.copy(state)
    model.step(after, model.codec.end)
    board = model.public_view(after, player).board
    tiles = board.tiles
    total_unseen = sum(view.unseen)
    hand = view.hand_sizes[(player + 1) % len(view.hand_sizes)]
    counted: set[frozenset[tuple[int, int]]] = set()
    handed = 0.0
    for r, c, _ in view.laid_this_turn:
        for dr, dc in ((0, 1), (1, 0)):
            cells = [(r, c)]
            ends = []
            for sign in (-1, 1):
                rr, cc = r + sign * dr, c + sign * dc
                while (rr, cc) in tiles:
                    cells.append((rr, cc))
                    rr, cc = rr + sign * dr, cc + sign * dc
                ends.append((rr, cc))
            if len(cells) != 5 or frozenset(cells) in counted:
                continue
            counted.add(frozenset(cells))
            line = [tiles[cell] for cell in cells]
            for kind in range(36):
                if kind in line or not (
                    len({t // 6 for t in [*line, kind]}) == 1
                    or len({t % 6 for t in [*line, kind]}) == 1
                ):
                    continue
                if any(board.is_legal([(er, ec, kind)]) for er, ec in ends):
                    unseen = view.unseen[kind]
                    none = comb(total_unseen - unseen, hand) / comb(total_unseen, hand)
                    handed += 12 * (1 - none)
    return handed


def searched_turns(model: FeatureModel, state: Any, net: bool) -> tuple[dict[int, float], float]:
    """Brute force through the game-model interface: for each legal placement, every way to
    go on with the turn (step, read the mask, step again) and the most the turn is worth when
    it ends: the points the engine adds, less :func:`handed_on` with ``net``; and the same for
    ending the turn now (0 when it may not end)."""
    end = model.codec.end
    player = model.current_player(state)
    before = model.scores(state)[player]

    def after(st: Any, action: int) -> Any:
        st = model.copy(st)
        model.step(st, action)
        return st

    def ending(st: Any) -> float:
        points = model.scores(after(st, end))[player] - before
        return points - handed_on(model, st) if net else points

    def best(st: Any) -> float:
        mask = model.legal_mask(st)
        value = ending(st) if mask[end] else -np.inf
        for action in np.flatnonzero(mask[:end]):
            value = max(value, best(after(st, int(action))))
        return value

    legal = np.flatnonzero(model.legal_mask(state)[:end])
    now = ending(state) if model.legal_mask(state)[end] else 0.0
    return {int(a): best(after(state, int(a))) for a in legal}, now


def test_place_best_is_the_best_whole_turn_after_each_placement() -> None:
    """Against a search through the game-model interface, on both engines (the compiled
    search and the reference move generator), at the start row, turn starts, mid-turn and
    in the end game; at a turn's start its maximum is the greedy agent's best move."""
    checked = {"start row": 0, "turn start": 0, "mid-turn": 0, "end bonus": 0}
    for engine in ("compiled", "reference"):
        model = feature_model(engine=engine)
        for seed in range(2):
            for state in positions(model, 20 + seed, every=11, endgame=True):
                best = to_act_views(model, state)["place_best"].reshape(-1)
                expected, _ = searched_turns(model, state, net=False)
                actions = np.array(sorted(expected), dtype=np.int64)
                assert not np.delete(best, actions).any()
                assert best[actions].tolist() == [expected[a] for a in actions]
                view = model.public_view(state, model.current_player(state))
                if not expected:
                    continue
                kind = "start row" if view.first_turn else "mid-turn"
                if not view.laid_this_turn and not view.first_turn:
                    kind = "turn start"
                    greedy, _ = QwirkleGreedyAgent(np.random.default_rng(0)).best_moves(view)
                    bonus = 6 if view.bag_size == 0 and best.max() > greedy else 0
                    assert best.max() == greedy + bonus
                checked[kind] += 1
                checked["end bonus"] += view.bag_size == 0 and max(expected.values()) > 0
    assert all(n > 0 for n in checked.values()), checked


def test_place_net_is_the_best_turn_less_the_qwirkles_it_hands_on() -> None:
    """``place_net`` and ``turn_net`` against a search through the game-model interface that
    counts the lines of five on the board after each possible turn, on both engines, in
    games the greedy agent plays (which leave lines of five)."""
    checked = {"positions": 0, "handed on": 0, "end now": 0}
    for engine in ("compiled", "reference"):
        model = feature_model(engine=engine)
        for seed in range(2):
            for state in greedy_positions(model, 30 + seed, every=7):
                views = to_act_views(model, state)
                net = views["place_net"].reshape(-1)
                expected, now = searched_turns(model, state, net=True)
                actions = np.array(sorted(expected), dtype=np.int64)
                assert not np.delete(net, actions).any()
                np.testing.assert_allclose(net[actions], [expected[a] for a in actions], atol=1e-4)
                assert views["turn_net"][0] == pytest.approx(now, abs=1e-4)
                checked["positions"] += 1
                best = views["place_best"].reshape(-1)[actions]
                checked["handed on"] += bool((net[actions] < best - 1e-4).any())
                checked["end now"] += bool(now)
    assert checked["handed on"] >= 4 and checked["end now"] >= 4, checked


def test_place_legal_is_the_mask_and_only_the_player_to_act_sees_moves() -> None:
    model = feature_model(num_players=3)
    for state in positions(model, 5, every=7):
        to_act = model.current_player(state)
        mask = model.legal_mask(state)[:PLACEMENTS].reshape(6, WINDOW, WINDOW)
        for player in range(3):
            views = model.layout.decode(model.observe(state, player))
            if player == to_act:
                np.testing.assert_array_equal(views["place_legal"], mask)
            else:
                for name in ("place_legal", "place_points", "turn_points"):
                    assert not views[name].any(), name


def tiles_on(board: np.ndarray) -> dict[tuple[int, int], int]:
    """The tiles the ``board`` planes show: window cell -> tile id."""
    rows, cols = np.nonzero(board[12])
    return {
        (int(r), int(c)): int(np.argmax(board[:6, r, c])) * 6 + int(np.argmax(board[6:12, r, c]))
        for r, c in zip(rows, cols, strict=True)
    }


def brute_lines(board: np.ndarray) -> dict[str, np.ndarray]:
    """``line_length``, ``line_open`` and ``cell_kinds`` counted cell by cell: walking the
    runs, and asking the rules engine which kinds may be laid on each empty cell."""
    w = board.shape[1]
    tiles = tiles_on(board)
    rules = Board(tiles)
    kinds = np.zeros((w, w))
    for r in range(w):
        for c in range(w):
            near = any((r + dr, c + dc) in tiles for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)))
            if (r, c) not in tiles and near:
                kinds[r, c] = sum(rules.is_legal([(r, c, k)]) for k in range(36))
    length = np.zeros((2, w, w))
    open_ends = np.zeros((2, w, w))
    for d, (dr, dc) in enumerate(((0, 1), (1, 0))):
        for r, c in np.ndindex(w, w):
            n = 1
            ends = 0
            for sign in (-1, 1):
                rr, cc = r + sign * dr, c + sign * dc
                while (rr, cc) in tiles:
                    n += 1
                    rr, cc = rr + sign * dr, cc + sign * dc
                ends += 0 <= rr < w and 0 <= cc < w and kinds[rr, cc] > 0
            length[d, r, c] = n if n >= 2 else 0
            open_ends[d, r, c] = ends if (r, c) in tiles else 0
    return {"line_length": length, "line_open": open_ends, "cell_kinds": kinds[None]}


def test_line_fields_match_a_cell_by_cell_count() -> None:
    model = feature_model()
    closed = 0
    for state in positions(model, 11, every=90):
        views = model.layout.decode(model.observe(state, 1 - model.current_player(state)))
        for name, expected in brute_lines(views["board"]).items():
            np.testing.assert_array_equal(views[name], expected, err_msg=name)
        in_line = views["line_length"] > 0
        closed += int((in_line & (views["line_open"] < 2)).sum())
    assert closed > 0  # some line ends were blocked


@pytest.mark.parametrize("num_players", [2, 4])
def test_compiled_and_reference_features_are_equal(num_players: int) -> None:
    compiled = feature_model(num_players, "compiled")
    reference = feature_model(num_players, "reference")
    rng_c, rng_r = np.random.default_rng(7), np.random.default_rng(7)
    sc, sr = compiled.new_state(rng_c), reference.new_state(rng_r)
    play = np.random.default_rng(8)
    checked = 0
    while not compiled.is_over(sc) and checked < 300:
        for player in range(num_players):
            np.testing.assert_array_equal(
                compiled.observe(sc, player), reference.observe(sr, player)
            )
        checked += 1
        action = int(play.choice(np.flatnonzero(compiled.legal_mask(sc))))
        compiled.step(sc, action)
        reference.step(sr, action)
    assert checked >= 250


def test_env_with_features_conforms_and_stays_in_bounds() -> None:
    check_env(lambda: qwirkle_v0.raw_env(features=True), games=2)
    env = qwirkle_v0.raw_env(features=True, num_players=3, engine="reference")
    space = env.observation_space(env.possible_agents[0])["observation"]
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    top = 0.0
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        obs = env.observe(agent)["observation"]
        assert space.contains(obs)
        top = max(top, float(env.layout.decode(obs)["place_points"].max()))
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
    assert 0 < top <= MAX_TURN_POINTS


def test_features_option_through_the_factory_and_the_vector_api() -> None:
    env = make("qwirkle_v0", raw=True, features=True)
    assert "place_points" in env.layout.decode(env.layout.zeros())
    for engine, backend in (("compiled", "compiled"), ("reference", "reference")):
        games = VectorGames("qwirkle_v0", num_envs=2, seed=0, engine=engine, features=True)
        assert games.backend == backend
        out = games.reset()
        assert out.observation.shape == (2, env.layout.size)
        legal = env.layout.decode(out.observation)["place_legal"].reshape(2, -1)
        np.testing.assert_array_equal(legal, out.action_mask[:, :PLACEMENTS])


@pytest.mark.parametrize("num_players", [2, 4])
def test_compiled_batch_writes_the_features_of_the_game_model(num_players: int) -> None:
    """The batched games' observations with features (through game ends and restarts) equal
    the feature model's, game by game."""
    finished = check_batch(
        "qwirkle_v0", num_envs=3, num_players=num_players, steps=500, seed=3, features=True
    )
    assert finished > 0


def test_compiled_batch_rejects_a_non_bool_features_option() -> None:
    with pytest.raises(ConfigError, match="features=1 is not allowed; allowed: True or False"):
        QwirkleBatch(num_envs=1, features=1)  # type: ignore[arg-type]


def test_features_option_must_be_a_bool() -> None:
    with pytest.raises(ConfigError, match="features='yes' .* allowed: True or False"):
        qwirkle_v0.raw_env(features="yes")  # type: ignore[arg-type]
