"""The ``pokerai abstraction`` command-line contract (build / info / bucket)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pokerai.abstraction.buckets import CardAbstraction
from pokerai.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["abstraction", *args, "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # exactly one JSON object on stdout
    return json.loads(out)


def run_error(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["abstraction", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err  # one sentence, no traceback
    return lines[0]


def test_info_verifies_and_reports_every_street(
    capsys: pytest.CaptureFixture[str], small_abstraction_path: Path
) -> None:
    data = run_json(capsys, "info", str(small_abstraction_path))
    assert data["format"] == "pokerai-card-abstraction" and data["format_version"] == 1
    assert data["name"] == "tests" and data["seed"] == 0
    streets = data["streets"]
    assert [streets[name]["buckets"] for name in ("preflop", "flop", "turn", "river")] == [8, 12, 12, 8]
    assert streets["river"]["entries"] == 123_156_254
    assert sum(streets["flop"]["hands_per_bucket"]) == 1_286_792
    assert main(["abstraction", "info", str(small_abstraction_path)]) == 0
    text = capsys.readouterr().out
    assert "verified" in text and "123,156,254" in text


def test_bucket_json(capsys: pytest.CaptureFixture[str], small_abstraction_path: Path) -> None:
    aces = run_json(capsys, "bucket", str(small_abstraction_path), "--hole", "AhAs")
    assert aces["street"] == "preflop" and aces["bucket"] == 7 and aces["buckets"] == 8
    trash = run_json(capsys, "bucket", str(small_abstraction_path), "--hole", "7c2d")
    assert trash["bucket"] == 0
    flop = run_json(capsys, "bucket", str(small_abstraction_path), "--hole", "AhKh", "--board", "Ks7d2c")
    loaded = CardAbstraction.load(small_abstraction_path)
    assert flop["street"] == "flop" and flop["bucket"] == loaded.bucket(1, [50, 47], [46, 21, 0])
    # An isomorphic hand (hearts <-> spades) has the same index and bucket.
    mirrored = run_json(capsys, "bucket", str(small_abstraction_path), "--hole", "AsKs", "--board", "Kh7d2c")
    assert (mirrored["index"], mirrored["bucket"]) == (flop["index"], flop["bucket"])
    river = run_json(
        capsys, "bucket", str(small_abstraction_path), "--hole", "AhKh", "--board", "Ks 7d 2c Qh 5s"
    )
    assert river["street"] == "river" and 0 <= river["bucket"] < 8


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--hole", "AhKx"], "malformed card 'Kx'"),
        (["--hole", "AhKhQh"], "exactly two cards"),
        (["--hole", "AhKh", "--board", "Ks7d"], "0, 3, 4 or 5 cards"),
        (["--hole", "AhKh", "--board", "Ah7d2c"], "repeat a card"),
    ],
)
def test_bucket_bad_cards(
    capsys: pytest.CaptureFixture[str], small_abstraction_path: Path, args: list[str], message: str
) -> None:
    assert message in run_error(capsys, "bucket", str(small_abstraction_path), *args)


def test_info_refuses_a_truncated_file(
    capsys: pytest.CaptureFixture[str], small_abstraction_path: Path, tmp_path: Path
) -> None:
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(small_abstraction_path.read_bytes()[:100_000])
    assert "corrupt or truncated" in run_error(capsys, "info", str(truncated))
    assert "no such abstraction file" in run_error(capsys, "info", str(tmp_path / "missing.npz"))


def test_info_says_a_text_file_is_not_an_abstraction(capsys: pytest.CaptureFixture[str]) -> None:
    message = run_error(capsys, "info", str(Path(__file__).resolve().parents[2] / "README.md"))
    assert "not a pokerai card abstraction file" in message and "corrupt" not in message


def test_build_refuses_bad_configs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text("flop:\n  buckets: twelve\n")
    line = run_error(capsys, "build", "--config", str(config), "--out", str(tmp_path / "out.npz"))
    assert "flop.buckets: expected an integer, got 'twelve'" in line
    config.write_text("seed: 0\ncolour: red\n")
    assert "unknown key 'colour'" in run_error(capsys, "build", "--config", str(config), "--out", "x.npz")
    assert "does not exist" in run_error(
        capsys, "build", "--config", str(tmp_path / "nope.yaml"), "--out", "x.npz"
    )
    assert not (tmp_path / "out.npz").exists()


@pytest.mark.slow
def test_build_through_the_cli_reproduces_the_small_abstraction(
    capsys: pytest.CaptureFixture[str], small_abstraction: CardAbstraction, tmp_path: Path
) -> None:
    out = tmp_path / "small.npz"
    data = run_json(
        capsys, "build", "--config", str(ROOT / "tests" / "abstraction_tests.yaml"), "--out", str(out)
    )
    assert data["path"] == str(out) and out.is_file()
    # Deterministic: a second build in another process state gives the same tables, bit for bit.
    for name in ("preflop", "flop", "turn", "river"):
        assert data["streets"][name]["sha256"] == small_abstraction.metadata["streets"][name]["sha256"]
    assert not list(tmp_path.glob(".*.tmp"))  # the temporary file was renamed, not left behind
