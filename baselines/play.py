"""Human play in the terminal: ``tabletop-rl play --env NAME --opponents greedy``.

The board is shown (the environment's coloured ``ansi`` picture, with your hand) before each
of your turns; the opponents' moves are printed as they happen. Type a move, or one of the
commands ``help`` (the move notation), ``moves`` (the legal moves in the notation, with the
points each would score if the turn ended after it), ``board``, ``hint`` (what the strongest
available agent would play, also in the middle of a turn) and ``quit``. An input that cannot
be read or is not legal is answered with the reason, in the coordinates shown on the board,
and you type again: a typo never costs a move. Colours are used only on a terminal.

How a move is read is pluggable per game: a :class:`MoveParser` turns the text into the
environment's sub-actions and explains its notation. :class:`GenericParser` works for every
game (action numbers, or the names ``describe_action`` gives, ``;`` between moves); games
with a notation of their own register a parser in :data:`PARSERS`.

Input and output are streams passed in, so a test can drive a whole game with scripted
input.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TextIO

import numpy as np

from tabletop_rl.envs.errors import ConfigError, IllegalActionError, NotationError

from .arena import resolve_agent
from .env_factory import make_env
from .replay import outcome_text
from .simulator import select_action

COMMANDS = "help, moves, board, hint, quit"
HINT_LADDER: dict[str, tuple[str, ...]] = {
    # measured: MCTS won 52.5 of 80 games against greedy (see agents/mcts.py)
    "liniell_v0": ("mcts", "heuristic", "greedy", "random"),
}
"""Agents tried for ``--hint`` per game, strongest first by the arena's measurements (the
first one available is used); other games use :data:`DEFAULT_HINT_LADDER`."""
DEFAULT_HINT_LADDER = ("heuristic", "greedy", "mcts", "random")


class MoveParser(Protocol):
    """Reads a typed move for one game."""

    def parse(self, text: str, env: Any) -> list[int]:
        """The sub-actions ``text`` stands for, in order; raise NotationError if unreadable.

        ``env`` is the raw environment with the human to move; do not change it (work on a
        copy if the meaning of later tokens depends on earlier ones).
        """
        ...

    def help(self, env: Any) -> str:
        """The notation, explained for a player."""
        ...


ANSI_CODE = re.compile(r"\x1b\[[0-9;]*m")
"""A terminal colour code (what the ``ansi`` pictures use)."""


def strip_ansi(text: str) -> str:
    r"""``text`` without colour codes.

    >>> strip_ansi("\x1b[1;38;5;40mB\x1b[0m.")
    'B.'
    """
    return ANSI_CODE.sub("", text)


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def legal_moves(env: Any) -> list[tuple[int, str]]:
    """The legal actions of the player to move with their names."""
    mask = env.action_mask()
    return [(int(a), env.describe_action(int(a))) for a in np.flatnonzero(mask)]


class GenericParser:
    """Action numbers or ``describe_action`` names; ``;`` separates moves of one turn.

    >>> GenericParser().parse("17", env=None)
    [17]
    """

    max_listed = 40
    max_scanned = 50_000

    def parse(self, text: str, env: Any) -> list[int]:
        parts = [p for p in text.split(";") if p.strip()]
        sim = copy.deepcopy(env) if len(parts) > 1 else env
        actions: list[int] = []
        for k, part in enumerate(parts):
            action = self._one(part.strip(), sim)
            actions.append(action)
            if k < len(parts) - 1:
                try:
                    sim.step(action)
                except IllegalActionError as exc:
                    raise NotationError(str(exc)) from exc
        if not actions:
            raise NotationError("empty move")
        return actions

    def _one(self, text: str, env: Any) -> int:
        if re.fullmatch(r"\d+", text):
            return int(text)
        wanted = _norm(text)
        matches = [a for a, name in legal_moves(env) if _norm(name) == wanted]
        if matches:
            return matches[0]
        if env.info.num_actions <= self.max_scanned:
            # a known move that is illegal now: return it, so the game explains why
            for a in range(env.info.num_actions):
                if _norm(env.describe_action(a)) == wanted:
                    return a
        raise NotationError(
            f"no legal move is called {text!r}; type 'moves' to list them, or an action number"
        )

    def help(self, env: Any) -> str:
        moves = legal_moves(env)
        lines = [
            "Type a move as its name (as listed below) or its action number.",
            "Several moves of one turn may go on one line, separated by ';'.",
        ]
        if len(moves) <= self.max_listed:
            lines.append("Legal moves now: " + ", ".join(f"{a}={n}" for a, n in moves))
        else:
            lines.append(f"{len(moves)} legal moves now; 'moves' lists them.")
        return "\n".join(lines)


class QwirkleParser:
    """Qwirkle in the rules' notation, at the window coordinates the board shows.

    ``Rs@3,4 Rc@3,5`` lays a red square on row 3, column 4 and a red clover next to it and
    ends the turn (the tiles may be typed in any order; they are laid in an order the rules
    allow). ``swap Rs Bo`` exchanges those tiles, ``pass`` passes (only when nothing else is
    legal), ``end`` ends a turn whose tiles were laid one line at a time.
    """

    _PLACE = re.compile(r"^([a-z]{2})@(-?\d+),(-?\d+)$")
    HAND_SIZE = 6
    EXCHANGES = 63

    def _geometry(self, env: Any) -> tuple[Any, int, int]:
        view = env.public_view(env.agent_selection)
        cells = view.window * view.window
        return view, cells, self.HAND_SIZE * cells

    def parse(self, text: str, env: Any) -> list[int]:
        from tabletop_rl.envs.qwirkle.tiles import parse_tile, tile_name

        view, cells, end = self._geometry(env)
        words = re.sub(r"\s*([@,])\s*", r"\1", text.strip().lower()).replace(";", " ").split()
        if not words:
            raise NotationError("empty move")
        if words == ["pass"]:
            return [end + self.EXCHANGES + 1]
        if words in (["end"], ["done"]):
            return [end]
        used = {slot for _r, _c, slot in view.laid_this_turn}
        free = [s for s in range(len(view.hand)) if s not in used]

        def take(code: str) -> int:
            tile = parse_tile(code)
            for s in free:
                if view.hand[s] == tile:
                    free.remove(s)
                    return s
            hand = " ".join(tile_name(view.hand[s]) for s in range(len(view.hand)) if s not in used)
            raise NotationError(f"you hold no (more) {tile_name(tile)}; your hand: {hand}")

        if words[0] in ("swap", "exchange"):
            if len(words) == 1:
                raise NotationError("name the tiles to swap, e.g. 'swap Rs Bo'")
            return [end + sum(1 << take(code) for code in words[1:])]
        placements = []
        for word in words:
            m = self._PLACE.match(word)
            if m is None:
                raise NotationError(
                    f"{word!r} is not a placement; write tile@row,col such as Rs@3,4"
                )
            row, col = int(m[2]), int(m[3])
            if not (0 <= row < view.window and 0 <= col < view.window):
                raise NotationError(
                    f"cell {row},{col} is outside the board window (0 to {view.window - 1})"
                )
            placements.append(take(m[1]) * cells + row * view.window + col)
        return _with_end_of_turn(env, placements, end)

    def format_action(self, action: int, env: Any) -> str | None:
        """One sub-action in notation (``None`` for the end of a turn)."""
        from tabletop_rl.envs.qwirkle.tiles import tile_name

        view, cells, end = self._geometry(env)
        if action < end:
            slot, cell = divmod(action, cells)
            row, col = divmod(cell, view.window)
            return f"{tile_name(view.hand[slot])}@{row},{col}"
        if action == end:
            return None
        if action == end + self.EXCHANGES + 1:
            return "pass"
        slots = [s for s in range(self.HAND_SIZE) if (action - end) >> s & 1]
        return "swap " + " ".join(tile_name(view.hand[s]) for s in slots)

    def end_of_turn(self, env: Any) -> int:
        """The action that ends a turn whose tiles are laid."""
        return self._geometry(env)[2]

    def explain(self, reason: str, env: Any) -> str:
        """The engine's reason in the window coordinates the board shows (it counts rows and
        columns from the centre tile).

        A cell ``(r, c)`` becomes ``r',c'`` and ``row r`` / ``column c`` are shifted the same
        way, by the window's origin.
        """
        origin = env.public_view(env.agent_selection).window_origin
        shift = {"row": origin[0], "column": origin[1]}

        def cell(m: re.Match[str]) -> str:
            return f"{int(m[1]) - origin[0]},{int(m[2]) - origin[1]}"

        def line(m: re.Match[str]) -> str:
            return f"{m[1]} {int(m[2]) - shift[m[1]]}"

        reason = re.sub(r"\((-?\d+), (-?\d+)\)", cell, reason)
        return re.sub(r"\b(row|column) (-?\d+)", line, reason)

    def help(self, env: Any) -> str:
        view = env.public_view(env.agent_selection)
        return "\n".join(
            [
                "Tiles: colour R O Y G B P + shape o circle, x cross, d diamond, s square,",
                "t star, c clover (e.g. Rs = red square). Coordinates: row,col as on the board",
                f"(0 to {view.window - 1}).",
                "  Rs@3,4 Rc@3,5   lay tiles (any order) and end the turn",
                "  Rs@3,4          one tile at a time works too: then 'end' ends the turn",
                "  swap Rs Bo      exchange these tiles with the bag",
                "  pass            pass (only when you can neither lay nor exchange)",
                f"You may exchange up to {view.max_exchange} tiles now."
                if view.max_exchange
                else "No exchange is possible now.",
            ]
        )


def _finished(env: Any) -> bool:
    return any(env.terminations.values()) or any(env.truncations.values())


def _legal_order(env: Any, actions: list[int]) -> list[int] | None:
    """An order in which ``actions`` are all legal one after another (depth-first search)."""
    if not actions:
        return []
    mask = env.action_mask()
    for k, action in enumerate(actions):
        if not mask[action]:
            continue
        sim = copy.deepcopy(env)
        sim.step(action)
        rest = _legal_order(sim, actions[:k] + actions[k + 1 :])
        if rest is not None:
            return [action, *rest]
    return None


class LiniellParser:
    """Liniell moves at the window coordinates the board shows.

    ``2,3 r1`` lays the drawn tile on row 2, column 3 turned one quarter clockwise (``r0``
    to ``r3``; ``r0`` may be left out). ``occupy N`` puts a pawn from your supply on the
    laid tile's line through its north port (ports ``N E S W``); ``occupy N from 1`` moves
    your first placed pawn there instead. ``skip`` occupies nothing. A lay and an occupy may
    share a line: ``2,3 r1; occupy N``.
    """

    _LAY = re.compile(r"^(?:lay\s+)?(\d+)\s*,\s*(\d+)(?:\s*(?:r|rot|rotation)?\s*(\d+))?$")
    _OCCUPY = re.compile(r"^(?:occupy|move)\s+([nesw])(?:\s+(?:from|with|pawn)\s*(\d))?$")
    PORTS = "NESW"

    @staticmethod
    def _constants() -> tuple[int, int, int, int]:
        from tabletop_rl.envs import liniell_v0
        from tabletop_rl.envs.liniell.board import WINDOW

        return WINDOW, liniell_v0.OCCUPY, liniell_v0.NUM_SOURCES, liniell_v0.SKIP

    def parse(self, text: str, env: Any) -> list[int]:
        return [self._one(part.strip().lower()) for part in text.split(";") if part.strip()]

    def _one(self, text: str) -> int:
        window, occupy, sources, skip = self._constants()
        if text in ("skip", "none", "nothing"):
            return skip
        m = self._LAY.match(text)
        if m:
            row, col, rot = int(m[1]), int(m[2]), int(m[3] or 0)
            if not (0 <= row < window and 0 <= col < window):
                raise NotationError(f"cell {row},{col} is outside the window (0 to {window - 1})")
            if rot > 3:
                raise NotationError(f"rotation r{rot} does not exist; use r0 to r3")
            return 4 * (row * window + col) + rot
        m = self._OCCUPY.match(text)
        if m:
            port = self.PORTS.index(m[1].upper())
            source = int(m[2] or 0)
            if source >= sources:
                raise NotationError(f"you have placed pawns 1 to {sources - 1}, not {source}")
            return occupy + sources * port + source
        raise NotationError(
            f"{text!r} is not a Liniell move; write ROW,COL rK to lay, 'occupy N' "
            "(or 'occupy N from 1'), or 'skip'"
        )

    def format_action(self, action: int, env: Any) -> str | None:
        window, occupy, sources, skip = self._constants()
        if action < occupy:
            cell, rot = divmod(action, 4)
            row, col = divmod(cell, window)
            return f"{row},{col} r{rot}"
        if action == skip:
            return "skip"
        port, source = divmod(action - occupy, sources)
        return f"occupy {self.PORTS[port]}" + (f" from {source}" if source else "")

    def __init__(self) -> None:
        from tabletop_rl.envs.liniell.render import LineLabels

        self.labels = LineLabels()

    def end_of_turn(self, env: Any) -> int | None:
        """``skip``, where occupying nothing ends the turn."""
        skip = self._constants()[3]
        return skip if env.action_mask()[skip] else None

    def board(self, env: Any, viewer: int) -> str:
        """The board with line letters that stay the same from turn to turn."""
        from tabletop_rl.envs.liniell.render import render_ansi

        game = env.model.engine_state(env.game_state)
        return render_ansi(game, viewer, labels=self.labels, you=viewer)

    def help(self, env: Any) -> str:
        return "\n".join(
            [
                "Lay the drawn tile: ROW,COL rK, e.g. 2,3 r1 (rows and columns as on the board,",
                "rK turns the tile K quarter-turns clockwise, r0 to r3; r0 may be omitted).",
                "Then occupy a line of the tile just laid: occupy N (a pawn from your supply,",
                "ports N E S W), occupy N from 1 (move your first placed pawn), or skip.",
                "Both on one line: 2,3 r1; occupy N",
            ]
        )


class QwirkleCardsParser:
    """Qwirkle Cards turns in the rules' card notation.

    ``Rs Ro Rx`` plays those cards from your hand (the table is rearranged automatically; any
    order of the cards works) and ends the turn if the table is valid then; otherwise the turn
    stays open for more cards (``end`` ends it once the table is valid). ``take R`` takes the
    Qwirkle of colour red, ``take s`` the Qwirkle of symbol square (colours upper case
    ``R O Y G B P``, symbols lower case ``o x d s t c``); plays and takes mix: ``Rs take s``.
    ``redraw`` is the forced redraw when you cannot play.
    """

    @staticmethod
    def _constants() -> tuple[int, int, int]:
        from tabletop_rl.envs import qwirkle_cards_v0

        return qwirkle_cards_v0.TAKE, qwirkle_cards_v0.END_TURN, qwirkle_cards_v0.CANNOT_PLAY

    def parse(self, text: str, env: Any) -> list[int]:
        from tabletop_rl.envs.qwirkle_cards.cards import parse_card, parse_line

        take, end, redraw = self._constants()
        words = re.split(r"[\s;,]+", text.strip()) if text.strip() else []
        if not words:
            raise NotationError("empty move")
        if [w.lower() for w in words] in (["redraw"], ["pass"], ["cannot", "play"]):
            return [redraw]
        if [w.lower() for w in words] in (["end"], ["done"]):
            return [end]
        actions = []
        k = 0
        while k < len(words):
            word = words[k]
            if word.lower() == "take":
                if k + 1 == len(words):
                    raise NotationError("name the Qwirkle to take: 'take R' (colour) or 'take s'")
                actions.append(take + parse_line(words[k + 1]))
                k += 2
            else:
                actions.append(parse_card(word))
                k += 1
        return _with_end_of_turn(env, actions, end)

    def format_action(self, action: int, env: Any) -> str | None:
        from tabletop_rl.envs.qwirkle_cards.cards import card_name, line_name

        take, end, _redraw = self._constants()
        if action < take:
            return card_name(action)
        if action < end:
            return f"take {line_name(action - take)}"
        if action == end:
            return None
        return "redraw"

    def help(self, env: Any) -> str:
        return "\n".join(
            [
                "Cards: colour R O Y G B P + symbol o circle, x cross, d diamond, s square,",
                "t star, c clover (e.g. Rs = red square).",
                "  Rs Ro Rx     play these cards from your hand; the turn ends when the table",
                "               is valid again (else it stays open: play more cards, then 'end')",
                "  take R       take the Qwirkle of colour red (symbols: take s, lower case)",
                "  Rs take s    play and take in one turn",
                "  redraw       the forced redraw, when you cannot play",
            ]
        )

    def end_of_turn(self, env: Any) -> int:
        """The action that ends the turn (legal once the table is valid)."""
        return self._constants()[1]


PARSERS: dict[str, Callable[[], MoveParser]] = {
    "qwirkle_v0": QwirkleParser,
    "liniell_v0": LiniellParser,
    "qwirkle_cards_v0": QwirkleCardsParser,
}
"""Game-specific move parsers by environment name; other games use :class:`GenericParser`."""


def _with_end_of_turn(env: Any, actions: list[int], end: int) -> list[int]:
    """``actions`` in an order the masks accept, plus the end-of-turn action when the typed
    move leaves the turn open and ending it is legal (a typed move is a whole turn)."""
    ordered = _legal_order(env, actions) or actions
    sim = copy.deepcopy(env)
    try:
        for action in ordered:
            sim.step(action)
    except IllegalActionError:
        return ordered  # the game explains what is wrong
    mover = env.agent_selection
    if sim.agent_selection == mover and not _finished(sim) and sim.action_mask()[end]:
        ordered.append(end)
    return ordered


def parser_for(env_name: str) -> MoveParser:
    """The move parser of a game (:class:`GenericParser` for a game without a notation)."""
    return PARSERS.get(env_name, GenericParser)()


def move_text(parser: MoveParser, action: int, env: Any) -> str | None:
    """``action`` (in the position of ``env``) in the notation a player types, as the parser
    writes it, else the environment's ``describe_action``; None for a bare end of turn."""
    formatter = getattr(parser, "format_action", None)
    if formatter is not None:
        return formatter(action, env)
    return env.describe_action(action)


