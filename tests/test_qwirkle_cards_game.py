"""Qwirkle Cards rules engine: the seed's example, turns, redraw, start, end rules, notation."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import pickle

import numpy as np
import pytest

from tabletop_rl.envs.errors import ConfigError, IllegalMoveError, NotationError
from tabletop_rl.envs.qwirkle_cards import cards, solver
from tabletop_rl.envs.qwirkle_cards.cards import (
    LINE_KINDS,
    NUM_KINDS,
    NUM_LINES,
    parse_card,
    parse_cards,
    parse_line,
)
from tabletop_rl.envs.qwirkle_cards.compiled_turns import CompiledTurnBuilder
from tabletop_rl.envs.qwirkle_cards.game import QwirkleCardsGame, Status, TurnEnd
from tabletop_rl.envs.qwirkle_cards.turns import (
    Turn,
    TurnBuilder,
    legal_turns,
    qwirkle_cards,
    start_turns,
)


def position(**overrides: str) -> str:
    """A two-player position in the text notation, with some keys replaced."""
    fields = {
        "players": "2",
        "starter": "0",
        "to_move": "0",
        "turn": "5",
        "first_turn": "no",
        "end_rule": "finish_round",
        "max_turns": "500",
        "turns_left": "-",
        "passes": "0",
        "status": "running",
        "table": "-",
        "pile": "-",
        "hand 0": "-",
        "hand 1": "-",
        "qwirkles 0": "-",
        "qwirkles 1": "-",
        "played": "-",
        "taken": "-",
    }
    fields.update({k.replace("_", " ") if k.startswith(("hand", "qwirkles")) else k: v
                   for k, v in overrides.items()})  # fmt: skip
    return "qwirkle_cards v0\n" + "\n".join(f"{k}: {v}" for k, v in fields.items()) + "\n"


def turn_of(played: str, taken: str = "") -> Turn:
    t = [0] * NUM_LINES
    for w in taken.split():
        t[parse_line(w)] += 1
    return Turn(parse_cards(played), tuple(t))


# ------------------------------------------------------------------ seed example (seed 003)
SEED_TABLE = parse_cards("Bo Bx Bs Ro Rx Rs")


def test_three_diamonds_start_a_new_row_and_a_star_joins_the_blue_row() -> None:
    hand = parse_cards("Rd Od Yd Bt Bs Gc Pc Oo Yx")
    turns = set(legal_turns(SEED_TABLE, hand))
    assert turn_of("Rd Od Yd") in turns
    assert turn_of("Bt") in turns
    assert turn_of("Rd Od Yd Bt") in turns
    after = solver.arrange_rows(cards.kinds_to_counts(
        [*cards.counts_to_kinds(SEED_TABLE), *cards.counts_to_kinds(parse_cards("Rd Od Yd Bt"))]
    ))  # fmt: skip
    names = sorted(" ".join(cards.card_name(k) for k in row) for row in after)
    assert names == ["Bo Bx Bs Bt", "Rd Od Yd", "Ro Rx Rs"]


def test_a_blue_square_cannot_join_a_blue_row_holding_one() -> None:
    hand = parse_cards("Bs Gc Pc")
    assert turn_of("Bs") not in set(legal_turns(SEED_TABLE, hand))
    assert legal_turns(SEED_TABLE, hand) == []


def test_rearrangement_uses_cards_from_other_rows() -> None:
    """Ys alone makes a square row with Rs and Bs taken from two 4-card rows."""
    table = parse_cards("Ro Rx Rs Rt Bo Bx Bd Bs")
    assert legal_turns(table, parse_cards("Ys Gc")) == [turn_of("Ys")]
    rows = solver.arrange_rows(solver.find_split(parse_cards("Ro Rx Rs Rt Bo Bx Bd Bs Ys")).total)
    assert any({cards.card_name(k) for k in row} == {"Rs", "Bs", "Ys"} for row in rows)
    # the same card cannot join when a row would drop below 3
    assert legal_turns(parse_cards("Ro Rx Rs Bo Bx Bs"), parse_cards("Ys Gc")) == []


def test_a_qwirkle_formed_by_regrouping_is_taken_with_a_card_from_the_hand() -> None:
    table = parse_cards("Rd Od Yd Gd Rs Os Ys Gs Ro Rx Rt")
    hand = parse_cards("Rc Gc")
    turns = set(legal_turns(table, hand))
    assert turn_of("Rc", "R") in turns  # Ro Rx Rt + Rd, Rs from the symbol rows + Rc
    assert turn_of("Rc") in turns
    b = TurnBuilder(table, hand)
    assert b.can_take(parse_line("R")) and not b.can_take(parse_line("d"))
    b.take(parse_line("R"))  # Qwirkles are announced first
    assert b.can_play(parse_card("Rc")) and not b.can_play(parse_card("Gc"))
    assert not b.can_end()  # Rc must still be played
    b.play(parse_card("Rc"))
    assert b.can_end() and not b.can_take(parse_line("R"))


def test_two_qwirkles_of_one_line_when_the_cards_exist() -> None:
    table = parse_cards("Ro Rx Rd Rs Rt Ro Rx Rd Rs Rt Rc")
    turns = set(legal_turns(table, parse_cards("Rc")))
    assert turn_of("Rc", "R R") in turns
    assert turn_of("Rc", "R") in turns and turn_of("Rc") in turns
    # one Qwirkle too many: nothing may be left that is not a row
    assert not any(t.num_qwirkles == 3 for t in turns)


# ------------------------------------------------------------------ masks vs brute force
def brute_force_valid(counts: tuple[int, ...]) -> bool:
    live = [k for k in range(NUM_KINDS) if counts[k]]
    for split in itertools.product(*[range(counts[k] + 1) for k in live]):
        received = [[0] * 6 for _ in range(12)]
        for k, a in zip(live, split, strict=True):
            received[k // 6][k % 6] += a
            received[6 + k % 6][k // 6] += counts[k] - a
        if all(sum(r) == 0 or sum(r) >= 3 * max(r) for r in received):
            return True
    return False


def brute_force_turns(table: tuple[int, ...], hand: tuple[int, ...]) -> set[Turn]:
    out = set()
    ranges = [range(hand[k] + 1) for k in range(NUM_KINDS)]
    for played in itertools.product(*ranges):
        if not any(played):
            continue
        after = tuple(t + p for t, p in zip(table, played, strict=True))
        full = [L for L in range(NUM_LINES) if all(after[k] for k in LINE_KINDS[L])]
        for taken_lines in itertools.chain.from_iterable(
            itertools.combinations_with_replacement(full, r) for r in range(4)
        ):
            taken = [0] * NUM_LINES
            for L in taken_lines:
                taken[L] += 1
            rest = tuple(a - q for a, q in zip(after, qwirkle_cards(taken), strict=True))
            if min(rest) >= 0 and brute_force_valid(rest):
                out.add(Turn(played, tuple(taken)))
    return out


BUILDERS = pytest.mark.parametrize(
    "builder", [TurnBuilder, CompiledTurnBuilder], ids=["reference", "compiled"]
)
"""The reference turn builder and the compiled one face the same brute-force oracle."""


def turns_through_builder(
    table: tuple[int, ...], hand: tuple[int, ...], builder: type = TurnBuilder
) -> set[Turn]:
    """Every turn reachable by legal sub-actions; every reachable state can go on (no dead
    ends)."""
    found: set[Turn] = set()

    def rec(b: TurnBuilder) -> None:
        plays, takes, end = b.legal()
        assert plays or takes or end, "dead end"
        assert plays == [k for k in range(NUM_KINDS) if b.can_play(k)]
        if end:
            found.add(b.turn())
        for k in plays:
            nb = copy.deepcopy(b)
            nb.play(k)
            rec(nb)
        for L in takes:
            nb = copy.deepcopy(b)
            nb.take(L)
            rec(nb)

    root = builder(table, hand)
    if root.can_play_any():
        rec(root)
    return found


def small_positions(rng: np.random.Generator, count: int) -> list[tuple[tuple, tuple]]:
    out = []
    while len(out) < count:
        colours = rng.choice(6, size=4, replace=False)
        symbols = rng.choice(6, size=4, replace=False)
        pool = [int(c) * 6 + int(s) for c in colours for s in symbols]
        table = [0] * NUM_KINDS
        for _ in range(rng.integers(0, 3)):  # rows of three kinds of the pool
            colour, symbol = int(rng.choice(colours)), int(rng.choice(symbols))
            if rng.random() < 0.5:
                row = [colour * 6 + int(s) for s in rng.permutation(symbols)[:3]]
            else:
                row = [int(c) * 6 + symbol for c in rng.permutation(colours)[:3]]
            for k in row:
                table[k] = min(2, table[k] + 1)
        if not solver.is_valid_table(tuple(table)):
            continue
        hand = [0] * NUM_KINDS
        for _ in range(rng.integers(2, 6)):
            k = int(rng.choice(pool))
            if table[k] + hand[k] < 3:
                hand[k] += 1
        if np.prod([c + 1 for c in table]) * np.prod([h + 1 for h in hand]) > 5000:
            continue
        out.append((tuple(table), tuple(hand)))
    return out


@BUILDERS
def test_masks_and_legal_turns_match_brute_force(builder: type) -> None:
    rng = np.random.default_rng(3)
    nonempty = 0
    for table, hand in small_positions(rng, 120):
        expected = brute_force_turns(table, hand)
        assert set(legal_turns(table, hand)) == expected
        assert turns_through_builder(table, hand, builder) == expected
        assert builder(table, hand).can_play_any() == bool(expected)
        nonempty += bool(expected)
    assert 20 < nonempty < 115


@BUILDERS
def test_masks_match_brute_force_around_qwirkles(builder: type) -> None:
    """Positions one card short of a Qwirkle, some with a crossing row to regroup."""
    rng = np.random.default_rng(8)
    with_qwirkle = 0
    for _ in range(40):
        line = int(rng.integers(NUM_LINES))
        kinds = list(rng.permutation(LINE_KINDS[line]))
        table = [0] * NUM_KINDS
        for k in kinds[:5]:
            table[int(k)] = 1
        if rng.random() < 0.5:  # a crossing row through one of the line's cards
            k0 = int(kinds[0])
            cross = LINE_KINDS[6 + k0 % 6] if line < 6 else LINE_KINDS[k0 // 6]
            for k in rng.permutation([k for k in cross if k != k0])[:2]:
                table[int(k)] += 1
        hand = [0] * NUM_KINDS
        hand[int(kinds[5])] = 1
        for k in rng.choice(NUM_KINDS, size=2):
            if table[int(k)] + hand[int(k)] < 3:
                hand[int(k)] += 1
        table_t, hand_t = tuple(table), tuple(hand)
        if not solver.is_valid_table(table_t):
            continue
        expected = brute_force_turns(table_t, hand_t)
        assert set(legal_turns(table_t, hand_t)) == expected
        assert turns_through_builder(table_t, hand_t, builder) == expected
        with_qwirkle += any(t.num_qwirkles for t in expected)
    assert with_qwirkle > 10


@BUILDERS
def test_a_qwirkle_table_for_the_masks(builder: type) -> None:
    table = parse_cards("Ro Rx Rd Rs Rt Bc Gc")
    hand = parse_cards("Rc Oc Rc")
    expected = brute_force_turns(table, hand)
    assert any(t.num_qwirkles for t in expected)
    assert turns_through_builder(table, hand, builder) == expected
    assert expected == set(legal_turns(table, hand))


# ------------------------------------------------------------------ start
def test_start_turns_lay_exactly_a_largest_set() -> None:
    hand = parse_cards("Rs Rs Ro Rx Bs Ys Gd Gd Pt")
    turns = start_turns(hand)
    assert sorted(str(t) for t in turns) == ["play Ro Rx Rs", "play Rs Ys Bs"]
    six = start_turns(parse_cards("Ro Rx Rd Rs Rt Rc Bs Bs Bs"))
    assert six == [turn_of("Ro Rx Rd Rs Rt Rc", "R")]


def test_start_turn_through_sub_actions_takes_the_qwirkle() -> None:
    b = TurnBuilder(EMPTY, parse_cards("Ro Rx Rd Rs Rt Rc Bs Bs Bs"), first_turn=True)
    assert b.legal() == ([], [parse_line("R")], False)  # the Qwirkle is taken first
    b.take(parse_line("R"))
    for name in ("Ro", "Rx", "Rd", "Rs", "Rt"):
        assert b.can_play(parse_card(name)) and not b.can_end()
        b.play(parse_card(name))
    assert not b.can_play(parse_card("Bs")) and not b.can_take(parse_line("R"))
    b.play(parse_card("Rc"))
    assert b.can_end()


EMPTY = (0,) * NUM_KINDS


def test_the_starter_has_the_largest_set_and_plays_it() -> None:
    for seed in range(20):
        game = QwirkleCardsGame(3, np.random.default_rng(seed))
        numbers = [max(len({k for k in LINE_KINDS[L] if h[k]}) for L in range(12))
                   for h in game.state.hands]  # fmt: skip
        assert numbers[game.state.starter] == max(numbers) >= 3
        assert game.to_move == game.state.starter
        turns = game.legal_turns()
        assert all(t.num_played == max(numbers) for t in turns)
        game.apply_turn(turns[0])
        assert sum(game.state.hands[game.state.starter]) == 9
        assert game.to_move == (game.state.starter + 1) % 3


def test_start_ties_are_broken_by_the_generator() -> None:
    starters = set()
    for seed in range(60):
        game = QwirkleCardsGame(4, np.random.default_rng(seed))
        numbers = [max(len({k for k in LINE_KINDS[L] if h[k]}) for L in range(12))
                   for h in game.state.hands]  # fmt: skip
        if numbers.count(max(numbers)) > 1:
            starters.add(game.state.starter)
    assert len(starters) >= 2


class _ScriptedRng(np.random.Generator):
    """A scripted generator (the game takes only a ``numpy.random.Generator``): the first deal
    gives nobody a set of 3, the second is random."""

    def __init__(self) -> None:
        super().__init__(np.random.PCG64(0))
        self.deals = 0

    def permutation(self, deck: np.ndarray) -> np.ndarray:  # type: ignore[override]
        self.deals += 1
        if self.deals > 1:
            return super().permutation(deck)
        # a staircase of 9 kinds: no colour and no symbol holds 3 different kinds
        stair = [(0, 0), (0, 1), (1, 1), (1, 2), (2, 2), (2, 3), (3, 3), (3, 4), (4, 4)]
        kinds = [c * 6 + s for c, s in stair]
        rest = list(deck)
        for k in kinds * 2:
            rest.remove(k)
        return np.array(rest + kinds + kinds)  # dealt from the end


def test_redeal_when_nobody_has_three() -> None:
    rng = _ScriptedRng()
    game = QwirkleCardsGame(2, rng)
    assert rng.deals == 2 and game.state.redeals == 1
    game.check_conservation()


# ------------------------------------------------------------------ cannot play
STUCK_HAND = "Gd Gd Gt Gt Bc Bc Yd Yd Bt"


def test_forced_redraw_shuffles_the_hand_into_the_pile_and_draws_nine() -> None:
    pile = "Po Po Px Px Pd Pd Ps Ps Pt Pt Pc Pc"
    game = QwirkleCardsGame.from_text(
        position(table="Ro Rx Rs", pile=pile, hand_0=STUCK_HAND, hand_1="Rd Rt Rc"),
        np.random.default_rng(1),
    )
    assert game.legal_turns() == [] and game.must_redraw()
    with pytest.raises(IllegalMoveError, match="cannot end yet"):
        game.end_turn()
    assert game.cannot_play() is TurnEnd.REDRAW
    assert sum(game.state.hands[0]) == 9
    assert len(game.state.pile) == 12
    assert game.to_move == 1 and game.state.turns_left is None
    assert sorted(cards.counts_to_kinds(game.state.hands[0]) + game.state.pile) == sorted(
        cards.counts_to_kinds(parse_cards(STUCK_HAND + " " + pile))
    )


def test_redraw_refused_when_a_play_exists() -> None:
    game = QwirkleCardsGame.from_text(
        position(table="Ro Rx Rs", pile="Po", hand_0="Rd", hand_1="Gc")
    )
    with pytest.raises(IllegalMoveError, match="can play"):
        game.cannot_play()


def test_pass_with_an_empty_pile_and_the_passes_ending() -> None:
    # the end was triggered when the pile emptied: at most one turn per player is left (a
    # position with more, such as turns_left 5 for two players, is refused as impossible)
    game = QwirkleCardsGame.from_text(
        position(
            table="Ro Rx Rs",
            hand_0=STUCK_HAND,
            hand_1="Gc Pc",
            end_rule="final_turn_each",
            turns_left="2",
        )
    )
    assert game.cannot_play() is TurnEnd.PASS
    assert game.state.passes == 1 and game.to_move == 1
    assert game.cannot_play() is TurnEnd.PASS
    assert game.status is Status.FINISHED  # two passes in a row with an empty pile


# ------------------------------------------------------------------ end rules
def _end_game(rule: str, starter: int, mover: int) -> QwirkleCardsGame:
    """Three players; whoever moves first draws the pile's last card."""
    return QwirkleCardsGame.from_text(
        position(
            players="3",
            starter=str(starter),
            to_move=str(mover),
            end_rule=rule,
            table="Ro Rx Rs",
            pile="Pc",
            hand_0="Rd",
            hand_1="Rt",
            hand_2="Rc",
            qwirkles_2="-",
        )
    )


