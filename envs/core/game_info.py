"""Game metadata declared up front, OpenSpiel style."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GameInfo:
    """Static facts about one environment.

    ``max_game_length`` bounds the number of agent steps (sub-actions) of one game, so that
    tests and tools can rely on every game ending.
    """

    name: str
    min_players: int
    max_players: int
    default_players: int
    num_actions: int
    max_game_length: int
    perfect_information: bool
    chance: bool
    min_utility: float = -1.0
    max_utility: float = 1.0
    reward_modes: tuple[str, ...] = ("win", "score")
