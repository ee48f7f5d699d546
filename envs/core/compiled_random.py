"""numpy's random draws, compiled: the same numbers from the same generators, for many games.

The batched environments replay what the single-game path draws from its
``numpy.random.Generator`` objects (a sub-environment's seed, its games' generators, its
opponents' choices). Drawing those numbers one Python call at a time would cost more than
the games' compiled steps, so the draws here run compiled, on the generators themselves:

- :func:`next_uint32` / :func:`next_uint64` call a generator's bit generator through numpy's
  C interface to it (the ``bitgen_t`` in ``bit_generator.capsule``: the state pointer, then
  the ``next_uint64``, ``next_uint32``, ... functions), so a draw advances the very
  generator object, as numpy's own draw would;
- :func:`integers` is ``Generator.integers(count)`` (numpy's bounded-integer algorithm,
  Lemire's method on 32- or 64-bit outputs, rejections included), and
  ``Generator.choice`` of an array is an index drawn this way;
- :func:`pcg64_seed_states` is ``numpy.random.PCG64(seed)``'s state for an integer seed
  (``SeedSequence``'s hash of the seed, then PCG64's seeding), which
  :func:`set_pcg64_state` writes into an existing generator: the generator
  ``numpy.random.default_rng(seed)`` would be, without building one (that costs tens of
  microseconds, most of a short game's bookkeeping).

Every function is checked against numpy in ``tests/test_gym_vector.py``.

>>> generator = np.random.default_rng(0)
>>> twin = np.random.default_rng(0)
>>> draws = np.zeros(3, dtype=np.int64)
>>> counts = np.array([6, 2**31, 2**63], dtype=np.uint64)
>>> draw_integers(bitgen_address(generator), counts, draws)
>>> draws.tolist() == [int(twin.integers(6)), int(twin.integers(2**31)),
...                    int(twin.integers(2**63))]
True
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def bitgen_address(generator: np.random.Generator) -> int:
    """The address of ``generator``'s ``bitgen_t`` (numpy's C interface to its bit
    generator, from the bit generator's capsule); valid while the generator lives."""
    return int(_capsule_pointer(generator.bit_generator.capsule, b"BitGenerator"))


def _bitgen_call(bits: int, slot: int) -> Any:
    """An intrinsic that calls function ``slot`` of a ``bitgen_t`` (1: ``next_uint64``,
    2: ``next_uint32``) on its own state, returning ``bits`` random bits."""

    def typer(typingctx: Any, bitgen: Any) -> Any:
        sig = (types.uint64 if bits == 64 else types.uint32)(types.intp)

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            fnty = ir.FunctionType(ir.IntType(bits), [cgutils.voidptr_t])
            fields = builder.inttoptr(args[0], cgutils.voidptr_t.as_pointer())
            state = builder.load(fields)
            entry = builder.gep(fields, [ir.Constant(ir.IntType(32), slot)])
            fn = builder.bitcast(builder.load(entry), fnty.as_pointer())
            return builder.call(fn, [state])

        return sig, codegen

    return intrinsic(typer)


next_uint64 = _bitgen_call(64, 1)
"""``next_uint64(bitgen_address)``: 64 random bits from that bit generator."""
next_uint32 = _bitgen_call(32, 2)
"""``next_uint32(bitgen_address)``: 32 random bits (numpy buffers half of a 64-bit draw)."""

_M32 = np.uint64(0xFFFFFFFF)


@njit(cache=True)
def _mul_high(a: np.uint64, b: np.uint64) -> np.uint64:
    """The high 64 bits of the 128-bit product ``a * b``."""
    a_lo, a_hi = a & _M32, a >> np.uint64(32)
    b_lo, b_hi = b & _M32, b >> np.uint64(32)
    lo_lo = a_lo * b_lo
    mid1 = a_hi * b_lo + (lo_lo >> np.uint64(32))
    mid2 = a_lo * b_hi + (mid1 & _M32)
    return a_hi * b_hi + (mid1 >> np.uint64(32)) + (mid2 >> np.uint64(32))


