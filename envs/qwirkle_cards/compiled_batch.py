"""Many games of Qwirkle Cards stepped at once by compiled code (the batched core).

:class:`QwirkleCardsBatch` holds ``num_envs`` games as count arrays and advances all of them
with one compiled call per step: apply each game's action, draw, end turns and games, then
compute every game's legal actions (:func:`.compiled_turns.turn_mask`) and the acting
player's observation (:func:`.compiled_observation.observe_into`). Only what needs the games'
random generators runs in Python: dealing a new game (the rules engine deals it, exactly as
:meth:`.model.QwirkleCardsModel.new_state`) and shuffling a hand into the pile at a forced
redraw (``Generator.shuffle`` of the pile as a list, as the engine does); both are rare.

The conventions are :mod:`tabletop_rl.envs.vector`'s: slot ``i`` plays the games
``model.new_state(numpy.random.default_rng([seed, i]))`` in sequence
(:func:`env_generators`), so each game equals the single game of the model stepped with the
same generator and actions, observation for observation. A finished game reports
``terminated``/``truncated``, its final observation and scores (and :meth:`outcome`), and
starts anew on the next step, whose action it ignores (its mask row is all ones meanwhile).

>>> import numpy as np
>>> batch = QwirkleCardsBatch(num_envs=4, num_players=2, seed=0)
>>> batch.reset()
>>> batch.observation.shape, batch.action_mask.shape, batch.rewards.shape
((4, 225), (4, 50), (4, 2))
>>> rng = np.random.default_rng(1)
>>> for _ in range(50):
...     legal = [np.flatnonzero(m) for m in batch.action_mask]
...     _ = batch.step(np.array([rng.choice(a) for a in legal]))
>>> bool((batch.action_mask.sum(axis=1) > 0).all())
True
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from ..core.batch import (
    BatchBuffers,
    BatchResult,
    block_rows,
    check_active,
    check_batch_options,
)
from ..core.compiled_random import bitgen_address, choose_legal, interval
from ..core.features import with_features
from ..core.model import Ending, Outcome
from ..errors import ConfigError, IllegalActionError
from .actions import CANNOT_PLAY, END_TURN, NUM_ACTIONS, TAKE
from .cards import NUM_KINDS, NUM_LINES, TOTAL_CARDS
from .compiled_observation import FIELDS, observe_into
from .compiled_solver import LINE_KIND, SearchWork
from .compiled_turns import (
    DEAD,
    END,
    FIRST,
    HAND,
    MAX_WITNESSES,
    PLAYED,
    PLAYS,
    TABLE,
    TAKEN,
    TURN_SIZE,
    turn_mask,
)
from .features import QWIRKLE_CARDS_FEATURES, feature_offsets, features_into
from .game import DEFAULT_MAX_TURNS, END_RULES, HAND_SIZE, QwirkleCardsGame, Status
from .model import QwirkleCardsModel

# a game's scalars (one int64 row per game)
TO_MOVE, STARTER, TURN_COUNT, TURNS_LEFT, PASSES, STATUS, PILE_LEN, PENDING = range(8)
NUM_SCALARS = 8
RUNNING, FINISHED, TRUNCATED = 0, 1, 2
"""``STATUS`` values."""
NOTHING, SHUFFLE, FRESH = 0, 1, 2
"""``PENDING`` values: the game waits for its pile to be shuffled (a redraw) / was just dealt
(its action this step is ignored)."""


@njit(cache=True)
def _new_turn(turn: np.ndarray, table: np.ndarray, hand: np.ndarray, first: bool) -> None:
    """Reset a game's turn vector for the player to move."""
    turn[:] = 0
    turn[TABLE:HAND] = table
    turn[HAND:PLAYED] = hand
    turn[FIRST] = first


@njit(cache=True)
def _draw(hand: np.ndarray, pile: np.ndarray, scalars: np.ndarray, count: int) -> None:
    """Draw ``count`` cards (as far as the pile allows) from the pile's end."""
    n = scalars[PILE_LEN]
    for _ in range(min(count, n)):
        n -= 1
        hand[pile[n]] += 1
    scalars[PILE_LEN] = n


