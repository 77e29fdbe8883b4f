"""Records and features: segment layout, one-hots, scalars, batching, bucket features, and Leduc's 936
information states."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pokerai.abstraction.buckets import CardAbstraction
from pokerai.abstraction.isomorphism import BOARD_SIZES, street_indexer
from pokerai.deepcfr.encoding import (
    BOARD_OFFSET,
    FEATURE_SIZE,
    HOLE_OFFSET,
    LEDUC_FEATURE_SIZE,
    SCALARS_OFFSET,
    STREET_OFFSET,
    STRENGTH_SIZE,
    Encoder,
    HUNLEncoder,
    LeducEncoder,
    make_encoder,
    record_array,
)
from pokerai.engine.cards import parse_cards
from pokerai.engine.equity import hand_class, preflop_equity_table
from pokerai.engine.evaluator import CATEGORIES, hand_category, rank_hand
from pokerai.games import KuhnPoker, LeducPoker
from pokerai.games.holdem import HUNL_RECORD_DTYPE, NOT_DEALT
from pokerai.games.hunl import HUNLGame, HUNLGameState
from pokerai.games.leduc import LeducState
from pokerai.games.protocol import State
from tests.deepcfr.fake_abstraction import FAKE_BUCKETS, fake_abstraction

DECK = parse_cards("Ah Kd 2c 2d Qs 7d 2h 3c 4c")


def hunl_decisions(game: HUNLGame, hands: int, seed: int) -> list[HUNLGameState]:
    """Every decision of ``hands`` random playouts."""
    rng = np.random.default_rng(seed)
    states: list[HUNLGameState] = []
    for _ in range(hands):
        state = game.deal(rng)
        while not state.is_terminal():
            states.append(state)
            legal = state.legal_actions()
            # Fold rarely so that hands reach the later streets.
            weights = np.array([0.05 if slot == 0 else 1.0 for slot in legal])
            state = state.child(int(rng.choice(legal, p=weights / weights.sum())))
    return states


def test_hunl_layout() -> None:
    encoder = HUNLEncoder(HUNLGame())
    assert isinstance(encoder, Encoder)
    assert encoder.feature_size == FEATURE_SIZE == 373
    assert encoder.num_slots == 6
    segments = encoder.describe()["segments"]
    assert segments == {
        "hole": {"offset": HOLE_OFFSET, "size": 104},
        "board": {"offset": BOARD_OFFSET, "size": 260},
        "street": {"offset": STREET_OFFSET, "size": 4},
        "scalars": {"offset": SCALARS_OFFSET, "size": 5},
    }
    assert (HOLE_OFFSET, BOARD_OFFSET, STREET_OFFSET, SCALARS_OFFSET) == (0, 104, 364, 368)
    assert HUNL_RECORD_DTYPE.itemsize <= 32
    assert encoder.describe()["record_bytes"] == HUNL_RECORD_DTYPE.itemsize


def test_hunl_features_show_exactly_the_cards_the_player_sees() -> None:
    game = HUNLGame()
    encoder = HUNLEncoder(game)
    states = hunl_decisions(game, hands=60, seed=11)
    assert {state.street for state in states} == {0, 1, 2, 3}
    players = [state.current_player() for state in states]
    features = encoder.encode(record_array(encoder, states, players))
    assert features.dtype == np.float32 and features.shape == (len(states), FEATURE_SIZE)
    assert set(np.unique(features[:, :SCALARS_OFFSET])) <= {0.0, 1.0}
    for state, player, row in zip(states, players, features, strict=True):
        low, high = sorted(state.engine.hole_cards(player))
        hole = row[HOLE_OFFSET:BOARD_OFFSET].reshape(2, 52)
        assert hole.sum() == 2 and hole[0, low] == 1 and hole[1, high] == 1
        board = row[BOARD_OFFSET:STREET_OFFSET].reshape(5, 52)
        dealt = state.engine.board
        expected_board = [*sorted(dealt[:3]), *dealt[3:]]
        assert board.sum() == len(dealt)
        for slot in range(5):
            if slot < len(dealt):
                assert board[slot].sum() == 1 and board[slot, expected_board[slot]] == 1
            else:
                assert board[slot].sum() == 0
        # Neither the opponent's cards nor cards still to come appear anywhere.
        seen_cards = set(np.flatnonzero(hole.sum(axis=0))) | set(np.flatnonzero(board.sum(axis=0)))
        assert seen_cards == {low, high, *dealt}
        street = row[STREET_OFFSET:SCALARS_OFFSET]
        assert street.sum() == 1 and street[state.street] == 1
        scalars = row[SCALARS_OFFSET:]
        assert np.all((scalars >= 0) & (scalars <= 1))
        engine = state.engine
        assert scalars[0] == pytest.approx(engine.pot / 40_000)
        assert scalars[1] == pytest.approx(engine.stacks[player] / 20_000)
        assert scalars[2] == pytest.approx(engine.stacks[1 - player] / 20_000)
        assert scalars[3] == pytest.approx(engine.call_amount / (engine.pot + engine.call_amount))
        assert scalars[4] == pytest.approx(min(state.raises_this_street / 4, 1.0))


def test_hunl_batch_equals_row_by_row() -> None:
    game = HUNLGame()
    encoder = HUNLEncoder(game)
    states = hunl_decisions(game, hands=10, seed=3)
    records = record_array(encoder, states, [state.current_player() for state in states])
    batch = encoder.encode(records)
    for index in range(len(records)):
        np.testing.assert_array_equal(batch[index], encoder.encode(records[index : index + 1])[0])
    assert encoder.encode(records[:0]).shape == (0, FEATURE_SIZE)


def test_hunl_records_of_the_two_players_differ_only_in_private_and_relative_fields() -> None:
    game = HUNLGame()
    encoder = HUNLEncoder(game)
    # Button raises to 300 and the big blind faces it: the players' views of one state.
    state = game.from_deck(DECK).child(3)
    button, big_blind = record_array(encoder, [state, state], [0, 1])
    assert button["player"] == 0 and big_blind["player"] == 1
    assert sorted(button["hole"]) == sorted(DECK[0:2]) and list(button["hole"]) == sorted(button["hole"])
    assert sorted(big_blind["hole"]) == sorted(DECK[2:4])
    for field in ("board", "street", "pot", "raises"):
        np.testing.assert_array_equal(button[field], big_blind[field])
    assert list(button["board"]) == [NOT_DEALT] * 5
    assert (button["own_stack"], button["opponent_stack"]) == (19_700, 19_900)
    assert (big_blind["own_stack"], big_blind["opponent_stack"]) == (19_900, 19_700)
    assert (button["to_call"], big_blind["to_call"]) == (0, 200)
    assert button["pot"] == 400 and button["raises"] == 1


def test_hunl_states_with_one_key_share_features() -> None:
    game = HUNLGame()
    encoder = HUNLEncoder(game)
    swapped = [DECK[1], DECK[0], 48, 49, DECK[6], DECK[4], DECK[5], 40, 41]
    first = game.from_deck(DECK).child(3).child(1)
    second = game.from_deck(swapped).child(3).child(1)
    assert first.information_state_key(0) == second.information_state_key(0)
    features = encoder.encode(record_array(encoder, [first, second], [0, 0]))
    np.testing.assert_array_equal(features[0], features[1])


def test_leduc_every_information_state_has_its_own_features() -> None:
    game = LeducPoker()
    encoder = LeducEncoder(game)
    assert encoder.feature_size == LEDUC_FEATURE_SIZE == 30
    assert encoder.num_slots == 3
    keys: list[str] = []
    states: list[LeducState] = []
    players: list[int] = []

    def walk(state: State) -> None:
        if state.is_terminal():
            return
        if state.is_chance():
            for outcome, _ in state.chance_outcomes():
                walk(state.child(outcome))
            return
        player = state.current_player()
        assert isinstance(state, LeducState)
        keys.append(state.information_state_key(player))
        states.append(state)
        players.append(player)
        for action in state.legal_actions():
            walk(state.child(action))

    walk(game.initial_state())
    features = encoder.encode(record_array(encoder, states, players))
    rows_by_key: dict[str, bytes] = {}
    for key, row in zip(keys, features, strict=True):
        assert rows_by_key.setdefault(key, row.tobytes()) == row.tobytes(), key
    assert len(rows_by_key) == 936
    assert len(set(rows_by_key.values())) == 936
    assert features.min() >= 0 and features.max() <= 1
    segments = encoder.describe()["segments"]
    round_segment = segments["round"]
    assert np.all(features[:, round_segment["offset"] : round_segment["offset"] + 2].sum(axis=1) == 1)


def test_leduc_record_fields() -> None:
    encoder = LeducEncoder(LeducPoker())
    state = LeducState(cards=(4, 1, 2), rounds=("rc", "cr"))  # Ks vs Jh, board Qs
    record = record_array(encoder, [state], [0])[0]
    assert record["card"] == 4 and record["board"] == 2
    assert record["actions"].tolist() == [[2, 1, 0, 0], [1, 2, 0, 0]]
    assert (record["own_chips"], record["opponent_chips"]) == (3, 7)
    row = encoder.encode(record_array(encoder, [state], [0]))[0]
    assert row[:12].tolist() == [0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1]


def test_make_encoder_and_errors() -> None:
    assert isinstance(make_encoder(HUNLGame()), HUNLEncoder)
    assert isinstance(make_encoder(LeducPoker()), LeducEncoder)
    with pytest.raises(ValueError, match="kuhn"):
        make_encoder(KuhnPoker())
    encoder = HUNLEncoder(HUNLGame())
    with pytest.raises(ValueError, match="record dtype"):
        encoder.encode(np.zeros((3, FEATURE_SIZE), dtype=np.float32))
    with pytest.raises(ValueError, match="player 2"):
        encoder.record(HUNLGame().from_deck(DECK), 2)
    with pytest.raises(ValueError, match="after the deal"):
        encoder.record(HUNLGame().initial_state(), 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one player per state"):
        record_array(encoder, [HUNLGame().from_deck(DECK)], [0, 1])


def test_strength_features_extend_the_cards_features() -> None:
    game = HUNLGame()
    plain, strong = make_encoder(game), make_encoder(game, "cards+strength")
    assert (plain.feature_size, strong.feature_size) == (FEATURE_SIZE, FEATURE_SIZE + STRENGTH_SIZE)
    states = hunl_decisions(game, hands=30, seed=4)
    players = [state.current_player() for state in states]
    records = record_array(strong, states, players)
    assert records.dtype == record_array(plain, states, players).dtype  # records do not grow
    extra = strong.encode(records)[:, FEATURE_SIZE:]
    np.testing.assert_array_equal(strong.encode(records)[:, :FEATURE_SIZE], plain.encode(records))
    for state, player, row in zip(states, players, extra, strict=True):
        hole = state.engine.hole_cards(player)
        assert row[0] == pytest.approx(preflop_equity_table()[hand_class(hole)])
        if state.street == 0:
            assert not row[1:].any()  # no made hand before the flop
        else:
            rank = rank_hand([*hole, *state.engine.board])
            assert row[1] == pytest.approx(rank / 7462)
            assert row[2:].tolist() == [float(name == hand_category(rank)) for name in CATEGORIES]


def test_strength_features_of_known_hands() -> None:
    encoder = make_encoder(HUNLGame(), "cards+strength")
    state = HUNLGame().from_deck(parse_cards("AsAh 2c7d 9sKdQd 3h 4h"))
    preflop = encoder.encode(record_array(encoder, [state, state], [0, 1]))[:, FEATURE_SIZE:]
    assert preflop[0, 0] > 0.8 and preflop[1, 0] < 0.4  # aces against seven-deuce
    flop = state.child(1).child(1)  # call, check
    features = encoder.encode(record_array(encoder, [flop, flop], [0, 1]))[:, FEATURE_SIZE:]
    assert features[0, 2 + CATEGORIES.index("pair")] == 1.0
    assert features[1, 2 + CATEGORIES.index("high card")] == 1.0
    assert features[0, 1] > features[1, 1]


def test_unknown_encodings_are_refused() -> None:
    with pytest.raises(ValueError, match="encoding 'colour'"):
        make_encoder(HUNLGame(), "colour")
    with pytest.raises(ValueError, match="Leduc has only 'cards'"):
        make_encoder(LeducPoker(), "cards+strength")


def reference_bucket_features(abstraction: CardAbstraction, state: HUNLGameState, player: int) -> np.ndarray:
    """The bucket features of ``player`` at ``state``, one street at a time from the engine's own cards."""
    hole = list(state.engine.hole_cards(player))
    board = list(state.engine.board)  # the flop in dealing order: an indexer round is a set
    segments = []
    for street, count in enumerate(FAKE_BUCKETS):
        segment = np.zeros(count, dtype=np.float32)
        if street <= state.street:
            cards = [*hole, *board[: BOARD_SIZES[street]]]
            segment[abstraction.tables[street][street_indexer(street).index(cards)]] = 1.0
        segments.append(segment)
    return np.concatenate(segments)


