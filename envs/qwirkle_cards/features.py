"""Qwirkle Cards' observation features: which lines the table leaves open, and to whom.

Every player may rearrange the whole table, so a line (a colour or a symbol) whose kinds all
lie on the table but for one or two is an open invitation: the next player completes it, and
takes a Qwirkle, if their hand holds the missing kinds. The scripted ``heuristic`` agent wins
by not leaving such lines (``baselines/agents/qwirkle_cards_heuristic.py``); these features
give a network the counts it reads, computed by the rules instead of rediscovered.

:data:`QWIRKLE_CARDS_FEATURES` (``qwirkle_cards_v0.env(features=True)``; the fields are
documented in ``tabletop_rl.envs.qwirkle_cards_v0``) describes the table *the selection
leaves*: the table at the start of the turn, plus the cards played so far this turn, minus the
cards of the Qwirkles taken so far (a Qwirkle's cards that must still come from the acting
player's hand are owed: they are not on that table, and they are no longer the acting
player's to keep). At the start of a turn that is the table itself. A kind is *missing* from
a line when none of its copies lies on that table.

- per line: the kinds missing; those the observer does not hold (0: the observer's cards
  complete the line with the table); those with a copy the observer cannot see (when that
  equals the kinds missing, an opponent may hold them all); and the probability that the
  next player's hand holds every missing kind: a hand of their size drawn from the unseen
  copies (``unseen``, the other hands and the pile): the heuristic's hypergeometric
  estimate (which it charges for lines with at most two missing kinds).
- per action, when the observer is to act and the action is legal: the same estimate summed
  over the lines (the Qwirkles the next player is expected to be able to complete) and the
  lines the observer's kept cards complete, as they would be once the action is taken.

Everything is computed from the observer's base observation (own hand, table, the turn's
selection, hand sizes and unseen counts), so the features show nothing the observer cannot
see, and the reference and the compiled engines, whose observations are equal, give equal
features. One numba kernel writes them.

>>> import numpy as np
>>> from tabletop_rl.envs.core.features import with_features
>>> from tabletop_rl.envs.qwirkle_cards.model import QwirkleCardsModel
>>> model = with_features(QwirkleCardsModel(2), QWIRKLE_CARDS_FEATURES)
>>> state = model.new_state(np.random.default_rng(3))
>>> views = model.layout.decode(model.observe(state, 0))
>>> views["line_missing"].tolist()  # the table is empty before the start row
[6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0]
>>> bool((views["line_short"] <= views["line_missing"]).all())
True
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from ..core.features import FeatureSet
from ..core.observation import Field
from .actions import CANNOT_PLAY, END_TURN, NUM_ACTIONS, TAKE
from .cards import NUM_KINDS, NUM_LINES
from .compiled_solver import KIND_A, KIND_B, LINE_KIND, SearchWork
from .line_odds import MAX_COPIES_MISSING, draw_ratios, line_value
from .model import MAX_QWIRKLES
from .turn_values import write_turn_values

FIELDS = (
    Field(
        "line_missing",
        (NUM_LINES,),
        "kinds of each line missing from the table the selection leaves",
        high=6.0,
    ),
    Field(
        "line_short",
        (NUM_LINES,),
        "of those, kinds the observer does not hold (0: own cards complete the line)",
        high=6.0,
    ),
    Field(
        "line_unseen",
        (NUM_LINES,),
        "of those, kinds with a copy the observer cannot see",
        high=6.0,
    ),
    Field(
        "line_next_chance",
        (NUM_LINES,),
        "probability that the next player's hand holds every missing kind",
    ),
    Field(
        "action_next_qwirkles",
        (NUM_ACTIONS,),
        "per legal action: next player's expected completable lines after it",
        high=float(NUM_LINES),
        action_group="action",
    ),
    Field(
        "action_own_lines",
        (NUM_ACTIONS,),
        "per legal action: lines the observer's kept cards complete after it",
        high=float(NUM_LINES),
        action_group="action",
    ),
    Field(
        "action_turn_qwirkles",
        (NUM_ACTIONS,),
        "per legal action: most Qwirkles of a legal turn that continues with it",
        high=float(MAX_QWIRKLES),
        action_group="action",
    ),
    Field(
        "action_turn_value",
        (NUM_ACTIONS,),
        "per legal action: best turn value among those turns (the heuristic's)",
        low=-float(NUM_LINES),
        high=float(NUM_LINES),
        action_group="action",
    ),
)
"""The feature fields, appended to the base observation in this order."""
FEATURE_SIZE = sum(f.size for f in FIELDS)


@njit(cache=True, nogil=True)
def _totals(
    left: np.ndarray, kept: np.ndarray, unseen: np.ndarray, ratios: np.ndarray, terms: np.ndarray
) -> tuple[float, int]:
    """The next player's expected completable lines and the lines ``kept`` completes."""
    chance = 0.0
    own = 0
    for line in range(NUM_LINES):
        _, short, _, p = line_value(line, left, kept, unseen, ratios, terms)
        chance += p
        if short == 0:
            own += 1
    return chance, own


