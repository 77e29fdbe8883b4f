"""A light start: the command line imports no torch, and each command loads only what it uses."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pokerai.agents.spec import AGENT_NAMES, PATH_AGENT_KINDS, agent_catalogue, make_agent
from pokerai.cli.main import ALL_COMMANDS, COMMANDS, build_parser, main
from pokerai.cli.solve import GAME_NAMES
from pokerai.games import GAME_NAMES as GAMES

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "tensorboard", "ray", "matplotlib", "numba", "scipy")


def loaded_after(code: str) -> list[str]:
    """The HEAVY modules in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    script = f"import sys\n{code}\nprint('\\nloaded:', *(m for m in {HEAVY!r} if m in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, result.stderr
    last = result.stdout.splitlines()[-1].split()
    assert last[0] == "loaded:", result.stdout
    return last[1:]


def test_importing_the_command_line_loads_no_torch() -> None:
    assert loaded_after("import pokerai.cli.main") == []


def test_help_and_equity_load_no_torch() -> None:
    help_run = "from pokerai.cli.main import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    assert loaded_after(help_run) == []
    equity_run = "from pokerai.cli.main import main\nmain(['equity', 'AhKh', 'QsQd', '--samples', '100'])"
    assert "torch" not in loaded_after(equity_run)


@pytest.mark.parametrize(
    "spec", ["blueprint:checkpoints/hunl_blueprint", "search:checkpoints/hunl_tiny?allin=solve"]
)
def test_playing_the_shipped_blueprints_loads_no_torch(spec: str) -> None:
    loaded = loaded_after(f"from pokerai.agents.spec import make_agent\nmake_agent({spec!r})")
    assert "torch" not in loaded and "tensorboard" not in loaded


@pytest.mark.slow  # about 7 s: a subprocess that searches
def test_the_default_bot_searches_its_hands_without_torch() -> None:
    play = (
        "import numpy as np\n"
        "from pokerai.agents.spec import make_agent\n"
        "from pokerai.agents.table import default_opponent_spec\n"
        "from pokerai.engine.state import HUNLState\n"
        "from pokerai.eval.duplicate import play_hand\n"
        "bot, caller = make_agent(default_opponent_spec()), make_agent('call')\n"
        "bot.warm_up()  # as pokerai play does, so that no search falls back to the blueprint\n"
        "for seed in range(20):\n"
        "    bot.begin_hand(0, 0)\n"
        "    caller.begin_hand(1, 0)\n"
        "    rngs = [np.random.default_rng([seed, p]) for p in (0, 1)]\n"
        "    play_hand(HUNLState.new(rng=np.random.default_rng(seed)), [bot, caller], rngs)\n"
        "    if bot.searches_run >= 2:\n"
        "        break\n"
        "counts = (bot.searches_run, bot.searches_unready)\n"
        "assert counts[0] >= 2 and counts[1] == 0, counts\n"
    )
    loaded = loaded_after(play)
    assert "torch" not in loaded and "tensorboard" not in loaded


def test_the_light_help_lines_are_each_commands_own() -> None:
    full = build_parser(ALL_COMMANDS)
    light = build_parser(None)
    for parser in (full, light):
        subparsers: Any = next(a for a in parser._actions if a.dest == "command")
        helps = {action.dest: action.help for action in subparsers._choices_actions}
        assert helps == COMMANDS
    assert GAME_NAMES == GAMES


def test_each_command_parses_its_own_options_when_run_alone(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--game", "kuhn", "--algorithm", "cfr+", "--iterations", "not-a-number"]) == 2
    assert "iterations must be a whole number" in capsys.readouterr().err
    assert main(["agents", "--unknown"]) == 2
    assert main(["nonsense"]) == 2
    assert "invalid choice: 'nonsense'" in capsys.readouterr().err


def test_agents_lists_every_spec_and_exactly_the_options_each_parses(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["agents", "--json"]) == 0
    import json

    listed = json.loads(capsys.readouterr().out)["agents"]
    specs = [entry["spec"] for entry in listed]
    assert specs == [*AGENT_NAMES, *(f"{kind}:PATH" for kind in PATH_AGENT_KINDS)]
    for info in agent_catalogue():
        name = info.spec.replace("PATH", "checkpoints/hunl_tiny")
        with pytest.raises(ValueError) as error:
            make_agent(f"{name}?zzz=1")
        message = str(error.value)
        if info.options:
            parsed = re.search(r"options: (.*)$", message)
            assert parsed is not None, message
            assert sorted(parsed.group(1).split(", ")) == sorted(option.key for option in info.options)
        else:
            assert "takes no options" in message
