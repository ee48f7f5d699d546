"""Many games stepped side by side, in subprocess workers or in process: the matches of
evaluation (:func:`.evaluate.play_matches`; training collects on the batch, :mod:`.batched`).

A :class:`GameSlot` plays one game at a time on the game's public model. Each game is set up by a
:class:`GameSetup` (the environment's seed, the scripted agents' seed, and who controls each
seat). Seats held by scripted agents are played inside the slot, so the driving process
only sees the decisions that need a network (the learner's or a past snapshot's): after every
command a slot reports either a :class:`Decision` (which seat acts, its observation and
mask) or a :class:`GameOver`. Both carry ``rewards``: what reached each seat since the slot's
previous report, summed over every agent step in between — this is how the terminal reward
reaches a seat that moved earlier.

:class:`VecGames` spreads slots over ``multiprocessing.Pipe`` workers (like Stable
Baselines 3's ``SubprocVecEnv``), started by :func:`~tabletop_rl.baselines.workers.worker_context`
(never forked from the training process, which runs torch): one message per worker per
round, results in slot order.
Since every game's randomness comes from its own seeds and the network's actions are chosen
in the driving process, what happens does not depend on the number of workers or on process
scheduling. A slot's state is therefore its setup plus the network actions of the current
game: :meth:`GameSlot.replay` rebuilds the game from them.

>>> from tabletop_rl.baselines.ppo.toy import TicTacToeEnv
>>> slot = GameSlot(TOY_ENV, {})
>>> report = slot.reset(GameSetup(env_seed=0, agent_seed=1, controllers=("learner", "random")))
>>> report.seat, int(report.mask.sum())
(0, 9)
>>> report = slot.act(4)
>>> report.seat, int(report.mask.sum())
(0, 7)
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
import signal
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from tabletop_rl.envs.core.model import Ending, GameModel
from tabletop_rl.envs.core.simulator import agent_view
from tabletop_rl.envs.errors import ConfigError
from tabletop_rl.envs.registry import make

from ..arena.agent_specs import resolve_agent
from ..workers import init_worker, worker_context, worker_lost

TOY_ENV = "tabletop_rl.baselines.ppo.toy:TicTacToeEnv"
"""The ``env`` value that selects the tic-tac-toe test game."""

LEARNER = "learner"
"""Controller of a seat played by the learning network."""
POOL_PREFIX = "pool:"
"""Controller ``pool:K`` is snapshot K of the opponent pool (played by a network)."""


def is_network(controller: str) -> bool:
    """Whether a seat with this controller is played by a network (learner or snapshot)."""
    return controller == LEARNER or controller.startswith(POOL_PREFIX)


@dataclass(frozen=True)
class GameSetup:
    """How one game starts: seeds and the controller of every seat."""

    env_seed: int
    agent_seed: int
    controllers: tuple[str, ...]
    """Per seat: ``"learner"``, ``"pool:K"`` or an agent spec (a scripted agent's name, with
    options after a colon, ``mcts``, ``ppo:PATH``; see :mod:`~..arena.agent_specs`)."""


@dataclass
class Decision:
    """A network-controlled seat must act."""

    seat: int
    obs: np.ndarray
    mask: np.ndarray
    rewards: np.ndarray
    steps: int
    """Agent steps (all seats) since the slot's previous report."""


@dataclass
class GameOver:
    """The game ended (``winners`` lists seat indices; empty when it was truncated)."""

    rewards: np.ndarray
    steps: int
    winners: list[int]
    truncated: bool
    length: int
    final_obs: np.ndarray | None = None
    """Every seat's observation at the cut, one row per seat, when the game was truncated
    (the learner bootstraps its value from them); None when it ended by the rules."""


Report = Decision | GameOver


class GameSlot:
    """One game, played on the game's public model, with the scripted agents of its seats."""

    def __init__(self, env: str, env_kwargs: dict[str, Any]) -> None:
        self.env_name = env
        raw = make(env, raw=True, **env_kwargs)
        self.model: GameModel = raw.model
        self.reward_mode: str = raw.reward_mode
        self.n = self.model.num_players
        self.state: Any = None
        self._mask: np.ndarray | None = None
        self.agents: dict[int, Any] = {}
        self.setup: GameSetup | None = None
        self.net_actions: list[int] = []
        self._rewards = np.zeros(self.n, dtype=np.float64)
        self._length = 0
        self._reported = 0

    def reset(self, setup: GameSetup) -> Report:
        if len(setup.controllers) != self.n:
            raise ConfigError(f"{self.n}-player game, got {len(setup.controllers)} controllers")
        self.setup = setup
        self.net_actions = []
        self._rewards[:] = 0.0
        self._length = 0
        self._reported = 0
        # the environment's reset(seed) deals from default_rng(seed): the same game
        self.state = self.model.new_state(np.random.default_rng(setup.env_seed))
        rng = np.random.default_rng(setup.agent_seed)
        self.agents = {
            seat: resolve_agent(c, self.env_name, rng)
            for seat, c in enumerate(setup.controllers)
            if not is_network(c)
        }
        return self._advance()

    def act(self, action: int) -> Report:
        self.net_actions.append(int(action))
        self._step(int(action))
        return self._advance()

    def replay(self, setup: GameSetup, net_actions: list[int]) -> Report:
        """Rebuild a game from its setup and network actions; the report of its last step."""
        report = self.reset(setup)
        for a in net_actions:
            report = self.act(a)
        return report

    def _step(self, action: int) -> None:
        action = self.model.check_legal(self.state, action, self._mask)
        result = self.model.step_unchecked(self.state, action)
        self._length += 1
        if self.reward_mode == "score":
            for p, points in result.points.items():
                self._rewards[p] += points
        elif result.game_over:
            outcome = self.model.outcome(self.state)
            assert outcome is not None
            self._rewards += outcome.win_rewards()

    def _view(self, agent: Any, seat: int) -> Any:
        """What ``agent`` sees to decide for ``seat``: the public view, or a simulator of this
        game for a search agent (``mcts``)."""
        return agent_view(agent, self.model, self.state, seat, self.env_name)

    def _take_rewards(self) -> tuple[np.ndarray, int]:
        out = self._rewards.astype(np.float32)
        self._rewards[:] = 0.0
        steps = self._length - self._reported
        self._reported = self._length
        return out, steps

    def _advance(self) -> Report:
        model, state = self.model, self.state
        while True:
            outcome = model.outcome(state)
            if outcome is not None:
                truncated = outcome.ending is Ending.TRUNCATED
                final = None
                if truncated:
                    final = np.stack([model.observe_unchecked(state, p) for p in range(self.n)])
                winners = list(outcome.winners)
                return GameOver(*self._take_rewards(), winners, truncated, self._length, final)
            seat = model.current_player(state)
            obs = {
                "observation": model.observe_unchecked(state, seat),
                "action_mask": model.legal_mask_unchecked(state),
            }
            scripted = self.agents.get(seat)
            if scripted is None:
                rewards, steps = self._take_rewards()
                return Decision(seat, obs["observation"], obs["action_mask"], rewards, steps)
            self._step(int(scripted.act(obs, self._view(scripted, seat))))


