"""Policy files: exporting a run's policy, and loading the policies shipped with the package."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tabletop_rl.baselines.arena.agent_specs import (  # noqa: E402
    observation_kwargs,
    resolve_agent,
)
from tabletop_rl.baselines.ppo import evaluate, export, toy, train  # noqa: E402
from tabletop_rl.baselines.ppo.checkpoint import (  # noqa: E402
    POLICY_KEYS,
    VERSION_KEY,
    checkpoint_path,
    load_checkpoint,
    load_weights,
    make_network,
    save_checkpoint,
    shipped_policies,
)
from tabletop_rl.baselines.ppo.config import apply_overrides, load_config  # noqa: E402
from tabletop_rl.baselines.ppo.rollout import TOY_ENV  # noqa: E402
from tabletop_rl.baselines.replay import record_game  # noqa: E402
from tabletop_rl.envs import make  # noqa: E402
from tabletop_rl.envs.errors import ConfigError, ObservationVersionError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SMOKE = str(ROOT / "configs" / "smoke.yaml")


def test_an_exported_policy_is_small_and_plays_like_its_checkpoint(tmp_path: Path) -> None:
    run = tmp_path / "run"
    args = ["--env", TOY_ENV, "--opponents", "{self: 1.0}", "--eval_opponents", "[random]"]
    args += ["--total_steps", "300", "--num_workers", "0", "--run_dir", str(run)]
    assert train.main([SMOKE, *args]) == 0
    out = tmp_path / "policy.pt"
    assert export.main([str(run), str(out)]) == 0
    policy, full = load_checkpoint(out), load_checkpoint(run)
    assert set(policy) < set(full) and "optimizer" not in policy
    assert out.stat().st_size < (run / "checkpoint.pt").stat().st_size
    a = resolve_agent(f"ppo:{out}", TOY_ENV, np.random.default_rng(0))
    b = resolve_agent(f"ppo:{run}", TOY_ENV, np.random.default_rng(0))
    mask = np.ones(9, dtype=np.int8)
    for seed in range(5):
        obs = np.random.default_rng(seed).integers(0, 2, size=19).astype(np.float32)
        assert a.act({"observation": obs, "action_mask": mask}) == b.act(
            {"observation": obs, "action_mask": mask}
        )
    assert evaluate.main([str(out), "--games", "4", "--opponents", "random", "--workers", "0"]) == 0
    with pytest.raises(SystemExit):
        export.main([str(tmp_path / "nothing"), str(tmp_path / "x.pt")])


def test_weights_that_no_longer_fit_the_observation_are_a_clear_error(tmp_path: Path) -> None:
    """A policy trained on an observation that has changed since (here: the shipped Qwirkle
    Cards policy, its first layer cut to an observation 5 entries shorter) names the file and
    the cause."""
    state = load_checkpoint(checkpoint_path("pretrained/qwirkle_cards_v0"))
    first = next(k for k in state["model"] if k.endswith("weight") and "trunk" in k)
    state["model"][first] = state["model"][first][:, :-5]
    stale = tmp_path / "stale.pt"
    torch.save(state, stale)
    with pytest.raises(ConfigError, match=r"stale\.pt'\)?'s weights do not fit .* retrain it"):
        resolve_agent(f"ppo:{stale}", "qwirkle_cards_v0", np.random.default_rng(0))
    with pytest.raises(SystemExit):
        evaluate.main([str(stale), "--games", "2", "--opponents", "random", "--workers", "0"])


def test_a_policy_of_another_observation_version_fails_naming_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A checkpoint and its policy file carry the observation version they were trained on.
    Where the environment observes another (here the toy game's observation revised in
    meaning with every shape kept, so that the weights would still fit and play on a changed
    observation), the agent spec, ``evaluate``, ``init_from`` and ``--resume`` each fail with
    one line naming both versions; so does a file written before versions were recorded."""
    run = tmp_path / "run"
    args = ["--env", TOY_ENV, "--opponents", "{self: 1.0}", "--eval_opponents", "[random]"]
    args += ["--total_steps", "300", "--num_workers", "0", "--run_dir", str(run)]
    assert train.main([SMOKE, *args]) == 0
    out = tmp_path / "policy.pt"
    assert export.main([str(run), str(out)]) == 0
    trained = toy.TicTacToeEnv().observation_version
    assert load_checkpoint(run)[VERSION_KEY] == load_checkpoint(out)[VERSION_KEY] == trained
    rng = np.random.default_rng(0)
    assert resolve_agent(f"ppo:{out}", TOY_ENV, rng).act(
        {"observation": np.zeros(19, np.float32), "action_mask": np.ones(9, np.int8)}
    ) in range(9)

    def fails(message: str, *names: str) -> None:
        assert "\n" not in message.strip()
        for name in names:
            assert name in message, (name, message)

    unversioned = load_checkpoint(out)
    del unversioned[VERSION_KEY]
    old = tmp_path / "old.pt"
    save_checkpoint(unversioned, old)
    with pytest.raises(ObservationVersionError) as err:
        resolve_agent(f"ppo:{old}", TOY_ENV, rng)
    fails(str(err.value), "old.pt", "carries no observation version", repr(trained))

    revised = replace(toy.INFO, observation_revision=toy.INFO.observation_revision + 1)
    monkeypatch.setattr(toy.TicTacToeModel, "info", revised)
    now = toy.TicTacToeEnv().observation_version
    assert now != trained and now.rsplit("/", 1)[1] == trained.rsplit("/", 1)[1]  # same layout
    for path in (run, out):
        with pytest.raises(ObservationVersionError) as err:
            resolve_agent(f"ppo:{path}", TOY_ENV, rng)
        fails(str(err.value), str(path), repr(trained), repr(now))
    capsys.readouterr()
    with pytest.raises(SystemExit):
        evaluate.main([str(out), "--games", "2", "--opponents", "random", "--workers", "0"])
    fails(capsys.readouterr().err, "policy.pt", repr(trained), repr(now))
    cfg = apply_overrides(load_config(SMOKE), [*args, "--init_from", str(out)])
    with pytest.raises(ObservationVersionError) as err:
        load_weights(make_network(cfg), str(out), cfg)
    fails(str(err.value), "init_from", repr(trained), repr(now))
    assert train.main([SMOKE, *args, "--resume", "--total_steps", "600"]) == 2
    fails(capsys.readouterr().err, "--resume", repr(trained), repr(now))
    assert load_checkpoint(run)["global_step"] < 600  # the run was left as it was


