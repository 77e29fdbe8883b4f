"""Configs as frozen dataclasses, loaded from YAML files or plain mappings (layer 0).

Every config in the project (abstraction builds, training runs, ...) is a frozen
dataclass whose fields have defaults. :func:`load_config` turns a YAML file, or a
mapping already in memory, into such a dataclass, checking every value on the
way; :func:`config_to_dict` and :func:`dump_config` go back, so that a config
written by one run can be loaded by the next and compares equal.

Field types understood (annotations are resolved with ``typing.get_type_hints``,
so modules may use ``from __future__ import annotations``):

* ``int``, ``float``, ``bool``, ``str``. A whole number is accepted for a
  ``float``; ``true``/``false`` is never accepted as a number.
* a nested dataclass, written as a mapping; a missing mapping takes the field's
  default.
* ``tuple[X, ...]`` (any length) and ``tuple[X, Y]`` (that length), written as
  a list.
* ``X | None`` (``null`` in YAML), unions of the types above, and
  ``Literal[...]``. A union of dataclasses is told apart by a ``kind`` key: a
  mapping with ``kind`` is built as the option whose ``kind: Literal[...]``
  field takes that value, one without it as the option that has no ``kind``
  field, so an error names the key inside the chosen option.

Missing keys take the field's default; a field without one must be given, and so
must the top-level keys a caller names in ``required``.
Numeric bounds come from the field's metadata, for instance
``field(default=8, metadata={"min": 1, "max": 1000, "help": "buckets on the river"})``;
they apply to a number, or to each number of a tuple. After its fields are
built, a dataclass's own ``__post_init__`` runs; a ``ValueError`` it raises is
reported with the key path of that dataclass.

A dotted key (``river.budget_ms``) names a field of a nested dataclass:
:func:`with_text_options` applies ``KEY=VALUE`` text options (an agent spec's) through the
loader, and :func:`dotted_keys`, :func:`dotted_field` and :func:`dotted_value` list and read them.

Every problem with the data is a :class:`ConfigError` whose message is one
sentence naming the file (when there is one) and the key path, e.g.
``abstraction_tiny.yaml: flop.buckets: expected an integer, got 'ten'``.
Problems with the dataclass itself (an unsupported annotation) are
``TypeError``: they are bugs in the code, not in the config.
"""

from __future__ import annotations

import dataclasses
import math
import os
import types
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar, Union

import yaml

T = TypeVar("T")

_MAX_SHOWN_CHARS = 60
"""Longer values are cut short in error messages, so that the message stays one readable line."""


class ConfigError(ValueError):
    """A config file or mapping that does not fit its dataclass; the message names the key path."""


# ---------------------------------------------------------------------------- loading


def load_config(
    source: str | os.PathLike[str] | Mapping[str, Any], cls: type[T], *, required: Sequence[str] = ()
) -> T:
    """Build the dataclass ``cls`` from a YAML file (a path) or from a mapping.

    An empty YAML file gives every field its default, unless ``required`` names
    top-level keys that must be written even though they have defaults. Raises
    :class:`ConfigError` for a missing or unreadable file, text that is not valid
    YAML, a top level that is not a mapping, a missing required key, and any key
    or value that does not fit ``cls``.
    """
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise TypeError(f"load_config builds dataclasses, and {cls!r} is not a dataclass type")
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        data = _read_yaml(Path(name), name)
        try:
            config = _build_dataclass(cls, data, ())
            _check_required(data, required)
        except ConfigError as error:
            raise ConfigError(f"{name}: {error}") from None
        return config
    config = _build_dataclass(cls, source, ())
    _check_required(source, required)
    return config


def _check_required(data: object, required: Sequence[str]) -> None:
    """Raise if a key of ``required`` is not in ``data``. Called once the keys are known to be right, so
    that a misspelt required key is reported as the unknown key it is."""
    if not required or not isinstance(data, Mapping):
        return  # a top level that is not a mapping is reported by _build_dataclass
    missing = [key for key in required if key not in data]
    if not missing:
        return
    keys = ", ".join(missing)
    if not data:
        raise ConfigError(f"the config is empty, and it must give at least {keys}")
    raise ConfigError(f"required key{'s' if len(missing) > 1 else ''} missing: {keys}")