@njit(cache=True, nogil=True)
def _settle(
    k: int, after: np.ndarray, hand: np.ndarray, owes: bool, left: np.ndarray, kept: np.ndarray
) -> None:
    """Kind ``k`` on the table ``left`` and in the observer's kept cards ``kept``, from the
    selection's ``after`` count (negative: owed by the acting player, who is the observer if
    ``owes``) and the observer's ``hand``."""
    a = after[k]
    left[k] = a if a > 0 else 0
    kept[k] = hand[k] - (-a if owes and a < 0 else 0)


@njit(cache=True, nogil=True)
def write_features(
    hand: np.ndarray,
    table: np.ndarray,
    played: np.ndarray,
    taken: np.ndarray,
    unseen_in: np.ndarray,
    next_hand: int,
    first_turn: bool,
    observer_acts: bool,
    mask: np.ndarray,
    line_missing: np.ndarray,
    line_short: np.ndarray,
    line_unseen: np.ndarray,
    line_next_chance: np.ndarray,
    action_next: np.ndarray,
    action_own: np.ndarray,
    action_turn_qwirkles: np.ndarray,
    action_turn_value: np.ndarray,
    rows: np.ndarray,
    options: np.ndarray,
    memo: np.ndarray,
) -> None:
    """Fill the feature fields (module docstring) from the observer's base observation:
    ``hand``, ``table``, ``played``, ``taken``, ``unseen`` and ``first_turn`` as in the
    observation, ``next_hand`` the next player's hand size, ``mask`` the observer's legal
    mask (read only when ``observer_acts``); ``rows``, ``options``, ``memo``: the validity
    solver's scratch arrays (a :class:`~.compiled_solver.SearchWork`'s). The action fields
    must be zeroed beforehand."""
    after = np.empty(NUM_KINDS, dtype=np.int64)
    held = np.empty(NUM_KINDS, dtype=np.int64)
    unseen = np.empty(NUM_KINDS, dtype=np.int64)
    total = 0
    for k in range(NUM_KINDS):
        after[k] = int(table[k]) + int(played[k])
        held[k] = int(hand[k])
        unseen[k] = int(unseen_in[k])
        total += unseen[k]
    for line in range(NUM_LINES):
        t = int(taken[line])
        if t:
            for j in range(6):
                after[LINE_KIND[line, j]] -= t
    ratios = np.empty(MAX_COPIES_MISSING + 1, dtype=np.float64)
    draw_ratios(total, min(next_hand, total), ratios)
    terms = np.empty(MAX_COPIES_MISSING + 1, dtype=np.float64)
    left = np.empty(NUM_KINDS, dtype=np.int64)
    kept = np.empty(NUM_KINDS, dtype=np.int64)
    for k in range(NUM_KINDS):
        _settle(k, after, held, observer_acts, left, kept)
    line_p = np.empty(NUM_LINES, dtype=np.float64)
    line_sh = np.empty(NUM_LINES, dtype=np.int64)
    chance_now = 0.0
    own_now = 0
    for line in range(NUM_LINES):
        missing, short, seen_out, p = line_value(line, left, kept, unseen, ratios, terms)
        line_p[line] = p
        line_sh[line] = short
        line_missing[line] = missing
        line_short[line] = short
        line_unseen[line] = seen_out
        line_next_chance[line] = p
        chance_now += p
        if short == 0:
            own_now += 1
    if not observer_acts:
        return
    write_turn_values(
        hand, table, played, taken, unseen_in, next_hand, first_turn, mask,
        action_turn_qwirkles, action_turn_value, rows, options, memo,
    )  # fmt: skip
    for k in range(NUM_KINDS):
        if not mask[k]:
            continue
        # one more card of kind k leaves the hand: it pays an owed card or joins the table
        after[k] += 1
        held[k] -= 1
        _settle(k, after, held, True, left, kept)
        # only the card's two lines change
        chance, own = chance_now, own_now
        for line in (KIND_A[k], KIND_B[k]):
            chance -= line_p[line]
            own -= 1 if line_sh[line] == 0 else 0
            _, short, _, p = line_value(line, left, kept, unseen, ratios, terms)
            chance += p
            own += 1 if short == 0 else 0
        action_next[k] = max(0.0, chance)
        action_own[k] = own
        after[k] -= 1
        held[k] += 1
        _settle(k, after, held, True, left, kept)
    for line in range(NUM_LINES):
        if not mask[TAKE + line]:
            continue
        for j in range(6):
            k = LINE_KIND[line, j]
            after[k] -= 1
            _settle(k, after, held, True, left, kept)
        chance, own = _totals(left, kept, unseen, ratios, terms)
        action_next[TAKE + line] = chance
        action_own[TAKE + line] = own
        for j in range(6):
            k = LINE_KIND[line, j]
            after[k] += 1
            _settle(k, after, held, True, left, kept)
    if mask[END_TURN]:
        action_next[END_TURN] = chance_now
        action_own[END_TURN] = own_now
    if mask[CANNOT_PLAY]:
        # the hand goes back to the pile for new cards: the table stays as it is
        action_next[CANNOT_PLAY] = chance_now


