"""Hold'em evaluation during training: the current blueprint in a seeded duplicate match."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pokerai.agents.blueprint import BlueprintAgent
from pokerai.agents.heuristic import HeuristicAgent
from pokerai.cli.train_eval import hunl_evaluator
from pokerai.deepcfr.export import Blueprint
from pokerai.deepcfr.trainer import DeepCFRTrainer, load_deepcfr_config
from pokerai.eval.duplicate import duplicate_match
from tests.deepcfr.tiny import TINY_HUNL

TAGS = {"eval/mbb_vs_heuristic", "eval/mbb_vs_heuristic_ci95"}


def test_training_logs_the_blueprints_score_against_heuristic(tmp_path: Path) -> None:
    trainer = DeepCFRTrainer(load_deepcfr_config(TINY_HUNL), tmp_path)
    evaluator = hunl_evaluator(5, seed=11)
    final = trainer.train(evaluator=evaluator)
    assert set(final) >= TAGS
    assert math.isfinite(final["eval/mbb_vs_heuristic"]) and final["eval/mbb_vs_heuristic_ci95"] > 0
    # Seeded: the same networks score the same, and it is exactly the plain duplicate match.
    assert evaluator(trainer) == {tag: final[tag] for tag in TAGS}
    result = duplicate_match(BlueprintAgent(Blueprint.from_trainer(trainer)), HeuristicAgent(), 5, seed=11)
    assert result.hands == 10
    np.testing.assert_allclose(final["eval/mbb_vs_heuristic"], result.mbb_per_hand)
    np.testing.assert_allclose(final["eval/mbb_vs_heuristic_ci95"], result.estimate.half_width)


def test_other_opponents_name_their_tags(tmp_path: Path) -> None:
    trainer = DeepCFRTrainer(load_deepcfr_config(TINY_HUNL), tmp_path)
    trainer.policy_trained = True  # untrained policies still play; only the tags matter here
    scores = hunl_evaluator(2, seed=0, opponent="call")(trainer)
    assert set(scores) == {"eval/mbb_vs_call", "eval/mbb_vs_call_ci95"}


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"pairs": 0}, "positive whole number"),
        ({"pairs": True}, "positive whole number"),
        ({"pairs": 3, "seed": -1}, "non-negative"),
        ({"pairs": 3, "opponent": "nobody"}, "unknown agent spec"),
    ],
)
def test_bad_arguments_fail_at_once(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        hunl_evaluator(**arguments)


def test_a_leduc_run_is_refused(tmp_path: Path) -> None:
    trainer = DeepCFRTrainer(load_deepcfr_config({**TINY_HUNL, "game": "leduc"}), tmp_path)
    with pytest.raises(ValueError, match="plays hold'em"):
        hunl_evaluator(1)(trainer)