def join_moves(names: Sequence[str | None]) -> str:
    """The moves of one turn as one line (``(turn ended)`` when nothing was played)."""
    return _join(names)


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
        self.env = make_env(env_name, num_players=players, render_mode="ansi", **(env_kwargs or {}))
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
        """A copy of the game at the start of the human's current turn (for hints)."""
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
            self._turn_start = copy.deepcopy(self.env)
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
        # check the whole sequence on a copy before touching the real game
        sim = copy.deepcopy(self.env)
        for k, action in enumerate(actions):
            if sim.agent_selection != self.human or self._sim_over(sim):
                self.say(f"{text!r} holds more moves than your turn allows (stopped at #{k + 1}).")
                return False
            try:
                sim.step(int(action))
            except IllegalActionError as exc:
                self.say(
                    f"Not legal: {self._why_illegal(int(action), exc, sim)}. Try again ('moves' "
                    "lists the legal moves)."
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

    def _why_illegal(self, action: int, exc: IllegalActionError, sim: Any) -> str:
        """``move: reason``, in the notation and coordinates shown on screen (``sim``: the
        game where ``action`` was refused)."""
        text = str(exc).removeprefix(f"{self.human}: ")
        if not 0 <= action < sim.info.num_actions:
            return text  # "action 99 is out of range; allowed: ..."
        reason = text.split(" is illegal: ", 1)[-1]
        return f"{self._name(action, sim) or 'end'}: {self._explain(reason)}"

    def _explain(self, reason: str) -> str:
        """An engine's reason in the terms shown on screen (the parser's coordinates)."""
        explain = getattr(self.parser, "explain", None)
        return explain(reason, self.env) if explain is not None else reason

    def _points_after(self, action: int) -> float | None:
        """The human's points if the turn ended right after ``action`` (None: it cannot)."""
        from .arena import final_scores

        before = final_scores(self.env)
        if before is None:
            return None
        seat = self.env.possible_agents.index(self.human)
        sim = copy.deepcopy(self.env)
        sim.step(action)
        end_of_turn = getattr(self.parser, "end_of_turn", None)
        if not self._sim_over(sim) and sim.agent_selection == self.human:
            end = end_of_turn(sim) if end_of_turn is not None else None
            if end is None or not sim.action_mask()[end]:
                return None
            sim.step(end)
        after = final_scores(sim)
        return None if after is None else after[seat] - before[seat]

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

    @staticmethod
    def _sim_over(env: Any) -> bool:
        return any(env.terminations.values()) or any(env.truncations.values())

    def _hint(self) -> str:
        """What an agent would play for the rest of the human's turn.

        Agents that plan whole turns (the Qwirkle Cards heuristic) plan at the start of a
        turn: in the middle of one, the agent is first shown the turn's starting position.
        If the human's moves so far left its plan, the hint comes from ``greedy``, which
        plans from any position.
        """
        if not self.hint_enabled:
            return "Hints are off; start the game with --hint."
        spec = self.hint_spec or self._strongest()
        try:
            return f"hint ({spec}): {self._hint_from(spec)}"
        except (ValueError, RuntimeError, IllegalActionError):
            if not self._mid_turn or spec == "greedy":
                raise
        return (
            f"hint (greedy; {spec} plans whole turns and cannot continue the one you began): "
            f"{self._hint_from('greedy')}"
        )

    def _hint_from(self, spec: str) -> str:
        rng = np.random.default_rng(self.rng.integers(2**31))
        agent = resolve_agent(spec, self.env_name, rng)
        if self._mid_turn and self._turn_start is not None:
            select_action(agent, self._turn_start, self.human, env_name=self.env_name)
        sim = copy.deepcopy(self.env)
        names = []
        while not self._sim_over(sim) and sim.agent_selection == self.human:
            action = select_action(agent, sim, self.human, env_name=self.env_name)
            names.append(self._name(action, sim))
            sim.step(action)
        return _join(names)

    def _strongest(self) -> str:
        from .agents import agent_names
        from .arena import game_name

        name = game_name(self.env_name)
        available = set(agent_names(name)) | {"mcts"}
        ladder = HINT_LADDER.get(name, DEFAULT_HINT_LADDER)
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
    "DEFAULT_HINT_LADDER",
    "HINT_LADDER",
    "PARSERS",
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