@njit(cache=True)
def integers(bitgen: int, count: np.uint64) -> int:
    """``Generator.integers(count)`` (an int64 from 0 to ``count - 1``, 1 <= ``count`` <=
    2**63) drawn from the bit generator at ``bitgen``, as numpy draws it."""
    rng = np.uint64(count) - np.uint64(1)
    if rng == np.uint64(0):
        return 0
    if rng <= _M32:
        if rng == _M32:
            return np.int64(next_uint32(bitgen))
        excl = rng + np.uint64(1)
        m = np.uint64(next_uint32(bitgen)) * excl
        left = m & _M32
        if left < excl:
            threshold = (_M32 - rng) % excl
            while left < threshold:
                m = np.uint64(next_uint32(bitgen)) * excl
                left = m & _M32
        return np.int64(m >> np.uint64(32))
    excl = rng + np.uint64(1)
    x = next_uint64(bitgen)
    left = x * excl
    if left < excl:
        threshold = (np.uint64(0xFFFFFFFFFFFFFFFF) - rng) % excl
        while left < threshold:
            x = next_uint64(bitgen)
            left = x * excl
    return np.int64(_mul_high(x, excl))


@njit(cache=True)
def choose_legal(bitgen: int, row: np.ndarray) -> int:
    """``Generator.choice(np.flatnonzero(row))`` (one of the nonzero entries' indices,
    uniformly) drawn from the bit generator at ``bitgen``; -1 (nothing drawn) for a row
    without any."""
    count = 0
    for a in range(row.shape[0]):
        count += row[a] != 0
    if count == 0:
        return -1
    left = integers(bitgen, np.uint64(count))
    for a in range(row.shape[0]):  # the pick-th nonzero entry; no branch on the row
        left -= row[a] != 0
        if left < 0:
            return a
    return -1


@njit(cache=True)
def interval(bitgen: int, high: np.uint64) -> np.uint64:
    """numpy's ``random_interval``: uniform in 0..``high`` by masked rejection (the draw
    behind ``Generator.shuffle`` and ``permutation``)."""
    if high == np.uint64(0):
        return np.uint64(0)
    mask = high
    for shift in (1, 2, 4, 8, 16, 32):
        mask |= mask >> np.uint64(shift)
    if high <= _M32:
        value = np.uint64(next_uint32(bitgen)) & mask
        while value > high:
            value = np.uint64(next_uint32(bitgen)) & mask
        return value
    value = next_uint64(bitgen) & mask
    while value > high:
        value = next_uint64(bitgen) & mask
    return value


@njit(cache=True)
def permute_into(bitgen: int, values: np.ndarray, out: np.ndarray) -> None:
    """``out[:] = Generator.permutation(values)`` for a 1-d array, drawn from the bit
    generator at ``bitgen`` as numpy's shuffle draws it (last position first)."""
    out[:] = values
    for i in range(values.shape[0] - 1, 0, -1):
        j = np.int64(interval(bitgen, np.uint64(i)))
        out[i], out[j] = out[j], out[i]


@njit(cache=True)
def draw_integers(bitgen: int, counts: np.ndarray, out: np.ndarray) -> None:
    """``out[k] = Generator.integers(counts[k])`` (``counts``: uint64), in order, from the
    bit generator at ``bitgen``."""
    for k in range(counts.shape[0]):
        out[k] = integers(bitgen, counts[k])


@njit(cache=True)
def draw_integers_each(bitgens: np.ndarray, counts: np.ndarray, out: np.ndarray) -> None:
    """Row ``k`` of ``out``: :func:`draw_integers` of ``counts`` from the bit generator at
    ``bitgens[k]`` (one generator per row, each drawing its numbers in order)."""
    for k in range(bitgens.shape[0]):
        for j in range(counts.shape[0]):
            out[k, j] = integers(bitgens[k], counts[j])


# SeedSequence's constants (numpy/random/bit_generator.pyx)
_INIT_A, _MULT_A = np.uint32(0x43B0D7E5), np.uint32(0x931E8875)
_INIT_B, _MULT_B = np.uint32(0x8B51F9DD), np.uint32(0x58F38DED)
_MIX_L, _MIX_R = np.uint32(0xCA01F9DD), np.uint32(0x4973F715)
_XSHIFT = np.uint32(16)
_POOL = 4
# PCG64's multiplier (numpy/random/src/pcg64/pcg64.h), high and low 64 bits
_PCG_HI, _PCG_LO = np.uint64(2549297995355413924), np.uint64(4865540595714422341)


