"""A tiny game with hidden information and chance, for testing game-independent tools.

*Hidden Nim*: a deck of twelve cards (values 1, 2, 3; four of each) is shuffled; each player
holds two cards in a hidden hand, the rest is a hidden stock. A counter starts at 11. On a
turn the player plays one card from the hand, subtracting its value from the counter, and
draws from the stock if it is not empty. Bringing the counter to exactly 0 wins alone;
taking it below 0 loses (everyone else shares the win). A player with an empty hand passes;
if every hand is empty the game is a draw. A player's score is the total value they played.

Tests import this module after putting ``tests/`` on ``sys.path`` and name the environment
``"toy_games:raw_env"`` (the arena resolves ``module:factory`` environment names).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_rl.envs.core.aec import TabletopAECEnv
from tabletop_rl.envs.core.game_info import GameInfo
from tabletop_rl.envs.core.model import (
    Ending,
    GameModel,
    IndexCodec,
    Outcome,
    StepResult,
    check_num_players,
)
from tabletop_rl.envs.core.observation import Field, ObservationLayout

VALUES = (1, 2, 3)
COPIES = 4
HAND = 2
START = 11
PASS = 3
INFO = GameInfo(
    name="toy_nim_v0",
    min_players=2,
    max_players=4,
    default_players=2,
    num_actions=4,
    max_game_length=40,
    perfect_information=False,
    chance=True,
)
State = dict[str, Any]


class HiddenNimModel(GameModel[State, int]):
    info = INFO

    def __init__(self, num_players: int = 2) -> None:
        self.num_players = n = check_num_players(INFO.name, num_players, 2, 4)
        self.codec = IndexCodec(4)
        self.layout = ObservationLayout(
            (
                Field("hand", (3,), "own cards of value 1, 2, 3", high=float(COPIES)),
                Field("counter", (1,), "counter", high=float(START)),
                Field("hand_sizes", (n,), "hand sizes, own first", high=float(HAND)),
                Field("unseen", (3,), "cards of each value not visible", high=float(COPIES)),
                Field("scores", (n,), "scores, own first", high=100.0),
            )
        )

    def new_state(self, rng: np.random.Generator) -> State:
        deck = [v for v in VALUES for _ in range(COPIES)]
        order = rng.permutation(len(deck))
        deck = [deck[i] for i in order]
        hands = [sorted(deck[HAND * p : HAND * (p + 1)]) for p in range(self.num_players)]
        return {
            "hands": hands,
            "stock": deck[HAND * self.num_players :],
            "counter": START,
            "played": [0, 0, 0],
            "scores": [0] * self.num_players,
            "player": int(rng.integers(self.num_players)),
            "winners": None,
        }

    def current_player(self, s: State) -> int:
        return s["player"]

    def legal_mask_unchecked(self, s: State) -> np.ndarray:
        mask = np.zeros(4, dtype=np.int8)
        if s["winners"] is not None:
            return mask
        hand = s["hands"][s["player"]]
        for v in hand:
            mask[v - 1] = 1
        if not hand:
            mask[PASS] = 1
        return mask

    def step_unchecked(self, s: State, action: int) -> StepResult:
        p = s["player"]
        n = self.num_players
        points: dict[int, float] = {}
        if action != PASS:
            v = action + 1
            s["hands"][p].remove(v)
            s["counter"] -= v
            s["played"][v - 1] += 1
            s["scores"][p] += v
            points[p] = float(v)
            if s["stock"]:
                s["hands"][p] = sorted([*s["hands"][p], s["stock"].pop()])
            if s["counter"] == 0:
                s["winners"] = [p]
            elif s["counter"] < 0:
                s["winners"] = [q for q in range(n) if q != p]
        if s["winners"] is None and not any(s["hands"]):
            s["winners"] = list(range(n))
        if s["winners"] is not None:
            return StepResult(points=points, game_over=True)
        s["player"] = (p + 1) % n
        return StepResult(points=points)

    def is_over(self, s: State) -> bool:
        return s["winners"] is not None

    def outcome(self, s: State) -> Outcome | None:
        if s["winners"] is None:
            return None
        return Outcome(Ending.FINISHED, tuple(s["winners"]), self.scores(s))

    def scores(self, s: State) -> tuple[float, ...]:
        return tuple(float(x) for x in s["scores"])

    def observe_unchecked(self, s: State, player: int, out: np.ndarray | None = None) -> np.ndarray:
        out = self.layout.zeros() if out is None else out
        out[:] = 0
        views = self.layout.views(out)
        n = self.num_players
        for v in s["hands"][player]:
            views["hand"][v - 1] += 1
        views["counter"][0] = max(s["counter"], 0)
        order = [(player + k) % n for k in range(n)]
        views["hand_sizes"][:] = [len(s["hands"][q]) for q in order]
        views["scores"][:] = [s["scores"][q] for q in order]
        views["unseen"][:] = [COPIES - s["played"][i] - views["hand"][i] for i in range(3)]
        return out

    def explain_illegal(self, s: State, action: int) -> str:
        if action == PASS:
            return "you may pass only with an empty hand"
        return f"you hold no card of value {action + 1}"

    def describe_action(self, s: State | None, action: int) -> str:
        return "pass" if action == PASS else f"play {action + 1}"

    def public_view(self, s: State, p: int) -> dict[str, Any]:
        return {
            "hand": list(s["hands"][p]),
            "counter": s["counter"],
            "hand_sizes": [len(h) for h in s["hands"]],
            "played": list(s["played"]),
            "scores": list(s["scores"]),
        }

    def resample_hidden(self, s: State, p: int, rng: np.random.Generator) -> None:
        others = [q for q in range(self.num_players) if q != p]
        pool = sorted(s["stock"] + [c for q in others for c in s["hands"][q]])
        pool = [pool[i] for i in rng.permutation(len(pool))]
        for q in others:
            k = len(s["hands"][q])
            s["hands"][q] = sorted(pool[:k])
            pool = pool[k:]
        s["stock"] = pool

    def render_ansi(self, s: State, viewer: int) -> str:
        hands = " ".join(str(v) for v in s["hands"][viewer])
        scores = ", ".join(f"P{q}: {x}" for q, x in enumerate(s["scores"]))
        return f"\x1b[1mcounter {s['counter']}\x1b[0m | P{viewer} hand: {hands} | {scores}"

    def render_rgb(self, s: State, viewer: int) -> np.ndarray:
        picture = np.full((64, 96, 3), 255, dtype=np.uint8)
        filled = max(s["counter"], 0) * 8
        picture[20:44, :filled] = (200, 40, 40)
        for q, x in enumerate(s["scores"]):
            picture[50 + 3 * q : 52 + 3 * q, : 4 * x] = (40, 40, 200)
        return picture


class HiddenNimEnv(TabletopAECEnv):
    info = INFO

    def __init__(
        self, num_players: int = 2, render_mode: str | None = None, reward: str = "win"
    ) -> None:
        super().__init__(HiddenNimModel(num_players), render_mode=render_mode, reward=reward)


def raw_env(**kwargs: Any) -> HiddenNimEnv:
    return HiddenNimEnv(**kwargs)