def _read_yaml(path: Path, name: str) -> object:
    """The parsed contents of a YAML file (an empty file reads as an empty mapping)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file {name} does not exist") from None
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise ConfigError(f"config file {name} could not be read: {reason}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ConfigError(f"{name}: not valid YAML: {_describe_yaml_error(error)}") from None
    if data is None:  # an empty file, or one holding only comments
        return {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"{name}: the top level must be a mapping of keys to values, got {_kind_of(data)}")
    return data


def _describe_yaml_error(error: yaml.YAMLError) -> str:
    problem = getattr(error, "problem", None)
    mark = getattr(error, "problem_mark", None)
    if problem is None:
        return str(error).replace("\n", " ")
    if mark is None:
        return str(problem)
    return f"{problem} at line {mark.line + 1}, column {mark.column + 1}"


def _join(path: tuple[str, ...]) -> str:
    """``("flop", "pot_fractions", "[1]")`` -> ``"flop.pot_fractions[1]"``."""
    text = ""
    for part in path:
        text += part if part.startswith("[") or not text else "." + part
    return text


def _fail(path: tuple[str, ...], message: str) -> ConfigError:
    where = _join(path)
    return ConfigError(f"{where}: {message}" if where else message)


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_SHOWN_CHARS else text[: _MAX_SHOWN_CHARS - 3] + "..."


def _kind_of(value: object) -> str:
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    return _show(value)


def _build_dataclass(cls: type[T], data: object, path: tuple[str, ...]) -> T:
    """``cls`` from a mapping of field names to raw values, every value converted and checked."""
    if isinstance(data, cls):  # already built (a mapping given in code may hold finished sub-configs)
        return data
    if not isinstance(data, Mapping):
        raise _fail(path, f"expected a mapping of keys to values, got {_kind_of(data)}")
    hints = typing.get_type_hints(cls)
    fields = [item for item in dataclasses.fields(cls) if item.init]  # type: ignore[arg-type]
    known = {item.name for item in fields}
    for key in data:
        if key not in known:
            where = f"in {_join(path)}" if path else f"at the top level of {cls.__name__}"
            known_list = ", ".join(item.name for item in fields) or "none"
            raise ConfigError(f"unknown key {_show(key)} {where} (known keys: {known_list})")
    values: dict[str, Any] = {}
    for item in fields:
        field_path = (*path, item.name)
        hint = hints[item.name]
        if item.name in data:
            values[item.name] = _convert(data[item.name], hint, field_path, item.metadata)
        elif item.default is dataclasses.MISSING and item.default_factory is dataclasses.MISSING:
            nested = _dataclass_in(hint)
            if nested is None:
                raise _fail(field_path, "required key is missing")
            # A nested config without a default still loads when all of its own fields have defaults.
            values[item.name] = _build_dataclass(nested, {}, field_path)
    try:
        return cls(**values)
    except ConfigError:
        raise
    except ValueError as error:
        raise _fail(path, str(error)) from None


def _dataclass_in(hint: object) -> type | None:
    return hint if isinstance(hint, type) and dataclasses.is_dataclass(hint) else None


def _describe(hint: object) -> str:
    """How a type reads in an error message: "an integer", "a list", ..."""
    origin = typing.get_origin(hint)
    if hint is bool:
        return "true or false"
    if hint is int:
        return "an integer"
    if hint is float:
        return "a number"
    if hint is str:
        return "a string"
    if hint is type(None):
        return "null"
    if origin is Literal:
        return "one of " + ", ".join(repr(choice) for choice in typing.get_args(hint))
    if origin in (Union, types.UnionType):
        return " or ".join(dict.fromkeys(_describe(option) for option in typing.get_args(hint)))
    if origin is tuple:
        return "a list"
    if _dataclass_in(hint) is not None:
        return "a mapping"
    return repr(hint)


def _convert(value: object, hint: object, path: tuple[str, ...], metadata: Mapping[str, Any]) -> Any:
    """``value`` checked against (and converted to) the annotation ``hint``, bounds from ``metadata``."""
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        return _convert_union(value, typing.get_args(hint), hint, path, metadata)
    if origin is Literal:
        choices = typing.get_args(hint)
        # Compare types too: True == 1, and a Literal[1] field should not accept `true`.
        if any(value == choice and type(value) is type(choice) for choice in choices):
            return value
        allowed = ", ".join(repr(choice) for choice in choices)
        raise _fail(path, f"expected one of {allowed}, got {_show(value)}")
    if origin is tuple:
        return _convert_tuple(value, typing.get_args(hint), path, metadata)
    nested = _dataclass_in(hint)
    if nested is not None:
        return _build_dataclass(nested, value, path)
    if hint is bool:
        if isinstance(value, bool):
            return value
        raise _fail(path, f"expected true or false, got {_show(value)}")
    if hint is int:
        # bool is a subclass of int in Python; a `true` where a count belongs is a mistake.
        if isinstance(value, int) and not isinstance(value, bool):
            return _check_bounds(int(value), path, metadata)
        raise _fail(path, f"expected an integer, got {_show(value)}")
    if hint is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return _check_bounds(float(value), path, metadata)
        raise _fail(path, f"expected a number, got {_show(value)}{_float_text_hint(value)}")
    if hint is str:
        if isinstance(value, str):
            return value
        raise _fail(path, f"expected a string, got {_show(value)}")
    raise TypeError(f"{_join(path)}: load_config does not support the field type {hint!r}")


def _float_text_hint(value: object) -> str:
    """A pointer to YAML 1.1's float syntax, for text such as '1e-3' that PyYAML does not read as a number."""
    if not isinstance(value, str):
        return ""
    try:
        float(value)
    except ValueError:
        return ""
    return " (YAML reads exponents without a decimal point as text: write 1.0e-3, not 1e-3)"


