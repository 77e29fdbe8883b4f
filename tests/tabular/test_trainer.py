"""Tabular hold'em runs: exact resume (also after Ctrl-C), the blueprint folder, playing it, the CLI."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pokerai.abstraction.bets import slot_actions
from pokerai.abstraction.buckets import load_abstraction_config
from pokerai.abstraction.cache import CACHE_ENVIRONMENT
from pokerai.agents.base import Observation
from pokerai.agents.blueprint import BlueprintAgent, load_blueprint
from pokerai.agents.spec import make_agent
from pokerai.cli.main import main
from pokerai.config import config_to_dict
from pokerai.engine.state import ActionKind, HUNLState
from pokerai.eval.aivat import ALL_HANDS
from pokerai.eval.duplicate import duplicate_match
from pokerai.interrupts import TrainingInterrupted
from pokerai.tabular.blueprint import ABSTRACTION_FILE, STRATEGY_FILE, TabularBlueprint, TabularBlueprintError
from pokerai.tabular.config import load_tabular_config
from pokerai.tabular.trainer import (
    CHECKPOINT_NAME,
    TabularCheckpointError,
    TabularTrainer,
    deal_buckets,
    run_size,
)
from tests.deepcfr.fake_abstraction import FAKE_BUCKETS, FAKE_CONFIG, fake_abstraction

MENU = {"pot_fractions": [1.0], "all_in": True, "all_in_max_pots": 2, "max_raises": 2}


def run_config(**changes: Any) -> dict[str, Any]:
    config = {
        "name": "tabular_test",
        "algorithm": "mccfr",
        "hunl": {"bets": {street: MENU for street in ("preflop", "flop", "turn", "river")}},
        "abstraction": config_to_dict(FAKE_CONFIG),
        "iterations": 3_000,
        "batch": 1_000,
        "discount_every": 500,
        "discount_until": 1_500,
        "prune_after": 1_500,
        "prune_threshold": -200_000.0,
        "regret_floor": -250_000.0,
        "evaluation": {"hunl_pairs": 0},
        "checkpoint_every": 1_000,
        "checkpoint_minutes": 0.0,
    }
    config.update(changes)
    return config


def trained(run_dir: Path, abstraction: Any, iterations: int = 1_000) -> TabularTrainer:
    """A tiny tabular run in ``run_dir`` trained for ``iterations`` deals."""
    trainer = TabularTrainer(
        load_tabular_config(run_config(iterations=iterations)), run_dir, abstraction=abstraction
    )
    trainer.train()
    return trainer


@pytest.fixture(scope="module")
def abstraction() -> Any:
    return fake_abstraction()


def test_deals_give_buckets_and_showdowns(abstraction: Any) -> None:
    buckets, results = deal_buckets(abstraction, np.random.default_rng(0), 2_000)
    assert buckets.shape == (2_000, 2, 4)
    assert np.all(buckets.max(axis=(0, 1)) < np.asarray(FAKE_BUCKETS))
    assert set(np.unique(results).tolist()) == {-1.0, 0.0, 1.0}
    assert abs(results.mean()) < 0.1  # the button's showdown wins are as likely as its losses


@pytest.mark.parametrize(
    ("stop", "sigint"),
    [
        (signal.SIGINT, signal.default_int_handler),  # Ctrl-C (a background shell ignores it: set it)
        (signal.SIGTERM, signal.SIG_IGN),  # kill, in a job started with nohup ... & (Ctrl-C ignored)
    ],
)
def test_resume_after_ctrl_c_or_kill_is_exact(
    tmp_path: Path, abstraction: Any, fake_cache: Path, stop: signal.Signals, sigint: Any
) -> None:
    config = load_tabular_config(run_config())
    whole = TabularTrainer(config, tmp_path / "whole", abstraction=abstraction)
    whole.train()
    assert whole.iteration == 3_000 and whole.table_fill() > 0

    def interrupt_after_first_batch(iteration: int, scalars: dict[str, float]) -> None:
        if iteration == 1_000:
            os.kill(os.getpid(), stop)

    previous = signal.signal(signal.SIGINT, sigint)
    before = signal.getsignal(signal.SIGTERM)
    try:
        stopped = TabularTrainer(config, tmp_path / "stopped", abstraction=abstraction)
        with pytest.raises(TrainingInterrupted) as raised:
            stopped.train(log=interrupt_after_first_batch)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert signal.getsignal(signal.SIGTERM) is before  # the run's handler is gone, the previous one back
    assert raised.value.iteration == 1_000  # stopped before the next batch, its checkpoint written
    resumed = TabularTrainer.resume(tmp_path / "stopped")
    assert resumed.iteration == 1_000
    resumed.train()
    assert np.array_equal(resumed.solver.regrets, whole.solver.regrets)
    assert np.array_equal(resumed.solver.strategy_sum, whole.solver.strategy_sum)


def test_bad_checkpoints_are_named(tmp_path: Path, abstraction: Any, fake_cache: Path) -> None:
    with pytest.raises(TabularCheckpointError, match=r"holds no checkpoint\.npz"):
        TabularTrainer.resume(tmp_path)
    trained(tmp_path, abstraction)
    path = tmp_path / CHECKPOINT_NAME
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(TabularCheckpointError, match="corrupt or truncated"):
        TabularTrainer.resume(tmp_path)


def test_blueprint_folder_round_trip_and_play(tmp_path: Path, abstraction: Any, fake_cache: Path) -> None:
    trainer = trained(tmp_path / "run", abstraction, iterations=run_config()["iterations"])
    folder = trainer.export()
    loaded = load_blueprint(folder)
    assert isinstance(loaded, TabularBlueprint)
    assert np.array_equal(loaded.strategy, trainer.blueprint().strategy)
    agent = BlueprintAgent(loaded, threshold=0.1)
    result = duplicate_match(agent, make_agent("call"), 20, seed=1, config=trainer.game.config)
    assert result.hands == 40
    spec = make_agent(f"blueprint:{folder}")
    assert isinstance(spec, BlueprintAgent) and isinstance(spec.blueprint, TabularBlueprint)
    searcher = make_agent(f"search:{folder}?flop.iterations=0&turn.iterations=0&river.iterations=20")
    assert duplicate_match(searcher, make_agent("call"), 3, seed=2, config=trainer.game.config).hands == 6
    # The whole range at the first decision: one row per hand, each a distribution.
    state = HUNLState.new(trainer.game.config, 0, deck=range(9))
    policy = agent.range_policy(Observation.from_state(state), ALL_HANDS)
    np.testing.assert_allclose(policy.probabilities.sum(axis=0), 1.0)


def test_probabilities_read_the_table(abstraction: Any) -> None:
    trainer = TabularTrainer(
        load_tabular_config(run_config(iterations=2_000)), "unused", abstraction=abstraction
    )
    for _ in range(2):
        trainer.run_batch()
    blueprint = trainer.blueprint()
    tree = blueprint.tree
    state = HUNLState.new(trainer.game.config, 0, deck=[12, 25, 0, 1, 2, 3, 4, 5, 6])
    mask, _ = slot_actions(state, blueprint.game.bets)
    row = blueprint.hand_probabilities(state, np.array([state.hole_cards(0)]), mask)[0]
    bucket = abstraction.bucket(0, state.hole_cards(0))
    count = int(tree.num_actions[0])
    expected = np.zeros(blueprint.num_slots)
    expected[tree.slots[0, :count]] = trainer.solver.average_strategy(0, [bucket])[0]
    np.testing.assert_allclose(row, expected, atol=1e-6)
    # Hands on boards of their own answer as they would at a state with that board.
    flop = state.after(ActionKind.CALL).after(ActionKind.CHECK)  # the big blind first on the flop
    other = HUNLState.new(trainer.game.config, 0, deck=[12, 25, 0, 1, 7, 3, 9, 5, 6])
    other = other.after(ActionKind.CALL).after(ActionKind.CHECK)
    mask, _ = slot_actions(flop, blueprint.game.bets)
    hands = np.array([[0, 1], [10, 11], [0, 1]])
    boards = np.array([other.board, flop.board, flop.board])
    rows = blueprint.hand_probabilities(flop, hands, mask, boards)
    for index, spot in enumerate((other, flop, flop)):
        alone = blueprint.hand_probabilities(spot, hands[index : index + 1], mask)[0]
        np.testing.assert_array_equal(rows[index], alone)
    assert not np.array_equal(rows[0], rows[2])  # the same hand on another flop buckets apart


def test_bad_blueprint_folders_are_named(tmp_path: Path, abstraction: Any, fake_cache: Path) -> None:
    with pytest.raises(TabularBlueprintError, match=r"has no strategy\.npz"):
        TabularBlueprint.load(tmp_path)
    trainer = trained(tmp_path, abstraction)
    folder = trainer.export()
    with np.load(folder / STRATEGY_FILE) as archive:
        strategy, meta = archive["strategy"].copy(), str(archive["meta"])
    strategy[0] += 0.5
    np.savez(folder / STRATEGY_FILE, strategy=strategy, meta=np.array(meta))
    with pytest.raises(TabularBlueprintError, match="checksum"):
        TabularBlueprint.load(folder)
    np.savez(folder / STRATEGY_FILE, strategy=strategy, meta=np.array(json.dumps({"format": "other"})))
    with pytest.raises(TabularBlueprintError, match="not a pokerai tabular blueprint"):
        TabularBlueprint.load(folder)


def test_cli_trains_and_resumes(tmp_path: Path, fake_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import yaml

    config = tmp_path / "mccfr.yaml"
    config.write_text(yaml.safe_dump(run_config(iterations=2_000)))
    runs = tmp_path / "runs"
    assert main(["train", "--config", str(config), "--runs-dir", str(runs), "--json"]) == 0
    captured = capsys.readouterr()
    payload = json.loads(captured.out)
    size = run_size(load_tabular_config(run_config()))
    # The tree's size and the tables' memory are said before the run starts.
    assert f"betting tree: {size['nodes']:,} nodes" in captured.err
    assert (
        f"{size['table_entries']:,} table entries" in captured.err and "MiB of bucket tables" in captured.err
    )
    assert size["table_bytes"] == 8 * size["table_entries"] and size["infosets"] < size["table_entries"]
    run = Path(payload["run_dir"])
    assert run.name.startswith("tabular_test__mccfr__0__")
    assert payload["iterations"] == 2_000 and (run / "blueprint" / STRATEGY_FILE).is_file()
    assert main(["train", "--resume", str(run), "--iterations", "3000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["iterations"] == 3_000
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(run_config(abstraction="no/such/abstraction.yaml")))
    assert main(["train", "--config", str(bad), "--runs-dir", str(runs)]) == 2
    assert "abstraction: config file no/such/abstraction.yaml does not exist" in capsys.readouterr().err
    assert main(["train", "--config", str(config), "--runs-dir", str(runs), "--workers", "2"]) == 2
    assert "tabular run" in capsys.readouterr().err


def test_a_folder_that_carries_its_abstraction_needs_no_cache(
    tmp_path: Path, abstraction: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty_cache"
    monkeypatch.setenv(CACHE_ENVIRONMENT, str(empty))
    trainer = trained(tmp_path / "run", abstraction)
    folder = trainer.blueprint().save(tmp_path / "shipped", abstraction=True)
    loaded = TabularBlueprint.load(folder)  # would build the abstraction (minutes) if it read the cache
    assert not empty.exists()
    assert all(
        np.array_equal(a, b) for a, b in zip(loaded.abstraction.tables, abstraction.tables, strict=True)
    )
    other = fake_abstraction()
    other.metadata = {**other.metadata, "config": {**other.metadata["config"], "name": "other"}}
    other.config = load_abstraction_config(other.metadata["config"])
    other.save(folder / ABSTRACTION_FILE)
    with pytest.raises(TabularBlueprintError, match="is not the card abstraction"):
        TabularBlueprint.load(folder)