def test_bucket_features_follow_the_cards_features() -> None:
    encoder = make_encoder(HUNLGame(), "cards+buckets", fake_abstraction())
    assert encoder.feature_size == FEATURE_SIZE + sum(FAKE_BUCKETS) == 373 + 18
    segments = encoder.describe()["segments"]
    assert {name: segment for name, segment in segments.items() if name.endswith("bucket")} == {
        "preflop bucket": {"offset": 373, "size": 3},
        "flop bucket": {"offset": 376, "size": 5},
        "turn bucket": {"offset": 381, "size": 6},
        "river bucket": {"offset": 387, "size": 4},
    }
    assert encoder.describe()["feature_size"] == 391


def test_bucket_features_equal_a_per_state_reference() -> None:
    game = HUNLGame()
    states = hunl_decisions(game, hands=80, seed=5)
    players = [state.current_player() for state in states]
    rivers = [
        [*state.engine.hole_cards(player), *state.engine.board]
        for state, player in zip(states, players, strict=True)
        if state.street == 3
    ]
    abstraction = fake_abstraction(river_hands=rivers, seed=1)
    encoder = make_encoder(game, "cards+buckets", abstraction)
    records = record_array(encoder, states, players)
    features = encoder.encode(records)
    assert features.shape == (len(states), 391) and features.dtype == np.float32
    np.testing.assert_array_equal(features[:, :FEATURE_SIZE], make_encoder(game).encode(records))
    expected = np.stack(
        [
            reference_bucket_features(abstraction, state, player)
            for state, player in zip(states, players, strict=True)
        ]
    )
    np.testing.assert_array_equal(features[:, FEATURE_SIZE:], expected)
    # Every street is reached, each reached street's segment is one one-hot, and the buckets vary.
    offsets = np.cumsum((FEATURE_SIZE, *FAKE_BUCKETS))
    streets = records["street"]
    assert set(streets) == {0, 1, 2, 3}
    for street in range(4):
        segment = features[:, offsets[street] : offsets[street + 1]]
        reached = streets >= street
        np.testing.assert_array_equal(segment.sum(axis=1), reached.astype(np.float32))
        assert len(np.unique(segment[reached].argmax(axis=1))) >= 2, street
    # One row at a time gives the rows of the batch.
    for index in range(0, len(records), 17):
        np.testing.assert_array_equal(encoder.encode(records[index : index + 1])[0], features[index])
    assert encoder.encode(records[:0]).shape == (0, 391)