# --------------------------------------------------------------------------- workers
Command = tuple[str, Any]
"""``("reset", GameSetup)``, ``("act", action)``, ``("replay", (setup, actions))``, or
``("idle", None)`` (no report)."""


def _run_commands(slots: list[GameSlot], commands: list[Command]) -> list[Report | None]:
    out: list[Report | None] = []
    for slot, (kind, arg) in zip(slots, commands, strict=True):
        if kind == "act":
            out.append(slot.act(arg))
        elif kind == "reset":
            out.append(slot.reset(arg))
        elif kind == "replay":
            out.append(slot.replay(*arg))
        elif kind == "idle":
            out.append(None)
        else:
            raise ValueError(f"unknown slot command {kind!r}")
    return out


def _worker(conn: Connection, env: str, env_kwargs: dict[str, Any], n_slots: int) -> None:
    # Ctrl-C reaches the whole process group: the training process decides what happens and
    # ends its workers itself (see .stopping)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    init_worker()
    parent = mp.parent_process()
    try:
        slots = [GameSlot(env, env_kwargs) for _ in range(n_slots)]
        conn.send(("ok", None))
        while True:
            while not conn.poll(1.0):
                if parent is not None and not parent.is_alive():  # the training process died
                    return
            message = conn.recv()
            if message is None:
                break
            try:
                conn.send(("ok", _run_commands(slots, message)))
            except Exception as exc:  # report to the parent, which re-raises
                conn.send(("error", f"{type(exc).__name__}: {exc}"))
    except (EOFError, KeyboardInterrupt, BrokenPipeError):
        pass
    except Exception as exc:
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


class VecGames:
    """``num_slots`` games over ``num_workers`` subprocesses (0: in this process)."""

    def __init__(
        self, env: str, env_kwargs: dict[str, Any], num_slots: int, num_workers: int
    ) -> None:
        self.num_slots = num_slots
        probe = make(env, raw=True, **env_kwargs)
        self.num_players = probe.num_players
        self.num_actions = probe.info.num_actions
        self._local: list[GameSlot] = []
        self._conns: list[Connection] = []
        self._procs: list[Any] = []
        workers = min(num_workers, num_slots)
        if workers == 0:
            self._local = [GameSlot(env, env_kwargs) for _ in range(num_slots)]
            self._shards = [(0, num_slots)]
            return
        bounds = np.linspace(0, num_slots, workers + 1).round().astype(int)
        self._shards = [(int(a), int(b)) for a, b in itertools.pairwise(bounds)]
        ctx = worker_context()  # not forked: the training process runs torch
        for a, b in self._shards:
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_worker, args=(child, env, env_kwargs, b - a), daemon=True)
            proc.start()
            child.close()
            self._conns.append(parent)
            self._procs.append(proc)
        for conn in self._conns:
            self._receive(conn)

    @staticmethod
    def _receive(conn: Connection) -> Any:
        try:
            status, payload = conn.recv()
        except (EOFError, ConnectionResetError):
            raise worker_lost("a game worker process") from None
        if status != "ok":
            raise RuntimeError(f"game worker failed: {payload}")
        return payload

    def run(self, commands: list[Command]) -> list[Report | None]:
        """One command per slot; the slots' reports in slot order."""
        if len(commands) != self.num_slots:
            raise ValueError(f"need {self.num_slots} commands, got {len(commands)}")
        if self._local:
            return _run_commands(self._local, commands)
        for conn, (a, b) in zip(self._conns, self._shards, strict=True):
            try:
                conn.send(commands[a:b])
            except (BrokenPipeError, ConnectionResetError):
                raise worker_lost("a game worker process") from None
        out: list[Report | None] = []
        for conn in self._conns:
            out.extend(self._receive(conn))
        return out

    def close(self) -> None:
        for conn in self._conns:
            try:
                conn.send(None)
                conn.close()
            except (BrokenPipeError, OSError):
                pass
        for proc in self._procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
        self._conns, self._procs = [], []

    def __enter__(self) -> VecGames:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
