"""``pokerai eval --lbr --lbr-menu NAME``: named LBR menus, overridden field by field by the other options."""

from __future__ import annotations

import numpy as np
import pytest

from pokerai.agents.base import Observation
from pokerai.agents.baselines import CallAgent
from pokerai.engine.state import ActionKind, HUNLConfig, HUNLState
from pokerai.eval.lbr import LBR_MENUS, LBRConfig, LocalBestResponse
from tests.cli.test_eval_command import run, run_json

LBR = ("--lbr", "--a", "call", "--hands", "4", "--lbr-runouts", "20")


def test_the_named_menus() -> None:
    assert LBR_MENUS["default"] == LBRConfig()
    lisy_bowling = LBR_MENUS["lisy-bowling"]
    assert (lisy_bowling.bet_fractions, lisy_bowling.all_in, lisy_bowling.raise_streets) == (
        (1.0,),
        True,
        (1, 2, 3),
    )
    # Fold or call preflop; fold, call, pot and all-in on the flop.
    preflop = HUNLState.new(HUNLConfig(), 0, deck=list(range(9)))
    preflop.raise_to(300)
    lbr = LocalBestResponse(CallAgent(), lisy_bowling)
    assert [action.kind for action in lbr.candidate_actions(Observation.from_state(preflop))] == [
        ActionKind.FOLD,
        ActionKind.CALL,
    ]
    preflop.call()
    preflop.raise_to(400)
    flop = Observation.from_state(preflop)
    assert flop.street == 1
    assert [(action.kind, action.amount) for action in lbr.candidate_actions(flop)] == [
        (ActionKind.FOLD, 0),
        (ActionKind.CALL, 400),
        (ActionKind.RAISE, 400 + 1_400),  # the pot after calling: 600 + 400 + 400
        (ActionKind.RAISE, 19_700),  # all-in: 300 of the 20,000 went in preflop
    ]


def test_the_menu_option_and_its_overrides(capsys: pytest.CaptureFixture[str]) -> None:
    default = run_json(capsys, *LBR)["menu"]
    assert default["raise_streets"] == ["preflop", "flop", "turn", "river"] and default["all_in"]
    assert run_json(capsys, *LBR, "--lbr-menu", "default")["menu"] == default
    lisy_bowling = run_json(capsys, *LBR, "--lbr-menu", "lisy-bowling")
    assert lisy_bowling["menu"] == {
        "bet_fractions": [1.0],
        "all_in": True,
        "raise_streets": ["flop", "turn", "river"],
        "runouts": 20,
    }
    assert lisy_bowling["hands"] == 4 and np.isfinite(lisy_bowling["mbb_per_hand"])
    # Each --lbr-* option replaces one field of the named menu and keeps the others.
    menu = run_json(capsys, *LBR, "--lbr-menu", "lisy-bowling", "--lbr-no-allin")["menu"]
    assert menu["all_in"] is False and menu["raise_streets"] == ["flop", "turn", "river"]
    menu = run_json(capsys, *LBR, "--lbr-menu", "lisy-bowling", "--lbr-raise-streets", "river")["menu"]
    assert menu["raise_streets"] == ["river"] and menu["all_in"] is True
    menu = run_json(capsys, *LBR, "--lbr-menu", "lisy-bowling", "--lbr-bets", "0.5,2")["menu"]
    assert menu["bet_fractions"] == [0.5, 2.0] and menu["raise_streets"] == ["flop", "turn", "river"]
    assert run(*LBR, "--lbr-menu", "lisy-bowling") == 0
    assert "raises on flop, turn, river" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--a", "call", "--b", "call", "--pairs", "2", "--lbr-menu", "lisy-bowling"],
            "--lbr-menu applies only",
        ),
        ([*LBR, "--lbr-menu", "lisy"], "invalid choice: 'lisy'"),
    ],
)
def test_bad_menu_arguments(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert run(*argv) == 2
    assert message in capsys.readouterr().err
