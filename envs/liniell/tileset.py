"""Tile sets are data: JSON files loaded and validated here.

A tile set file holds ``name``, an optional ``description`` and ``tiles``: a list of
``{"name": ..., "groups": [...], "copies": n}``. A group is written as its ports, clockwise
from N in the unrotated tile (``"NES"``); a stub is one port with its diamond colour
(``"W(empty)"`` or ``"W(blue)"``). Every tile must use each of its four ports exactly once
(every edge carries a port), and the set must hold exactly 16 tiles, the 4 x 4 square the
laid tiles form.

The default set ships with the package (``tilesets/default.json``); ``load_tile_set`` takes a
name of a shipped set, or a path to a file of your own.

>>> ts = load_tile_set("default")
>>> len(ts.kinds), ts.num_tiles, ts.num_diamonds, ts.num_blue
(11, 16, 17, 7)
>>> parse_group("W(blue)")
Group(ports=(<Port.W: 3>,), diamond=<Diamond.BLUE: 'blue'>)
>>> try:
...     parse_tile_set({"name": "x", "tiles": [{"name": "c", "groups": ["NESW"], "copies": 15}]})
... except TileSetError as error:
...     print(error)
tile set 'x' has 15 tiles; a 4 x 4 square needs 16
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .tiles import Diamond, Group, Port, TileKind

#: Tiles in a full game: the laid tiles form a 4 x 4 square.
SQUARE = 4
NUM_TILES = SQUARE * SQUARE

_GROUP_RE = re.compile(r"^\s*([A-Za-z]+)\s*(?:\(\s*([A-Za-z]+)\s*\))?\s*$")


class TileSetError(ConfigError):
    """A tile set file is malformed or breaks the tile model; the message says how."""


@dataclass(frozen=True)
class TileSet:
    """The kinds of tile in a game and how many copies of each."""

    name: str
    kinds: tuple[TileKind, ...]
    description: str = ""

    def __deepcopy__(self, memo: dict) -> TileSet:
        return self  # immutable

    @property
    def num_tiles(self) -> int:
        return sum(k.copies for k in self.kinds)

    @property
    def num_diamonds(self) -> int:
        return sum(k.copies * len(k.diamonds) for k in self.kinds)

    @property
    def num_blue(self) -> int:
        return sum(k.copies * k.diamonds.count(Diamond.BLUE) for k in self.kinds)

    def index(self, name: str) -> int:
        """The index of kind ``name``."""
        for i, k in enumerate(self.kinds):
            if k.name == name:
                return i
        raise TileSetError(
            f"tile set {self.name!r} has no tile kind {name!r}; kinds: "
            + ", ".join(k.name for k in self.kinds)
        )

    def stack(self) -> list[int]:
        """Kind indices of every tile of the set, unshuffled."""
        return [i for i, k in enumerate(self.kinds) for _ in range(k.copies)]


def parse_group(text: str, tile: str = "?") -> Group:
    """A group from its text: ports (``"NES"``), or one port with a diamond (``"W(blue)"``)."""
    m = _GROUP_RE.match(text) if isinstance(text, str) else None
    if m is None:
        raise TileSetError(
            f"tile {tile!r}: cannot read group {text!r}; write ports like 'NES' or a stub "
            "like 'W(empty)' / 'W(blue)'"
        )
    letters, colour = m.group(1).upper(), m.group(2)
    ports = []
    for letter in letters:
        if letter not in Port.__members__:
            raise TileSetError(
                f"tile {tile!r}: unknown port {letter!r} in group {text!r}; ports are N, E, S, W"
            )
        port = Port[letter]
        if port in ports:
            raise TileSetError(f"tile {tile!r}: port {letter} is used twice")
        ports.append(port)
    diamond = None
    if colour is not None:
        try:
            diamond = Diamond(colour.lower())
        except ValueError:
            raise TileSetError(
                f"tile {tile!r}: unknown diamond colour {colour!r} in {text!r}; "
                "allowed: empty, blue"
            ) from None
    if len(ports) == 1 and diamond is None:
        raise TileSetError(
            f"tile {tile!r}: stub {text!r} has no diamond colour; write "
            f"{letters}(empty) or {letters}(blue)"
        )
    if len(ports) > 1 and diamond is not None:
        raise TileSetError(
            f"tile {tile!r}: group {text!r} joins {len(ports)} ports, so it is a line piece "
            "and cannot end in a diamond; only a one-port stub has a diamond"
        )
    return Group(tuple(sorted(ports)), diamond)


def _parse_kind(entry: Any) -> TileKind:
    if not isinstance(entry, dict) or "name" not in entry or "groups" not in entry:
        raise TileSetError(
            f"a tile entry must be an object with 'name', 'groups' and 'copies', got {entry!r}"
        )
    name = entry["name"]
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_]+", name):
        raise TileSetError(f"tile name {name!r} must be letters, digits and underscores")
    copies = entry.get("copies", 1)
    if isinstance(copies, bool) or not isinstance(copies, int) or copies < 1:
        raise TileSetError(f"tile {name!r}: copies must be a positive integer, got {copies!r}")
    if not isinstance(entry["groups"], list) or not entry["groups"]:
        raise TileSetError(f"tile {name!r}: groups must be a non-empty list of strings")
    groups = tuple(parse_group(g, name) for g in entry["groups"])
    seen: set[Port] = set()
    for g in groups:
        for p in g.ports:
            if p in seen:
                raise TileSetError(f"tile {name!r}: port {p.name} is used twice")
            seen.add(p)
    missing = [p.name for p in Port if p not in seen]
    if missing:
        raise TileSetError(
            f"tile {name!r}: port(s) {', '.join(missing)} belong to no group; every edge of a "
            "tile carries exactly one port"
        )
    return TileKind(name, groups, copies)


def parse_tile_set(data: Any) -> TileSet:
    """Validate a decoded tile set file and build the :class:`TileSet`."""
    if not isinstance(data, dict) or "tiles" not in data:
        raise TileSetError("a tile set must be a JSON object with a 'tiles' list")
    name = str(data.get("name", "unnamed"))
    if not isinstance(data["tiles"], list):
        raise TileSetError(f"tile set {name!r}: 'tiles' must be a list")
    kinds = tuple(_parse_kind(e) for e in data["tiles"])
    names = [k.name for k in kinds]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise TileSetError(f"tile set {name!r}: tile name(s) {', '.join(dupes)} appear twice")
    ts = TileSet(name, kinds, str(data.get("description", "")))
    if ts.num_tiles != NUM_TILES:
        raise TileSetError(
            f"tile set {name!r} has {ts.num_tiles} tiles; a {SQUARE} x {SQUARE} square "
            f"needs {NUM_TILES}"
        )
    return ts


def shipped_tile_sets() -> list[str]:
    """Names of the tile sets shipped with the package."""
    folder = resources.files(__package__) / "tilesets"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))


_CACHE: dict[str, TileSet] = {}


def load_tile_set(tile_set: str | Path | TileSet = "default") -> TileSet:
    """A tile set by shipped name (``"default"``), by path to a JSON file, or as given."""
    if isinstance(tile_set, TileSet):
        return tile_set
    key = str(tile_set)
    if key in _CACHE:
        return _CACHE[key]
    if isinstance(tile_set, str) and tile_set in shipped_tile_sets():
        text = (resources.files(__package__) / "tilesets" / f"{tile_set}.json").read_text()
    else:
        path = Path(tile_set)
        if not path.is_file():
            raise TileSetError(
                f"tile_set={key!r} is neither a shipped tile set nor a file; shipped: "
                + ", ".join(shipped_tile_sets())
            )
        text = path.read_text()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TileSetError(f"tile set {key!r} is not valid JSON: {exc}") from None
    ts = parse_tile_set(data)
    _CACHE[key] = ts
    return ts