def test_finish_round_ends_after_the_seat_before_the_starter() -> None:
    game = _end_game("finish_round", starter=0, mover=0)
    game.apply_turn(turn_of("Rd"))  # draws the last card
    assert game.state.pile == [] and game.turns_remaining() == 2
    game.apply_turn(turn_of("Rt"))
    assert game.status is Status.RUNNING and game.turns_remaining() == 1
    game.apply_turn(turn_of("Rc"))
    assert game.status is Status.FINISHED and game.to_move == 2
    # the player just before the starter draws the last card: the game ends at once
    game = _end_game("finish_round", starter=1, mover=0)
    game.apply_turn(turn_of("Rd"))
    assert game.status is Status.FINISHED


def test_final_turn_each_gives_everyone_one_more_turn() -> None:
    game = _end_game("final_turn_each", starter=1, mover=0)
    game.apply_turn(turn_of("Rd"))
    assert game.turns_remaining() == 3
    game.apply_turn(turn_of("Rt"))
    game.apply_turn(turn_of("Rc"))
    assert game.status is Status.RUNNING
    assert game.to_move == 0  # the player who drew the last card plays once more
    assert game.cannot_play() is TurnEnd.PASS  # Pc alone cannot be played
    assert game.status is Status.FINISHED


def test_turn_limit_truncates() -> None:
    game = QwirkleCardsGame(2, np.random.default_rng(0), max_turns=3)
    rng = np.random.default_rng(0)
    while not game.over:
        turns = game.legal_turns()
        if turns:
            game.apply_turn(turns[int(rng.integers(len(turns)))])
        else:
            game.cannot_play()
    assert game.status is Status.TRUNCATED and game.turn_count == 3


