"""Line connectivity: a union-find over line pieces.

A *piece* is one group of one laid tile, numbered ``cell * 4 + group``. Laying a tile joins
each of its pieces with the piece of every neighbouring tile that it touches across a shared
side; a *line* is a set of joined pieces (the seed: a line with all its branches is one line).

>>> lines = LineSet(8)
>>> for piece in (0, 5, 6):
...     lines.add(piece)
>>> lines.union(0, 5), lines.union(5, 6)
(0, 0)
>>> lines.find(6) == lines.find(0), sorted(lines.members(0))
(True, [0, 5, 6])
"""

from __future__ import annotations


class LineSet:
    """Union-find over ``size`` piece numbers that keeps each line's member list."""

    __slots__ = ("_members", "_parent")

    def __init__(self, size: int) -> None:
        self._parent = list(range(size))
        self._members: dict[int, list[int]] = {}

    def find(self, piece: int) -> int:
        """The representative (root) piece of ``piece`` 's line."""
        parent = self._parent
        while parent[piece] != piece:
            parent[piece] = parent[parent[piece]]
            piece = parent[piece]
        return piece

    def add(self, piece: int) -> None:
        """Register a newly laid piece as a line of its own."""
        self._parent[piece] = piece
        self._members[piece] = [piece]

    def union(self, a: int, b: int) -> int:
        """Join the lines of ``a`` and ``b``; return the root of the joined line."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return ra
        ma, mb = self._members[ra], self._members[rb]
        if len(ma) < len(mb):
            ra, rb, ma, mb = rb, ra, mb, ma
        self._parent[rb] = ra
        ma.extend(mb)
        del self._members[rb]
        return ra

    def members(self, piece: int) -> list[int]:
        """The pieces of ``piece`` 's line (do not modify the list)."""
        return self._members[self.find(piece)]

    def roots(self) -> list[int]:
        """One representative piece per line."""
        return list(self._members)

    def copy(self) -> LineSet:
        new = LineSet.__new__(LineSet)
        new._parent = self._parent[:]
        new._members = {r: m[:] for r, m in self._members.items()}
        return new
