"""Checkpoints for Deep CFR runs: atomic, versioned, checksummed, safe to load (layer 4).

A Deep CFR run (Brown, Lerer, Gross & Sandholm 2019) lasts hours; a checkpoint
holds everything needed to resume it exactly: network and optimiser state
dicts, reservoir contents, the iteration, the config and the RNG states
(:func:`rng_states` / :func:`restore_rng_states`).

File layout, version :data:`FORMAT_VERSION`::

    b"pokerai-deepcfr-checkpoint\\n"                      magic line
    {"body_bytes":N,"format":...,"format_version":1,"sha256":"..."}\\n   header, one JSON line (space-padded)
    N bytes                                              body: torch.save(payload)

The SHA-256 of the body and its length live in the header, so truncation or a
changed byte anywhere in the file is refused (a damaged header either fails to
parse or no longer matches the body). The body is read with
``torch.load(weights_only=True)``, which never runs code from the file.

What a payload may hold (checked by :func:`save_checkpoint` before anything is
written, so a checkpoint that could not be loaded is never produced): a ``dict``
with ``str`` keys at the top; below it, dicts (and ``OrderedDict``, as
``state_dict()`` returns) with ``str`` or ``int`` keys, lists, tuples, ``str``,
``bytes``, ``int`` (any size), ``float``, ``bool``, ``None`` and
``torch.Tensor``. numpy arrays are not allowed: convert them with
``torch.from_numpy`` (and back with ``.numpy()``); numpy scalars with ``.item()``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, BinaryIO, cast

import numpy as np

from pokerai.atomic import write_atomically

if TYPE_CHECKING:
    import torch

FORMAT = "pokerai-deepcfr-checkpoint"
"""The ``format`` named in every checkpoint header."""

FORMAT_VERSION = 1
"""The layout written by this code; :func:`load_checkpoint` reads versions 1 .. FORMAT_VERSION."""

_MAGIC = FORMAT.encode("ascii") + b"\n"
_MAX_HEADER_BYTES = 4096
"""A header is about 150 bytes; a longer first line means the file is not a checkpoint (or is damaged)."""
_HEADER_WIDTH = 192
"""Bytes of the header line as written, newline included: the JSON (about 150 bytes) padded with spaces."""
_HASH_CHUNK = 1 << 24
"""Bytes read at a time while checking a checkpoint's SHA-256."""
_HEADER_KEYS = frozenset({"body_bytes", "format", "format_version", "sha256"})
_NDARRAY_TAG = "__numpy_ndarray__"
"""Marks a numpy array inside a stored numpy RNG state (MT19937, Philox and SFC64 states hold arrays)."""


class CheckpointError(ValueError):
    """A checkpoint that cannot be loaded or restored; the message is one sentence naming the problem."""


# ---------------------------------------------------------------------------- saving


def save_checkpoint(path: str | os.PathLike[str], payload: Mapping[str, Any]) -> Path:
    """Write ``payload`` to ``path`` atomically and return the path written.

    The file is first written in full to a temporary file in the same folder,
    flushed to disk (fsync), then renamed over ``path``
    (:func:`~pokerai.atomic.write_atomically`): a crash at any moment leaves either the
    previous checkpoint or the new one, never a mix. Missing parent folders are created.
    Raises ``TypeError`` (a bug in the caller, not in a file) when the payload holds a value
    outside the allowed types listed in the module docstring, naming where it is.

    The body is streamed to the temporary file and hashed as it is written, so
    saving needs no second copy of the payload in memory: tensors are written
    straight from their storage (give large arrays as tensors, e.g.
    ``torch.from_numpy(array.view(np.uint8))``, not as ``bytes``, which the
    pickler copies). The header line is padded with spaces to a fixed width so
    that it can be filled in once the body's length and hash are known.
    """
    import torch

    target = Path(path)
    if not isinstance(payload, Mapping):
        raise TypeError(f"a checkpoint payload must be a dict, got {type(payload).__name__}")
    for key in payload:
        if not isinstance(key, str):
            raise TypeError(f"checkpoint payload keys at the top level must be strings, got {key!r}")
    _check_payload(dict(payload), "payload")

    def write(file: BinaryIO) -> None:
        file.write(_MAGIC)
        file.write(b" " * (_HEADER_WIDTH - 1) + b"\n")  # filled in below
        body = _HashingWriter(file)
        torch.save(dict(payload), cast(IO[bytes], body))  # torch only calls write and flush
        header = {
            "body_bytes": body.size,
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "sha256": body.hash.hexdigest(),
        }
        text = json.dumps(header, sort_keys=True, separators=(",", ":")).encode("ascii")
        if len(text) >= _HEADER_WIDTH:  # it would overwrite the body: a bug here, not in the payload
            raise RuntimeError(f"a checkpoint header of {len(text)} bytes exceeds {_HEADER_WIDTH - 1}")
        file.seek(len(_MAGIC))
        file.write(text.ljust(_HEADER_WIDTH - 1) + b"\n")

    return write_atomically(target, write)