def _convert_union(
    value: object,
    options: tuple[object, ...],
    hint: object,
    path: tuple[str, ...],
    metadata: Mapping[str, Any],
) -> Any:
    if value is None:
        if type(None) in options:
            return None
        raise _fail(path, f"expected {_describe(hint)}, got null")
    candidates = [option for option in options if option is not type(None)]
    if isinstance(value, Mapping):
        tagged = _option_of_kind(value, candidates, path)
        if tagged is not None:
            return _convert(value, tagged, path, metadata)
    if len(candidates) == 1:  # the common `X | None`: report X's own, more precise, error
        return _convert(value, candidates[0], path, metadata)
    for option in candidates:
        try:
            return _convert(value, option, path, metadata)
        except ConfigError:
            continue
    raise _fail(path, f"expected {_describe(hint)}, got {_show(value)}")


def _option_of_kind(value: Mapping[Any, Any], options: list[object], path: tuple[str, ...]) -> object | None:
    """The dataclass of ``options`` that the mapping's ``kind`` key selects (module docstring).

    None when no option is a dataclass with a ``kind: Literal[...]`` field (nothing to tell apart).
    """
    kinds: dict[object, tuple[object, ...]] = {}
    for option in options:
        nested = _dataclass_in(option)
        if nested is not None:
            hint = typing.get_type_hints(nested).get("kind")
            kinds[option] = typing.get_args(hint) if typing.get_origin(hint) is Literal else ()
    if not any(kinds.values()):
        return None
    if "kind" not in value:
        untagged = [option for option, choices in kinds.items() if not choices]
        if len(untagged) == 1:
            return untagged[0]
        raise _fail(path, "the key 'kind' is missing")
    for option, choices in kinds.items():
        if any(value["kind"] == choice and type(value["kind"]) is type(choice) for choice in choices):
            return option
    allowed = ", ".join(repr(choice) for choices in kinds.values() for choice in choices)
    untagged_note = " (or no kind)" if not all(kinds.values()) else ""
    raise _fail((*path, "kind"), f"expected one of {allowed}{untagged_note}, got {_show(value['kind'])}")


def _convert_tuple(
    value: object, arguments: tuple[object, ...], path: tuple[str, ...], metadata: Mapping[str, Any]
) -> tuple[Any, ...]:
    if not isinstance(value, (list, tuple)):
        raise _fail(path, f"expected a list, got {_kind_of(value)}")
    if len(arguments) == 2 and arguments[1] is Ellipsis:
        element_types = [arguments[0]] * len(value)
    elif not arguments:  # a bare `tuple` annotation
        raise TypeError(f"{_join(path)}: give the element type of the tuple annotation, e.g. tuple[int, ...]")
    else:
        if len(value) != len(arguments):
            raise _fail(path, f"expected a list of {len(arguments)} values, got {len(value)}")
        element_types = list(arguments)
    return tuple(
        _convert(element, element_type, (*path, f"[{index}]"), metadata)
        for index, (element, element_type) in enumerate(zip(value, element_types, strict=True))
    )


