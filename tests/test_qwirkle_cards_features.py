"""Qwirkle Cards' observation features against the rules engine and the full position.

Positions come from games played through the reference and the compiled models in lockstep
(one seed deals the same game in both), with uniformly random sub-actions or greedy-ish ones
(a Qwirkle when one can be taken, else a card) so that tables grow and Qwirkles are taken.
Every feature is recomputed from the full state (every hand, the pile, the turn's selection)
by plain Python, the per-action ones by stepping a copy of the position with the engine.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from tabletop_rl.baselines.agents.qwirkle_cards_heuristic import hand_holds_all
from tabletop_rl.envs import make, qwirkle_cards_v0
from tabletop_rl.envs.core.conformance import check_batch, check_env, random_playout
from tabletop_rl.envs.core.features import FeatureModel, with_features
from tabletop_rl.envs.errors import ConfigError
from tabletop_rl.envs.qwirkle_cards.actions import CANNOT_PLAY, END_TURN, NUM_ACTIONS, TAKE
from tabletop_rl.envs.qwirkle_cards.cards import LINE_KINDS, NUM_KINDS, NUM_LINES
from tabletop_rl.envs.qwirkle_cards.compiled_model import QwirkleCardsCompiledModel
from tabletop_rl.envs.qwirkle_cards.features import FIELDS, QWIRKLE_CARDS_FEATURES
from tabletop_rl.envs.qwirkle_cards.game import QwirkleCardsGame
from tabletop_rl.envs.qwirkle_cards.model import QwirkleCardsModel
from tabletop_rl.envs.vector import VectorGames

TURN_FIELDS = ("action_turn_qwirkles", "action_turn_value")
"""Revision 2's turn values: checked against the engine's legal turns in
``test_qwirkle_cards_turn_values.py``."""
FEATURE_NAMES = [f.name for f in FIELDS if f.name not in TURN_FIELDS]


def _models(num_players: int) -> tuple[FeatureModel, FeatureModel]:
    ref = with_features(QwirkleCardsModel(num_players), QWIRKLE_CARDS_FEATURES)
    fast = with_features(QwirkleCardsCompiledModel(num_players), QWIRKLE_CARDS_FEATURES)
    assert isinstance(ref, FeatureModel) and isinstance(fast, FeatureModel)
    return ref, fast


def _pick(mask: np.ndarray, rng: np.random.Generator, greedy: bool) -> int:
    legal = np.flatnonzero(mask)
    if greedy:
        takes = [a for a in legal if TAKE <= a < END_TURN]
        plays = [a for a in legal if a < TAKE]
        if takes or plays:
            options = takes or plays
            return int(options[int(rng.integers(len(options)))])
    return int(legal[int(rng.integers(len(legal)))])


def positions(
    num_players: int, games: int, seed: int, every: int = 3
) -> Iterator[tuple[FeatureModel, QwirkleCardsGame, FeatureModel, QwirkleCardsGame]]:
    """Every ``every``-th position of ``games`` games played in both models in lockstep:
    ``(reference model, its state, compiled model, its state)``."""
    ref, fast = _models(num_players)
    for g in range(games):
        a = ref.new_state(np.random.default_rng([seed, g]))
        b = fast.new_state(np.random.default_rng([seed, g]))
        rng = np.random.default_rng([seed, g, 1])
        greedy = g % 2 == 1
        step = 0
        while not ref.is_over(a):
            if step % every == 0:
                yield ref, a, fast, b
            action = _pick(fast.legal_mask(b), rng, greedy)
            ref.step(a, action)
            fast.step(b, action)
            step += 1
        yield ref, a, fast, b


# ----------------------------------------------------------- the features, recomputed
def _selection_table(s) -> tuple[list[int], list[int]]:
    """The table the selection leaves and the cards the acting player still owes to it."""
    after = [t + p for t, p in zip(s.table, s.played, strict=True)]
    for line in range(NUM_LINES):
        for k in LINE_KINDS[line]:
            after[k] -= s.taken[line]
    return [max(a, 0) for a in after], [max(-a, 0) for a in after]


def _hidden(s, player: int) -> list[int]:
    """The cards ``player`` cannot see, per kind, from the full state: the other hands (cards
    played this turn are on view) and the pile."""
    out = [0] * NUM_KINDS
    for p in range(s.num_players):
        if p == player:
            continue
        for k in range(NUM_KINDS):
            out[k] += s.hands[p][k] - (s.played[k] if p == s.to_move else 0)
    for k in s.pile:
        out[k] += 1
    return out


def _lines(
    table: list[int], kept: list[int], hidden: list[int], next_hand: int
) -> tuple[list[int], list[int], list[int], list[float]]:
    missing, short, unseen, chance = [], [], [], []
    total = sum(hidden)
    for line in range(NUM_LINES):
        gone = [k for k in LINE_KINDS[line] if table[k] == 0]
        missing.append(len(gone))
        short.append(sum(1 for k in gone if kept[k] == 0))
        unseen.append(sum(1 for k in gone if hidden[k] > 0))
        chance.append(hand_holds_all(gone, hidden, total, next_hand))
    return missing, short, unseen, chance


def expected_features(
    model: QwirkleCardsModel, game: QwirkleCardsGame, player: int
) -> dict[str, np.ndarray]:
    """The features of ``player``'s observation recomputed from the full position."""
    s = game.state
    n = s.num_players
    acts = not game.over and s.to_move == player
    nxt = (player + 1) % n
    next_hand = sum(s.hands[nxt]) - (sum(s.played) if nxt == s.to_move else 0)
    hidden = _hidden(s, player)
    table, owed = _selection_table(s)
    hand = list(game.hand(player))
    kept = [h - o for h, o in zip(hand, owed, strict=True)] if acts else hand
    missing, short, unseen, chance = _lines(table, kept, hidden, next_hand)
    out = {
        "line_missing": np.array(missing, dtype=np.float32),
        "line_short": np.array(short, dtype=np.float32),
        "line_unseen": np.array(unseen, dtype=np.float32),
        "line_next_chance": np.array(chance, dtype=np.float32),
        "action_next_qwirkles": np.zeros(NUM_ACTIONS, dtype=np.float32),
        "action_own_lines": np.zeros(NUM_ACTIONS, dtype=np.float32),
    }
    if not acts:
        return out
    for action in np.flatnonzero(model.legal_mask(game)):
        if action == CANNOT_PLAY:
            out["action_next_qwirkles"][action] = sum(chance)
            continue
        after = game
        if action != END_TURN:  # the engine's own position after the sub-action
            after = game.copy()
            model.step(after, int(action))
        t, o = _selection_table(after.state)
        h = list(after.hand(player))
        k = [x - y for x, y in zip(h, o, strict=True)]
        _, sh, _, ch = _lines(t, k, hidden, next_hand)
        out["action_next_qwirkles"][action] = sum(ch)
        out["action_own_lines"][action] = sum(1 for x in sh if x == 0)
    return out


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_features_match_the_full_position_and_both_engines(num_players: int) -> None:
    checked = acting = 0
    for ref, a, fast, b in positions(num_players, games=4, seed=num_players, every=2):
        checked += 1
        for player in range(num_players):
            got = ref.layout.decode(ref.observe(a, player))
            fast_obs = fast.observe(b, player)
            assert (fast_obs == ref.observe(a, player)).all(), "engines disagree"
            want = expected_features(ref.base, a, player)
            for name in FEATURE_NAMES:
                np.testing.assert_allclose(got[name], want[name], atol=2e-6, err_msg=name)
            acting += got["action_next_qwirkles"].any()
    assert checked >= 200 and acting >= 100