def test_shared_win_on_equal_qwirkles() -> None:
    game = QwirkleCardsGame.from_text(position(qwirkles_0="R s", qwirkles_1="B o"))
    assert game.winners() == [0, 1]
    game = QwirkleCardsGame.from_text(position(qwirkles_0="R s", qwirkles_1="B"))
    assert game.winners() == [0]


def test_bad_options() -> None:
    with pytest.raises(ConfigError, match="end_rule='german' is unknown; allowed"):
        QwirkleCardsGame(2, end_rule="german")
    with pytest.raises(ConfigError, match="max_turns"):
        QwirkleCardsGame(2, max_turns=0)


# ------------------------------------------------------------------ notation, copies
def test_notation_round_trip_and_errors() -> None:
    game = QwirkleCardsGame(3, np.random.default_rng(9))
    rng = np.random.default_rng(9)
    for _ in range(6):
        turns = game.legal_turns()
        if turns:
            game.apply_turn(turns[int(rng.integers(len(turns)))])
        else:
            game.cannot_play()
    text = game.to_text()
    again = QwirkleCardsGame.from_text(text)
    assert again.to_text() == text
    assert again.legal_turns() == game.legal_turns()
    with pytest.raises(NotationError, match="starts with"):
        QwirkleCardsGame.from_text("hello")
    with pytest.raises(NotationError, match="missing"):
        QwirkleCardsGame.from_text(text.replace("passes: 0\n", ""))
    with pytest.raises(NotationError, match="unknown"):
        QwirkleCardsGame.from_text(position(table="Zz"))
    with pytest.raises(NotationError, match="4 copies of Ro"):
        QwirkleCardsGame.from_text(position(table="Ro Ro Ro", hand_0="Ro"))


