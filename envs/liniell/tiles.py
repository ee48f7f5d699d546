"""The Liniell tile model: ports, diamonds, line pieces, tile kinds and rotation.

**[decision] Tile model** (rules reference): every tile edge has exactly one *port* at its
midpoint (N, E, S, W). A tile is a partition of its four ports into *groups*: a group of 2 to 4
ports is a connected line piece (straight, curve, T branch, cross); a group of one port is a
*stub*, a line from that edge ending in a diamond, empty or blue. Two groups on one tile may
cross without joining (a bridge) or lie side by side (two curves).

**[decision] Rotation** k (0 to 3) turns a tile k quarter-turns clockwise: port p of the
unrotated tile lies at (p + k) mod 4, with N=0, E=1, S=2, W=3.

>>> tee = TileKind("tee", (Group((Port.N, Port.E, Port.S)), Group((Port.W,), Diamond.EMPTY)))
>>> tee.orient(1).port_group
(1, 0, 0, 0)
>>> [str(g) for g in tee.orient(1).groups]
['ESW', 'N(empty)']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, IntEnum

from ..errors import NotationError


class Port(IntEnum):
    """A tile edge's midpoint; the value is its index clockwise from north."""

    N = 0
    E = 1
    S = 2
    W = 3

    @property
    def opposite(self) -> Port:
        """The port of the neighbouring tile that this port touches.

        >>> Port.E.opposite
        <Port.W: 3>
        """
        return Port((self + 2) % 4)

    def rotated(self, k: int) -> Port:
        """Where this port lies after ``k`` clockwise quarter-turns.

        >>> Port.N.rotated(1), Port.W.rotated(2)
        (<Port.E: 1>, <Port.E: 1>)
        """
        return Port((self + k) % 4)

    @classmethod
    def parse(cls, letter: str) -> Port:
        """The port named by ``letter`` (N, E, S or W)."""
        try:
            return cls[letter.strip().upper()]
        except KeyError:
            raise NotationError(f"unknown port {letter!r}; ports are N, E, S, W") from None


#: Row and column offsets of the neighbouring cell across each port (rows grow southwards).
PORT_DELTA: tuple[tuple[int, int], ...] = ((-1, 0), (0, 1), (1, 0), (0, -1))


class Diamond(Enum):
    """The diamond that ends a stub: empty or blue ("leere oder volle Rauten")."""

    EMPTY = "empty"
    BLUE = "blue"


_CODES = {None: 0, Diamond.EMPTY: 1, Diamond.BLUE: 2}


@dataclass(frozen=True)
class Group:
    """A set of ports joined by one line piece; a one-port group is a stub with a diamond."""

    ports: tuple[Port, ...]
    diamond: Diamond | None = None

    @property
    def is_stub(self) -> bool:
        return len(self.ports) == 1

    def rotated(self, k: int) -> Group:
        return Group(tuple(sorted(p.rotated(k) for p in self.ports)), self.diamond)

    def __str__(self) -> str:
        text = "".join(p.name for p in self.ports)
        return f"{text}({self.diamond.value})" if self.diamond is not None else text


@dataclass(frozen=True)
class Orientation:
    """A tile kind turned by ``rotation`` quarter-turns, as it lies on the table.

    ``groups`` keeps the kind's group order (so a piece keeps its index when turned);
    ``port_group[p]`` is the index of the group holding port ``p``.
    """

    kind: TileKind
    rotation: int
    groups: tuple[Group, ...]
    port_group: tuple[int, int, int, int]
    group_ports: tuple[tuple[int, ...], ...] = ()
    """Each group's ports as plain ints (a fast copy of ``groups[g].ports``)."""
    diamond_codes: tuple[int, ...] = ()
    """Each group's diamond: 0 none, 1 empty, 2 blue."""

    def __deepcopy__(self, memo: dict) -> Orientation:
        return self  # immutable

    def first_port(self, group: int) -> Port:
        """The smallest port (N, E, S, W order) of group ``group``."""
        return self.groups[group].ports[0]


@dataclass(frozen=True)
class TileKind:
    """One kind of tile of a tile set, in its unrotated position."""

    name: str
    groups: tuple[Group, ...]
    copies: int = 1
    _orientations: tuple[Orientation, ...] = field(
        default=(), init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        orientations = []
        for k in range(4):
            groups = tuple(g.rotated(k) for g in self.groups)
            port_group = [0, 0, 0, 0]
            for i, g in enumerate(groups):
                for p in g.ports:
                    port_group[p] = i
            orientations.append(
                Orientation(
                    self,
                    k,
                    groups,
                    tuple(port_group),  # type: ignore[arg-type]
                    tuple(tuple(int(p) for p in g.ports) for g in groups),
                    tuple(_CODES[g.diamond] for g in groups),
                )
            )
        object.__setattr__(self, "_orientations", tuple(orientations))

    def __deepcopy__(self, memo: dict) -> TileKind:
        return self  # immutable

    def orient(self, rotation: int) -> Orientation:
        """This kind turned ``rotation`` quarter-turns clockwise (0 to 3)."""
        return self._orientations[rotation % 4]

    @property
    def diamonds(self) -> tuple[Diamond, ...]:
        return tuple(g.diamond for g in self.groups if g.diamond is not None)

    def describe(self) -> str:
        """The kind's groups as the rules reference writes them.

        >>> TileKind("bridge", (Group((Port.N, Port.S)), Group((Port.E, Port.W)))).describe()
        'NS + EW'
        """
        return " + ".join(str(g) for g in self.groups)
