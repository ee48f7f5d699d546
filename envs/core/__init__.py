"""Machinery shared by all environments: the game model interface, the AEC adapter,
observation layouts, game metadata, the Gymnasium single-agent wrapper and the public
conformance check."""

from .aec import TabletopAECEnv, wrap
from .game_info import GameInfo
from .model import ActionCodec, Ending, GameModel, Outcome, StepResult
from .observation import Field, ObservationLayout
from .single_agent import SingleAgentEnv, random_policy

__all__ = [
    "ActionCodec",
    "Ending",
    "Field",
    "GameInfo",
    "GameModel",
    "ObservationLayout",
    "Outcome",
    "SingleAgentEnv",
    "StepResult",
    "TabletopAECEnv",
    "random_policy",
    "wrap",
]
