"""Reservoir buffers of Deep CFR samples: a uniform sample of everything ever offered, in compact rows.

Deep CFR (Brown, Lerer, Gross & Sandholm, ICML 2019) trains its advantage
and strategy networks on reservoir samples of the (information state, target)
pairs produced by every traversal so far. Reservoir sampling (Vitter,
"Random Sampling with a Reservoir", 1985, Algorithm R) keeps the ``t``-th item
ever offered with probability ``capacity / t``, overwriting a uniformly chosen
row, so at any time the buffer is a uniform sample of all items offered.

Each row is one numpy structured record (see :mod:`pokerai.deepcfr.encoding`):

* ``info``: the encoder's record of the information state;
* ``mask``: the legal slots as packed bits (bit ``i`` is slot ``i``): uint8
  for up to 8 slots, uint16 for up to 16;
* ``target``: float32 ``[num_slots]`` (sampled advantages or the strategy);
* ``iteration``: uint32, the CFR iteration that produced the sample (Deep
  CFR weights its losses by it).

**Groups.** Built with ``group_weight_exponent``, a buffer also keeps, for
every distinct (``info``, ``mask``) pair among its stored rows, the number of
rows, their total weight ``Σ t**x`` and their weighted target sum
(:meth:`ReservoirBuffer.groups`). It is updated as rows are stored and
overwritten, so it always describes exactly the rows held. The weighted loss
over the stored rows equals the same loss over the groups, each group once with
its total weight and its weighted-mean target, plus a constant; so a network
trained on the groups follows the gradient of the whole reservoir with no
sampling noise. That pays where information states repeat (Leduc's few hundred
per player); in hold'em nearly every row is its own group and the table only
costs memory. An emptied group keeps its entry (and its place in the order), so
the table holds every distinct state ever stored, not only those held now.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

MAX_SLOTS = 16
"""The most action slots a row's packed mask holds."""
STATE_FORMAT = 1
"""Version of :meth:`ReservoirBuffer.state_dict`'s layout (the optional ``groups`` entry keeps it at 1)."""


def _mask_dtype(num_slots: int) -> type[np.unsignedinteger[Any]]:
    if isinstance(num_slots, bool) or not isinstance(num_slots, (int, np.integer)):
        raise ValueError(f"num_slots {num_slots!r} is not a whole number")
    if not 1 <= num_slots <= MAX_SLOTS:
        raise ValueError(
            f"num_slots {num_slots} is not between 1 and {MAX_SLOTS}: masks are packed in 16 bits"
        )
    return np.uint8 if num_slots <= 8 else np.uint16


def pack_masks(masks: npt.NDArray[np.bool_], num_slots: int) -> npt.NDArray[np.unsignedinteger[Any]]:
    """Pack bool ``[n, num_slots]`` masks into ``[n]`` uint8 (up to 8 slots) or uint16: bit i is slot i."""
    dtype = _mask_dtype(num_slots)
    weights = (1 << np.arange(num_slots)).astype(dtype)
    return (masks.astype(dtype) * weights).sum(axis=1, dtype=dtype)


def unpack_masks(packed: npt.NDArray[np.unsignedinteger[Any]], num_slots: int) -> npt.NDArray[np.bool_]:
    """The bool ``[n, num_slots]`` masks of ``[n]`` packed integers (inverse of :func:`pack_masks`)."""
    _mask_dtype(num_slots)
    bits = np.arange(num_slots, dtype=packed.dtype)
    return ((packed[:, None] >> bits) & 1).astype(np.bool_)


def _check_int(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} {value!r} is not a whole number of at least {minimum}")
    return int(value)


