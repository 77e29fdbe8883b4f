"""load_config / dump_config: every kind of error names its key path; configs round-trip through YAML."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pytest
import yaml

from pokerai.config import ConfigError, config_to_dict, dump_config, load_config


@dataclass(frozen=True)
class StreetConfig:
    buckets: int = field(default=8, metadata={"min": 1, "max": 1000, "help": "buckets on this street"})
    bins: int = 10
    weights: tuple[float, ...] = field(default=(1.0, 2.0), metadata={"min": 0.0})


@dataclass(frozen=True)
class Schedule:
    """A dataclass with a required field and its own validation."""

    start: float
    end: float = 1.0

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise ValueError(f"end {self.end} is before start {self.start}")


@dataclass(frozen=True)
class Example:
    name: str = "tiny"
    seed: int = 0
    learning_rate: float = 0.001
    verbose: bool = False
    metric: Literal["l2", "emd"] = "emd"
    limit: int | None = None
    flop: StreetConfig = field(default_factory=StreetConfig)
    river: StreetConfig = field(default_factory=lambda: StreetConfig(buckets=4))
    schedule: Schedule = field(default_factory=lambda: Schedule(start=0.5))
    pair: tuple[int, int] = (1, 2)


@dataclass(frozen=True)
class Required:
    size: int
    note: str = ""


def error_of(source: object, cls: type = Example) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(source, cls)  # type: ignore[arg-type]
    return str(caught.value)


# ---------------------------------------------------------------------------- building


def test_empty_mapping_gives_defaults() -> None:
    assert load_config({}, Example) == Example()


def test_values_are_converted_and_nested_defaults_kept() -> None:
    config = load_config(
        {"seed": 3, "flop": {"buckets": 50, "weights": [1, 2.5]}, "limit": 7, "metric": "l2"}, Example
    )
    assert config.seed == 3
    assert config.flop == StreetConfig(buckets=50, bins=10, weights=(1.0, 2.5))
    assert isinstance(config.flop.weights, tuple)
    assert config.river == StreetConfig(buckets=4)  # the missing mapping takes the field's default
    assert config.schedule == Schedule(start=0.5)
    assert config.limit == 7
    assert config.metric == "l2"


def test_int_accepted_for_float() -> None:
    config = load_config({"learning_rate": 1}, Example)
    assert config.learning_rate == 1.0
    assert isinstance(config.learning_rate, float)


def test_optional_accepts_null() -> None:
    assert load_config({"limit": None}, Example).limit is None


def test_nested_required_field_given() -> None:
    assert load_config({"schedule": {"start": 0.25}}, Example).schedule == Schedule(start=0.25, end=1.0)


def test_finished_sub_config_is_accepted_as_value() -> None:
    street = StreetConfig(buckets=2)
    assert load_config({"flop": street}, Example).flop is street


# ---------------------------------------------------------------------------- errors


def test_unknown_key_at_top_level() -> None:
    message = error_of({"sead": 1})
    assert "unknown key 'sead'" in message
    assert "top level" in message
    assert "seed" in message and "learning_rate" in message  # the known keys are listed


def test_unknown_key_nested() -> None:
    message = error_of({"flop": {"bukets": 3}})
    assert "unknown key 'bukets' in flop" in message
    assert "known keys: buckets, bins, weights" in message


def test_wrong_type() -> None:
    assert error_of({"flop": {"buckets": "ten"}}) == "flop.buckets: expected an integer, got 'ten'"
    assert "name: expected a string, got 3" in error_of({"name": 3})
    assert "verbose: expected true or false, got 'yes'" in error_of({"verbose": "yes"})
    assert "learning_rate: expected a number" in error_of({"learning_rate": "fast"})


def test_bool_is_not_a_number() -> None:
    assert error_of({"seed": True}) == "seed: expected an integer, got True"
    assert error_of({"learning_rate": False}) == "learning_rate: expected a number, got False"
    assert "flop.weights[0]: expected a number, got True" in error_of({"flop": {"weights": [True]}})


def test_float_written_as_exponent_without_point_gets_a_hint() -> None:
    # PyYAML follows YAML 1.1, where 1e-3 is a string.
    message = error_of(yaml.safe_load("learning_rate: 1e-3"))
    assert "learning_rate: expected a number, got '1e-3'" in message
    assert "1.0e-3" in message


def test_float_written_with_point_and_exponent_loads() -> None:
    assert load_config(yaml.safe_load("learning_rate: 1.0e-3"), Example).learning_rate == 0.001


def test_wrong_container_type() -> None:
    assert error_of({"flop": [1, 2]}) == "flop: expected a mapping of keys to values, got a list"
    assert error_of({"flop": {"weights": 0.5}}) == "flop.weights: expected a list, got 0.5"
    assert error_of({"pair": [1, 2, 3]}) == "pair: expected a list of 2 values, got 3"


def test_out_of_range() -> None:
    assert error_of({"river": {"buckets": 0}}) == "river.buckets: must be at least 1, got 0"
    assert error_of({"flop": {"buckets": 5000}}) == "flop.buckets: must be at most 1000, got 5000"
    assert error_of({"flop": {"weights": [1.0, -2.0]}}) == "flop.weights[1]: must be at least 0.0, got -2.0"


def test_literal() -> None:
    message = error_of({"metric": "l1"})
    assert message == "metric: expected one of 'l2', 'emd', got 'l1'"


def test_null_for_non_optional() -> None:
    assert error_of({"seed": None}) == "seed: expected an integer, got None"
    assert "limit: expected an integer, got 'many'" in error_of({"limit": "many"})


def test_missing_required() -> None:
    assert error_of({}, Required) == "size: required key is missing"
    assert error_of({"schedule": {"end": 2.0}}) == "schedule.start: required key is missing"


def test_keys_a_caller_requires_must_be_written_even_with_defaults(tmp_path: Path) -> None:
    required = ("name", "seed")
    assert load_config({"name": "x", "seed": 1}, Example, required=required) == Example(name="x", seed=1)
    with pytest.raises(ConfigError, match=r"^required key missing: seed$"):
        load_config({"name": "x"}, Example, required=required)
    # A misspelt key is named as unknown, not as a required key missing.
    with pytest.raises(ConfigError, match=r"^unknown key 'sede'"):
        load_config({"name": "x", "sede": 1}, Example, required=required)
    path = tmp_path / "empty.yaml"
    path.write_text("# nothing set\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path, Example, required=required)
    assert str(caught.value) == f"{path}: the config is empty, and it must give at least name, seed"
    path.write_text("seed: 3\n")
    with pytest.raises(ConfigError, match=r"required key missing: name$"):
        load_config(path, Example, required=required)


def test_post_init_error_is_prefixed_with_the_key_path() -> None:
    message = error_of({"schedule": {"start": 2.0, "end": 1.0}})
    assert message == "schedule: end 1.0 is before start 2.0"
    assert isinstance(ConfigError(message), ValueError)


def test_top_level_post_init_error_has_no_prefix() -> None:
    assert error_of({"start": 3, "end": 1}, Schedule) == "end 1.0 is before start 3.0"


def test_non_mapping_source() -> None:
    assert "expected a mapping" in error_of([1, 2])  # a list where the top-level mapping belongs


# ---------------------------------------------------------------------------- files


def test_file_errors_are_prefixed_with_the_file_name(tmp_path: Path) -> None:
    path = tmp_path / "abstraction_tiny.yaml"
    path.write_text("flop:\n  buckets: ten\n")
    assert error_of(path) == f"{path}: flop.buckets: expected an integer, got 'ten'"
    assert error_of(str(path)).startswith(f"{path}: flop.buckets:")


def test_file_loads(tmp_path: Path) -> None:
    path = tmp_path / "good.yaml"
    path.write_text("# a comment\nseed: 5\nflop:\n  weights: [0.5, 1]\n")
    assert load_config(path, Example) == Example(seed=5, flop=StreetConfig(weights=(0.5, 1.0)))


def test_empty_file_gives_defaults(tmp_path: Path) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text("# nothing set\n")
    assert load_config(path, Example) == Example()


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.yaml"
    message = error_of(path)
    assert str(path) in message
    assert "does not exist" in message


def test_bad_yaml_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("flop:\n  buckets: [1, 2\n")
    message = error_of(path)
    assert message.startswith(f"{path}: not valid YAML")
    assert "line" in message


def test_top_level_not_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("- 1\n- 2\n")
    message = error_of(path)
    assert message == f"{path}: the top level must be a mapping of keys to values, got a list"


def test_not_a_dataclass_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="not a dataclass"):
        load_config({}, dict)


# ---------------------------------------------------------------------------- writing


def test_config_to_dict_is_plain() -> None:
    plain = config_to_dict(Example(flop=StreetConfig(weights=(0.25,))))
    assert plain["flop"] == {"buckets": 8, "bins": 10, "weights": [0.25]}
    assert plain["pair"] == [1, 2]
    assert plain["limit"] is None
    assert list(plain) == [
        "name", "seed", "learning_rate", "verbose", "metric", "limit", "flop", "river", "schedule", "pair"
    ]  # fmt: skip


@pytest.mark.parametrize(
    "config",
    [
        Example(),
        Example(
            name="big run",
            seed=12,
            learning_rate=3e-5,
            verbose=True,
            metric="l2",
            limit=40,
            flop=StreetConfig(buckets=200, bins=50, weights=(0.1, 0.33, 1e-9)),
            schedule=Schedule(start=-1.5, end=float("inf")),
            pair=(7, 9),
        ),
    ],
)
def test_round_trip(config: Example) -> None:
    text = dump_config(config)
    assert load_config(yaml.safe_load(text), Example) == config


def test_round_trip_through_file(tmp_path: Path) -> None:
    config = Example(seed=9, river=StreetConfig(buckets=3, weights=()))
    path = tmp_path / "written.yaml"
    path.write_text(dump_config(config))
    assert load_config(path, Example) == config