def test_a_take_is_legal_only_where_the_observer_holds_the_missing_kinds() -> None:
    """At the start of a turn the take actions' mask is the engine's exact answer; a line the
    engine lets the player complete has ``line_short`` 0, and the count predicate is no
    vacuous: it is often true where the engine agrees."""
    agree = 0
    for _, _, fast, b in positions(2, games=6, seed=11, every=1):
        s = b.state
        if fast.is_over(b) or s.first_turn or any(s.played) or any(s.taken):
            continue
        player = s.to_move
        views = fast.layout.decode(fast.observe(b, player))
        mask = fast.legal_mask(b)
        for line in range(NUM_LINES):
            if mask[TAKE + line]:
                assert views["line_short"][line] == 0, (line, fast.to_text(b))
                agree += 1
    assert agree >= 10


def test_features_show_nothing_hidden() -> None:
    """Redealing everything the observer cannot see leaves their features unchanged."""
    rng = np.random.default_rng(0)
    changed_hidden = 0
    for _, _, fast, b in positions(3, games=2, seed=5, every=7):
        for player in range(3):
            before = fast.observe(b, player)
            other = fast.copy(b)
            fast.resample_hidden(other, player, rng)
            assert (fast.observe(other, player) == before).all()
            nxt = (player + 1) % 3
            changed_hidden += other.state.hands[nxt] != b.state.hands[nxt]
    assert changed_hidden > 10  # the redeal did change the hidden cards


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_env_with_features_passes_conformance(num_players: int) -> None:
    check_env(lambda: make("qwirkle_cards_v0", raw=True, num_players=num_players, features=True))