def test_bucket_features_of_streets_not_reached_are_zero() -> None:
    encoder = make_encoder(HUNLGame(), "cards+buckets", fake_abstraction())
    state = HUNLGame().from_deck(DECK)
    preflop = state.child(1)  # the button calls; the big blind acts preflop
    flop = preflop.child(1)  # the big blind checks: the flop
    assert (preflop.street, flop.street) == (0, 1)
    features = encoder.encode(record_array(encoder, [preflop, flop], [1, 1]))[:, FEATURE_SIZE:]
    assert features[0, :3].sum() == 1 and not features[0, 3:].any()
    assert features[1, :3].sum() == 1 and features[1, 3:8].sum() == 1 and not features[1, 8:].any()
    np.testing.assert_array_equal(features[0, :3], features[1, :3])  # the same hole cards


def test_bucket_encoding_needs_an_abstraction_and_only_it_takes_one() -> None:
    with pytest.raises(ValueError, match="'cards\\+buckets' needs a card abstraction"):
        make_encoder(HUNLGame(), "cards+buckets")
    with pytest.raises(ValueError, match="only 'cards\\+buckets'"):
        make_encoder(HUNLGame(), "cards", fake_abstraction())
    with pytest.raises(ValueError, match="Leduc has only 'cards'"):
        make_encoder(LeducPoker(), "cards+buckets", fake_abstraction())
    with pytest.raises(ValueError, match="must be a CardAbstraction"):
        HUNLEncoder(HUNLGame(), abstraction="configs/abstraction_tiny.yaml")  # type: ignore[arg-type]


BUCKETS_BESIDE_TORCH = """
import torch
from pokerai.deepcfr.encoding import make_encoder, record_array
from pokerai.games.hunl import HUNLGame
from tests.deepcfr.fake_abstraction import fake_abstraction
from tests.deepcfr.test_encoding import hunl_decisions

torch.set_num_threads(1)
torch.nn.Linear(512, 512)(torch.ones(2048, 512)).sum().backward()  # torch's OpenMP pool is running
encoder = make_encoder(HUNLGame(), "cards+buckets", fake_abstraction())
states = hunl_decisions(HUNLGame(), hands=20, seed=0)
encoder.encode(record_array(encoder, states, [state.current_player() for state in states]))
print(torch.get_num_threads())
"""


def test_bucket_features_leave_torchs_threads_alone() -> None:
    """No numba thread pool starts for the bucket lookups: numba's OpenMP pool, started after torch's,
    raises the thread count they share (training steps on a busy two-core machine ran ten times slower)."""
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", BUCKETS_BESIDE_TORCH], cwd=root, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["1"]
