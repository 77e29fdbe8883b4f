"""Command-line entry points (``pokerai ...``); the program is :func:`pokerai.cli.main.main`.

Nothing is imported here: ``pokerai --help`` loads only the parser, and each command loads
what it needs when it runs.
"""