class QwirkleCardsGames(NamedTuple):
    """The games of a :class:`QwirkleCardsBatch` as count arrays (row ``g`` of each: game
    ``g``), one argument of its kernels."""

    hands: np.ndarray
    """``(N, players, 36)``: each player's hand."""
    table: np.ndarray
    """``(N, 36)``: the cards on the table."""
    pile: np.ndarray
    """``(N, 108)``: the pile's cards, its first ``PILE_LEN`` entries (drawn from the end)."""
    qwirkles: np.ndarray
    """``(N, players, 12)``: the Qwirkles each player took, per line."""
    scalars: np.ndarray
    """``(N, NUM_SCALARS)``: ``TO_MOVE``, ``STARTER``, ... ``PENDING``."""
    turns: np.ndarray
    """``(N, TURN_SIZE)``: the turn being built (:mod:`.compiled_turns`)."""
    witnesses: np.ndarray
    """``(N, MAX_WITNESSES, 36)``: the turn mask's witnesses (:func:`.compiled_turns.\
turn_mask`)."""

    def rows(self, lo: int, hi: int) -> QwirkleCardsGames:
        """Games ``lo`` to ``hi - 1`` (views)."""
        return block_rows(self, lo, hi)


class QwirkleCardsSettings(NamedTuple):
    """The fixed options of a :class:`QwirkleCardsBatch`, as its kernels read them."""

    end_rule: int
    """The index of the end rule in :data:`.game.END_RULES`."""
    max_turns: int
    """The turns after which a game is cut off (truncated)."""
    win_rewards: bool
    """``reward="win"`` (else ``"score"``)."""
    offsets: np.ndarray
    """Where each of :data:`.compiled_observation.FIELDS` starts in an observation row."""
    feature_at: np.ndarray
    """The observation features' offsets (:func:`.features.feature_offsets`; empty: none)."""


@njit(cache=True)
def _finish_turn(
    g: int,
    passed: bool,
    games: QwirkleCardsGames,
    buffers: BatchResult,
    settings: QwirkleCardsSettings,
) -> None:
    """The engine's ``_finish_turn``: counters, the end of the game, the next player."""
    hands, qwirkles, turns = games.hands, games.qwirkles, games.turns
    rewards = buffers.rewards
    s = games.scalars[g]
    n = hands.shape[1]
    turns[g, PLAYED : FIRST + 1] = 0  # nothing selected, and no longer the first turn
    s[TURN_COUNT] += 1
    s[PASSES] = s[PASSES] + 1 if passed else 0
    if s[TURNS_LEFT] >= 0:
        s[TURNS_LEFT] -= 1
    elif s[PILE_LEN] == 0:
        s[TURNS_LEFT] = (s[STARTER] - 1 - s[TO_MOVE]) % n if settings.end_rule == 0 else n
    if (s[TURNS_LEFT] >= 0 and s[TURNS_LEFT] <= 0) or (s[PILE_LEN] == 0 and s[PASSES] >= n):
        s[STATUS] = FINISHED
        if settings.win_rewards:
            best = -1
            winners = 0
            for p in range(n):
                q = qwirkles[g, p].sum()
                if q > best:
                    best = q
                    winners = 1
                elif q == best:
                    winners += 1
            if winners < n:
                for p in range(n):
                    rewards[g, p] += 1.0 if qwirkles[g, p].sum() == best else -1.0
        return
    if s[TURN_COUNT] >= settings.max_turns:
        s[STATUS] = TRUNCATED
        return
    s[TO_MOVE] = (s[TO_MOVE] + 1) % n
    _new_turn(turns[g], games.table[g], hands[g, s[TO_MOVE]], False)


@njit(cache=True, nogil=True)
def apply_actions(
    active: np.ndarray,
    actions: np.ndarray,
    games: QwirkleCardsGames,
    buffers: BatchResult,
    settings: QwirkleCardsSettings,
) -> None:
    """Apply each active running game's (legal) action; a redraw with cards in the pile puts
    the hand into the pile and waits for the shuffle (``PENDING = SHUFFLE``)."""
    for g in range(actions.shape[0]):
        if not active[g]:
            continue
        buffers.rewards[g, :] = 0.0
        _apply_one(g, actions[g], games, buffers, settings)


