"""The training progress bar: the share of the run's budget spent, and what it is.

A run ends at whichever comes first of ``total_steps``, ``max_minutes`` (wall clock) and
``max_cpu_minutes`` (CPU of the trainer and its workers). The bar shows the share spent of the
budget nearest its end, so its ETA is the time to the real end of the run, not to
``total_steps`` when a time budget stops it hours earlier.

>>> from tabletop_rl.baselines.ppo.config import PPOConfig
>>> budget = Budget.of(PPOConfig(total_steps=6_000_000, max_cpu_minutes=120))
>>> budget.describe()
'120 CPU-min or 6,000,000 steps'
>>> fraction, text = budget.spent(step=600_000, wall_s=1800.0, cpu_s=3600.0)
>>> round(fraction, 3), text
(0.5, 'step 600,000, 60.0 of 120 CPU-min')
>>> Budget(total_steps=1000, max_minutes=0, max_cpu_minutes=0).spent(250, 9.0, 9.0)
(0.25, 'step 250 of 1,000')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .config import PPOConfig


@dataclass(frozen=True)
class Budget:
    """The limits that end a run (0: no limit of that kind)."""

    total_steps: int
    max_minutes: float
    max_cpu_minutes: float

    @classmethod
    def of(cls, cfg: PPOConfig) -> Budget:
        return cls(cfg.total_steps, cfg.max_minutes, cfg.max_cpu_minutes)

    def describe(self) -> str:
        """The limits in words, time budgets first."""
        parts = []
        if self.max_cpu_minutes > 0:
            parts.append(f"{self.max_cpu_minutes:g} CPU-min")
        if self.max_minutes > 0:
            parts.append(f"{self.max_minutes:g} min")
        parts.append(f"{self.total_steps:,} steps")
        return " or ".join(parts)

    def spent(self, step: int, wall_s: float, cpu_s: float) -> tuple[float, str]:
        """The share spent of the budget nearest its end (0 to 1), and the step and that budget
        in words."""
        options = [(step / max(self.total_steps, 1), f"step {step:,} of {self.total_steps:,}")]
        for limit, seconds, unit in (
            (self.max_minutes, wall_s, "min"),
            (self.max_cpu_minutes, cpu_s, "CPU-min"),
        ):
            if limit > 0:
                text = f"step {step:,}, {seconds / 60:.1f} of {limit:g} {unit}"
                options.append((seconds / 60 / limit, text))
        fraction, text = max(options, key=lambda o: o[0])
        return min(fraction, 1.0), text


def win_rate_text(win_rates: Mapping[str, float]) -> str:
    """The learner's win rate in this update's finished games, by opponent.

    >>> win_rate_text({"greedy": 0.412, "self": 0.5})
    'win rate vs greedy 0.41, self 0.50'
    """
    if not win_rates:
        return "no game finished"
    return "win rate vs " + ", ".join(f"{k} {v:.2f}" for k, v in sorted(win_rates.items()))


class BudgetBar:
    """A tqdm bar in percent of the budget; its text names the update, step and win rates."""

    def __init__(self, label: str, budget: Budget, enabled: bool, initial: float) -> None:
        from tqdm import tqdm

        self.budget = budget
        self.bar: Any = tqdm(
            total=100.0,
            initial=100.0 * initial,
            disable=not enabled,
            desc=f"{label} (until {budget.describe()})",
            bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}{postfix}",
            dynamic_ncols=True,
        )

    def show(
        self, update: int, step: int, wall_s: float, cpu_s: float, win_rates: Mapping[str, float]
    ) -> None:
        fraction, spent = self.budget.spent(step, wall_s, cpu_s)
        self.bar.set_postfix_str(
            f"update {update}, {spent}, {win_rate_text(win_rates)}", refresh=False
        )
        self.bar.update(max(0.0, 100.0 * fraction - self.bar.n))

    def write(self, text: str) -> None:
        """Print a line above the bar."""
        self.bar.write(text)

    def close(self) -> None:
        self.bar.close()


__all__ = ["Budget", "BudgetBar", "win_rate_text"]
