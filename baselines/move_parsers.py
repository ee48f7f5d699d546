"""Reading and writing moves in each game's notation, for terminal play and replays.

A :class:`MoveParser` turns what a player types into the environment's sub-actions and
explains its notation. It works on the game model and its action codec
(:mod:`tabletop_rl.envs.core.model`): sub-actions are read and written by the codec
(``parse`` / ``to_text``), and a typed move of several sub-actions is checked and put in a
legal order on copies of the model's state, never on the environment itself.
:class:`GenericParser` works for every game (action numbers, or the names
``describe_action`` gives, ``;`` between moves); a game with a notation of its own names its
parser in its :attr:`~tabletop_rl.envs.games.GameSpec.move_parser` (:func:`parser_for`).

>>> from tabletop_rl.envs import make
>>> env = make("liniell_v0", raw=True, num_players=2)
>>> env.reset(seed=4)
>>> parser = LiniellParser()
>>> [parser.format_action(a, env) for a in parser.parse("3,3 r1", env)]
['3,3 r1']
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple, Protocol

import numpy as np

from tabletop_rl.envs.errors import NotationError
from tabletop_rl.envs.games import resolve
from tabletop_rl.envs.registry import game_spec


class MoveParser(Protocol):
    """Reads a typed move for one game."""

    def parse(self, text: str, env: Any) -> list[int]:
        """The sub-actions ``text`` stands for, in order; raise NotationError if unreadable.

        ``env`` is the raw environment with the human to move, or a :class:`Position`; it is
        not changed.
        """
        ...

    def help(self, env: Any) -> str:
        """The notation, explained for a player."""
        ...


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


class Position(NamedTuple):
    """A game state with its model: all a parser reads. An environment is one too (it has
    ``model`` and ``game_state``), so parsers take either."""

    model: Any
    game_state: Any


def _view(position: Any) -> Any:
    """The public view of the player to act."""
    model, state = position.model, position.game_state
    return model.public_view(state, model.current_player(state))


def legal_moves(position: Any) -> list[tuple[int, str]]:
    """The legal actions of the player to move with their names."""
    model, state = position.model, position.game_state
    mask = model.legal_mask(state)
    return [(int(a), model.describe_action(state, int(a))) for a in np.flatnonzero(mask)]


def _mover(model: Any, state: Any) -> int | None:
    return None if model.is_over(state) else model.current_player(state)


def legal_order(model: Any, state: Any, actions: list[int]) -> list[int] | None:
    """An order in which ``actions`` are all legal one after another, by the same player
    (depth-first search on copies of ``state``), or None."""
    if not actions:
        return []
    if model.is_over(state):
        return None
    mover, mask = model.current_player(state), model.legal_mask(state)
    for k, action in enumerate(actions):
        if not 0 <= action < len(mask) or not mask[action]:
            continue
        after = model.copy(state)
        model.step(after, action)
        rest = actions[:k] + actions[k + 1 :]
        if rest and _mover(model, after) != mover:
            continue
        tail = legal_order(model, after, rest)
        if tail is not None:
            return [action, *tail]
    return None


def with_end_of_turn(env: Any, actions: list[int], end: int) -> list[int]:
    """``actions`` in an order the masks accept, plus ``end`` (the end-of-turn action) when the
    typed move leaves the turn open and ending it is legal (a typed move is a whole turn)."""
    model, state = env.model, env.game_state
    ordered = legal_order(model, state, actions)
    if ordered is None:
        return actions  # the game explains what is wrong
    after = model.copy(state)
    for action in ordered:
        model.step(after, action)
    mover = model.current_player(state)
    if _mover(model, after) == mover and model.legal_mask(after)[end]:
        ordered.append(end)
    return ordered


class GenericParser:
    """Action numbers or ``describe_action`` names; ``;`` separates moves of one turn.

    >>> GenericParser().parse("17", env=None)
    [17]
    """

    max_listed = 40
    max_scanned = 50_000

    def parse(self, text: str, env: Any) -> list[int]:
        parts = [p.strip() for p in text.split(";") if p.strip()]
        if not parts:
            raise NotationError("empty move")
        if len(parts) == 1 and re.fullmatch(r"\d+", parts[0]):
            return [int(parts[0])]
        model = env.model
        state = model.copy(env.game_state)
        actions: list[int] = []
        for k, part in enumerate(parts):
            action = self._one(part, model, state)
            actions.append(action)
            if k < len(parts) - 1:
                model.step(state, model.check_legal(state, action))
        return actions

    def _one(self, text: str, model: Any, state: Any) -> int:
        if re.fullmatch(r"\d+", text):
            return int(text)
        wanted = _norm(text)
        for a in np.flatnonzero(model.legal_mask(state)):
            if _norm(model.describe_action(state, int(a))) == wanted:
                return int(a)
        if model.info.num_actions <= self.max_scanned:
            # a known move that is illegal now: return it, so the game explains why
            for a in range(model.info.num_actions):
                if _norm(model.describe_action(state, a)) == wanted:
                    return a
        raise NotationError(
            f"no legal move is called {text!r}; type 'moves' to list them, or an action number"
        )

    def help(self, env: Any) -> str:
        moves = legal_moves(env)
        lines = [
            "Type a move as its name (as listed by 'moves') or its action number.",
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

    def parse(self, text: str, env: Any) -> list[int]:
        from tabletop_rl.envs.qwirkle.actions import EndTurn, Exchange, Pass, Place
        from tabletop_rl.envs.qwirkle.tiles import parse_tile, tile_name

        codec = env.model.codec
        view = _view(env)
        words = re.sub(r"\s*([@,])\s*", r"\1", text.strip().lower()).replace(";", " ").split()
        if not words:
            raise NotationError("empty move")
        if words == ["pass"]:
            return [codec.encode(Pass())]
        if words in (["end"], ["done"]):
            return [codec.encode(EndTurn())]
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
            return [codec.encode(Exchange(tuple(take(code) for code in words[1:])))]
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
            placements.append(codec.encode(Place(take(m[1]), row, col)))
        return with_end_of_turn(env, placements, codec.encode(EndTurn()))

    def format_action(self, action: int, env: Any) -> str | None:
        """One sub-action in notation (``None`` for the end of a turn)."""
        text = env.model.codec.to_text(env.game_state, action)
        return None if text == "end" else text

    def end_of_turn(self, env: Any) -> int:
        """The action that ends a turn whose tiles are laid."""
        from tabletop_rl.envs.qwirkle.actions import EndTurn

        return env.model.codec.encode(EndTurn())

    def explain(self, reason: str, env: Any) -> str:
        """The engine's reason in the window coordinates the board shows (it counts rows and
        columns from the centre tile).

        A cell ``(r, c)`` becomes ``r',c'`` and ``row r`` / ``column c`` are shifted the same
        way, by the window's origin.
        """
        origin = _view(env).window_origin
        shift = {"row": origin[0], "column": origin[1]}

        def cell(m: re.Match[str]) -> str:
            return f"{int(m[1]) - origin[0]},{int(m[2]) - origin[1]}"

        def line(m: re.Match[str]) -> str:
            return f"{m[1]} {int(m[2]) - shift[m[1]]}"

        reason = re.sub(r"\((-?\d+), (-?\d+)\)", cell, reason)
        return re.sub(r"\b(row|column) (-?\d+)", line, reason)

    def help(self, env: Any) -> str:
        view = _view(env)
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


class LiniellParser:
    """Liniell moves at the window coordinates the board shows.

    ``2,3 r1`` lays the drawn tile on row 2, column 3 turned one quarter clockwise (``r0``
    to ``r3``; ``r0`` may be left out). ``occupy N`` puts a pawn from your supply on the
    laid tile's line through its north port (ports ``N E S W``); ``occupy N from 1`` moves
    your first placed pawn there instead. ``skip`` occupies nothing. A lay and an occupy may
    share a line: ``2,3 r1; occupy N``.
    """

    def __init__(self) -> None:
        from tabletop_rl.envs.liniell.render import LineLabels

        self.labels = LineLabels()

    def parse(self, text: str, env: Any) -> list[int]:
        codec = env.model.codec
        parts = [part.strip() for part in text.split(";") if part.strip()]
        if not parts:
            raise NotationError("empty move")
        return [codec.parse(env.game_state, part) for part in parts]

    def format_action(self, action: int, env: Any) -> str | None:
        return env.model.codec.to_text(env.game_state, action)

    def end_of_turn(self, env: Any) -> int | None:
        """``skip``, where occupying nothing ends the turn."""
        from tabletop_rl.envs.liniell.actions import Skip

        skip = env.model.codec.encode(Skip())
        return skip if env.model.legal_mask(env.game_state)[skip] else None

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

    def parse(self, text: str, env: Any) -> list[int]:
        from tabletop_rl.envs.qwirkle_cards.actions import EndTurn

        codec = env.model.codec
        words = re.split(r"[\s;,]+", text.strip()) if text.strip() else []
        if not words:
            raise NotationError("empty move")
        lowered = [w.lower() for w in words]
        if lowered in (["redraw"], ["pass"], ["cannot", "play"], ["end"], ["done"]):
            return [codec.parse(env.game_state, " ".join(words))]
        actions = []
        k = 0
        while k < len(words):
            if lowered[k] == "take":
                if k + 1 == len(words):
                    raise NotationError("name the Qwirkle to take: 'take R' (colour) or 'take s'")
                actions.append(codec.parse(env.game_state, f"take {words[k + 1]}"))
                k += 2
            else:
                actions.append(codec.parse(env.game_state, words[k]))
                k += 1
        return with_end_of_turn(env, actions, codec.encode(EndTurn()))

    def format_action(self, action: int, env: Any) -> str | None:
        text = env.model.codec.to_text(env.game_state, action)
        return None if text == "end" else text

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
        from tabletop_rl.envs.qwirkle_cards.actions import EndTurn

        return env.model.codec.encode(EndTurn())


def parser_for(env_name: str) -> MoveParser:
    """The move parser of ``env_name``'s game (its
    :attr:`~tabletop_rl.envs.games.GameSpec.move_parser`; :class:`GenericParser` for a game
    without a notation).

    >>> type(parser_for("qwirkle_cards_v0")).__name__
    'QwirkleCardsParser'
    """
    target = game_spec(env_name).move_parser
    return GenericParser() if target is None else resolve(target, "move parser")()


def move_text(parser: MoveParser, action: int, env: Any) -> str | None:
    """``action`` (in the position ``env``: an environment or a :class:`Position`) in the
    notation a player types, as the parser writes it, else the model's ``describe_action``;
    None for a bare end of turn."""
    formatter = getattr(parser, "format_action", None)
    if formatter is not None:
        return formatter(action, env)
    return env.model.describe_action(env.game_state, action)


__all__ = [
    "GenericParser",
    "LiniellParser",
    "MoveParser",
    "Position",
    "QwirkleCardsParser",
    "QwirkleParser",
    "legal_moves",
    "legal_order",
    "move_text",
    "parser_for",
    "with_end_of_turn",
]
