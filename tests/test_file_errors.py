"""Damaged files a user gives the baselines are refused naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("yaml")

from tabletop_rl.baselines.ppo.checkpoint import load_checkpoint, save_checkpoint  # noqa: E402
from tabletop_rl.baselines.ppo.config import load_config  # noqa: E402
from tabletop_rl.envs.errors import ConfigError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _checkpoint(path: Path) -> Path:
    save_checkpoint({"config": {"env": "qwirkle_v0"}, "model": {"w": torch.ones(64, 64)}}, path)
    return path


def test_a_good_checkpoint_loads(tmp_path: Path) -> None:
    state = load_checkpoint(_checkpoint(tmp_path / "checkpoint.pt"))
    assert state["config"] == {"env": "qwirkle_v0"} and state["model"]["w"].shape == (64, 64)


@pytest.mark.parametrize("keep", [0.5, 0.1])
def test_a_truncated_checkpoint_names_its_file(tmp_path: Path, keep: float) -> None:
    path = _checkpoint(tmp_path / "run" / "checkpoint.pt")
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(ConfigError, match=rf"checkpoint '{path}' cannot be read; .*truncated"):
        load_checkpoint(path.parent)  # a run directory: its checkpoint.pt


def test_a_file_that_is_not_a_checkpoint_names_its_file(tmp_path: Path) -> None:
    garbage = tmp_path / "notes.pt"
    garbage.write_text("these are not tensors")
    with pytest.raises(ConfigError, match=rf"checkpoint '{garbage}' cannot be read"):
        load_checkpoint(garbage)
    tensor = tmp_path / "tensor.pt"
    torch.save(torch.zeros(3), tensor)
    with pytest.raises(ConfigError, match=rf"checkpoint '{tensor}' holds no training state"):
        load_checkpoint(tensor)


def test_malformed_yaml_config_names_its_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("env: [qwirkle_v0\nseed: 1\n")
    with pytest.raises(ConfigError, match=rf"config file '{path}' is not valid YAML") as info:
        load_config(path)
    assert f'in "{path}", line' in str(info.value)  # YAML's own position, with the file
    assert "<unicode string>" not in str(info.value)


def test_yaml_config_that_is_not_a_mapping_names_its_file(tmp_path: Path) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("- env\n- seed\n")
    with pytest.raises(ConfigError, match=rf"config file '{path}' holds a list; a config is a"):
        load_config(path)
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00env")
    with pytest.raises(ConfigError, match=rf"config file '{binary}' is not"):
        load_config(binary)
    assert load_config(ROOT / "configs" / "smoke.yaml").env