BASE_FIELDS = ("hand", "table", "played", "taken", "unseen", "hand_sizes", "first_turn")
"""The base observation's fields :func:`features_into` reads, in its offsets' order."""


def feature_offsets(layout: Any) -> np.ndarray:
    """The offsets :func:`features_into` takes: those of :data:`BASE_FIELDS`, then those of
    the feature fields, in ``layout`` (an observation layout with the features appended)."""
    names = (*BASE_FIELDS, *(f.name for f in FIELDS))
    offsets = np.array([layout.slice(name).start for name in names], dtype=np.int64)
    first = offsets[len(BASE_FIELDS)]
    if layout.slice(FIELDS[-1].name).stop - first != FEATURE_SIZE:
        raise ValueError("the feature fields must follow each other in the layout")
    return offsets


@njit(cache=True, nogil=True)
def features_into(
    out: np.ndarray,
    offsets: np.ndarray,
    mask: np.ndarray,
    observer_acts: bool,
    rows: np.ndarray,
    options: np.ndarray,
    memo: np.ndarray,
) -> None:
    """Write the features into the flat observation ``out`` whose base fields are written
    (field offsets from :func:`feature_offsets`; ``mask`` read only when ``observer_acts``;
    the solver's scratch arrays as for :func:`write_features`): :func:`write_features` for
    the compiled batch, the feature fields zeroed first."""
    o = offsets
    f = 7  # the first feature field's offset follows the BASE_FIELDS' seven
    out[o[f] : o[f] + FEATURE_SIZE] = 0.0
    write_features(
        out[o[0] : o[0] + NUM_KINDS],
        out[o[1] : o[1] + NUM_KINDS],
        out[o[2] : o[2] + NUM_KINDS],
        out[o[3] : o[3] + NUM_LINES],
        out[o[4] : o[4] + NUM_KINDS],
        int(out[o[5] + 1]),
        out[o[6]] > 0.5,
        observer_acts,
        mask,
        out[o[f] : o[f] + NUM_LINES],
        out[o[f + 1] : o[f + 1] + NUM_LINES],
        out[o[f + 2] : o[f + 2] + NUM_LINES],
        out[o[f + 3] : o[f + 3] + NUM_LINES],
        out[o[f + 4] : o[f + 4] + NUM_ACTIONS],
        out[o[f + 5] : o[f + 5] + NUM_ACTIONS],
        out[o[f + 6] : o[f + 6] + NUM_ACTIONS],
        out[o[f + 7] : o[f + 7] + NUM_ACTIONS],
        rows,
        options,
        memo,
    )


_NO_MASK = np.zeros(NUM_ACTIONS, dtype=np.int8)
_WORK = SearchWork()
"""The solver's scratch memory of the feature model's writer (one call at a time)."""


def _write(
    model: Any,
    state: Any,
    player: int,
    base: dict[str, np.ndarray],
    mask: np.ndarray | None,
    out: dict[str, np.ndarray],
) -> None:
    """The :class:`FeatureSet` writer: the features from ``player``'s base observation."""
    write_features(
        base["hand"],
        base["table"],
        base["played"],
        base["taken"],
        base["unseen"],
        int(base["hand_sizes"][1]),
        bool(base["first_turn"][0]),
        mask is not None,
        _NO_MASK if mask is None else mask,
        out["line_missing"],
        out["line_short"],
        out["line_unseen"],
        out["line_next_chance"],
        out["action_next_qwirkles"],
        out["action_own_lines"],
        out["action_turn_qwirkles"],
        out["action_turn_value"],
        _WORK.rows,
        _WORK.options,
        _WORK.memo,
    )


QWIRKLE_CARDS_FEATURES = FeatureSet("qwirkle_cards", FIELDS, _write, revision=2)
"""Qwirkle Cards' observation features (module docstring), revision 2 (the environment's
version history says what each revision changed)."""

__all__ = [
    "BASE_FIELDS",
    "FIELDS",
    "QWIRKLE_CARDS_FEATURES",
    "feature_offsets",
    "features_into",
    "write_features",
]
