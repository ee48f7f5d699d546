"""The game registry: one GameSpec per game, every entry resolves to the right kind of object,
every per-game table is read from it, and ``make`` is the one environment lookup."""

from __future__ import annotations

import dataclasses
import inspect
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest

from tabletop_rl.baselines.agents import agent_class, agent_names
from tabletop_rl.baselines.agents.base import SeededAgent
from tabletop_rl.baselines.agents.mcts import MCTSAgent, make_mcts
from tabletop_rl.baselines.agents.turns import TurnModel, turn_model_class
from tabletop_rl.baselines.move_parsers import GenericParser, parser_for
from tabletop_rl.baselines.ppo import toy
from tabletop_rl.envs import GYMNASIUM_IDS, available_envs, env_module, game_name, make
from tabletop_rl.envs.core.aec import TabletopAECEnv
from tabletop_rl.envs.core.model import GameModel
from tabletop_rl.envs.errors import ConfigError
from tabletop_rl.envs.games import GAMES, GAMES_BY_NAME, GameSpec, resolve
from tabletop_rl.envs.registry import game_spec
from tabletop_rl.envs.vector import VectorGames

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
OWN_GAME = "toy_games:raw_env"  # a game of your own that does not describe itself
TOY = "tabletop_rl.baselines.ppo.toy:TicTacToeEnv"  # one that does (its GAME_SPEC)
SPECS = [*GAMES, toy.GAME_SPEC]


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_every_entry_resolves_to_its_kind_of_object(spec: GameSpec) -> None:
    env = make(spec.env, raw=True)
    assert isinstance(env, TabletopAECEnv) and env.info.name == spec.name
    assert env_module(spec.env).__name__ == spec.module
    model = resolve(spec.model, "game model")
    assert issubclass(model, GameModel) and model().info.name == spec.name
    for name, target in spec.agents.items():
        cls = resolve(target, "agent")  # a scripted agent, built as Class(rng, **options)
        assert issubclass(cls, SeededAgent) and cls.name == name
        assert callable(cls(np.random.default_rng(0)).act)
    if spec.turn_model is not None:
        turns = resolve(spec.turn_model, "turn model")()
        assert all(callable(getattr(turns, m)) for m in TurnModel.__dict__ if m[0] != "_")
    if spec.move_parser is not None:
        parser = resolve(spec.move_parser, "move parser")()
        assert callable(parser.parse) and callable(parser.help)
    assert set(spec.mcts_defaults) <= set(inspect.signature(MCTSAgent).parameters)
    assert set(spec.hint_agents) & {*spec.agents, "random", "mcts"}


@pytest.mark.parametrize("spec", GAMES, ids=lambda spec: spec.name)
def test_registered_games_fill_in_the_suite_entries(spec: GameSpec) -> None:
    module = env_module(spec.name)
    assert callable(module.env) and module.raw_env is resolve(spec.env, "factory")
    reference = make(spec.name, raw=True, engine="reference").model
    assert isinstance(reference, resolve(spec.model, "game model"))
    assert spec.gymnasium_id in gymnasium.registry
    assert gymnasium.registry[spec.gymnasium_id].kwargs == {"env_name": spec.name}
    batch = resolve(spec.compiled_batch, "compiled batch")
    games = VectorGames(spec.name, num_envs=2)
    assert games.backend == "compiled" and isinstance(games._batch, batch)
    assert spec.move_parser is not None and spec.agents and spec.mcts_defaults


def test_the_derived_tables_agree_with_the_registry() -> None:
    assert available_envs() == sorted(spec.name for spec in GAMES)
    assert [spec.name for spec in GAMES] == list(GAMES_BY_NAME)
    assert {spec.gymnasium_id: spec.name for spec in GAMES} == GYMNASIUM_IDS
    for spec in SPECS:
        env_name = spec.name if spec in GAMES else spec.env
        assert game_spec(env_name) is spec
        assert agent_names(env_name) == ["random", *sorted(spec.agents)]
        for name, target in spec.agents.items():
            assert agent_class(name, env_name) is resolve(target, "agent")
        parser = GenericParser if spec.move_parser is None else resolve(spec.move_parser, "p")
        assert type(parser_for(env_name)) is parser
        mcts = make_mcts(np.random.default_rng(0), env_name)
        assert {key: getattr(mcts, key) for key in spec.mcts_defaults} == spec.mcts_defaults
        if spec.turn_model is None:
            with pytest.raises(ConfigError, match="has none"):
                turn_model_class(env_name)
        else:
            assert turn_model_class(env_name) is resolve(spec.turn_model, "turn model")


def test_a_factory_names_a_registered_game_or_describes_its_own() -> None:
    variant = "tabletop_rl.envs.qwirkle_v0:raw_env"
    assert game_name(variant) == "qwirkle_v0" and game_spec(variant) is GAMES_BY_NAME["qwirkle_v0"]
    assert game_spec(TOY) is toy.GAME_SPEC and game_name(TOY) == "tictactoe"
    own = game_spec(OWN_GAME)
    info_name = make(OWN_GAME, raw=True).info.name
    assert own == GameSpec(name=info_name, env=OWN_GAME) and agent_names(OWN_GAME) == ["random"]
    assert type(parser_for(OWN_GAME)) is GenericParser


def test_a_game_spec_of_another_game_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toy, "GAME_SPEC", dataclasses.replace(toy.GAME_SPEC, name="chess"))
    game_spec.cache_clear()
    try:
        with pytest.raises(ConfigError, match="must be a GameSpec named 'tictactoe'"):
            game_spec(TOY)
    finally:
        game_spec.cache_clear()


def test_make_builds_registered_and_own_games_alike() -> None:
    for name in (*available_envs(), TOY, OWN_GAME):
        raw = make(name, raw=True, num_players=2)
        wrapped = make(name, num_players=2)
        assert isinstance(raw, TabletopAECEnv) and wrapped.unwrapped.info.name == raw.info.name
        assert not isinstance(wrapped, TabletopAECEnv)  # PettingZoo's standard wrappers


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "chess_v0",
            "unknown environment 'chess_v0'; available: liniell_v0, qwirkle_cards_v0, "
            "qwirkle_v0 (or 'module:factory' for a game of your own)",
        ),
        ("no_such_module:raw_env", "cannot import the module of environment factory"),
        ("toy_games:no_factory", "module 'toy_games' has no environment factory 'no_factory'"),
        ("toy_games:HiddenNimModel", "did not build a TabletopAECEnv"),
    ],
)
def test_make_errors_say_what_is_wrong(name: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        make(name, raw=True)
    assert message in str(caught.value)


def test_keywords_are_checked_for_every_kind_of_name() -> None:
    for name in ("liniell_v0", TOY):
        with pytest.raises(ConfigError) as caught:
            make(name, raw=True, numplayers=2)
        assert str(caught.value).startswith(f"{name} takes no keyword 'numplayers'; allowed: ")
        assert "num_players" in str(caught.value)


def test_a_spec_cannot_be_changed() -> None:
    spec = GAMES_BY_NAME["liniell_v0"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        spec.agents["mine"] = "my_agents:Mine"  # type: ignore[index]
    with pytest.raises(TypeError):
        spec.mcts_defaults["simulations"] = 1  # type: ignore[index]
    with pytest.raises(ConfigError, match="is not 'module:attr'"):
        resolve("tabletop_rl.envs.games", "table")
