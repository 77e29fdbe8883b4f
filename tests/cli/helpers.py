"""What the command-line tests share: a command's JSON, its one-line usage error, the installed entry
point, and a scripted ``pokerai play`` session."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterable
from typing import Any

import pytest

from pokerai.agents.base import Agent
from pokerai.cli.main import main
from pokerai.cli.play.session import PlaySession


def json_of(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    """``pokerai ARGV --json``: it exits 0 with exactly one JSON object on stdout, returned."""
    assert main([*argv, "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # exactly one JSON object on stdout
    return json.loads(out)


def usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """``pokerai ARGV``, a bad argument: exit status 2, nothing on stdout and one line on stderr
    without a traceback, returned."""
    assert main(list(argv)) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    return captured.err


def console(*argv: str) -> subprocess.CompletedProcess[str]:
    """The installed ``pokerai`` entry point (or ``python -m pokerai.cli.main``) run with ``argv``."""
    executable = shutil.which("pokerai")
    command = [executable] if executable else [sys.executable, "-m", "pokerai.cli.main"]
    return subprocess.run([*command, *argv], capture_output=True, text=True, check=False)


def console_usage_error(*argv: str) -> str:
    """The entry point run with a bad argument: status 2, nothing on stdout, no traceback; its stderr."""
    bad = console(*argv)
    assert bad.returncode == 2
    assert bad.stdout == "" and "Traceback" not in bad.stderr
    return bad.stderr


def scripted_session(bot: Agent, typed: Iterable[str], *, hands: int, **options: Any) -> PlaySession:
    """A session of ``hands`` hands (seed 3, 200 big blinds) against ``bot`` where the user types
    the lines ``typed``; ``options`` (``write``, ``screen``, ...) go to :class:`PlaySession`."""
    lines = iter(typed)
    options.setdefault("write", lambda text: None)
    return PlaySession(
        bot,
        opponent_name=bot.name,
        stack=20_000,
        seed=3,
        hands=hands,
        read_line=lambda prompt: next(lines),
        **options,
    )


def leduc_deepcfr_config(
    *,
    iterations: int,
    traversals: int,
    steps: int,
    batch_size: int,
    evaluate_every: int,
    checkpoint_every: int,
) -> str:
    """The YAML of a tiny Deep CFR run on Leduc (networks of 8 units, buffers of 200 samples)."""
    return f"""
name: tiny
game: leduc
iterations: {iterations}
traversals_per_iteration: {traversals}
network: {{hidden_sizes: [8]}}
advantage: {{steps: {steps}, batch_size: {batch_size}, buffer_capacity: 200}}
policy: {{steps: {steps}, batch_size: {batch_size}, buffer_capacity: 200}}
evaluation: {{every: {evaluate_every}}}
checkpoint_every: {checkpoint_every}
"""
