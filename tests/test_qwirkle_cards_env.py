"""The qwirkle_cards_v0 environment: masks, observations, hidden information, rewards."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop_rl.envs import make, qwirkle_cards_v0
from tabletop_rl.envs.errors import ConfigError
from tabletop_rl.envs.qwirkle_cards import is_valid_table
from tabletop_rl.envs.qwirkle_cards.cards import TOTAL_CARDS
from tabletop_rl.envs.qwirkle_cards.game import Status
from tabletop_rl.envs.qwirkle_cards_v0 import CANNOT_PLAY, END_TURN, TAKE, raw_env


def play_random(env: raw_env, rng: np.random.Generator, check) -> int:  # type: ignore[no-untyped-def]
    """Masked random play until the end; ``check(env)`` after every step. Returns steps."""
    steps = 0
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        mask = env.action_mask()
        env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
        check(env)
    return steps


def conserved_and_valid(env: raw_env) -> None:
    game = env.game_state
    assert game.card_total() == TOTAL_CARDS
    assert is_valid_table(game.state.table)  # between turns and mid-turn alike
    assert all(min(h) >= 0 for h in game.state.hands)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), players=st.integers(2, 4))
def test_random_playouts_conserve_cards_and_end(seed: int, players: int) -> None:
    env = raw_env(num_players=players)
    env.reset(seed=seed)
    steps = play_random(env, np.random.default_rng(seed), conserved_and_valid)
    assert env.game_state.over and steps <= env.info.max_game_length


def test_mask_rules() -> None:
    """Redraw is exclusive; takes stop once a card is played; end needs a card played."""
    env = raw_env(num_players=3)
    rng = np.random.default_rng(4)
    redraws = takes = 0
    for seed in range(8):
        env.reset(seed=seed)
        while env.agents and not any(env.terminations.values()):
            if any(env.truncations.values()):
                break
            mask = env.action_mask()
            game = env.game_state
            if mask[CANNOT_PLAY]:
                assert mask.sum() == 1 and not game.legal_turns()
                redraws += 1
            elif not any(game.state.played):
                assert mask[:TAKE].any()  # a legal turn exists: some card can be played
            if any(game.state.played):  # Qwirkles are taken before cards are played
                assert not mask[TAKE:END_TURN].any()
            else:
                assert not mask[END_TURN]
            if mask[TAKE:END_TURN].any():
                assert mask[:TAKE].any()  # a take always leaves a card to play
            legal = np.flatnonzero(mask)
            take_actions = legal[(legal >= TAKE) & (legal < END_TURN)]
            action = int(take_actions[0]) if take_actions.size else int(rng.choice(legal))
            takes += bool(take_actions.size)
            env.step(action)
    assert takes > 0


def walk_turns(e: raw_env, reached: set[tuple], visited: set[tuple]) -> None:
    """Add to ``reached`` every (played, taken) ending a turn reachable from ``e`` by legal
    sub-actions; every state visited must have a legal action."""
    s = e.game_state.state
    key = (tuple(s.played), tuple(s.taken))
    if key in visited:  # the same selection reached in another order
        return
    visited.add(key)
    mask = e.action_mask()
    assert mask.any()
    for a in np.flatnonzero(mask):
        if a == CANNOT_PLAY:
            continue
        if a == END_TURN:
            reached.add(key)
            continue
        child = copy.deepcopy(e)
        child.step(int(a))
        walk_turns(child, reached, visited)


def test_turns_reachable_through_masks_equal_the_engines_legal_turns() -> None:
    """Real mid-game positions, the mover's hand cut to 5 cards (the rest put on the pile, so
    all 108 cards stay in play): every sub-action sequence of the env is walked."""
    nonempty = 0
    for seed in range(6):
        env = raw_env()
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(int(rng.integers(15, 60))):
            env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
        while (
            any(env.game_state.state.played)
            or any(env.game_state.state.taken)
            or env.game_state.first_turn
        ):
            env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
        assert not env.game_state.over
        s = env.game_state.state
        hand = s.hands[s.to_move]
        kinds = [k for k in range(len(hand)) for _ in range(hand[k])]
        for k in rng.permutation(kinds)[5:]:
            hand[int(k)] -= 1
            s.pile.append(int(k))
        env.game_state._builder = None
        env._mask = None
        assert env.game_state.card_total() == TOTAL_CARDS
        expected = {(t.played, t.taken) for t in env.game_state.legal_turns()}
        reached: set[tuple] = set()
        walk_turns(env, reached, set())
        assert reached == expected
        assert env.action_mask()[CANNOT_PLAY] == (not expected)
        nonempty += bool(expected)
    assert nonempty >= 3


def test_observation_hides_other_hands_and_the_pile() -> None:
    env = raw_env(num_players=3)
    rng = np.random.default_rng(0)
    for seed in range(4):
        env.reset(seed=seed)
        for step in range(60):
            if not env.agents or env.game_state.over:
                break
            if step % 7 == 3:
                for agent in env.possible_agents:
                    before = env.observe(agent)
                    view = env.public_view(agent)
                    clone = copy.deepcopy(env)
                    clone.resample_hidden(agent, np.random.default_rng(step))
                    after = clone.observe(agent)
                    assert np.array_equal(before["observation"], after["observation"])
                    assert np.array_equal(before["action_mask"], after["action_mask"])
                    assert clone.public_view(agent) == view
                    assert clone.game_state.card_total() == TOTAL_CARDS
                    assert clone.action_mask().any()  # the mover can still finish the turn
            env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))


def test_resampling_mid_turn_keeps_the_turn_completable() -> None:
    """A determinisation for another player never leaves the mover in a dead end."""
    env = raw_env()
    rng = np.random.default_rng(1)
    checked = 0
    for seed in range(12):
        env.reset(seed=seed)
        while env.agents and not env.game_state.over:
            s = env.game_state.state
            if any(s.played) or any(s.taken):
                other = env.possible_agents[1 - s.to_move]
                for r in range(5):
                    clone = copy.deepcopy(env)
                    clone.resample_hidden(other, np.random.default_rng(r))
                    assert clone.action_mask().any()
                    assert clone.game_state.state.played == s.played
                    assert clone.game_state.card_total() == TOTAL_CARDS
                checked += 1
            env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
            if checked > 40:
                break
    assert checked > 40


def test_observation_fields() -> None:
    env = raw_env(num_players=3)
    env.reset(seed=5)
    agent = env.agent_selection
    obs = env.layout.decode(env.observe(agent)["observation"])
    game = env.game_state
    player = env.possible_agents.index(agent)
    assert obs["hand"].tolist() == list(game.state.hands[player])
    assert obs["first_turn"][0] == 1 and obs["to_act"][0] == 1 and obs["starter"][0] == 1
    assert obs["seated"].tolist() == [1, 1, 1, 0]
    assert obs["hand_sizes"].tolist() == [9, 9, 9, 0]
    assert obs["pile_size"][0] == TOTAL_CARDS - 27
    assert obs["unseen"].sum() == TOTAL_CARDS - 9
    other = env.possible_agents[(player + 1) % 3]
    obs_other = env.layout.decode(env.observe(other)["observation"])
    assert obs_other["to_act"].tolist() == [0, 0, 1, 0]


def test_score_reward_counts_qwirkles() -> None:
    for seed in range(4):
        env = raw_env(reward="score")
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents:
            agent = env.agent_selection
            totals[agent] += env._cumulative_rewards[agent]
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            mask = env.action_mask()
            legal = np.flatnonzero(mask)
            takes = legal[(legal >= TAKE) & (legal < END_TURN)]
            env.step(int(takes[0]) if takes.size else int(rng.choice(legal)))
        counts = env.game_state.qwirkle_counts()
        assert [totals[a] for a in env.possible_agents] == counts


def test_end_rule_and_turn_limit_options() -> None:
    env = make("qwirkle_cards_v0", raw=True, end_rule="final_turn_each", max_turns=4)
    env.reset(seed=0)
    assert env.info.max_game_length == 10 * 4 + 18
    play_random(env, np.random.default_rng(0), lambda e: None)
    assert env.game_state.status is Status.TRUNCATED and env.game_state.turn_count == 4
    with pytest.raises(ConfigError, match="end_rule='english' is unknown"):
        raw_env(end_rule="english")
    with pytest.raises(ConfigError, match="max_turns"):
        raw_env(max_turns=0)


def test_clone_and_pickle_mid_turn() -> None:
    env = raw_env()
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(25):
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
    clones = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    for _ in range(40):
        if not env.agents or env.game_state.over:
            break
        a = int(rng.choice(np.flatnonzero(env.action_mask())))
        for e in (env, *clones):
            e.step(a)
    assert clones[0].dump() == clones[1].dump() == env.dump()


def test_renderings_and_descriptions() -> None:
    env = qwirkle_cards_v0.env(render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert "table" in text and "hand" in text and "Qwirkle" in text
    raw = env.unwrapped
    assert raw.describe_action(3) == "play Rs"
    assert raw.describe_action(TAKE + 6) == "take a Qwirkle of symbol o"
    assert raw.describe_action(END_TURN) == "end the turn"
    assert "qwirkle_cards v0" in raw.dump()