class _HashingWriter:
    """A write-only file for ``torch.save`` that passes bytes on to ``file`` and hashes and counts them."""

    def __init__(self, file: Any) -> None:
        self.file = file
        self.hash = hashlib.sha256()
        self.size = 0

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        self.hash.update(view)
        self.size += len(view)
        self.file.write(view)
        return len(view)

    def flush(self) -> None:
        self.file.flush()


def _check_payload(value: object, where: str) -> None:
    """``TypeError`` naming ``where`` if ``value`` holds what ``torch.load(weights_only=True)`` refuses."""
    import torch

    if value is None or isinstance(value, (bool, int, float, str, bytes, torch.Tensor)):
        if isinstance(value, torch.Tensor) and type(value) not in (torch.Tensor, torch.nn.Parameter):
            raise TypeError(f"{where} is a {type(value).__name__}; store a plain torch.Tensor")
        return
    if type(value) in (dict, OrderedDict):
        assert isinstance(value, dict)
        for key, item in value.items():
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                raise TypeError(
                    f"{where} has the key {key!r}; checkpoint dict keys must be strings or integers"
                )
            _check_payload(item, f"{where}[{key!r}]")
        return
    if type(value) in (list, tuple):
        assert isinstance(value, (list, tuple))
        for index, item in enumerate(value):
            _check_payload(item, f"{where}[{index}]")
        return
    if isinstance(value, (np.ndarray, np.generic)):
        raise TypeError(
            f"{where} is a numpy {type(value).__name__}; convert arrays with torch.from_numpy and scalars "
            "with .item() before saving a checkpoint"
        )
    raise TypeError(f"{where} is a {type(value).__name__}, which a checkpoint cannot hold")


# ---------------------------------------------------------------------------- loading