class ReservoirBuffer:
    """A fixed-capacity reservoir (Algorithm R) of (info record, legal mask, target, iteration) rows.

    ``record_dtype`` is the encoder's structured record dtype, ``num_slots``
    the width of masks and targets (at most 16), and ``seed`` seeds the
    buffer's own generator, which decides what is kept and is saved with the
    buffer so that a restored buffer behaves identically.
    """

    def __init__(
        self,
        capacity: int,
        record_dtype: np.dtype[Any],
        num_slots: int,
        seed: int,
        *,
        group_weight_exponent: float | None = None,
    ) -> None:
        self._capacity = _check_int("capacity", capacity, 1)
        if not isinstance(record_dtype, np.dtype):
            raise ValueError(f"record_dtype {record_dtype!r} is not a numpy dtype")
        mask_dtype = _mask_dtype(num_slots)
        self._num_slots = int(num_slots)
        self._row_dtype = np.dtype(
            [
                ("info", record_dtype),
                ("mask", mask_dtype),
                ("target", np.float32, (self._num_slots,)),
                ("iteration", np.uint32),
            ]
        )
        self._rows = np.zeros(self._capacity, dtype=self._row_dtype)
        self._size = 0
        self._seen = 0
        self._rng = np.random.default_rng(_check_int("seed", seed, 0))
        self._key_dtype = np.dtype([("info", record_dtype), ("mask", mask_dtype)])
        self._groups: _Groups | None = None
        if group_weight_exponent is not None:
            exponent = float(group_weight_exponent)
            if isinstance(group_weight_exponent, bool) or not np.isfinite(exponent) or exponent < 0:
                raise ValueError(
                    f"group_weight_exponent {group_weight_exponent!r} is not a non-negative number"
                )
            self._groups = _Groups(self._key_dtype, self._num_slots, exponent)

    # ------------------------------------------------------------------ views

    @property
    def capacity(self) -> int:
        return self._capacity

    @property
    def num_slots(self) -> int:
        return self._num_slots

    @property
    def row_dtype(self) -> np.dtype[Any]:
        """The structured dtype of one stored row (fields ``info``, ``mask``, ``target``, ``iteration``)."""
        return self._row_dtype

    @property
    def bytes_per_sample(self) -> int:
        """Bytes of one stored row."""
        return self._row_dtype.itemsize

    @property
    def seen(self) -> int:
        """Items ever offered to :meth:`add`."""
        return self._seen

    def __len__(self) -> int:
        return self._size

    # ------------------------------------------------------------------ adding and sampling

    def add(
        self,
        infos: np.ndarray,
        masks: npt.NDArray[np.bool_],
        targets: npt.NDArray[np.floating[Any]],
        iteration: int,
    ) -> None:
        """Offer ``n`` samples: ``infos`` ``[n]`` records, ``masks`` bool ``[n, num_slots]``,
        ``targets`` float ``[n, num_slots]`` (stored as float32), all from CFR ``iteration``.

        Vectorised Algorithm R: the ``t``-th item ever offered (``t`` from 1)
        draws ``j`` uniform in ``[0, t)`` and, when ``j < capacity``,
        overwrites row ``j`` (the buffer fills in order first). Items of one
        call that pick the same row are resolved as in the sequential
        algorithm: the last one wins.
        """
        count = self._check_batch(infos, masks, targets)
        iteration = _check_int("iteration", iteration, 0)
        if iteration > np.iinfo(np.uint32).max:
            raise ValueError(f"iteration {iteration} does not fit in 32 bits")
        if count == 0:
            return
        batch = np.empty(count, dtype=self._row_dtype)
        batch["info"] = infos
        batch["mask"] = pack_masks(masks, self._num_slots)
        batch["target"] = targets
        batch["iteration"] = iteration

        filling = min(count, self._capacity - self._size)
        self._rows[self._size : self._size + filling] = batch[:filling]
        if self._groups is not None and filling:
            self._groups.update(self._keys(batch[:filling]), batch[:filling], +1)
        self._size += filling
        if filling < count:
            ordinals = np.arange(self._seen + filling + 1, self._seen + count + 1, dtype=np.int64)
            draws = self._rng.integers(0, ordinals)
            kept = np.flatnonzero(draws < self._capacity)
            rows = draws[kept]
            # np.unique on the reversed list keeps each row's last writer (fancy assignment with repeated
            # indices has no guaranteed order).
            unique_rows, first_in_reversed = np.unique(rows[::-1], return_index=True)
            winners = kept[::-1][first_in_reversed]
            incoming = batch[filling:][winners]
            if self._groups is not None and len(unique_rows):
                evicted = self._rows[unique_rows]
                self._groups.update(self._keys(evicted), evicted, -1)
                self._groups.update(self._keys(incoming), incoming, +1)
            self._rows[unique_rows] = incoming
        self._seen += count

    def _keys(self, rows: np.ndarray) -> np.ndarray:
        keys = np.empty(len(rows), dtype=self._key_dtype)
        keys["info"] = rows["info"]
        keys["mask"] = rows["mask"]
        return keys

    @property
    def group_key_dtype(self) -> np.dtype[Any]:
        """The structured dtype (fields ``info``, ``mask``) that identifies a group."""
        return self._key_dtype

    @property
    def group_weight_exponent(self) -> float | None:
        """The exponent ``x`` of the group weights ``t**x``, or ``None`` when no groups are kept."""
        return None if self._groups is None else self._groups.exponent

    def groups(
        self,
    ) -> tuple[np.ndarray, npt.NDArray[np.bool_], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """The stored rows grouped by identical (info, mask): ``(infos [g] records, masks bool [g,
        num_slots], weights float64 [g], targets float64 [g, num_slots])``.

        ``weights`` is each group's ``Σ t**x`` over its rows and ``targets``
        their weighted mean (module docstring); groups appear in the order they
        were first stored and only while they hold a row. ``ValueError`` if the
        buffer was built without ``group_weight_exponent``.
        """
        if self._groups is None:
            raise ValueError("this reservoir keeps no groups: build it with group_weight_exponent")
        live = np.flatnonzero(self._groups.count[: self._groups.size] > 0)
        keys = self._groups.keys[live]
        weights = self._groups.weight[live].copy()
        # A row weighs t**x >= 1 for t >= 1 and 0 for t = 0: anything below 1/2 is a group of
        # iteration-0 rows left with rounding residue by its removed rows.
        weights[weights < 0.5] = 0.0
        sums = self._groups.target[live]
        # A group of iteration-0 rows weighs 0 for any exponent above 0: its mean is left at 0.
        targets = np.divide(
            sums, weights[:, np.newaxis], out=np.zeros_like(sums), where=weights[:, np.newaxis] > 0
        )
        return keys["info"].copy(), unpack_masks(keys["mask"], self._num_slots), weights, targets

    def _check_batch(self, infos: np.ndarray, masks: np.ndarray, targets: np.ndarray) -> int:
        info_dtype = self._row_dtype["info"]
        if not isinstance(infos, np.ndarray) or infos.ndim != 1 or infos.dtype != info_dtype:
            found = getattr(infos, "dtype", type(infos).__name__)
            raise ValueError(f"infos must be a one-dimensional array of the record dtype, not {found}")
        count = infos.shape[0]
        expected = (count, self._num_slots)
        masks = np.asarray(masks)
        if masks.shape != expected or masks.dtype != np.bool_:
            raise ValueError(f"masks of shape {masks.shape} and dtype {masks.dtype} are not bool {expected}")
        targets = np.asarray(targets)
        if targets.shape != expected or not np.issubdtype(targets.dtype, np.floating):
            raise ValueError(
                f"targets of shape {targets.shape} and dtype {targets.dtype} are not floats of shape "
                f"{expected}"
            )
        return count

    def sample(
        self, batch_size: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, npt.NDArray[np.bool_], npt.NDArray[np.float32], npt.NDArray[np.uint32]]:
        """A uniform batch of stored rows, drawn with ``rng``, without replacement unless ``batch_size``
        exceeds ``len(self)``: ``(infos [b] records, masks bool [b, num_slots], targets float32
        [b, num_slots], iterations uint32 [b])``."""
        batch_size = _check_int("batch_size", batch_size, 1)
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng {rng!r} is not a numpy Generator")
        if self._size == 0:
            raise ValueError("cannot sample from an empty reservoir buffer")
        indices = rng.choice(self._size, size=batch_size, replace=batch_size > self._size)
        rows = self._rows[indices]
        return (
            rows["info"].copy(),
            unpack_masks(rows["mask"], self._num_slots),
            rows["target"].copy(),
            rows["iteration"].copy(),
        )

    def contents(self) -> np.ndarray:
        """A copy of the stored rows: ``[len(self)]`` of :attr:`row_dtype`, in storage order."""
        return self._rows[: self._size].copy()

    # ------------------------------------------------------------------ checkpoints

    def state_dict(self, *, copy: bool = True) -> dict[str, Any]:
        """Everything needed to resume exactly: numpy arrays, ints and the generator's state dict.

        With ``copy=False`` the rows are a view of the buffer's own storage, valid until the next
        :meth:`add` (a checkpoint writer uses it to save without a second copy of the rows); the
        group table, if any, is copied either way.
        """
        rows = self._rows[: self._size]
        return {
            "format": STATE_FORMAT,
            "capacity": self._capacity,
            "num_slots": self._num_slots,
            "size": self._size,
            "seen": self._seen,
            "rows": rows.copy() if copy else rows,
            "rng_state": self._rng.bit_generator.state,
            **({} if self._groups is None else {"groups": self._groups.state_dict()}),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`'s output into this buffer, which must have the same capacity, record
        dtype and slot count; ``ValueError`` naming the mismatch otherwise (the buffer is left unchanged)."""
        if not isinstance(state, dict):
            raise ValueError(f"a reservoir state must be a dict, not {type(state).__name__}")
        missing = {"format", "capacity", "num_slots", "size", "seen", "rows", "rng_state"} - set(state)
        if missing:
            raise ValueError(f"the reservoir state lacks {', '.join(sorted(missing))}")
        if state["format"] != STATE_FORMAT:
            raise ValueError(f"reservoir state format {state['format']!r} is not {STATE_FORMAT}")
        if state["capacity"] != self._capacity:
            raise ValueError(
                f"the saved reservoir holds {state['capacity']!r} samples but this one {self._capacity}"
            )
        if state["num_slots"] != self._num_slots:
            raise ValueError(
                f"the saved reservoir has {state['num_slots']!r} slots but this one {self._num_slots}"
            )
        size = _check_int("saved size", state["size"], 0)
        seen = _check_int("saved seen count", state["seen"], 0)
        if size > self._capacity or size != min(seen, self._capacity):
            raise ValueError(
                f"the saved size {size} does not fit a capacity of {self._capacity} after {seen} samples"
            )
        rows = state["rows"]
        if not isinstance(rows, np.ndarray) or rows.dtype != self._row_dtype:
            found = getattr(rows, "dtype", type(rows).__name__)
            raise ValueError(f"the saved rows have dtype {found}, not this buffer's {self._row_dtype}")
        if rows.shape != (size,):
            raise ValueError(f"the saved rows have shape {rows.shape}, not ({size},)")
        rng = np.random.default_rng()
        try:
            rng.bit_generator.state = state["rng_state"]
        except (TypeError, ValueError, KeyError) as error:
            raise ValueError(
                f"the saved generator state is not a {type(rng.bit_generator).__name__} state"
            ) from error
        groups = None
        if self._groups is not None:
            groups = _Groups(self._key_dtype, self._num_slots, self._groups.exponent)
            if "groups" in state:
                groups.load_state_dict(state["groups"])
                if int(groups.count[: groups.size].sum()) != size:
                    raise ValueError(
                        f"the saved groups hold {int(groups.count.sum())} rows, not the {size} saved"
                    )
            elif size:  # a checkpoint from a run without groups: rebuild them from the rows
                groups.update(self._keys(rows), rows, +1)
        self._rows[:size] = rows
        self._rows[size:] = np.zeros(1, dtype=self._row_dtype)
        self._size = size
        self._seen = seen
        self._rng = rng
        if groups is not None:
            self._groups = groups


class _Groups:
    """The group table of a :class:`ReservoirBuffer` (module docstring): growable arrays and a key index."""

    def __init__(self, key_dtype: np.dtype[Any], num_slots: int, exponent: float) -> None:
        self.key_dtype = key_dtype
        self.num_slots = num_slots
        self.exponent = exponent
        self.size = 0
        self.keys = np.zeros(0, dtype=key_dtype)
        self.count = np.zeros(0, dtype=np.int64)
        self.weight = np.zeros(0, dtype=np.float64)
        self.target = np.zeros((0, num_slots), dtype=np.float64)
        self.index: dict[bytes, int] = {}

    def _grow(self, needed: int) -> None:
        capacity = max(needed, 2 * len(self.count), 64)
        keys = np.zeros(capacity, dtype=self.key_dtype)
        keys[: self.size] = self.keys[: self.size]
        self.keys = keys
        self.count = np.concatenate([self.count[: self.size], np.zeros(capacity - self.size, np.int64)])
        self.weight = np.concatenate([self.weight[: self.size], np.zeros(capacity - self.size)])
        self.target = np.concatenate(
            [self.target[: self.size], np.zeros((capacity - self.size, self.num_slots))]
        )

    def update(self, keys: np.ndarray, rows: np.ndarray, sign: int) -> None:
        """Add (``sign`` +1) or remove (-1) ``rows`` (reservoir rows) whose group keys are ``keys``."""
        raw = np.ascontiguousarray(keys).view(np.dtype((np.void, self.key_dtype.itemsize)))
        ids = np.empty(len(rows), dtype=np.int64)
        for position, key in enumerate(raw):
            code = key.tobytes()
            group = self.index.get(code)
            if group is None:
                if sign < 0:
                    raise AssertionError("a reservoir row left a group it was never in")
                if self.size == len(self.count):
                    self._grow(self.size + 1)
                group = self.size
                self.index[code] = group
                self.keys[group] = keys[position]
                self.size += 1
            ids[position] = group
        weights = rows["iteration"].astype(np.float64) ** self.exponent
        np.add.at(self.count, ids, sign)
        np.add.at(self.weight, ids, sign * weights)
        np.add.at(self.target, ids, sign * weights[:, np.newaxis] * rows["target"].astype(np.float64))
        emptied = ids[self.count[ids] == 0]
        self.weight[emptied] = 0.0  # no rounding residue in a group without rows
        self.target[emptied] = 0.0

    def state_dict(self) -> dict[str, Any]:
        return {
            "exponent": self.exponent,
            "keys": self.keys[: self.size].copy(),
            "count": self.count[: self.size].copy(),
            "weight": self.weight[: self.size].copy(),
            "target": self.target[: self.size].copy(),
        }

    def load_state_dict(self, state: Any) -> None:
        if not isinstance(state, dict) or set(state) != {"exponent", "keys", "count", "weight", "target"}:
            raise ValueError(
                "the saved reservoir groups are not a dict of exponent, keys, count, weight, target"
            )
        if state["exponent"] != self.exponent:
            raise ValueError(
                f"the saved reservoir groups weigh samples t**{state['exponent']!r}, "
                f"this run t**{self.exponent}"
            )
        keys = state["keys"]
        if not isinstance(keys, np.ndarray) or keys.dtype != self.key_dtype or keys.ndim != 1:
            raise ValueError("the saved reservoir group keys do not have this buffer's record and mask dtype")
        size = len(keys)
        shapes = {"count": (size,), "weight": (size,), "target": (size, self.num_slots)}
        for name, shape in shapes.items():
            array = state[name]
            if not isinstance(array, np.ndarray) or array.shape != shape:
                raise ValueError(f"the saved reservoir group {name} is not an array of shape {shape}")
        if np.any(state["count"] < 0):
            raise ValueError("the saved reservoir groups have negative row counts")
        self._grow(size)
        self.size = size
        self.keys[:size] = keys
        self.count[:size] = state["count"]
        self.weight[:size] = state["weight"]
        self.target[:size] = state["target"]
        raw = np.ascontiguousarray(keys).view(np.dtype((np.void, self.key_dtype.itemsize)))
        self.index = {key.tobytes(): group for group, key in enumerate(raw)}
        if len(self.index) != size:
            raise ValueError("the saved reservoir groups repeat a key")


__all__ = ["MAX_SLOTS", "ReservoirBuffer", "pack_masks", "unpack_masks"]
