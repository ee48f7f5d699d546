"""Qwirkle's greedy agent: it takes the best move over all legal moves and beats random play."""

from __future__ import annotations

import numpy as np

from tabletop_rl.baselines.agents import RandomAgent, make_agent
from tabletop_rl.baselines.agents.qwirkle import QwirkleGreedyAgent
from tabletop_rl.envs import qwirkle_v0
from tabletop_rl.envs.qwirkle import legal_moves, parse_tile


def play(seed: int, kinds: str, check: bool = False) -> tuple[list[int], qwirkle_v0.raw_env]:
    """One game, ``kinds[i]`` = "g" (greedy) or "r" (random) for seat i.

    With ``check``, every greedy turn must score the most any legal move scores.
    """
    env = qwirkle_v0.raw_env(num_players=len(kinds), engine="reference")
    env.reset(seed=seed)
    agents = [
        QwirkleGreedyAgent(np.random.default_rng(seed * 10 + i))
        if k == "g"
        else RandomAgent(np.random.default_rng(seed * 10 + i))
        for i, k in enumerate(kinds)
    ]
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        player = env._agent_index[agent]
        state = env.game_state.game
        best = None
        if (
            check
            and kinds[player] == "g"
            and not env.game_state.turn.pending
            and not state.first_turn
        ):
            moves = legal_moves(state.board, state.hand)
            best = max((state.board.score(m) for m in moves), default=0)
            before = state.scores[player]
        env.step(agents[player].act(env.observe(agent), env.public_view(agent)))
        if best is not None:
            while env.game_state.turn.pending:
                env.step(agents[player].act(env.observe(agent), env.public_view(agent)))
            bonus = 6 if state.end_bonus_player == player else 0
            assert state.scores[player] - before - bonus == best
    return env.game_state.game.scores, env


def test_greedy_beats_random() -> None:
    wins = 0
    for seed in range(10):
        kinds = "gr" if seed % 2 else "rg"
        scores, _ = play(seed, kinds)
        greedy = kinds.index("g")
        wins += scores[greedy] > scores[1 - greedy]
    assert wins >= 9


def test_greedy_self_play_scores_like_a_greedy_player() -> None:
    points = [np.mean(play(seed, "gg")[0]) for seed in range(4)]
    # public engines' greedy self-play: about 205-220 points per player; random about 130-150
    assert 170 < np.mean(points) < 260


def test_greedy_in_a_four_player_game_ends() -> None:
    scores, env = play(1, "grgr")
    assert env.game_state.game.finished and len(scores) == 4


def test_greedy_turns_score_the_best_legal_move() -> None:
    play(21, "gr", check=True)
    play(22, "rg", check=True)


def test_exchange_keeps_the_largest_set() -> None:
    hand = [parse_tile(c) for c in ["Bo", "Bx", "Bd", "Rs", "Rs", "Yt"]]
    # the duplicate Rs first, then the tiles outside the blue set
    assert QwirkleGreedyAgent.exchange_slots(hand, 6) == [3, 4, 5]
    assert QwirkleGreedyAgent.exchange_slots(hand, 2) == [3, 4]
    whole_set = [parse_tile(c) for c in ["Bo", "Bx", "Bd", "Bs", "Bt", "Bc"]]
    assert QwirkleGreedyAgent.exchange_slots(whole_set, 3) == [0, 1, 2]


def test_registry_builds_it() -> None:
    agent = make_agent("greedy", "qwirkle_v0", np.random.default_rng(0))
    assert isinstance(agent, QwirkleGreedyAgent) and agent.name == "greedy"
