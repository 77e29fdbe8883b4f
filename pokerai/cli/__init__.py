"""Command-line entry points (``pokerai ...``)."""

from pokerai.cli.main import main

__all__ = ["main"]
