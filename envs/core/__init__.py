"""Machinery shared by all environments: the AEC base class, observation layouts, game
metadata, the Gymnasium single-agent wrapper and the public conformance check."""

from .aec import StepResult, TabletopAECEnv, wrap
from .game_info import GameInfo
from .observation import Field, ObservationLayout
from .single_agent import SingleAgentEnv, random_policy

__all__ = [
    "Field",
    "GameInfo",
    "ObservationLayout",
    "SingleAgentEnv",
    "StepResult",
    "TabletopAECEnv",
    "random_policy",
    "wrap",
]