def load_checkpoint(
    path: str | os.PathLike[str], *, map_location: str | torch.device = "cpu"
) -> dict[str, Any]:
    """The payload saved at ``path``, its tensors moved to ``map_location``.

    Raises :class:`CheckpointError`, with one sentence naming the file, when the
    file is missing or unreadable, is not a pokerai Deep CFR checkpoint, was
    written by a newer (or unknown) format version, or is truncated or corrupt.

    The file is read twice rather than held in memory: once in chunks to check
    the body's length and SHA-256, then by ``torch.load`` from the same open
    file, so loading needs memory for the payload only.
    """
    import torch

    name = os.fspath(path)
    try:
        file = open(name, "rb")  # noqa: SIM115 - closed below, after torch.load
    except FileNotFoundError:
        raise CheckpointError(f"checkpoint {name} does not exist") from None
    except OSError as error:
        raise CheckpointError(f"checkpoint {name} could not be read: {error.strerror or error}") from None
    with file:
        try:
            head = file.read(len(_MAGIC) + _MAX_HEADER_BYTES)
            total = os.fstat(file.fileno()).st_size
        except OSError as error:
            raise CheckpointError(f"checkpoint {name} could not be read: {error.strerror or error}") from None
        offset, header = _read_head(head, name)
        body_bytes = total - offset
        if body_bytes != header["body_bytes"]:
            problem = "truncated" if body_bytes < header["body_bytes"] else "corrupt"
            raise CheckpointError(
                f"checkpoint {name} is {problem}: its body has {body_bytes} bytes where the header says "
                f"{header['body_bytes']}"
            )
        digest = hashlib.sha256()
        try:
            file.seek(offset)
            while chunk := file.read(_HASH_CHUNK):
                digest.update(chunk)
        except OSError as error:
            raise CheckpointError(f"checkpoint {name} could not be read: {error.strerror or error}") from None
        if digest.hexdigest() != header["sha256"]:
            raise CheckpointError(
                f"checkpoint {name} is corrupt: its body does not match the SHA-256 in its header"
            )
        try:
            body = _FileSlice(file, offset, body_bytes)
            payload = torch.load(cast(IO[bytes], body), map_location=map_location, weights_only=True)
        except Exception as error:  # the checksum matched, so this is a payload torch itself cannot read
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise CheckpointError(f"checkpoint {name} could not be unpickled: {reason}") from None
    if not isinstance(payload, dict):
        raise CheckpointError(f"checkpoint {name} holds a {type(payload).__name__}, not a dict")
    return payload


def _read_head(data: bytes, name: str) -> tuple[int, dict[str, Any]]:
    """The body's offset and the parsed header, from the file's first bytes."""
    if not data:
        raise CheckpointError(f"checkpoint {name} is empty")
    if not data.startswith(_MAGIC):
        if _MAGIC.startswith(data):
            raise CheckpointError(f"checkpoint {name} is truncated: it ends inside its first line")
        raise CheckpointError(
            f"{name} is not a pokerai Deep CFR checkpoint (its first line is not {FORMAT!r})"
        )
    header_end = data.find(b"\n", len(_MAGIC), len(_MAGIC) + _MAX_HEADER_BYTES)
    if header_end < 0:
        raise CheckpointError(f"checkpoint {name} is truncated or corrupt: its header line has no end")
    return header_end + 1, _parse_header(data[len(_MAGIC) : header_end], name)


class _FileSlice(io.RawIOBase):
    """A read-only view of ``size`` bytes of ``file`` from ``offset``, seekable as a file of its own."""

    def __init__(self, file: Any, offset: int, size: int) -> None:
        super().__init__()
        self.file, self.offset, self.size, self.position = file, offset, size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, position: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: self.size}[whence]
        self.position = max(0, base + position)
        return self.position

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        count = max(0, min(len(view), self.size - self.position))
        self.file.seek(self.offset + self.position)
        done = self.file.readinto(view[:count]) if count else 0
        self.position += done
        return done


