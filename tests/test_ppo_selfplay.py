"""Per-seat transition bookkeeping of the self-play collector, on hand-made games of one's
own (``module:factory``, stepped on their game model in the batch)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tabletop_rl.baselines.ppo.batched import BatchedCollector  # noqa: E402
from tabletop_rl.baselines.ppo.config import PPOConfig  # noqa: E402
from tabletop_rl.baselines.ppo.networks import build_network  # noqa: E402
from tabletop_rl.baselines.ppo.ppo import compute_gae  # noqa: E402
from tabletop_rl.baselines.ppo.rollout import GameOver, GameSetup, GameSlot  # noqa: E402
from tabletop_rl.envs.core.aec import TabletopAECEnv  # noqa: E402
from tabletop_rl.envs.core.game_info import GameInfo  # noqa: E402
from tabletop_rl.envs.core.model import (  # noqa: E402
    Ending,
    GameModel,
    IndexCodec,
    Outcome,
    StepResult,
)
from tabletop_rl.envs.core.observation import Field, ObservationLayout  # noqa: E402


class RelayModel(GameModel[dict[str, int], int]):
    """Seats alternate 0, 1, 0, 1; each turn exactly one action (the turn number) is legal.

    Seat 1's last move ends the game and seat 0 — who moved *earlier* — wins, so its terminal
    reward arrives after the opponent's move.
    """

    info = GameInfo("relay", 2, 2, 2, 4, 4, True, False, reward_modes=("win",))
    truncate = False
    """End by truncation after the fourth move instead of a win for seat 0."""

    def __init__(self, num_players: int = 2) -> None:
        self.num_players = 2
        self.codec = IndexCodec(4)
        self.layout = ObservationLayout(
            (Field("seat", (2,), "one-hot observer"), Field("turn", (4,), "one-hot turn"))
        )

    def new_state(self, rng: np.random.Generator) -> dict[str, int]:
        return {"turn": 0}

    def current_player(self, state: dict[str, int]) -> int:
        return state["turn"] % 2

    def legal_mask_unchecked(self, state: dict[str, int]) -> np.ndarray:
        mask = np.zeros(4, dtype=np.int8)
        if state["turn"] < 4:
            mask[state["turn"]] = 1
        return mask

    def step_unchecked(self, state: dict[str, int], action: int) -> StepResult:
        state["turn"] += 1
        end = state["turn"] == 4
        return StepResult(game_over=end and not self.truncate, truncated=end and self.truncate)

    def is_over(self, state: dict[str, int]) -> bool:
        return state["turn"] == 4

    def outcome(self, state: dict[str, int]) -> Outcome | None:
        if state["turn"] < 4:
            return None
        if self.truncate:
            return Outcome(Ending.TRUNCATED, (), (0.0, 0.0))
        return Outcome(Ending.FINISHED, (0,), (0.0, 0.0))

    def observe_unchecked(
        self, state: dict[str, int], player: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        out = self.layout.zeros() if out is None else out
        out[:] = 0
        views = self.layout.views(out)
        views["seat"][player] = 1.0
        views["turn"][min(state["turn"], 3)] = 1.0
        return out

    def explain_illegal(self, state: dict[str, int], action: int) -> str:
        return "not this turn's action"

    def public_view(self, state: dict[str, int], player: int) -> Any:
        return None


class CutRelayModel(RelayModel):
    """:class:`RelayModel` cut by a turn limit after the fourth move (truncated, no winner)."""

    truncate = True


class RelayGame(TabletopAECEnv):
    info = RelayModel.info

    def __init__(self, num_players: int = 2, render_mode: str | None = None) -> None:
        super().__init__(RelayModel(), render_mode=render_mode)


class CutRelayGame(TabletopAECEnv):
    info = RelayModel.info

    def __init__(self, num_players: int = 2, render_mode: str | None = None) -> None:
        super().__init__(CutRelayModel(), render_mode=render_mode)


ENV = f"{__name__}:RelayGame"
CUT_ENV = f"{__name__}:CutRelayGame"


def _collector(opponents: dict[str, float], env: str = ENV, **settings: Any) -> BatchedCollector:
    cfg = PPOConfig(env=env, num_envs=1, opponents=opponents, seed=3, **settings)
    raw = RelayGame()

    def factory() -> torch.nn.Module:
        return build_network("mlp", raw.layout, raw.action_layout(), 4, [], [8], seed=0)

    return BatchedCollector(cfg, factory(), torch.Generator().manual_seed(0), factory)


def _rows(batch: Any) -> list[tuple[int, int, float, float, float]]:
    """(observer seat, action, reward, done, cont) per row."""
    seats = batch.obs[:, :2].argmax(1)
    return [
        (int(s), int(a), float(r), float(d), float(c))
        for s, a, r, d, c in zip(
            seats, batch.actions, batch.rewards, batch.dones, batch.cont, strict=True
        )
    ]


def test_terminal_reward_reaches_the_seat_that_moved_earlier() -> None:
    collector = _collector({"self": 1.0})  # the learner holds both seats
    batch, stats = collector.collect(4)  # 4 moves, each a round
    # Stream (slot 0, seat 0) first, then seat 1; each in time order.
    assert _rows(batch) == [
        (0, 0, 0.0, 0.0, 1.0),
        (0, 2, 1.0, 1.0, 0.0),  # seat 0's last move: +1 arrives after seat 1 ended the game
        (1, 1, 0.0, 0.0, 1.0),
        (1, 3, -1.0, 1.0, 0.0),
    ]
    # Each row holds that seat's own observation; a non-final row bootstraps from the value
    # of the same seat's next observation.
    assert batch.next_values[0] == pytest.approx(batch.values[1])
    assert batch.next_values[2] == pytest.approx(batch.values[3])
    assert batch.next_values[1] == 0.0 and batch.next_values[3] == 0.0
    assert [g[0] for g in stats.games] == ["self"] and stats.decisions == 4
    _adv, ret = compute_gae(
        batch.rewards, batch.values, batch.next_values, batch.dones, batch.cont, 1.0, 1.0
    )
    assert ret.tolist() == pytest.approx([1.0, 1.0, -1.0, -1.0])


def test_pending_transitions_carry_over_rollout_boundaries() -> None:
    whole = _collector({"self": 1.0}).collect(5)[0]
    split = _collector({"self": 1.0})
    first, _ = split.collect(2)  # seat 0 moves, seat 1 moves: nothing is final yet
    assert len(first) == 0
    second, stats = split.collect(3)
    assert _rows(second) == _rows(whole)
    np.testing.assert_allclose(second.logps, whole.logps)
    assert len(stats.games) == 1


def test_only_learner_seats_are_stored_against_a_scripted_opponent() -> None:
    collector = _collector({"random": 1.0})
    batch, stats = collector.collect(12)
    assert stats.games and all(key == "random" for key, *_ in stats.games)
    for seat, _action, reward, done, _ in _rows(batch):
        if done:
            assert reward == (1.0 if seat == 0 else -1.0)
        else:
            assert reward == 0.0
    # The learner's primary seat changes between games; every seat it held is its own stream.
    for _key, credit, ret, length in stats.games:
        assert length == 4 and credit in (0.0, 1.0) and ret == (1.0 if credit else -1.0)


def test_slot_reports_rewards_of_every_agent_step() -> None:
    slot = GameSlot(ENV, {})
    report = slot.reset(GameSetup(0, 0, ("learner", "random")))
    assert report.seat == 0  # the random agent's moves happen inside the slot
    report = slot.act(0)
    assert report.seat == 0 and report.steps == 2
    report = slot.act(2)
    assert isinstance(report, GameOver)
    assert report.rewards.tolist() == [1.0, -1.0] and report.winners == [0]
    replayed = GameSlot(ENV, {}).replay(GameSetup(0, 0, ("learner", "random")), [0, 2])
    assert isinstance(replayed, GameOver) and replayed.length == 4


def test_reward_shaping_is_relative_scaled_and_adds_the_win_bonus() -> None:
    shaping = {"relative_reward": True, "reward_scale": 0.5, "win_bonus": 2.0}
    batch, _ = _collector({"self": 1.0}, **shaping).collect(4)
    rewards = [row[2] for row in _rows(batch)]
    assert rewards == [0.0, 3.0, 0.0, -3.0]  # 0.5 * (1 - -1) + 2 for the winner
    # a game with no winner (cut by its turn limit) gets no bonus
    cut, _ = _collector({"self": 1.0}, CUT_ENV, **shaping).collect(4)
    assert [row[2] for row in _rows(cut)] == [0.0, 0.0, 0.0, 0.0]


def test_a_truncated_game_bootstraps_from_the_value_at_the_cut() -> None:
    collector = _collector({"self": 1.0}, CUT_ENV)
    batch, stats = collector.collect(4)
    # No reward, and each seat's last row ends its stream (cont 0) without being terminal.
    assert _rows(batch) == [
        (0, 0, 0.0, 0.0, 1.0),
        (0, 2, 0.0, 0.0, 0.0),
        (1, 1, 0.0, 0.0, 1.0),
        (1, 3, 0.0, 0.0, 0.0),
    ]
    assert batch.next_values[0] == pytest.approx(batch.values[1])
    # The last rows bootstrap from each seat's own observation after the cut (turn plane 3).
    cut_obs = torch.tensor([[1, 0, 0, 0, 0, 1], [0, 1, 0, 0, 0, 1]], dtype=torch.float32)
    with torch.no_grad():
        expected = collector.learner(cut_obs)[1]
    assert batch.next_values[1] == pytest.approx(float(expected[0]))
    assert batch.next_values[3] == pytest.approx(float(expected[1]))
    assert batch.next_values[1] != 0.0
    _adv, ret = compute_gae(
        batch.rewards, batch.values, batch.next_values, batch.dones, batch.cont, 1.0, 1.0
    )
    assert ret[1] == pytest.approx(batch.next_values[1])  # the return beyond the cut is V
    assert stats.games[0][1] == 0.5  # a truncated game counts as a draw


def test_symmetry_augmentation_is_refused_for_a_game_without_symmetries() -> None:
    # (decisions stored in their frame: tests/test_ppo_batched.py)
    with pytest.raises(Exception, match="declares no symmetries"):
        _collector({"self": 1.0}, symmetry_augmentation=True)