def test_clone_and_pickle_continue_identically() -> None:
    game = QwirkleCardsGame(2, np.random.default_rng(4))
    game.apply_turn(game.legal_turns()[0])
    clones = [game.copy(), pickle.loads(pickle.dumps(game))]
    for g in [game, *clones]:
        rng = np.random.default_rng(5)
        for _ in range(5):
            turns = g.legal_turns()
            if turns:
                g.apply_turn(turns[int(rng.integers(len(turns)))])
            else:
                g.cannot_play()
    assert clones[0].to_text() == clones[1].to_text() == game.to_text()


def test_a_copy_shares_no_mutable_part_of_the_position() -> None:
    """``copy`` copies field by field (for speed): every list of the position, nested ones
    included, and the generator are the copy's own, so a field added later without a copy
    fails here; playing the copy on leaves the game as it was, mid-turn too."""
    game = QwirkleCardsGame(2, np.random.default_rng(4))
    game.apply_turn(game.legal_turns()[0])
    kinds = [k for k in range(NUM_KINDS) if game.state.hands[game.to_move][k]]
    game.play_card(next(k for k in kinds if game.builder().can_play(k)))
    clone = game.copy()
    for f in dataclasses.fields(game.state):
        mine, theirs = getattr(game.state, f.name), getattr(clone.state, f.name)
        assert mine == theirs
        if isinstance(mine, list):
            assert mine is not theirs, f.name
            assert all(a is not b for a, b in zip(mine, theirs, strict=True) if isinstance(a, list))
        else:
            assert isinstance(mine, (int, str, type(None), Status)), f"{f.name} is not copied"
    assert clone.rng is not game.rng
    before = game.to_text()
    while not clone.builder().can_end():  # finish the turn under way on the copy alone
        clone.play_card(next(k for k in range(NUM_KINDS) if clone.builder().can_play(k)))
    clone.end_turn()
    rng = np.random.default_rng(5)
    for _ in range(10):
        turns = clone.legal_turns()
        if clone.over:
            break
        if turns:
            clone.apply_turn(turns[int(rng.integers(len(turns)))])
        else:
            clone.cannot_play()
    assert game.to_text() == before and clone.to_text() != before
