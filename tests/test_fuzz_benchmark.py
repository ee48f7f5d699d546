"""The fuzz benchmark (benchmarks/fuzz_invariants.py) runs, and reports a broken invariant with
the seed that replays it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from tabletop_rl.envs import env_module
from tabletop_rl.envs.core.conformance import game_of, random_playout
from tabletop_rl.envs.errors import InvariantError

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "fuzz_invariants.py"
spec = importlib.util.spec_from_file_location("fuzz_invariants", SCRIPT)
assert spec is not None and spec.loader is not None
fuzz_invariants = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = fuzz_invariants  # its dataclass looks its module up there
spec.loader.exec_module(fuzz_invariants)


def test_tiny_fuzz_run_reports_games_per_second(capsys: pytest.CaptureFixture[str]) -> None:
    assert fuzz_invariants.main(["--games", "1", "--players", "2", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    for name in ("qwirkle_v0", "liniell_v0", "qwirkle_cards_v0"):
        assert f"{name}" in out
    assert "games/s" in out and "total: 3 games" in out and "0 violations" in out


class _LeakyCards(env_module("qwirkle_cards_v0").raw_env):  # type: ignore[misc]
    """Loses a card from the pile on the tenth step of games with an odd seed."""

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        super().reset(seed=seed, options=options)
        self.leaks = seed is not None and seed % 2 == 1
        self.steps_taken = 0

    def step(self, action: int | None) -> None:
        super().step(action)
        self.steps_taken += 1
        if self.leaks and self.steps_taken == 10:
            game_of(self).state.pile.pop()


def test_violations_are_reported_with_their_seed() -> None:
    result = fuzz_invariants.fuzz(_LeakyCards, "leaky", 2, games=4, seed=10)
    assert result.games == 4 and [s for s, _ in result.violations] == [11, 13]
    assert all("card conservation broken" in m for _, m in result.violations)
    assert "2 violations" in result.line()
    with pytest.raises(InvariantError, match="seed 11"):  # the seed replays it
        random_playout(_LeakyCards(), np.random.default_rng(11), seed=11)