def _check_bounds(number: float, path: tuple[str, ...], metadata: Mapping[str, Any]) -> Any:
    if math.isnan(number):
        raise _fail(path, "expected a number, got nan")
    minimum = metadata.get("min")
    maximum = metadata.get("max")
    if minimum is not None and number < minimum:
        raise _fail(path, f"must be at least {minimum}, got {number}")
    if maximum is not None and number > maximum:
        raise _fail(path, f"must be at most {maximum}, got {number}")
    return number


# ---------------------------------------------------------------------------- writing


def config_to_dict(config: object) -> dict[str, Any]:
    """A config dataclass as plain nested dicts, lists, numbers, strings, booleans and None.

    The result is what YAML and JSON write directly; ``load_config`` reads it back
    into an equal config.
    """
    if not dataclasses.is_dataclass(config) or isinstance(config, type):
        raise TypeError(f"config_to_dict takes a dataclass instance, not {config!r}")
    return {item.name: _plain(getattr(config, item.name)) for item in dataclasses.fields(config) if item.init}


def _plain(value: object) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return config_to_dict(value)
    if isinstance(value, (list, tuple)):
        return [_plain(element) for element in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"config_to_dict cannot write the value {value!r} of type {type(value).__name__}")


def dump_config(config: object) -> str:
    """A config dataclass as YAML text, keys in field order (``load_config`` reads it back)."""
    return str(yaml.safe_dump(config_to_dict(config), sort_keys=False, default_flow_style=False))


# ---------------------------------------------------------------------------- dotted keys


def dotted_keys(cls: type) -> tuple[str, ...]:
    """Every key of the config dataclass ``cls``: a nested dataclass's keys dotted below its field
    (``river.budget_ms``), in field order."""
    keys: list[str] = []
    hints = typing.get_type_hints(cls)
    for item in dataclasses.fields(cls):
        nested = hints[item.name]
        if isinstance(nested, type) and dataclasses.is_dataclass(nested):
            keys += [f"{item.name}.{inner.name}" for inner in dataclasses.fields(nested)]
        else:
            keys.append(item.name)
    return tuple(keys)


def dotted_field(cls: type, key: str) -> tuple[Any, dataclasses.Field[Any]]:
    """The type hint and the dataclass field of the dotted ``key`` of ``cls``; KeyError if there is none."""
    *parents, name = key.split(".")
    for parent in parents:
        cls = typing.get_type_hints(cls)[parent]
    fields = {item.name: item for item in dataclasses.fields(cls)}
    return typing.get_type_hints(cls)[name], fields[name]


def dotted_value(config: object, key: str) -> Any:
    """The value of the dotted ``key`` in the config ``config``."""
    value: Any = config
    for part in key.split("."):
        value = getattr(value, part)
    return value


def option_text(value: Any) -> str:
    """A config value as an option writes it: ``none``, ``0``/``1`` for booleans, 75.0 as ``75``."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def with_text_options(config: T, options: Mapping[str, str], what: str = "option") -> T:
    """``config`` with ``KEY=VALUE`` text options applied (keys :func:`dotted_keys`), checked by
    :func:`load_config`.

    A value is read from its text: ``none`` is None, ``1`` and ``0`` (or ``true``/``false``) are
    booleans where the key is one, whole numbers and decimals are numbers, and anything else
    stays text for the loader to judge. An unknown key is a :class:`ConfigError` naming it as
    ``what`` and listing the keys.
    """
    cls = type(config)
    known = dotted_keys(cls)
    data = config_to_dict(config)
    for key, text in options.items():
        if key not in known:
            raise ConfigError(f"unknown {what} {key!r}; options: {', '.join(known)}")
        hint, _ = dotted_field(cls, key)
        *parents, name = key.split(".")
        nested = data
        for parent in parents:
            nested = nested[parent]
        nested[name] = _option_value(text, hint)
    return load_config(data, cls)


def _option_value(text: str, hint: Any) -> Any:
    """The value of an option's ``text`` for a field of type ``hint`` (:func:`with_text_options`)."""
    if text == "none":
        return None
    options = typing.get_args(hint) if typing.get_origin(hint) is not None else (hint,)
    if bool in options:
        return {"1": True, "0": False, "true": True, "false": False}.get(text, text)
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            continue
    return text


__all__ = [
    "ConfigError",
    "config_to_dict",
    "dotted_field",
    "dotted_keys",
    "dotted_value",
    "dump_config",
    "load_config",
    "option_text",
    "with_text_options",
]
