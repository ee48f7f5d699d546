"""Information-set MCTS: plays sensibly, never peeks, respects its budget."""

from __future__ import annotations

import copy
import importlib
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tabletop_rl.baselines.agents.mcts import MCTSAgent
from tabletop_rl.baselines.arena import ArenaConfig, run_arena
from tabletop_rl.envs import ConfigError, available_envs, make
from tabletop_rl.envs.core.simulator import Playout, Simulator, select_action

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
toy_games = importlib.import_module("toy_games")
TOY = "toy_games:raw_env"


def _position(counter: int, hand: list[int], other: list[int]) -> toy_games.HiddenNimEnv:
    env = toy_games.raw_env(num_players=2)
    s = env.model.new_state(np.random.default_rng(0))
    pool = [v for v in toy_games.VALUES for _ in range(toy_games.COPIES)]
    for v in hand + other:
        pool.remove(v)
    s.update(counter=counter, hands=[sorted(hand), sorted(other)], stock=pool, player=0)
    s["played"] = [0, 0, 0]
    env.load_state(s)
    return env


def test_takes_a_winning_move() -> None:
    env = _position(counter=2, hand=[1, 2], other=[3, 3])
    agent = MCTSAgent(np.random.default_rng(0), simulations=60)
    assert env.describe_action(select_action(agent, env)) == "play 2"


def test_avoids_a_move_that_lets_the_opponent_win() -> None:
    # from 4, playing 1 leaves 3 (any 3 wins for the opponent, who likely holds one);
    # playing 2 leaves 2, playing 3 leaves 1: the opponent must then hold that exact card
    env = _position(counter=4, hand=[1, 3], other=[3, 3])
    agent = MCTSAgent(np.random.default_rng(1), simulations=300)
    assert env.describe_action(select_action(agent, env)) == "play 3"


def test_beats_random_play(tmp_path: Path) -> None:
    # MCTS wins about 70% of toy games against random play (measured over 400 games)
    config = ArenaConfig(env=TOY, agents=("random", "mcts:simulations=80"), games=100, seed=3)
    run = run_arena(config, tmp_path, progress=False, workers=2)
    rows = {r["agent"]: r for r in run.summary["agents"]}
    assert rows["mcts:simulations=80"]["win_lo"] > 0.5


def test_same_seed_same_move_and_budget_counts() -> None:
    env = toy_games.raw_env(num_players=3)
    seed = 0
    env.reset(seed=seed)
    while env.action_mask().sum() < 2:
        seed += 1
        env.reset(seed=seed)
    moves = set()
    for _ in range(2):
        agent = MCTSAgent(np.random.default_rng(9), simulations=25)
        moves.add(select_action(agent, env))
        assert agent.last_iterations == 25
    assert len(moves) == 1


def test_time_budget() -> None:
    env = _position(counter=9, hand=[1, 2], other=[3, 3])
    agent = MCTSAgent(np.random.default_rng(0), time_ms=30)
    started = time.perf_counter()
    action = select_action(agent, env)
    elapsed = time.perf_counter() - started
    assert env.action_mask()[action]
    assert agent.last_iterations >= 1 and elapsed < 1.0


def test_options_are_checked() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ConfigError, match="rollout"):
        MCTSAgent(rng, rollout="smart")
    with pytest.raises(ConfigError, match="simulations"):
        MCTSAgent(rng, simulations=0)
    env = toy_games.raw_env()
    env.reset(seed=0)
    with pytest.raises(ConfigError, match="Simulator"):
        MCTSAgent(rng).act(env.observe(env.agent_selection), env.public_view("player_0"))


def test_simulator_hides_the_real_game() -> None:
    env = toy_games.raw_env(num_players=2)
    env.reset(seed=6)
    sim = Simulator.of_env(env, "player_0")
    assert sim.public_view() == env.public_view("player_0")
    sample = sim.sample(np.random.default_rng(0))
    assert sample.state is not env.game_state
    np.testing.assert_array_equal(
        sample.observe(0)["observation"], env.observe("player_0")["observation"]
    )
    before = copy.deepcopy(env.game_state)
    sample.step(int(np.flatnonzero(sample.action_mask())[0]))
    assert env.game_state == before