def test_observations_stay_in_bounds_in_both_engines() -> None:
    for engine in ("compiled", "reference"):
        env = qwirkle_cards_v0.raw_env(num_players=3, engine=engine, features=True)
        assert env.observation_space("player_0")["observation"].shape == (473,)
        random_playout(env, np.random.default_rng(1), seed=1)


@pytest.mark.parametrize("num_players", [2, 4])
def test_compiled_batch_with_features_equals_single_games(num_players: int) -> None:
    """The compiled batch writes the features as the feature model does, through finished
    games (final observations) and autoresets."""
    finished = check_batch(
        "qwirkle_cards_v0", num_envs=3, num_players=num_players, steps=300, seed=2, features=True
    )
    assert finished > 0


def test_compiled_batch_features_in_threads_equal_one_thread() -> None:
    one = VectorGames("qwirkle_cards_v0", num_envs=6, seed=1, features=True)
    two = VectorGames("qwirkle_cards_v0", num_envs=6, seed=1, features=True, threads=2)
    a, b = one.reset(), two.reset()
    rng = np.random.default_rng(0)
    for _ in range(150):
        assert (a.observation == b.observation).all()
        actions = np.argmax(rng.random(a.action_mask.shape) * a.action_mask, axis=1)
        a, b = one.step(actions), two.step(actions)


def test_features_option_everywhere_environments_are_built() -> None:
    env = make("qwirkle_cards_v0", raw=True, features=True)
    assert env.layout.size == QwirkleCardsModel().layout.size + sum(f.size for f in FIELDS)
    games = VectorGames("qwirkle_cards_v0", num_envs=2, seed=3, features=True)
    model = VectorGames("qwirkle_cards_v0", num_envs=2, seed=3, features=True, engine="reference")
    assert (games.backend, model.backend) == ("compiled", "reference")
    out, expected = games.reset(), model.reset()
    assert out.observation.shape == (2, env.layout.size)
    assert (out.observation == expected.observation).all()
    for i in range(2):
        views = env.layout.decode(out.observation[i])
        assert views["line_missing"].tolist() == [6.0] * NUM_LINES  # before the start row
    with pytest.raises(ConfigError, match="features must be True or False, got 'yes'"):
        qwirkle_cards_v0.raw_env(features="yes")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="features must be True or False, got 1"):
        VectorGames("qwirkle_cards_v0", num_envs=2, features=1)