def test_an_unknown_shipped_policy_names_the_shipped_ones() -> None:
    with pytest.raises(ConfigError, match="no pretrained policy 'chess_v0'; shipped: "):
        resolve_agent("ppo:pretrained/chess_v0", "liniell_v0", np.random.default_rng(0))


SHIPPED = ["liniell_v0", "qwirkle_cards_v0", "qwirkle_v0"]


def test_every_game_ships_a_small_policy() -> None:
    assert shipped_policies() == SHIPPED
    for env_name in SHIPPED:
        path = checkpoint_path(f"pretrained/{env_name}")
        assert path.stat().st_size < 2_000_000, path
        policy = load_checkpoint(path)  # weights_only=True
        assert set(policy) <= set(POLICY_KEYS) and policy["config"]["env"] == env_name
        # trained on the observation the environment has now (which its docstring names)
        env = make(env_name, raw=True, **policy["config"]["env_kwargs"])
        assert policy[VERSION_KEY] == env.observation_version


@pytest.mark.parametrize("env_name", SHIPPED)
def test_a_shipped_policy_plays_a_whole_game_from_a_fresh_install(env_name: str) -> None:
    """As a user would: the spec alone, no training, in a game recorded like an arena game
    (the environment gets the observation features the policy was trained on)."""
    record = record_game(env_name, [f"ppo:pretrained/{env_name}", "random"], seed=3)
    assert record["agents"][0] == f"ppo:pretrained/{env_name}"
    assert record["env_kwargs"].get("features") is True
    assert record["actions"] and record["error"] is None and record["forfeit"] is None


def test_the_observation_a_policy_needs_is_read_from_its_checkpoint() -> None:
    """The arena, ``play`` and ``replay`` build their environment with what the ``ppo:``
    policies among the agents were trained on, and refuse a policy of another game."""
    specs = ["greedy", "ppo:pretrained/liniell_v0"]
    assert observation_kwargs(specs, "liniell_v0") == {"features": True}
    assert observation_kwargs(["greedy", "random"], "liniell_v0") == {}
    with pytest.raises(ConfigError, match="trained on 'liniell_v0', not 'qwirkle_v0'"):
        observation_kwargs(specs, "qwirkle_v0")


def test_evaluate_prints_which_update_a_shipped_policy_is_from(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = ["pretrained/liniell_v0", "--games", "4", "--opponents", "random", "--workers", "0"]
    assert evaluate.main(argv) == 0
    out = capsys.readouterr().out
    assert "update " in out and "step " in out and "--out FILE" in out
    assert evaluate.main([*argv, "--out", str(tmp_path / "e.csv")]) == 0
    assert (tmp_path / "e.csv").is_file()
    # the agent spec of the same policy, as arena and play take it, needs no --env
    assert evaluate.main(["ppo:" + argv[0], *argv[1:], "--out", str(tmp_path / "s.csv")]) == 0
    assert (tmp_path / "s.csv").read_text() == (tmp_path / "e.csv").read_text()


def test_an_agent_evaluated_in_the_policys_seat_plays_the_policys_games(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``evaluate SPEC --env ENV`` puts an agent where the policy sits, in the same games: the
    shipped policy played as the agent ``ppo:pretrained/liniell_v0`` gets the very credits,
    game by game, that evaluating the policy gets; another agent gets its own."""
    from tabletop_rl.baselines.ppo.checkpoint import network_from_checkpoint

    cfg, net = network_from_checkpoint(load_checkpoint(checkpoint_path("pretrained/liniell_v0")))
    policy = evaluate.play_matches(net, cfg.env, cfg.env_kwargs, "greedy", 6, 3, num_workers=0)
    as_agent = evaluate.play_matches(
        "ppo:pretrained/liniell_v0", cfg.env, cfg.env_kwargs, "greedy", 6, 3, num_workers=0
    )
    assert as_agent.credits == policy.credits and len(policy.credits) == 6
    assert policy.win_rate == pytest.approx(np.mean(policy.credits))
    out = tmp_path / "random.csv"
    argv = ["random", "--env", "liniell_v0", "--opponents", "greedy", "--games", "6"]
    assert evaluate.main([*argv, "--seed", "3", "--workers", "0", "--out", str(out)]) == 0
    assert "random in the policy's seat" in capsys.readouterr().out
    rate = float(out.read_text().splitlines()[1].split(",")[2])
    assert rate < policy.win_rate


def test_evaluate_names_a_bad_agent_spec_and_what_is_allowed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        evaluate.main(["heuristic:rsik=1", "--env", "qwirkle_v0", "--games", "2"])
    assert "no weight rsik; weights: risk" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        evaluate.main(["pretrained/liniell_v0", "--opponents", "greedy:depth=2", "--games", "2"])
    assert "--opponents: 'greedy:depth=2': greedy takes no option 'depth'" in (
        capsys.readouterr().err
    )