@pytest.mark.parametrize("env_name", [*available_envs(), TOY])
def test_determinisation_depends_only_on_what_the_player_sees(env_name: str) -> None:
    """Search agents need determinize(agent, rng) to be a function of the player's view."""
    env = make(env_name, raw=True, num_players=2)
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    for step in range(12):
        name = env.agent_selection
        if env.terminations[name] or env.truncations[name]:
            break
        twin = copy.deepcopy(env)
        twin.resample_hidden(name, np.random.default_rng(step))
        a = env.determinize(name, np.random.default_rng(99))
        b = twin.determinize(name, np.random.default_rng(99))
        # the copies must agree now and on the chance to come: play both on with the same
        # seeded random moves and compare what everyone sees
        moves = np.random.default_rng(step)
        for _ in range(8):
            for agent in env.possible_agents:
                np.testing.assert_array_equal(
                    a.observe(agent)["observation"], b.observe(agent)["observation"]
                )
            if any(a.terminations.values()) or any(a.truncations.values()):
                break
            action = int(moves.choice(np.flatnonzero(a.action_mask())))
            a.step(action)
            b.step(action)
        env.step(int(rng.choice(np.flatnonzero(env.observe(name)["action_mask"]))))


def test_cut_rollouts_are_judged_by_score() -> None:
    from tabletop_rl.baselines.agents.mcts import _judge_unfinished

    env = _position(counter=9, hand=[1, 2], other=[3, 3])
    game = Playout(env.model, env.game_state)
    env.game_state["scores"] = [5, 3]
    assert _judge_unfinished(game, None) == [1.0, 0.0]
    fair = _judge_unfinished(game, 2.0)
    assert fair[0] == pytest.approx(1 / (1 + np.exp(-1))) and fair[0] + fair[1] == pytest.approx(1)
    env.game_state["scores"] = [4, 4]
    assert _judge_unfinished(game, None) == [0.5, 0.5]
    agent = MCTSAgent(np.random.default_rng(0), simulations=20, rollout_turns=1, margin_scale=3)
    assert env.action_mask()[select_action(agent, env)]


# --------------------------------------------------------------- whole-turn search
def _play_greedy_turns(env_name: str, seed: int, turns: int) -> object:
    """A position ``turns`` greedy turns into a two-player game, at a turn's start."""
    from tabletop_rl.baselines.agents import make_agent

    env = make(env_name, raw=True, num_players=2)
    env.reset(seed=seed)
    greedy = make_agent("greedy", env_name, np.random.default_rng(seed))
    done = 0
    while done < turns:
        name = env.agent_selection
        player = env.current_player()
        env.step(greedy.act(env.observe(name), env.public_view(name)))
        done += env.current_player() != player
    return env


def _sub_action_turns(env: object, key_of_end: object) -> set:
    """Brute force: every complete turn reachable through the masks from ``env``, as the
    keys ``key_of_end(env_before_end, action)`` gives; partial turns are visited once."""
    found: set = set()
    seen: set = set()
    player = env.current_player()

    def walk(state: object) -> None:
        for action in np.flatnonzero(state.action_mask()):
            nxt = copy.deepcopy(state)
            key = key_of_end(nxt, int(action))
            nxt.step(int(action))
            if nxt.current_player() != player or any(nxt.terminations.values()):
                found.add(key)
                continue
            progress = key  # a partial turn: what is down so far
            if progress in seen:
                continue
            seen.add(progress)
            walk(nxt)

    walk(env)
    return found


