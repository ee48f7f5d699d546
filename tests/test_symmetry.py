"""Board symmetries: group structure, and Qwirkle's rules agree with them position by position."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_rl.envs import liniell_v0, qwirkle_cards_v0, qwirkle_v0
from tabletop_rl.envs.core.observation import Field, ObservationLayout
from tabletop_rl.envs.core.symmetry import Symmetries, dihedral_symmetries
from tabletop_rl.envs.qwirkle.board import Board

START_OF_TURN = 1
"""Index of "start of a turn" in Qwirkle's ``phase`` one-hot."""


def _cell_maps(env: qwirkle_v0.raw_env, sym: Symmetries) -> np.ndarray:
    """Per symmetry, the real window cell that each transformed cell shows (slot 0's map)."""
    return sym.actions[:, : env.window**2]


def test_qwirkle_symmetries_form_the_dihedral_group_on_the_board_only() -> None:
    env = qwirkle_v0.raw_env(engine="reference")
    sym = env.symmetries()
    assert len(sym) == 8 and sym.names[0] == "identity"
    perms = {tuple(p) for p in sym.obs}
    assert len(perms) == 8
    for p in sym.obs:  # closed under composition: g after h is one of the eight
        for q in sym.obs:
            assert tuple(p[q]) in perms
    board = env.layout.slice("board")
    outside = np.r_[0 : board.start, board.stop : env.layout.size]
    assert (sym.obs[:, outside] == outside).all()  # hands, bag, scores... never move
    place = env.action_layout().slice("place")
    assert (sym.actions[:, place.stop :] == np.arange(place.stop, env.info.num_actions)).all()
    # Each cell map keeps orthogonal neighbours neighbours: an isometry of the grid.
    w = env.window
    for cells in _cell_maps(env, sym):
        rows, cols = np.divmod(cells.reshape(w, w), w)
        steps = np.abs(np.diff(rows, axis=1)) + np.abs(np.diff(cols, axis=1))
        assert (steps == 1).all()
        steps = np.abs(np.diff(rows, axis=0)) + np.abs(np.diff(cols, axis=0))
        assert (steps == 1).all()
    # Every slot's placements move with the same cell map.
    for slot in range(6):
        cells = sym.actions[:, slot * w * w : (slot + 1) * w * w] - slot * w * w
        assert (cells == _cell_maps(env, sym)).all()


def _turn_starts(seed: int, count: int) -> list[qwirkle_v0.raw_env]:
    """Copies of a masked random game at ``count`` of its turn starts after the first turn."""
    import copy

    env = qwirkle_v0.raw_env(engine="reference")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    turn = 0
    while len(out) < count:
        agent = env.agent_selection
        assert not (env.terminations[agent] or env.truncations[agent])
        obs = env.observe(agent)
        phase = env.layout.decode(obs["observation"])["phase"]
        if phase[START_OF_TURN] == 1:
            turn += 1
            if turn % 3 == 0:
                out.append(copy.deepcopy(env))
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_transformed_qwirkle_positions_obey_the_rules(seed: int) -> None:
    """In the frame of every symmetry, the observation shows the transformed board and the
    mask offers exactly the placements that the rules engine allows on that board."""
    for env in _turn_starts(seed, count=4):
        agent = env.agent_selection
        obs = env.observe(agent)
        hand = env.layout.decode(obs["observation"])
        slots = [
            int(np.argmax(c)) * 6 + int(np.argmax(s)) if c.any() else None
            for c, s in zip(hand["hand_colour"], hand["hand_shape"], strict=True)
        ]
        sym = env.symmetries()
        w = env.window
        r0, c0 = env.game_state.origin
        for g in range(len(sym)):
            real_cell = _cell_maps(env, sym)[g]
            shown = {int(c): x for x, c in enumerate(real_cell)}  # real cell -> transformed
            tiles = {}
            for (br, bc), tile in env.game_state.game.board.items():
                x = shown[(br - r0) * w + (bc - c0)]
                tiles[(r0 + x // w, c0 + x % w)] = tile
            board = Board(tiles)
            t_obs = env.layout.decode(sym.transform_obs(g, obs["observation"]))
            t_mask = sym.transform_mask(g, obs["action_mask"])
            planes = t_obs["board"]
            for x in range(w * w):
                tile = board.get((r0 + x // w, c0 + x % w))
                assert planes[12].flat[x] == (tile is not None)
                if tile is not None:
                    assert planes[tile // 6].flat[x] == 1 and planes[6 + tile % 6].flat[x] == 1
            for slot, tile in enumerate(slots):
                for x in range(w * w):
                    legal = tile is not None and board.is_legal([(r0 + x // w, c0 + x % w, tile)])
                    assert t_mask[slot * w * w + x] == legal, (sym.names[g], slot, x)
            assert (t_mask[6 * w * w :] == obs["action_mask"][6 * w * w :]).all()


def test_games_without_direction_free_boards_declare_no_symmetries() -> None:
    assert liniell_v0.raw_env().symmetries() is None
    assert qwirkle_cards_v0.raw_env().symmetries() is None


def test_dihedral_symmetries_reject_bad_layouts() -> None:
    flat = ObservationLayout((Field("x", (3,), "x"),))
    board = ObservationLayout((Field("b", (1, 2, 3), "b", spatial=True),))
    with pytest.raises(ValueError, match="spatial fields"):
        dihedral_symmetries(flat, flat)
    with pytest.raises(ValueError, match="2 x 3"):
        dihedral_symmetries(board, board)
    with pytest.raises(ValueError, match="not a permutation"):
        Symmetries(("identity",), np.array([[0, 0]]), np.array([[0]]))
    with pytest.raises(ValueError, match="identity"):
        Symmetries(("identity",), np.array([[1, 0]]), np.array([[0]]))


def test_conformance_checks_declared_symmetries() -> None:
    from tabletop_rl.baselines.ppo.toy import TicTacToeEnv
    from tabletop_rl.envs.core.conformance import check_symmetries

    check_symmetries(TicTacToeEnv())  # the full dihedral group passes

    class QuarterTurnOnly(TicTacToeEnv):
        def symmetries(self) -> Symmetries:  # identity and a quarter turn: not closed
            full = super().symmetries()
            return Symmetries(full.names[:2], full.obs[:2], full.actions[:2])

    with pytest.raises(AssertionError, match="not in the group"):
        check_symmetries(QuarterTurnOnly())
