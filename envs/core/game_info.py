"""Game metadata declared up front, OpenSpiel style."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GameInfo:
    """Static facts about one environment.

    ``max_game_length`` bounds the number of agent steps (sub-actions) of one game, so that
    tests and tools can rely on every game ending. ``observation_revision`` numbers the
    meaning of the game's observation (without features): raise it when a field comes to
    mean something else with its shape unchanged (a changed shape changes the observation
    version by itself, see :func:`~.features.observation_version`).
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
    observation_revision: int = 1
