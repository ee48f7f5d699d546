"""The greedy Qwirkle Cards agent: legal, greedy, and clearly better than random."""

from __future__ import annotations

import numpy as np

from tabletop_rl.baselines.agents import agent_names, make_agent
from tabletop_rl.baselines.agents.qwirkle_cards import best_turn, most_qwirkles
from tabletop_rl.envs import qwirkle_cards_v0
from tabletop_rl.envs.qwirkle_cards import legal_turns, parse_cards


def play(seed: int, greedy_seat: int) -> tuple[list[int], list[int]]:
    """One two-player game, greedy against random; Qwirkle counts and winners."""
    env = qwirkle_cards_v0.raw_env()
    env.reset(seed=seed)
    agents = {
        env.possible_agents[greedy_seat]: make_agent(
            "greedy", "qwirkle_cards_v0", np.random.default_rng(seed)
        ),
        env.possible_agents[1 - greedy_seat]: make_agent(
            "random", "qwirkle_cards_v0", np.random.default_rng(seed + 1)
        ),
    }
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        action = agents[agent].act(env.observe(agent), env.public_view(agent))
        assert env.action_mask()[action]
        env.step(action)
    return env.game_state.qwirkle_counts(), env.game_state.winners()


def test_greedy_is_registered() -> None:
    assert "greedy" in agent_names("qwirkle_cards_v0")


def test_greedy_beats_random() -> None:
    wins = 0
    margin = 0
    for seed in range(4):
        seat = seed % 2
        counts, winners = play(seed, seat)
        wins += winners == [seat]
        margin += counts[seat] - counts[1 - seat]
    assert wins >= 3 and margin >= 12


def test_best_turn_is_the_best_legal_turn() -> None:
    env = qwirkle_cards_v0.raw_env()
    rng = np.random.default_rng(3)
    checked = 0
    for seed in range(30):
        env.reset(seed=seed)
        for _ in range(int(rng.integers(10, 40))):
            if env.game_state.over:
                break
            env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
        while (
            any(env.game_state.state.played) or any(env.game_state.state.taken)
        ) and not env.game_state.over:
            env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
        game = env.game_state
        if game.over or game.first_turn:
            continue
        # cut the mover's hand to 5 cards (the rest onto the pile) so brute force is quick
        s = game.state
        hand = s.hands[s.to_move]
        kinds = [k for k in range(len(hand)) for _ in range(hand[k])]
        for k in rng.permutation(kinds)[5:]:
            hand[int(k)] -= 1
            s.pile.append(int(k))
        game._builder = None
        hand = game.hand(game.to_move)
        view = env.public_view(env.agent_selection)
        turns = legal_turns(view.table, hand)
        chosen = best_turn(view, np.random.default_rng(0))
        if not turns:
            assert chosen is None
            continue
        best = max((t.num_qwirkles, t.num_played) for t in turns)
        assert chosen in turns and (chosen.num_qwirkles, chosen.num_played) == best
        checked += 1
    assert checked >= 3


def test_most_qwirkles_takes_both_copies_of_a_line() -> None:
    after = parse_cards("Ro Rx Rd Rs Rt Rc Ro Rx Rd Rs Rt Rc Bs Ys Gs")
    assert sum(most_qwirkles(after)) == 2