@njit(cache=True)
def _apply_one(
    g: int, a: int, games: QwirkleCardsGames, buffers: BatchResult, settings: QwirkleCardsSettings
) -> None:
    """Apply game ``g``'s (legal) action ``a`` (nothing for a finished or just dealt game),
    adding what it scores to ``rewards[g]`` (:func:`apply_actions`)."""
    hands, table, pile = games.hands, games.table, games.pile
    s = games.scalars[g]
    if s[STATUS] != RUNNING or s[PENDING] == FRESH:
        return
    turn = games.turns[g]
    mover = s[TO_MOVE]
    if a < TAKE:
        turn[PLAYED + a] += 1
    elif a < END_TURN:
        turn[TAKEN + a - TAKE] += 1
        turn[DEAD:PLAYS] = 0  # dead kinds and witnesses are forgotten after a take
        if not settings.win_rewards:
            buffers.rewards[g, mover] += 1.0
    elif a == END_TURN:
        hand = hands[g, mover]
        left = 0
        for k in range(NUM_KINDS):
            hand[k] -= turn[PLAYED + k]
            table[g, k] += turn[PLAYED + k]
            left += hand[k]
        for line in range(NUM_LINES):
            times = turn[TAKEN + line]
            if times:
                for j in range(6):
                    table[g, LINE_KIND[line, j]] -= times
                games.qwirkles[g, mover, line] += times
        _draw(hand, pile[g], s, HAND_SIZE - left)
        _finish_turn(g, False, games, buffers, settings)
    elif s[PILE_LEN] == 0:
        _finish_turn(g, True, games, buffers, settings)
    else:
        hand = hands[g, mover]
        n = s[PILE_LEN]
        for k in range(NUM_KINDS):
            for _ in range(hand[k]):
                pile[g, n] = k
                n += 1
            hand[k] = 0
        s[PILE_LEN] = n
        s[PENDING] = SHUFFLE


@njit(cache=True, nogil=True)
def refresh(
    active: np.ndarray,
    games: QwirkleCardsGames,
    buffers: BatchResult,
    settings: QwirkleCardsSettings,
    work: SearchWork,
) -> None:
    """Finish the shuffled redraws, then write every game's mask and observation (and, for a
    game that just ended, its final observation and scores); the observation features too
    when ``settings.feature_at`` holds their offsets. Inactive games are left as they are."""
    for g in range(games.hands.shape[0]):
        if not active[g]:
            continue
        _settle(g, games, buffers, settings)
        _show_one(g, True, games, buffers, settings, work)


@njit(cache=True)
def _settle(
    g: int, games: QwirkleCardsGames, buffers: BatchResult, settings: QwirkleCardsSettings
) -> None:
    """Finish game ``g``'s redraw (its pile shuffled), if one waits."""
    s = games.scalars[g]
    if s[PENDING] == SHUFFLE:
        _draw(games.hands[g, s[TO_MOVE]], games.pile[g], s, HAND_SIZE)
        _finish_turn(g, False, games, buffers, settings)
    s[PENDING] = NOTHING


@njit(cache=True)
def _show_one(
    g: int,
    observe: bool,
    games: QwirkleCardsGames,
    buffers: BatchResult,
    settings: QwirkleCardsSettings,
    work: SearchWork,
) -> None:
    """Game ``g``'s mask, end flags and (with ``observe``) its acting player's observation
    (for a game that just ended: its final observation and scores too)."""
    hands, qwirkles = games.hands, games.qwirkles
    observation, action_mask = buffers.observation, buffers.action_mask
    feature_at = settings.feature_at
    rows, options, memo = work.rows, work.options, work.memo
    s = games.scalars[g]
    mover = s[TO_MOVE]
    turn = games.turns[g]
    if observe:
        observe_into(
            observation[g], settings.offsets, hands[g], games.table[g], turn[PLAYED:TAKEN],
            turn[TAKEN:FIRST], qwirkles[g], mover, mover, s[STARTER], s[PILE_LEN],
            turn[FIRST] == 1, s[TURNS_LEFT], min(1.0, s[TURN_COUNT] / settings.max_turns),
        )  # fmt: skip
    buffers.terminated[g] = s[STATUS] == FINISHED
    buffers.truncated[g] = s[STATUS] == TRUNCATED
    if s[STATUS] != RUNNING:
        if observe:
            if feature_at.size:
                features_into(
                    observation[g], feature_at, action_mask[g], False, rows, options, memo
                )
            buffers.final_observation[g] = observation[g]
        for p in range(hands.shape[1]):
            buffers.episode_scores[g, p] = qwirkles[g, p].sum()
        action_mask[g] = 1
        return
    turn_mask(turn, games.witnesses[g], rows, options, memo)
    playable = False
    for a in range(END + 1 - PLAYS):
        action_mask[g, a] = turn[PLAYS + a]
        if turn[PLAYS + a]:
            playable = True
    action_mask[g, CANNOT_PLAY] = 0 if playable else 1
    if observe and feature_at.size:
        features_into(observation[g], feature_at, action_mask[g], True, rows, options, memo)