def _parse_header(line: bytes, name: str) -> dict[str, Any]:
    try:
        header = json.loads(line.decode("ascii"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise CheckpointError(f"checkpoint {name} is corrupt: its header is not valid JSON") from None
    if not isinstance(header, dict) or set(header) != _HEADER_KEYS:
        raise CheckpointError(f"checkpoint {name} is corrupt: its header does not have the expected fields")
    if header["format"] != FORMAT:
        raise CheckpointError(f"{name} is not a pokerai Deep CFR checkpoint (format {header['format']!r})")
    version = header["format_version"]
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise CheckpointError(f"checkpoint {name} has an unknown format version {version!r}")
    if version > FORMAT_VERSION:
        raise CheckpointError(
            f"checkpoint {name} has format version {version}, newer than the {FORMAT_VERSION} this pokerai "
            "reads; upgrade pokerai to load it"
        )
    size = header["body_bytes"]
    digest = header["sha256"]
    if not isinstance(size, int) or isinstance(size, bool) or size < 0 or not isinstance(digest, str):
        raise CheckpointError(
            f"checkpoint {name} is corrupt: its header's body size or checksum is malformed"
        )
    return header


# ---------------------------------------------------------------------------- RNG states


def rng_states(
    numpy_generators: Mapping[str, np.random.Generator],
    torch_generators: Mapping[str, torch.Generator],
) -> dict[str, Any]:
    """The states of named generators, as a value a checkpoint payload may hold.

    Returns ``{"numpy": {name: bit-generator state}, "torch": {name: uint8 tensor}}``.
    numpy states are plain dicts of ints and strings (PCG64's 128-bit integers
    stay Python ints); the arrays some bit generators keep (MT19937, Philox,
    SFC64) are stored as tagged lists of ints. Torch states are the byte
    tensors of ``Generator.get_state()`` (always on the CPU, for CUDA generators too).
    """
    return {
        "numpy": {
            name: _plain_state(generator.bit_generator.state) for name, generator in numpy_generators.items()
        },
        "torch": {name: generator.get_state() for name, generator in torch_generators.items()},
    }


def restore_rng_states(
    states: Mapping[str, Any],
    numpy_generators: Mapping[str, np.random.Generator],
    torch_generators: Mapping[str, torch.Generator],
) -> None:
    """Put the generators back in the states :func:`rng_states` recorded, in place.

    After this, every generator's next draws are bit-identical to what they
    would have been in the run that saved the checkpoint. The names must match
    exactly; a missing or extra name, or a state of another bit generator kind,
    raises :class:`CheckpointError`.
    """
    import torch

    if not isinstance(states, Mapping) or set(states) != {"numpy", "torch"}:
        raise CheckpointError(
            "the RNG states must be a dict with the keys 'numpy' and 'torch' from rng_states"
        )
    _check_names("numpy", states["numpy"], numpy_generators)
    _check_names("torch", states["torch"], torch_generators)
    for name, generator in numpy_generators.items():
        try:
            generator.bit_generator.state = _numpy_state(states["numpy"][name])
        except (TypeError, ValueError, KeyError) as error:
            raise CheckpointError(
                f"the saved state of numpy generator {name!r} does not fit it: {error}"
            ) from None
    for name, torch_generator in torch_generators.items():
        state = states["torch"][name]
        if not isinstance(state, torch.Tensor):
            raise CheckpointError(f"the saved state of torch generator {name!r} is not a tensor")
        try:
            torch_generator.set_state(state.to("cpu"))
        except (TypeError, RuntimeError) as error:
            reason = str(error).splitlines()[0]
            raise CheckpointError(
                f"the saved state of torch generator {name!r} does not fit it: {reason}"
            ) from None


def _check_names(kind: str, saved: object, generators: Mapping[str, object]) -> None:
    if not isinstance(saved, Mapping):
        raise CheckpointError(f"the saved {kind} RNG states are not a dict of generator names to states")
    if set(saved) != set(generators):
        raise CheckpointError(
            f"the checkpoint holds {kind} RNG states for {sorted(saved)} "
            f"but the run has the generators {sorted(generators)}"
        )


def _plain_state(value: object) -> Any:
    """A numpy bit-generator state with its arrays turned into tagged lists of Python ints."""
    if isinstance(value, dict):
        return {key: _plain_state(item) for key, item in value.items()}
    if isinstance(value, np.ndarray):
        return {_NDARRAY_TAG: str(value.dtype), "shape": list(value.shape), "values": value.ravel().tolist()}
    if isinstance(value, np.generic):
        return value.item()
    return value


def _numpy_state(value: object) -> Any:
    """The inverse of :func:`_plain_state`."""
    if isinstance(value, dict):
        if _NDARRAY_TAG in value:
            array = np.array(value["values"], dtype=np.dtype(value[_NDARRAY_TAG]))
            return array.reshape(value["shape"])
        return {key: _numpy_state(item) for key, item in value.items()}
    return value


__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "CheckpointError",
    "load_checkpoint",
    "restore_rng_states",
    "rng_states",
    "save_checkpoint",
]