@njit(cache=True)
def _hashmix(value: np.uint32, hash_const: np.ndarray) -> np.uint32:
    value = np.uint32(value ^ hash_const[0])
    hash_const[0] = np.uint32(hash_const[0] * _MULT_A)
    value = np.uint32(value * hash_const[0])
    return np.uint32(value ^ (value >> _XSHIFT))


@njit(cache=True)
def _mix(x: np.uint32, y: np.uint32) -> np.uint32:
    result = np.uint32(np.uint32(_MIX_L * x) - np.uint32(_MIX_R * y))
    return np.uint32(result ^ (result >> _XSHIFT))


@njit(cache=True)
def _pcg_step(s_hi: np.uint64, s_lo: np.uint64, i_hi: np.uint64, i_lo: np.uint64) -> tuple:
    """``state * multiplier + inc`` modulo 2**128, in high and low words."""
    lo = s_lo * _PCG_LO
    hi = _mul_high(s_lo, _PCG_LO) + s_hi * _PCG_LO + s_lo * _PCG_HI
    new_lo = lo + i_lo
    carry = np.uint64(1) if new_lo < lo else np.uint64(0)
    return hi + i_hi + carry, new_lo


@njit(cache=True)
def pcg64_seed_states(seeds: np.ndarray, out: np.ndarray) -> None:
    """Row ``k`` of ``out``: the state of ``numpy.random.PCG64(int(seeds[k]))`` as its
    (state high, state low, increment high, increment low) words."""
    entropy = np.zeros(2, dtype=np.uint32)
    pool = np.zeros(_POOL, dtype=np.uint32)
    hash_const = np.zeros(1, dtype=np.uint32)
    words = np.zeros(2 * _POOL, dtype=np.uint32)
    for k in range(seeds.shape[0]):
        seed = np.uint64(seeds[k])
        entropy[0] = np.uint32(seed & _M32)
        entropy[1] = np.uint32(seed >> np.uint64(32))
        length = 2 if entropy[1] else 1
        hash_const[0] = _INIT_A
        for i in range(_POOL):
            pool[i] = _hashmix(entropy[i] if i < length else np.uint32(0), hash_const)
        for i_src in range(_POOL):
            for i_dst in range(_POOL):
                if i_src != i_dst:
                    pool[i_dst] = _mix(pool[i_dst], _hashmix(pool[i_src], hash_const))
        h = _INIT_B
        for i in range(2 * _POOL):
            value = np.uint32(pool[i % _POOL] ^ h)
            h = np.uint32(h * _MULT_B)
            value = np.uint32(value * h)
            words[i] = np.uint32(value ^ (value >> _XSHIFT))
        val = np.zeros(4, dtype=np.uint64)
        for i in range(4):
            val[i] = np.uint64(words[2 * i]) | (np.uint64(words[2 * i + 1]) << np.uint64(32))
        # pcg64_set_seed: state = (val[0], val[1]), inc = ((val[2], val[3]) << 1) | 1
        i_hi = (val[2] << np.uint64(1)) | (val[3] >> np.uint64(63))
        i_lo = (val[3] << np.uint64(1)) | np.uint64(1)
        s_hi, s_lo = _pcg_step(np.uint64(0), np.uint64(0), i_hi, i_lo)
        s_lo2 = s_lo + val[1]
        s_hi = s_hi + val[0] + (np.uint64(1) if s_lo2 < s_lo else np.uint64(0))
        s_hi, s_lo = _pcg_step(s_hi, s_lo2, i_hi, i_lo)
        out[k, 0], out[k, 1], out[k, 2], out[k, 3] = s_hi, s_lo, i_hi, i_lo


def set_pcg64_state(generator: np.random.Generator, words: np.ndarray) -> None:
    """Make ``generator`` (over ``PCG64``) the generator of the state ``words`` (a row of
    :func:`pcg64_seed_states`), nothing buffered: what ``default_rng(seed)`` makes."""
    hi, lo, inc_hi, inc_lo = (int(w) for w in words)
    generator.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": hi << 64 | lo, "inc": inc_hi << 64 | inc_lo},
        "has_uint32": 0,
        "uinteger": 0,
    }


__all__ = [
    "bitgen_address",
    "choose_legal",
    "draw_integers",
    "draw_integers_each",
    "integers",
    "interval",
    "next_uint32",
    "next_uint64",
    "pcg64_seed_states",
    "permute_into",
    "set_pcg64_state",
]