@njit(cache=True)
def _shuffle_pile(pile: np.ndarray, n: int, bitgen: int) -> None:
    """``Generator.shuffle`` of the pile's first ``n`` cards, from the bit generator at
    ``bitgen``, as numpy shuffles a list (last position first)."""
    for i in range(n - 1, 0, -1):
        j = interval(bitgen, np.uint64(i))
        pile[i], pile[j] = pile[j], pile[i]


@njit(cache=True, nogil=True)
def play_versus_random(
    active: np.ndarray,
    actions: np.ndarray,
    seats: np.ndarray,
    bitgens: np.ndarray,
    game_bitgens: np.ndarray,
    games: QwirkleCardsGames,
    buffers: BatchResult,
    settings: QwirkleCardsSettings,
    work: SearchWork,
) -> None:
    """:func:`apply_actions` and :func:`refresh` in one, then in each active game the seats
    other than ``seats[g]`` move until that seat is to act or the game is over, each
    uniformly at random among its legal actions from the bit generator at ``bitgens[g, k]``
    (``k``: the mover's seat, counted without ``seats[g]``); a redraw shuffles the pile
    from the game's own generator (at ``game_bitgens[g]``), as the engine does.
    ``rewards[g]`` sums every move's; the observation is written once, for the position
    reached (the opponents' views are not)."""
    for g in range(games.hands.shape[0]):
        if not active[g]:
            continue
        s = games.scalars[g]
        seat = seats[g]
        buffers.rewards[g, :] = 0.0
        action = actions[g]
        while True:
            _apply_one(g, action, games, buffers, settings)
            if s[PENDING] == SHUFFLE:
                _shuffle_pile(games.pile[g], s[PILE_LEN], game_bitgens[g])
            _settle(g, games, buffers, settings)
            mover = s[TO_MOVE]
            if s[STATUS] != RUNNING or mover == seat:
                break
            _show_one(g, False, games, buffers, settings, work)
            action = choose_legal(bitgens[g, mover - (mover > seat)], buffers.action_mask[g])
        _show_one(g, True, games, buffers, settings, work)


@njit(cache=True, nogil=True)
def observe_all(
    rows: np.ndarray, games: QwirkleCardsGames, settings: QwirkleCardsSettings, out: np.ndarray
) -> None:
    """Every seat's observation of each game with ``rows[g]`` set into ``out[g, seat]``, as
    :func:`refresh` writes the acting player's."""
    hands, scalars, turns = games.hands, games.scalars, games.turns
    for g in range(hands.shape[0]):
        if not rows[g]:
            continue
        s = scalars[g]
        turn = turns[g]
        for p in range(hands.shape[1]):
            observe_into(
                out[g, p], settings.offsets, hands[g], games.table[g], turn[PLAYED:TAKEN],
                turn[TAKEN:FIRST], games.qwirkles[g], p, s[TO_MOVE], s[STARTER], s[PILE_LEN],
                turn[FIRST] == 1, s[TURNS_LEFT], min(1.0, s[TURN_COUNT] / settings.max_turns),
            )  # fmt: skip


def env_generators(seed: int, num_envs: int) -> list[np.random.Generator]:
    """The generators of a batch's slots: slot ``i`` deals from ``default_rng([seed, i])``."""
    return [np.random.default_rng([seed, i]) for i in range(num_envs)]


