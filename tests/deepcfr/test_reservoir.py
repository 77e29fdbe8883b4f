"""Reservoir buffers: uniform inclusion, capacity, mask packing, sampling and exact checkpoint round-trips."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from pokerai.deepcfr.reservoir import ReservoirBuffer, pack_masks, unpack_masks
from pokerai.games.holdem import HUNL_RECORD_DTYPE

# A one-field record keeps the uniformity test fast; the item id is the record.
ID_DTYPE = np.dtype([("item", np.uint32)])


def offer(buffer: ReservoirBuffer, items: np.ndarray, iteration: int = 0) -> None:
    """Offer ``items`` (ids) with all-legal masks and the id as every target."""
    infos = np.zeros(len(items), dtype=ID_DTYPE)
    infos["item"] = items
    masks = np.ones((len(items), buffer.num_slots), dtype=np.bool_)
    targets = np.repeat(items[:, None].astype(np.float32), buffer.num_slots, axis=1)
    buffer.add(infos, masks, targets, iteration)


def test_every_item_is_kept_with_probability_capacity_over_total() -> None:
    total, capacity, trials = 10_000, 1_000, 200
    counts = np.zeros(total, dtype=np.int64)
    for seed in range(trials):
        buffer = ReservoirBuffer(capacity, ID_DTYPE, num_slots=2, seed=seed)
        sizes = np.random.default_rng(10_000 + seed).integers(1, 700, size=total)
        bounds = np.minimum(np.concatenate([[0], np.cumsum(sizes)]), total)
        for start, stop in itertools.pairwise(bounds):
            if start < stop:
                offer(buffer, np.arange(start, stop))
        assert len(buffer) == capacity and buffer.seen == total
        kept = buffer.contents()["info"]["item"]
        assert len(np.unique(kept)) == capacity  # each item is stored at most once
        counts[kept] += 1
    probability = capacity / total
    expected = trials * probability
    # Pearson's statistic over the items: about total (its degrees of freedom), SD about sqrt(2 × total).
    chi_square = float(((counts - expected) ** 2 / (expected * (1 - probability))).sum())
    assert abs(chi_square - total) < 5 * np.sqrt(2 * total), chi_square
    # Early items (which filled the buffer) and late ones are kept equally often: tenths of the stream
    # each hold trials × capacity / 10 = 20 000 inclusions in expectation, binomial SD about 134.
    tenths = counts.reshape(10, -1).sum(axis=1)
    tenth_sd = np.sqrt(trials * (total / 10) * probability * (1 - probability))
    assert np.all(np.abs(tenths - trials * capacity / 10) < 5 * tenth_sd), tenths


def test_add_matches_sequential_algorithm_r() -> None:
    """The vectorised add against the one-item-at-a-time algorithm fed the same draws (last writer wins)."""
    capacity, seed = 3, 4
    buffer = ReservoirBuffer(capacity, ID_DTYPE, num_slots=2, seed=seed)
    reference_rng = np.random.default_rng(seed)
    reference: list[int] = []
    seen = 0
    for start, stop in ((0, 2), (2, 50), (50, 51), (51, 400)):
        offer(buffer, np.arange(start, stop))
        filling = min(stop - start, capacity - len(reference))
        reference.extend(range(start, start + filling))
        ordinals = np.arange(seen + filling + 1, seen + stop - start + 1)
        draws = reference_rng.integers(0, ordinals) if len(ordinals) else np.zeros(0, dtype=np.int64)
        for item, draw in zip(range(start + filling, stop), draws, strict=True):
            if draw < capacity:
                reference[draw] = item
        seen += stop - start
        assert buffer.contents()["info"]["item"].tolist() == reference


def test_length_caps_at_capacity_and_small_offers_are_all_kept() -> None:
    buffer = ReservoirBuffer(5, ID_DTYPE, num_slots=3, seed=1)
    assert len(buffer) == 0 and buffer.seen == 0
    offer(buffer, np.arange(3))
    assert len(buffer) == 3 and sorted(buffer.contents()["info"]["item"]) == [0, 1, 2]
    offer(buffer, np.arange(3, 4))
    offer(buffer, np.arange(4, 40))
    assert len(buffer) == 5 and buffer.seen == 40
    offer(buffer, np.arange(0))
    assert buffer.seen == 40


def test_mask_packing_round_trips() -> None:
    rng = np.random.default_rng(5)
    for num_slots, dtype in ((1, np.uint8), (6, np.uint8), (8, np.uint8), (9, np.uint16), (16, np.uint16)):
        masks = rng.random((50, num_slots)) < 0.5
        packed = pack_masks(masks, num_slots)
        assert packed.dtype == dtype and packed.shape == (50,)
        np.testing.assert_array_equal(unpack_masks(packed, num_slots), masks)
    assert pack_masks(np.array([[True, False, True]]), 3)[0] == 0b101
    with pytest.raises(ValueError, match="num_slots 17"):
        ReservoirBuffer(10, ID_DTYPE, num_slots=17, seed=0)


def test_sample_returns_stored_rows_with_their_masks() -> None:
    buffer = ReservoirBuffer(100, ID_DTYPE, num_slots=6, seed=2)
    items = np.arange(30)
    infos = np.zeros(30, dtype=ID_DTYPE)
    infos["item"] = items
    masks = (items[:, None] >> np.arange(6)) & 1 == 1
    targets = (items[:, None] * np.ones((1, 6))).astype(np.float32)
    buffer.add(infos, masks, targets, iteration=7)
    sampled_infos, sampled_masks, sampled_targets, iterations = buffer.sample(20, np.random.default_rng(0))
    ids = sampled_infos["item"]
    assert len(np.unique(ids)) == 20  # without replacement
    np.testing.assert_array_equal(sampled_masks, masks[ids])
    assert sampled_masks.dtype == np.bool_
    np.testing.assert_array_equal(sampled_targets, targets[ids])
    assert sampled_targets.dtype == np.float32
    assert iterations.dtype == np.uint32 and np.all(iterations == 7)
    # More than stored: with replacement.
    assert buffer.sample(50, np.random.default_rng(0))[0].shape == (50,)
    with pytest.raises(ValueError, match="empty"):
        ReservoirBuffer(3, ID_DTYPE, 2, seed=0).sample(1, np.random.default_rng(0))


def test_add_rejects_bad_batches() -> None:
    buffer = ReservoirBuffer(10, ID_DTYPE, num_slots=2, seed=0)
    infos = np.zeros(3, dtype=ID_DTYPE)
    good_masks = np.ones((3, 2), dtype=np.bool_)
    good_targets = np.zeros((3, 2), dtype=np.float32)
    with pytest.raises(ValueError, match="masks of shape"):
        buffer.add(infos, np.ones((3, 3), dtype=np.bool_), good_targets, 0)
    with pytest.raises(ValueError, match="targets of shape"):
        buffer.add(infos, good_masks, np.zeros((2, 2), dtype=np.float32), 0)
    with pytest.raises(ValueError, match="record dtype"):
        buffer.add(np.zeros(3, dtype=HUNL_RECORD_DTYPE), good_masks, good_targets, 0)
    with pytest.raises(ValueError, match="iteration -1"):
        buffer.add(infos, good_masks, good_targets, -1)
    assert buffer.seen == 0


def test_state_dict_round_trip_gives_identical_contents_and_future() -> None:
    original = ReservoirBuffer(64, ID_DTYPE, num_slots=4, seed=9)
    for start in range(0, 500, 37):
        offer(original, np.arange(start, start + 37), iteration=start)
    state = original.state_dict()
    restored = ReservoirBuffer(64, ID_DTYPE, num_slots=4, seed=12345)
    restored.load_state_dict(state)
    assert len(restored) == len(original) and restored.seen == original.seen
    np.testing.assert_array_equal(restored.contents(), original.contents())
    for buffer in (original, restored):
        offer(buffer, np.arange(1000, 1100), iteration=99)
    np.testing.assert_array_equal(restored.contents(), original.contents())
    assert restored.state_dict()["rng_state"] == original.state_dict()["rng_state"]
    # The saved state is a snapshot: later adds do not change it.
    again = ReservoirBuffer(64, ID_DTYPE, num_slots=4, seed=0)
    again.load_state_dict(state)
    assert again.seen == 500 + 18


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"capacity": 65}, "holds 65 samples"),
        ({"num_slots": 5}, "has 5 slots"),
        ({"rows": np.zeros(64, dtype=np.dtype([("x", np.uint8)]))}, "saved rows have dtype"),
        ({"size": 10}, "saved size 10"),
        ({"rng_state": {"bit_generator": "nope"}}, "generator state"),
        ({"format": 99}, "format 99"),
    ],
)
def test_load_state_dict_names_a_mismatch(change: dict[str, Any], message: str) -> None:
    source = ReservoirBuffer(64, ID_DTYPE, num_slots=4, seed=1)
    offer(source, np.arange(100))
    target = ReservoirBuffer(64, ID_DTYPE, num_slots=4, seed=1)
    with pytest.raises(ValueError, match=message):
        target.load_state_dict({**source.state_dict(), **change})
    assert len(target) == 0
    with pytest.raises(ValueError, match="lacks rows"):
        target.load_state_dict({key: value for key, value in source.state_dict().items() if key != "rows"})


def test_hunl_sample_is_small() -> None:
    buffer = ReservoirBuffer(10, HUNL_RECORD_DTYPE, num_slots=8, seed=0)
    assert buffer.bytes_per_sample == HUNL_RECORD_DTYPE.itemsize + 1 + 4 * 8 + 4
    assert buffer.bytes_per_sample <= 100


# ---------------------------------------------------------------------------- groups


def grouped_offer(buffer: ReservoirBuffer, rng: np.random.Generator, count: int, iteration: int) -> None:
    """``count`` rows over 7 distinct records, each with either of two masks, and random targets."""
    infos = np.zeros(count, dtype=ID_DTYPE)
    infos["item"] = rng.integers(0, 7, size=count)
    masks = np.ones((count, buffer.num_slots), dtype=np.bool_)
    masks[:, -1] = rng.random(count) < 0.5  # the same record with two masks is two groups
    targets = rng.normal(size=(count, buffer.num_slots)).astype(np.float32)
    buffer.add(infos, masks, targets, iteration)


def brute_force_groups(
    buffer: ReservoirBuffer, exponent: float
) -> dict[tuple[int, bytes], tuple[float, Any]]:
    rows = buffer.contents()
    result: dict[tuple[int, bytes], tuple[float, Any]] = {}
    for key in {(int(row["info"]["item"]), bytes(row["mask"])) for row in rows}:
        chosen = rows[[(int(r["info"]["item"]), bytes(r["mask"])) == key for r in rows]]
        weights = chosen["iteration"].astype(np.float64) ** exponent
        mean = (weights[:, None] * chosen["target"].astype(np.float64)).sum(axis=0) / weights.sum()
        result[key] = (float(weights.sum()), mean)
    return result


def as_dict(buffer: ReservoirBuffer) -> dict[tuple[int, bytes], tuple[float, Any]]:
    infos, masks, weights, targets = buffer.groups()
    packed = pack_masks(masks, buffer.num_slots)
    return {
        (int(info["item"]), bytes(mask)): (float(weight), target)
        for info, mask, weight, target in zip(infos, packed, weights, targets, strict=True)
    }


@pytest.mark.parametrize("exponent", [1.0, 0.0, 2.0])
def test_groups_describe_exactly_the_stored_rows_through_evictions(exponent: float) -> None:
    buffer = ReservoirBuffer(50, ID_DTYPE, num_slots=3, seed=4, group_weight_exponent=exponent)
    rng = np.random.default_rng(0)
    for iteration in range(1, 30):
        grouped_offer(buffer, rng, 11, iteration)  # 319 offered: most rows are overwritten
        expected = brute_force_groups(buffer, exponent)
        found = as_dict(buffer)
        assert found.keys() == expected.keys()
        for key, (weight, mean) in expected.items():
            assert found[key][0] == pytest.approx(weight, rel=1e-9)
            np.testing.assert_allclose(found[key][1], mean, rtol=1e-7, atol=1e-9)
    assert len(found) > 7  # some records are held with both masks


def test_groups_round_trip_exactly_and_are_rebuilt_from_rows_of_an_ungrouped_state() -> None:
    original = ReservoirBuffer(40, ID_DTYPE, num_slots=3, seed=2, group_weight_exponent=1.0)
    rng = np.random.default_rng(1)
    for iteration in range(1, 12):
        grouped_offer(original, rng, 9, iteration)
    restored = ReservoirBuffer(40, ID_DTYPE, num_slots=3, seed=0, group_weight_exponent=1.0)
    restored.load_state_dict(original.state_dict())
    for buffer in (original, restored):
        grouped_offer(buffer, np.random.default_rng(5), 30, 12)
    for a, b in zip(original.groups(), restored.groups(), strict=True):
        np.testing.assert_array_equal(a, b)  # bit-identical, not just close

    # A state saved without groups (a run that did not keep them) gets them rebuilt from its rows.
    plain = {key: value for key, value in original.state_dict().items() if key != "groups"}
    rebuilt = ReservoirBuffer(40, ID_DTYPE, num_slots=3, seed=0, group_weight_exponent=1.0)
    rebuilt.load_state_dict(plain)
    assert as_dict(rebuilt).keys() == as_dict(original).keys()
    for key, (weight, mean) in as_dict(original).items():
        assert as_dict(rebuilt)[key][0] == pytest.approx(weight)
        np.testing.assert_allclose(as_dict(rebuilt)[key][1], mean, rtol=1e-6)


def test_bad_groups_are_refused() -> None:
    with pytest.raises(ValueError, match="group_weight_exponent -1"):
        ReservoirBuffer(10, ID_DTYPE, num_slots=3, seed=0, group_weight_exponent=-1)
    with pytest.raises(ValueError, match="keeps no groups"):
        ReservoirBuffer(10, ID_DTYPE, num_slots=3, seed=0).groups()
    source = ReservoirBuffer(40, ID_DTYPE, num_slots=3, seed=2, group_weight_exponent=1.0)
    grouped_offer(source, np.random.default_rng(1), 20, 1)
    state = source.state_dict()
    target = ReservoirBuffer(40, ID_DTYPE, num_slots=3, seed=2, group_weight_exponent=2.0)
    with pytest.raises(ValueError, match=r"t\*\*1.0, this run t\*\*2.0"):
        target.load_state_dict(state)
    target = ReservoirBuffer(40, ID_DTYPE, num_slots=3, seed=2, group_weight_exponent=1.0)
    short = {**state["groups"], "count": state["groups"]["count"] - 1}
    with pytest.raises(ValueError, match="groups hold"):
        target.load_state_dict({**state, "groups": short})
    with pytest.raises(ValueError, match="not a dict of"):
        target.load_state_dict({**state, "groups": {"keys": 1}})
    assert len(target) == 0 and target.groups()[0].shape == (0,)
