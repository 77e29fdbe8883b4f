"""``pokerai analyze``: bad options are one line and exit status 2; the command serves the analyzer."""

from __future__ import annotations

import json
import signal
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.cli.helpers import usage_error
from tests.processes import interruptible

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("arguments", "sentence"),
    [
        (["--bot", "nonsense"], "pokerai analyze: error: --bot: unknown agent spec 'nonsense'"),
        (["--port", "x"], "port must be a whole number, got 'x'"),
        (["--port", "70000"], "port must be from 0 to 65535, got 70000"),
        (["--search-ms", "0"], "search-ms must be a positive number, got 0"),
    ],
)
def test_bad_options_are_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], arguments: list[str], sentence: str
) -> None:
    assert sentence in usage_error(capsys, "analyze", *arguments)


@pytest.mark.parametrize(
    ("arguments", "bot"),
    [
        (["--bot", "call"], "call"),
        ([], "search:checkpoints/hunl_blueprint"),  # not the path it was found at
    ],
)
def test_analyze_prints_its_url_and_serves_the_api(arguments: list[str], bot: str) -> None:
    command = [sys.executable, "-m", "pokerai.cli.main", "analyze", *arguments, "--port", "0"]
    process = interruptible(command, ROOT)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        second = process.stdout.readline()
        assert first == f"pokerai analyze: bot {bot}\n", first + second
        assert second.startswith("open http://127.0.0.1:") and second.endswith("/ (Ctrl-C stops)\n")
        url = second.split()[1]
        with urllib.request.urlopen(f"{url}api/bot", timeout=600) as answer:
            assert json.load(answer)["bot"] == bot
        with urllib.request.urlopen(url, timeout=600) as page:
            assert b"pokerai hand analyzer" in page.read()
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=600)