class QwirkleCardsBatch(BatchBuffers):
    """``num_envs`` games of Qwirkle Cards for ``num_players`` stepped together (module
    docstring). After :meth:`reset` and every :meth:`step` the public arrays hold:

    - ``observation`` ``(N, 225) float32``: the acting player's observation (the model's
      layout; ``features=True`` appends the observation features, ``(N, 373)``, as
      ``qwirkle_cards_v0.env(features=True)`` does); ``action_mask`` ``(N, 50) int8``;
      ``current_player`` ``(N,)``;
    - ``rewards`` ``(N, players) float32`` of this step (``reward="win"``: +1 / -1 at the
      end, 0 on a full tie or a truncated game; ``"score"``: 1 per Qwirkle taken);
    - ``terminated``, ``truncated`` ``(N,) bool``; where either is set,
      ``final_observation`` and ``episode_scores`` (Qwirkles per seat) of the ended game.

    ``step(actions, active)`` plays only the games with ``active[i]`` set (the others keep
    their rows as they are); :meth:`restart` starts a slot's next game from a given generator.
    ``threads > 1`` splits the games over that many threads (the compiled calls release
    the GIL).
    """

    env_options = ("features",)
    """The environment's options that :class:`~tabletop_rl.envs.vector.VectorGames` passes
    on to this batch (any other makes it step the game model instead)."""
    state_fields = (
        "_hands", "_table", "_pile", "_qwirkles", "_scalars", "_turns", "_witnesses",
        "_game_rngs", "_rngs", "_outcomes", "_started",
    )  # fmt: skip
    """What :meth:`state_dict` saves besides the public buffers (the search memory of
    :func:`refresh` is scratch space, rewritten by every call)."""

    def __init__(
        self,
        num_envs: int,
        num_players: int = 2,
        seed: int = 0,
        threads: int = 1,
        reward: str = "win",
        end_rule: str = "finish_round",
        max_turns: int = DEFAULT_MAX_TURNS,
        features: bool = False,
    ) -> None:
        num_envs, seed, threads = check_batch_options(num_envs, seed, threads, reward)
        if not isinstance(features, bool):
            raise ConfigError(f"features must be True or False, got {features!r}")
        self.model = QwirkleCardsModel(num_players, end_rule, max_turns)
        self.num_envs = n = num_envs
        self.num_players = p = self.model.num_players
        self.threads = min(threads, n)
        self.reward = reward
        self._end_rule = END_RULES.index(end_rule)
        self._max_turns = max_turns
        layout = self.model.layout
        self._feature_at = np.zeros(0, dtype=np.int64)
        if features:
            layout = with_features(self.model, QWIRKLE_CARDS_FEATURES).layout
            self._feature_at = feature_offsets(layout)
        size = layout.size
        offsets = np.array([layout.slice(f).start for f in FIELDS], dtype=np.int64)
        self._settings = QwirkleCardsSettings(
            self._end_rule, max_turns, reward == "win", offsets, self._feature_at
        )
        self._allocate_buffers(n, p, size, NUM_ACTIONS)  # current_player: scalars' TO_MOVE
        self._hands = np.zeros((n, p, NUM_KINDS), dtype=np.int64)
        self._table = np.zeros((n, NUM_KINDS), dtype=np.int64)
        self._pile = np.zeros((n, TOTAL_CARDS), dtype=np.int64)
        self._qwirkles = np.zeros((n, p, NUM_LINES), dtype=np.int64)
        self._scalars = np.zeros((n, NUM_SCALARS), dtype=np.int64)
        self._turns = np.zeros((n, TURN_SIZE), dtype=np.int64)
        self._witnesses = np.zeros((n, MAX_WITNESSES, NUM_KINDS), dtype=np.int64)
        self._game_rngs: list[np.random.Generator | None] = [None] * n
        self._games = QwirkleCardsGames(
            self._hands, self._table, self._pile, self._qwirkles, self._scalars, self._turns,
            self._witnesses,
        )  # fmt: skip
        bounds = np.linspace(0, n, self.threads + 1).astype(int)
        self._chunks = [slice(int(a), int(b)) for a, b in itertools.pairwise(bounds)]
        self._blocks = [
            (self._games.rows(c.start, c.stop), self.buffers.rows(c.start, c.stop), SearchWork())
            for c in self._chunks
        ]
        """Each thread's games, buffers and search memory (views of the batch's rows)."""
        self._pool = ThreadPoolExecutor(self.threads) if self.threads > 1 else None
        self._rngs = env_generators(int(seed), n)
        self._outcomes: list[Outcome | None] = [None] * n
        self._started = False

    # ------------------------------------------------------------ games
    def _deal(self, g: int) -> None:
        """Start game ``g`` anew: the engine deals it from the game's generator."""
        game = self.model.new_state(self._rngs[g])
        s = game.state
        self._hands[g] = s.hands
        self._table[g] = 0
        self._pile[g, : len(s.pile)] = s.pile
        self._qwirkles[g] = 0
        row = self._scalars[g]
        row[:] = 0
        row[TO_MOVE] = s.to_move
        row[STARTER] = s.starter
        row[TURNS_LEFT] = -1
        row[PILE_LEN] = len(s.pile)
        row[PENDING] = FRESH
        self._turns[g] = 0
        self._turns[g, TABLE:HAND] = 0
        self._turns[g, HAND:PLAYED] = s.hands[s.to_move]
        self._turns[g, FIRST] = 1
        self._game_rngs[g] = game.rng

    def _shuffle(self, g: int) -> None:
        """Shuffle game ``g``'s pile as the engine does at a redraw."""
        n = int(self._scalars[g, PILE_LEN])
        pile = self._pile[g, :n].tolist()
        rng = self._game_rngs[g]
        assert rng is not None
        rng.shuffle(pile)
        self._pile[g, :n] = pile

    def _run(self, kernel: Any, *per_game: np.ndarray, search: bool = True) -> None:
        """Run a compiled kernel over the chunks of games (in threads when asked): each chunk
        gets its rows of the ``per_game`` arrays, then its games, its buffers, the settings
        and (with ``search``) its thread's search memory."""

        def call(i: int) -> None:
            c = self._chunks[i]
            games, buffers, work = self._blocks[i]
            scratch = (work,) if search else ()
            kernel(*[a[c] for a in per_game], games, buffers, self._settings, *scratch)

        if self._pool is None:  # one chunk, or several after close(): one after another
            for chunk in range(len(self._chunks)):
                call(chunk)
        else:
            list(self._pool.map(call, range(self.threads)))

    def _refresh(self, active: np.ndarray) -> None:
        """Finish the step in compiled code, then note the outcomes of the games that ended."""
        self._run(refresh, active)
        self._note_ends(active)

    def _note_ends(self, active: np.ndarray) -> None:
        """The seats to act, and the outcomes of the active games that ended."""
        self.current_player[:] = self._scalars[:, TO_MOVE]
        for g in np.flatnonzero((self.terminated | self.truncated) & active):
            scores = tuple(float(x) for x in self.episode_scores[g])
            if self.truncated[g]:
                self._outcomes[g] = Outcome(Ending.TRUNCATED, (), scores)
            else:
                best = max(scores)
                winners = tuple(p for p, x in enumerate(scores) if x == best)
                self._outcomes[g] = Outcome(Ending.FINISHED, winners, scores)

    # ------------------------------------------------------------ stepping
    def reset(self) -> None:
        """Start the next game in every slot."""
        for g in range(self.num_envs):
            self._deal(g)
        self.rewards[:] = 0.0
        self._refresh(np.ones(self.num_envs, dtype=np.bool_))
        self._started = True

    def restart(self, slots: Sequence[int], generators: Sequence[np.random.Generator]) -> None:
        """Deal the next game of each slot in ``slots`` from the generator at the same place
        in ``generators`` (the slot's generator from now on); it starts on the slot's next
        step, whose action it ignores, as after a game's end."""
        for g, rng in zip(slots, generators, strict=True):
            self._rngs[g] = rng
            self.action_mask[g] = 1  # as after a game's end: the next action is ignored
            self._deal(int(g))

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> None:
        """Play ``actions[i]`` in game ``i`` (each legal by ``action_mask``; ignored for a
        game that ended on the previous step, which starts anew instead); with ``active``,
        only in the games where it is True (the others' actions are not read). An illegal
        action raises :class:`IllegalActionError` naming the game, and nothing is applied."""
        rows, acts = self._checked(actions, active)
        self._run(apply_actions, rows, acts, search=False)
        for g in np.flatnonzero(self._scalars[:, PENDING] == SHUFFLE):
            self._shuffle(int(g))
        self._refresh(rows)

    def step_versus_random(
        self, actions: np.ndarray, active: np.ndarray, seats: np.ndarray, bitgens: np.ndarray
    ) -> None:
        """:meth:`step`, then in each active game the other seats move until seat
        ``seats[i]`` is to act or the game is over, each uniformly at random among its legal
        actions as ``Generator.choice`` draws it, from the bit generator at ``bitgens[i, k]``
        (:func:`~tabletop_rl.envs.core.compiled_random.bitgen_address`) for the ``k``-th seat
        other than ``seats[i]``; all in one compiled call (a redraw's shuffle too, from the
        game's generator, as :meth:`step` draws it). ``rewards`` then holds the sum of every
        move's rewards, the observation and mask rows the position reached (the opponents'
        own views are not written on the way)."""
        rows, acts = self._checked(actions, active)
        game_bitgens = np.zeros(self.num_envs, dtype=np.intp)
        for g in np.flatnonzero(rows).tolist():
            rng = self._game_rngs[g]
            assert rng is not None
            game_bitgens[g] = bitgen_address(rng)
        self._run(
            play_versus_random,
            rows,
            acts,
            np.asarray(seats, dtype=np.int64),
            np.asarray(bitgens, np.intp),
            game_bitgens,
        )
        self._note_ends(rows)

    def _checked(
        self, actions: np.ndarray, active: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The active rows and the actions as int64, checked (a clear error naming the first
        bad game, nothing applied); the games that ended on the step before dealt anew."""
        if not self._started:
            raise ConfigError("call reset() before step()")
        rows = check_active(active, self.num_envs)
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise IllegalActionError(
                f"actions must be {self.num_envs} integers (one per game), got shape "
                f"{acts.shape} of {acts.dtype}"
            )
        acts = acts.astype(np.int64, copy=False)
        bad = np.flatnonzero(rows & ((acts < 0) | (acts >= NUM_ACTIONS)))
        if bad.size:
            i = int(bad[0])
            raise IllegalActionError(
                f"game {i}: action {int(acts[i])} is out of range; allowed: 0 to {NUM_ACTIONS - 1}"
            )
        legal = self.action_mask[np.arange(self.num_envs), np.where(rows, acts, 0)] != 0
        illegal = np.flatnonzero(rows & ~legal)
        if illegal.size:
            i = int(illegal[0])
            raise IllegalActionError(
                f"game {i}: action {int(acts[i])} "
                f"({self.model.describe_action(None, int(acts[i]))}) is illegal: its "
                "action-mask entry is 0"
            )
        ended = (self.terminated | self.truncated) & rows
        for g in np.flatnonzero(ended & (self._scalars[:, PENDING] != FRESH)):
            self._deal(int(g))
        return rows, acts

    def observe_all(
        self, out: np.ndarray, rows: np.ndarray, fresh: np.ndarray | None = None
    ) -> bool:
        """Every seat's observation of each game in ``rows`` into ``out[g, seat]``, compiled
        (written whole: ``fresh`` is not needed); False (nothing written) with
        ``features=True``, whose features it does not write."""
        if self._feature_at.size:
            return False
        observe_all(rows, self._games, self._settings, out)
        return True

    def outcome(self, i: int) -> Outcome | None:
        """How the last finished game of slot ``i`` ended (None before any ended)."""
        return self._outcomes[i]

    def state(self, g: int) -> QwirkleCardsGame:
        """A copy of game ``g`` as the rules engine's game (the model's state), for the
        model's text, pictures and checks."""
        from .compiled_turns import CompiledQwirkleCardsGame
        from .game import QwirkleCardsState

        s = self._scalars[g]
        turn = self._turns[g]
        status = {RUNNING: Status.RUNNING, FINISHED: Status.FINISHED}.get(
            int(s[STATUS]), Status.TRUNCATED
        )
        state = QwirkleCardsState(
            num_players=self.num_players,
            hands=self._hands[g].tolist(),
            table=self._table[g].tolist(),
            pile=self._pile[g, : s[PILE_LEN]].tolist(),
            qwirkles=self._qwirkles[g].tolist(),
            starter=int(s[STARTER]),
            to_move=int(s[TO_MOVE]),
            turn_count=int(s[TURN_COUNT]),
            first_turn=bool(turn[FIRST]),
            played=turn[PLAYED:TAKEN].tolist(),
            taken=turn[TAKEN:FIRST].tolist(),
            end_rule=END_RULES[self._end_rule],
            max_turns=self._max_turns,
            turns_left=None if s[TURNS_LEFT] < 0 else int(s[TURNS_LEFT]),
            passes=int(s[PASSES]),
            status=status,
        )
        rng = copy.deepcopy(self._game_rngs[g])
        return CompiledQwirkleCardsGame(
            self.num_players, rng, state.end_rule, state.max_turns, state=state
        )

    def close(self) -> None:
        """Stop the worker threads (when ``threads > 1``)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


__all__ = ["QwirkleCardsBatch", "env_generators"]
