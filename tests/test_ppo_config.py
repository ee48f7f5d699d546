"""PPO config: YAML loading, command-line overrides, clear errors, --help."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("yaml")

from tabletop_rl.baselines.ppo import train
from tabletop_rl.baselines.ppo.config import (
    PPOConfig,
    apply_overrides,
    config_from_dict,
    help_text,
    load_config,
    save_config,
)
from tabletop_rl.envs.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]


def test_unknown_key_is_named_with_the_valid_keys(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("env: liniell_v0\nlearning_rate: 0.1\n")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    message = str(err.value)
    assert "'learning_rate'" in message and "valid keys" in message
    assert "lr" in message and "total_steps" in message and "bad.yaml" in message
    with pytest.raises(ConfigError, match="unknown config key 'num_env'; valid keys: .*num_envs"):
        apply_overrides(PPOConfig(), ["--num_env", "4"])


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("seed", "seven", "must be int"),
        ("seed", "1.5", "must be int"),
        ("lr", "fast", "must be float"),
        ("anneal_lr", "3", "must be bool"),
        ("hidden_sizes", "64", "must be list"),
        ("hidden_sizes", "[64, big]", r"hidden_sizes\[1\]' must be int"),
        ("opponents", "{self: heavy}", "must be float"),
        ("network", "transformer", "'conv', 'crop', 'mlp'"),
        ("num_envs", "0", "must be > 0"),
    ],
)
def test_wrong_types_and_values_are_clear_errors(key: str, value: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        apply_overrides(PPOConfig(), [f"--{key}", value])


def test_overrides_parse_values_and_the_config_round_trips(tmp_path: Path) -> None:
    cfg = apply_overrides(
        PPOConfig(),
        [
            "--lr",
            "1e-4",
            "--total_steps",
            "500",
            "--opponents",
            "{self: 1, greedy: 2}",
            "--run_dir",
            "123",
            "--anneal_lr=false",
        ],
    )
    assert cfg.lr == 1e-4 and cfg.total_steps == 500 and cfg.anneal_lr is False
    assert cfg.opponents == {"self": 1.0, "greedy": 2.0} and cfg.run_dir == "123"
    save_config(cfg, tmp_path / "c.yaml")
    assert load_config(tmp_path / "c.yaml") == cfg
    assert config_from_dict({"lr": 1}).lr == 1.0  # an int is a valid float


def test_every_shipped_config_of_a_registered_game_loads() -> None:
    from tabletop_rl.envs import available_envs, make

    for path in sorted((ROOT / "configs").glob("*.yaml")):
        if "ppo" not in path.name and path.name != "smoke.yaml":
            continue
        cfg = load_config(path)
        if ":" in cfg.env or cfg.env in available_envs():
            make(cfg.env, raw=True, **cfg.env_kwargs)


def test_help_lists_every_key_with_its_docstring(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_text()
    for name in PPOConfig.__dataclass_fields__:
        assert f"--{name} " in text
    assert "Discount factor per decision of the same seat." in text
    assert train.main(["--help"]) == 0
    assert "--gae_lambda float" in capsys.readouterr().out


def test_train_main_reports_config_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert train.main([str(ROOT / "configs" / "smoke.yaml"), "--bogus", "1"]) == 2
    err = capsys.readouterr().err
    assert "unknown config key 'bogus'" in err and "valid keys" in err
    assert train.main([str(ROOT / "configs" / "missing.yaml")]) == 2
    assert "does not exist" in capsys.readouterr().err
