"""Human play in the terminal: ``tabletop-rl play --env NAME --opponents greedy``.

The board is shown (the environment's coloured ``ansi`` picture, with your hand) before each
of your turns; the opponents' moves are printed as they happen. Type a move, or one of the
commands ``help`` (the move notation), ``moves`` (the legal moves in the notation, with the
points each would score if the turn ended after it), ``board``, ``hint`` (what the strongest
available agent would play, also in the middle of a turn) and ``quit``. An input that cannot
be read or is not legal is answered with the reason, in the coordinates shown on the board,
and you type again: a typo never costs a move. Colours are used only on a terminal.

How a move is read is pluggable per game (:mod:`.move_parsers`): a parser turns the text
into sub-actions with the game's action codec and explains its notation. Moves are checked,
and hints and points worked out, on copies of the game model's state; the environment only
ever receives the moves played.

Input and output are streams passed in, so a test can drive a whole game with scripted
input.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np

from tabletop_rl.envs.core.simulator import select_action
from tabletop_rl.envs.errors import ConfigError, IllegalActionError, NotationError
from tabletop_rl.envs.registry import game_spec, make

from .arena import resolve_agent
from .arena.agent_specs import observation_kwargs
from .move_parsers import (
    GenericParser,
    LiniellParser,
    MoveParser,
    Position,
    QwirkleCardsParser,
    QwirkleParser,
    legal_moves,
    move_text,
    parser_for,
)
from .replay import outcome_text

COMMANDS = "help, moves, board, hint, quit"


ANSI_CODE = re.compile(r"\x1b\[[0-9;]*m")
"""A terminal colour code (what the ``ansi`` pictures use)."""


def strip_ansi(text: str) -> str:
    r"""``text`` without colour codes.

    >>> strip_ansi("\x1b[1;38;5;40mB\x1b[0m.")
    'B.'
    """
    return ANSI_CODE.sub("", text)


class TerminalGame:
    """One game between a human (reading ``stdin``) and agents; see the module docstring."""

    def __init__(
        self,
        env_name: str,
        opponents: Sequence[str],
        stdin: TextIO,
        stdout: TextIO,
        seat: int = 0,
        hint: bool = False,
        seed: int | None = None,
        hint_agent: str | None = None,
        env_kwargs: dict[str, Any] | None = None,
        parser: MoveParser | None = None,
    ) -> None:
        if not opponents:
            raise ConfigError("name at least one opponent (--opponents greedy)")
        self.env_name = env_name
        players = 1 + len(opponents)
        specs = [*opponents, *([hint_agent] if hint_agent else [])]
        self.env_kwargs = {**observation_kwargs(specs, env_name), **(env_kwargs or {})}
        self.env = make(
            env_name, raw=True, num_players=players, render_mode="ansi", **self.env_kwargs
        )
        if not 0 <= seat < players:
            raise ConfigError(f"--seat {seat} is not a seat; allowed: 0 to {players - 1}")
        self.seed = int(np.random.SeedSequence().entropy % 2**31) if seed is None else seed
        self.rng = np.random.default_rng(self.seed)
        self.stdin, self.out = stdin, stdout
        self.human = self.env.possible_agents[seat]
        specs = list(opponents)
        self.agents: dict[str, Any] = {}
        self.specs: dict[str, str] = {self.human: "human"}
        self.labels: dict[str, str] = {self.human: f"{self.human} (you)"}
        for agent in self.env.possible_agents:
            if agent == self.human:
                continue
            spec = specs.pop(0)
            self.agents[agent] = resolve_agent(spec, env_name, self.rng)
            self.specs[agent] = spec
            self.labels[agent] = f"{agent} ({spec})"
        self.hint_enabled = hint
        self.hint_spec = hint_agent
        self.parser = parser or parser_for(env_name)
        self.actions: list[int] = []
        self.colour = bool(getattr(stdout, "isatty", lambda: False)())
        """Colour codes only on a terminal (not in a file, a pipe or a test's stream)."""
        self._turn_start: Any = None
        """A copy of the model state at the start of the human's current turn (for hints)."""
        self._scratch: Any = None
        self.model = self.env.model
        self.seat = self.env.possible_agents.index(self.human)
        self._mid_turn = False

    # -------------------------------------------------------------------- output
    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def show_board(self) -> None:
        board = getattr(self.parser, "board", None)
        viewer = self.env.possible_agents.index(self.human)
        text = board(self.env, viewer) if board is not None else str(self.env.render())
        self.say(text if self.colour else strip_ansi(text))

    # -------------------------------------------------------------------- play
    def run(self) -> int:
        """Play to the end; 0 when the game finished, 2 when the human quit or input ended."""
        env = self.env
        env.reset(seed=self.seed)
        names = ", ".join(self.labels[a] for a in env.possible_agents)
        self.say(f"{self.env_name}, seed {self.seed}: {names}. Type 'help' for the notation.")
        while not self._over():
            mover = env.agent_selection
            if mover == self.human:
                if not self._human_turn():
                    self.say("Game abandoned.")
                    return 2
            else:
                self._agent_turn(mover)
        self.say("\n=== game over ===")
        self.show_board()
        self.say(outcome_text(env, self.labels))
        return 0

    def _over(self) -> bool:
        return any(self.env.terminations.values()) or any(self.env.truncations.values())

    def _name(self, action: int, env: Any) -> str | None:
        """A move in the game's notation if its parser has one, else ``describe_action``."""
        return move_text(self.parser, action, env)

    def _agent_turn(self, mover: str) -> None:
        names = []
        while not self._over() and self.env.agent_selection == mover:
            action = select_action(self.agents[mover], self.env, mover, env_name=self.env_name)
            names.append(self._name(action, self.env))
            self.env.step(action)
            self.actions.append(action)
        self.say(f"{self.labels[mover]}: {_join(names)}")

    def _human_turn(self) -> bool:
        """Read until a legal move is made (True) or the human quits (False)."""
        if not self._mid_turn:
            self._turn_start = self.model.copy(self.env.game_state)
        self.say("")
        self.show_board()
        while True:
            self.out.write("your move> ")
            self.out.flush()
            line = self.stdin.readline()
            if not line:
                self.say("\n(end of input)")
                return False
            text = line.strip()
            command = text.lower()
            if not text:
                continue
            if command in ("help", "?"):
                self.say(self.parser.help(self.env))
                self.say(f"Commands: {COMMANDS}.")
            elif command in ("moves", "legal"):
                self.say(self._moves_text())
            elif command == "board":
                self.show_board()
            elif command == "hint":
                self.say(self._hint())
            elif command in ("quit", "exit"):
                return False
            elif self._try_move(text):
                return True

    def _try_move(self, text: str) -> bool:
        try:
            actions = self.parser.parse(text, self.env)
        except (NotationError, ValueError) as exc:
            self.say(
                f"Cannot read {text!r}: {self._explain(str(exc))}. Type 'help' for the "
                "notation, 'moves' for the legal moves."
            )
            return False
        except Exception as exc:  # a parser bug must not end the human's game
            self.say(f"Cannot read {text!r} ({type(exc).__name__}: {exc}). Type 'help'.")
            return False
        # check the whole sequence on a copy of the state before touching the real game
        model, seat = self.model, self.seat
        state = model.copy(self.env.game_state)
        for k, action in enumerate(actions):
            if model.is_over(state) or model.current_player(state) != seat:
                self.say(f"{text!r} holds more moves than your turn allows (stopped at #{k + 1}).")
                return False
            try:
                model.step(state, model.check_legal(state, int(action)))
            except IllegalActionError as exc:
                self.say(
                    f"Not legal: {self._why_illegal(int(action), exc, state)}. Try again "
                    "('moves' lists the legal moves)."
                )
                return False
        names = []
        for action in actions:
            names.append(self._name(int(action), self.env))
            self.env.step(int(action))
            self.actions.append(int(action))
        self.say(f"{self.labels[self.human]}: {_join(names)}")
        self._mid_turn = not self._over() and self.env.agent_selection == self.human
        if self._mid_turn:
            self.say("Your turn goes on: 'moves' lists what you can play now.")
        return True

    def _why_illegal(self, action: int, exc: IllegalActionError, state: Any) -> str:
        """``move: reason``, in the notation and coordinates shown on screen (``state``: the
        position where ``action`` was refused)."""
        text = str(exc)
        if not 0 <= action < self.model.info.num_actions:
            return text  # "action 99 is out of range; allowed: ..."
        reason = text.split(" is illegal: ", 1)[-1]
        name = self._name(action, Position(self.model, state)) or "end"
        return f"{name}: {self._explain(reason)}"

    def _explain(self, reason: str) -> str:
        """An engine's reason in the terms shown on screen (the parser's coordinates)."""
        explain = getattr(self.parser, "explain", None)
        return explain(reason, self.env) if explain is not None else reason

    def _points_after(self, action: int) -> float | None:
        """The human's points if the turn ended right after ``action`` (None: it cannot)."""
        model, seat = self.model, self.seat
        before = model.scores(self.env.game_state)
        state = model.copy(self.env.game_state)
        model.step(state, action)
        end_of_turn = getattr(self.parser, "end_of_turn", None)
        if not model.is_over(state) and model.current_player(state) == seat:
            end = end_of_turn(Position(model, state)) if end_of_turn is not None else None
            if end is None or not model.legal_mask(state)[end]:
                return None
            model.step(state, end)
        return model.scores(state)[seat] - before[seat]

    def _moves_text(self) -> str:
        """The legal moves in the game's notation, with their points; moves that share a
        piece (``Rs@3,4``, ``Rs@3,5``) are listed on one line after it."""
        groups: dict[str, list[str]] = {}
        moves = legal_moves(self.env)
        for action, _description in moves:
            text = self._name(action, self.env) or "end"
            points = self._points_after(action)
            shown = f"{text.split('@', 1)[-1]} ({'+' if points is not None else ''}"
            shown += f"{points:g})" if points is not None else "turn stays open)"
            key = text.split("@", 1)[0] + "@" if "@" in text else ""
            groups.setdefault(key, []).append(shown)
        lines = [f"{len(moves)} legal moves (points if the turn ended right after):"]
        for key, entries in groups.items():
            lines.extend(_wrap(entries, prefix=f"  {key:<4}" if key else "  "))
        return "\n".join(lines)

    def _hint(self) -> str:
        """What an agent would play for the rest of the human's turn.

        Agents that plan whole turns (the Qwirkle Cards heuristic) plan at the start of a
        turn: in the middle of one, the agent is first shown the turn's starting position.
        If the human's moves so far left its plan, the Qwirkle and Qwirkle Cards heuristics
        re-plan the rest of the turn; an agent that cannot continue it gives its whole turn
        from the turn's start instead.
        """
        if not self.hint_enabled:
            return "Hints are off; start the game with --hint."
        spec = self.hint_spec or self._strongest()
        attempts = [(spec, False, f"hint ({spec}): ")]
        if self._mid_turn:
            attempts.append(
                (
                    spec,
                    True,
                    f"hint ({spec} cannot continue the turn you began; its whole turn from the "
                    "turn's start): ",
                )
            )
        failure = ""
        for agent_spec, from_start, label in attempts:
            try:
                return label + self._hint_from(agent_spec, from_start)
            except Exception as exc:  # an agent's failure must not end the human's game
                failure = f"{type(exc).__name__}: {exc}"
        return f"No hint here: {spec} failed to suggest a move ({failure})."

    def _hint_from(self, spec: str, from_start: bool = False) -> str:
        """The rest of the human's turn as ``spec`` plays it (``from_start``: the whole turn
        from its first move), on a scratch environment loaded with a copy of the state
        (agents see positions through an environment). In the middle of a turn the agent is
        first shown the turn's start, where agents that plan whole turns make their plan."""
        rng = np.random.default_rng(self.rng.integers(2**31))
        agent = resolve_agent(spec, self.env_name, rng)
        scratch = self._scratch_env()
        start = self._turn_start if self._mid_turn else None
        if start is not None and not from_start:
            scratch.load_state(self.model.copy(start))
            select_action(agent, scratch, self.human, env_name=self.env_name)
        scratch.load_state(self.model.copy(start if from_start else self.env.game_state))
        names = []
        while not self._over_in(scratch) and scratch.agent_selection == self.human:
            action = select_action(agent, scratch, self.human, env_name=self.env_name)
            names.append(self._name(action, scratch))
            scratch.step(action)
        return _join(names)

    def _scratch_env(self) -> Any:
        """An environment of the same game for planning (built once)."""
        if self._scratch is None:
            self._scratch = make(
                self.env_name, raw=True, num_players=self.env.num_players, **self.env_kwargs
            )
        return self._scratch

    @staticmethod
    def _over_in(env: Any) -> bool:
        return any(env.terminations.values()) or any(env.truncations.values())

    def _strongest(self) -> str:
        from .arena.agent_specs import agent_names_for

        ladder = game_spec(self.env_name).hint_agents
        available = set(agent_names_for(self.env_name)) | {"mcts"}
        return next(a for a in ladder if a in available)

    def record(self) -> dict[str, Any]:
        """The game so far as a saved game (for ``tabletop-rl replay``)."""
        from .arena import final_scores

        env = self.env
        over = self._over()
        return {
            "env": self.env_name,
            "env_kwargs": {"num_players": env.num_players},
            "seed": self.seed,
            "agents": [self.specs[a] for a in env.possible_agents],
            "actions": list(self.actions),
            "winners": [env.possible_agents.index(a) for a in env.winners()] if over else None,
            "scores": final_scores(env) if over else None,
            "truncated": any(env.truncations.values()),
            "forfeit": None,
        }


def _wrap(entries: list[str], prefix: str, width: int = 78) -> list[str]:
    """``entries`` on lines of at most ``width`` characters, the first after ``prefix``."""
    lines, line = [], prefix
    for entry in entries:
        if len(line) + len(entry) + 2 > width and line.strip():
            lines.append(line.rstrip())
            line = " " * len(prefix)
        line += entry + "  "
    lines.append(line.rstrip())
    return lines


def join_moves(names: Sequence[str | None]) -> str:
    """The moves of one turn as one line (``(turn ended)`` when nothing was played)."""
    return _join(names)


def _join(names: Sequence[str | None]) -> str:
    shown = [n for n in names if n]
    if not shown:
        return "(turn ended)"
    # notation (no spaces inside a move) reads best space-separated
    return (" " if all(" " not in n.replace("swap ", "") for n in shown) else ", ").join(shown)


def main(args: Any, stdin: TextIO, stdout: TextIO) -> int:
    """``tabletop-rl play``."""
    game = TerminalGame(
        args.env,
        args.opponents,
        stdin,
        stdout,
        seat=args.seat,
        hint=args.hint,
        seed=args.seed,
        hint_agent=args.hint_agent,
    )
    code = game.run()
    if args.save and code == 0:
        from .replay import save_game

        save_game(game.record(), args.save)
        stdout.write(f"saved the game to {args.save} (tabletop-rl replay {args.save})\n")
    return code


__all__ = [
    "GenericParser",
    "LiniellParser",
    "MoveParser",
    "QwirkleCardsParser",
    "QwirkleParser",
    "TerminalGame",
    "join_moves",
    "legal_moves",
    "main",
    "move_text",
    "parser_for",
]
