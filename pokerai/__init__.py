"""pokerai: a heads-up no-limit hold'em AI, and solvers proven on games with known answers."""

__version__ = "0.1.0"

__all__ = ["__version__"]