def _qwirkle_key(env: object, action: int) -> object:
    from tabletop_rl.envs.qwirkle.actions import EndTurn, Exchange, Pass, Place

    st = env.game_state
    hand = st.game.hand
    move = env.model.codec.decode(action)
    if isinstance(move, Place | EndTurn):  # a placement (then the partial move) or the end
        placed = {(r, c, hand[s]) for r, c, s in st.turn.order}
        if isinstance(move, Place):
            r, c = st.origin[0] + move.row, st.origin[1] + move.col
            placed.add((r, c, hand[move.slot]))
        return ("move", frozenset(placed))
    if isinstance(move, Pass):
        return ("pass",)
    assert isinstance(move, Exchange)
    return ("exchange", tuple(sorted(hand[s] for s in move.slots)))


@pytest.mark.parametrize("turns", [0, 3, 8])
def test_qwirkle_whole_turns_are_exactly_the_legal_turns(turns: int) -> None:
    from tabletop_rl.baselines.agents.turns import QwirkleTurnModel

    env = _play_greedy_turns("qwirkle_v0", seed=4, turns=turns)
    name = env.agent_selection
    options = QwirkleTurnModel().options(env.public_view(name))
    keys = [o.key for o in options]
    assert len(keys) == len(set(keys))
    assert set(keys) == _sub_action_turns(env, _qwirkle_key)
    for option in options:  # each option's sub-actions play exactly that turn
        state = copy.deepcopy(env)
        for action in option.actions[:-1]:
            assert state.action_mask()[action]
            state.step(action)
        assert _qwirkle_key(state, option.actions[-1]) == option.key
        assert state.action_mask()[option.actions[-1]]


def _cards_key(env: object, action: int) -> object:
    from tabletop_rl.envs.qwirkle_cards.turns import Turn
    from tabletop_rl.envs.qwirkle_cards_v0 import CANNOT_PLAY, END_TURN, TAKE

    s = env.game_state.state
    played, taken = list(s.played), list(s.taken)
    if action == CANNOT_PLAY:
        return "cannot_play"
    if action < TAKE:
        played[action] += 1
    elif action < END_TURN:
        taken[action - TAKE] += 1
    return Turn(tuple(played), tuple(taken))


