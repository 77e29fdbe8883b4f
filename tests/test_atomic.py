"""One atomic writer for every file the package writes (pokerai.atomic)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pokerai.atomic import write_atomically, write_text_atomically


def test_an_atomic_write_leaves_an_ordinary_file(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    write_text_atomically(target, "first")
    assert write_text_atomically(target, "second") == target
    assert target.read_text(encoding="utf-8") == "second"
    assert [path.name for path in tmp_path.iterdir()] == ["report.md"]  # no temporary file left
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask  # readable as any new file, not 0600


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary_one(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "folder" / "table.bin"
    write_atomically(target, lambda stream: stream.write(b"old"))  # missing folders are made

    def broken(stream: object) -> None:
        stream.write(b"half a file")  # type: ignore[attr-defined]
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_atomically(target, broken)
    assert target.read_bytes() == b"old"
    assert [path.name for path in target.parent.iterdir()] == ["table.bin"]


def test_the_writer_may_seek_back_to_fill_in_a_header(tmp_path: Path) -> None:
    def write(stream: object) -> None:
        stream.write(b"----body")  # type: ignore[attr-defined]
        stream.seek(0)  # type: ignore[attr-defined]
        stream.write(b"head")  # type: ignore[attr-defined]

    write_atomically(tmp_path / "file", write)
    assert (tmp_path / "file").read_bytes() == b"headbody"
