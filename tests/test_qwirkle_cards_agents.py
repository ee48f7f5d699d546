"""The greedy Qwirkle Cards agent: legal, greedy, and clearly better than random."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop_rl.baselines.agents import agent_names, make_agent
from tabletop_rl.baselines.agents.qwirkle_cards import (
    best_turn,
    most_qwirkles,
    reference_best_turn,
)
from tabletop_rl.envs import qwirkle_cards_v0
from tabletop_rl.envs.qwirkle_cards import legal_turns, parse_cards
from tabletop_rl.envs.qwirkle_cards.cards import NUM_LINES
from tabletop_rl.envs.qwirkle_cards.compiled_solver import SearchWork, is_valid_counts
from tabletop_rl.envs.qwirkle_cards.greedy_turns import most_qwirkles as compiled_most_qwirkles
from tabletop_rl.envs.qwirkle_cards.turns import playable_sets


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


def _random_turn_starts(games: int, seed: int) -> list[Any]:
    """Views of the player to act at turn starts (not the first turn) of random games."""
    env = qwirkle_cards_v0.raw_env()
    rng = np.random.default_rng(seed)
    views = []
    for game_seed in range(games):
        env.reset(seed=game_seed)
        while not env.game_state.over:
            game = env.game_state
            state = game.state
            if not (game.first_turn or any(state.played) or any(state.taken)):
                views.append(env.public_view(env.agent_selection))
            env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
    return views


def test_compiled_greedy_turn_is_the_reference_turn(
    heuristic_turn_starts: Callable[[str, int], list[tuple[Any, Any]]],
) -> None:
    """The compiled search returns the reference's turn and draws the same numbers, at the
    turn starts of heuristic games (hands of few copies) and of random ones (the pile's order
    and full hands of many copies), each with several tie-breaking generators."""
    views = [view for _, view in heuristic_turn_starts("qwirkle_cards_v0", 0)]
    views += _random_turn_starts(8, seed=5)
    differ_by_seed = 0
    for view in views:
        turns = set()
        for seed in range(3):
            fast, slow = np.random.default_rng(seed), np.random.default_rng(seed)
            turn = best_turn(view, fast)
            assert turn == reference_best_turn(view, slow), (view.table, view.hand, seed)
            assert fast.bit_generator.state == slow.bit_generator.state
            turns.add(turn)
        differ_by_seed += len(turns) > 1
    assert len(views) >= 150 and differ_by_seed >= 10  # the tie-breaks were exercised


def test_compiled_most_qwirkles_is_the_reference(
    heuristic_turn_starts: Callable[[str, int], list[tuple[Any, Any]]],
) -> None:
    """The compiled branch and bound finds the reference's multiset of Qwirkles, for every
    floor, on the tables that each hand's cards make playable."""
    work = SearchWork()
    taken = np.zeros(NUM_LINES, dtype=np.int64)
    rng = np.random.default_rng(7)
    tables = 0
    for view in [v for _, v in heuristic_turn_starts("qwirkle_cards_v0", 1)][::3]:
        for played in playable_sets(view.table, view.hand)[:: 1 + int(rng.integers(4))]:
            after = tuple(t + p for t, p in zip(view.table, played, strict=True))
            tables += 1
            for floor in range(3):
                expected = most_qwirkles(after, floor)
                got = compiled_most_qwirkles(
                    np.array(after, dtype=np.int64), floor, work.rows, work.options,
                    work.memo, taken,
                )  # fmt: skip
                if expected is None:
                    assert got == -1 and not taken.any()
                else:
                    assert got == sum(expected) and tuple(taken.tolist()) == expected
    assert tables >= 50


def test_legal_turns_on_the_compiled_solver_are_the_reference_list(
    heuristic_turn_starts: Callable[[str, int], list[tuple[Any, Any]]],
) -> None:
    """The search agent lists its root's turns with the compiled solver: the same turns in
    the same order as the reference solver's listing."""
    views = [view for _, view in heuristic_turn_starts("qwirkle_cards_v0", 0)]
    for view in views:
        assert view.legal_turns(valid=is_valid_counts) == view.legal_turns()
    assert sum(len(view.legal_turns()) > 1 for view in views) >= 20