@pytest.mark.parametrize("seed,turns", [(3, 0), (5, 2)])
def test_qwirkle_cards_whole_turns_are_exactly_the_legal_turns(seed: int, turns: int) -> None:
    from tabletop_rl.baselines.agents.turns import QwirkleCardsTurnModel

    env = _play_greedy_turns("qwirkle_cards_v0", seed=seed, turns=turns)
    options = QwirkleCardsTurnModel().options(env.public_view(env.agent_selection))
    keys = [o.key for o in options]
    assert len(keys) == len(set(keys))
    assert set(keys) == _sub_action_turns(env, _cards_key)
    for option in options[:: max(1, len(options) // 20)]:
        state = copy.deepcopy(env)
        for action in option.actions:
            assert state.action_mask()[action]
            state.step(action)


def _turn_agent(env_name: str, seed: int = 0, **options: object) -> MCTSAgent:
    from tabletop_rl.baselines.agents.mcts import make_mcts

    settings = {"simulations": 12, "candidates": 4, **options}
    return make_mcts(np.random.default_rng(seed), env_name, **settings)


@pytest.mark.parametrize("env_name", ["qwirkle_v0", "qwirkle_cards_v0"])
def test_the_chosen_turn_is_played_out_with_legal_actions(env_name: str) -> None:
    from tabletop_rl.baselines.agents import make_agent

    env = make(env_name, raw=True, num_players=2)
    env.reset(seed=2)
    agent = _turn_agent(env_name)
    greedy = make_agent("greedy", env_name, np.random.default_rng(1))
    planned = 0
    for _ in range(60):
        name = env.agent_selection
        if any(env.terminations.values()) or planned >= 3:
            break
        if name == "player_0":
            start = env.current_player()
            emitted = []
            while env.agent_selection == name and env.current_player() == start:
                emitted.append(select_action(agent, env, env_name=env_name))  # checks the mask
                env.step(emitted[-1])
                if any(env.terminations.values()):
                    break
            if len(emitted) > 1 or agent.last_iterations:
                assert tuple(emitted) == agent.last_turn.actions
                planned += 1
        else:
            env.step(greedy.act(env.observe(name), env.public_view(name)))
    assert planned >= 3


def test_a_turn_started_by_someone_else_is_finished_legally() -> None:
    env = _play_greedy_turns("qwirkle_v0", seed=4, turns=3)
    name = env.agent_selection
    mask = env.action_mask()
    env.step(int(np.flatnonzero(mask[: env.model.codec.end])[0]))  # one tile laid, not by the agent
    agent = _turn_agent("qwirkle_v0")
    assert env.action_mask()[select_action(agent, env, env_name="qwirkle_v0")]
    assert env.agent_selection == name


@pytest.mark.parametrize("env_name", ["qwirkle_v0", "qwirkle_cards_v0"])
def test_turn_search_is_deterministic_and_blind_to_hidden_information(env_name: str) -> None:
    env = _play_greedy_turns(env_name, seed=6, turns=2)
    name = env.agent_selection
    twin = copy.deepcopy(env)
    twin.resample_hidden(name, np.random.default_rng(123))  # other hand, bag or pile redrawn
    assert twin.dump() != env.dump()
    choices = set()
    for position in (env, env, twin):
        agent = _turn_agent(env_name, seed=8)
        choices.add(select_action(agent, position, env_name=env_name))
        assert agent.last_iterations == 12
    assert len(choices) == 1


def test_deeper_turn_trees_play_legally() -> None:
    env = _play_greedy_turns("qwirkle_v0", seed=1, turns=4)
    agent = _turn_agent("qwirkle_v0", tree_turns=3, simulations=20)
    assert env.action_mask()[select_action(agent, env, env_name="qwirkle_v0")]
    assert agent.last_iterations == 20


def test_turn_search_options_are_checked() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ConfigError, match="search"):
        MCTSAgent(rng, search="plies")
    with pytest.raises(ConfigError, match="whole-turn model"):
        MCTSAgent(rng, search="turns", env_name="liniell_v0")
    with pytest.raises(ConfigError, match="candidates"):
        MCTSAgent(rng, candidates=0)
    with pytest.raises(ConfigError, match="tree_turns"):
        MCTSAgent(rng, tree_turns=0)


@pytest.mark.parametrize("seed", [3, 8])
def test_qwirkle_playout_greedy_turns_score_the_best_legal_move(seed: int) -> None:
    """The greedy turns of the whole-turn search's playouts (read off the compiled engine's
    arrays) score, in every turn of whole games, the most that any legal move scores by the
    reference engine's complete move generator, the end bonus included."""
    from tabletop_rl.baselines.agents.turns import QwirkleTurnModel
    from tabletop_rl.envs.core.simulator import Playout
    from tabletop_rl.envs.qwirkle.compiled import QwirkleCompiledModel
    from tabletop_rl.envs.qwirkle.game import END_BONUS

    model = QwirkleCompiledModel()
    game = Playout(model, model.new_state(np.random.default_rng(seed)))
    turns, rng = QwirkleTurnModel(), np.random.default_rng(seed)
    played = 0
    while not model.is_over(game.state):
        player = game.current_player()
        view = game.public_view(player)
        ends = view.bag_size == 0
        scored = [
            s + (END_BONUS if ends and len(m) == len(view.hand) else 0)
            for m, s in view.scored_moves()
        ]
        best = max(scored, default=0)
        before = game.scores()[player]
        for action in turns.greedy_actions(game, rng):
            assert game.action_mask()[action]
            game.step(action)
        assert game.scores()[player] - before == best
        assert model.is_over(game.state) or game.current_player() != player
        played += 1
    assert played > 30
