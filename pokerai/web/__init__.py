"""The hand analyzer (layer 8, beside ``cli/``): a small local web app over agents and search.

:mod:`pokerai.web.analysis` computes each view of a spot (the bot's frequencies from the
blueprint and after search, its range grid, the opponent's range, equity, pot odds; a logged
hand's decisions); :mod:`pokerai.web.app` serves them as JSON endpoints and a page.
``pokerai analyze`` starts it. FastAPI is imported only by :mod:`pokerai.web.app`.
"""

from __future__ import annotations

from pokerai.web.analysis import Analyzer, Spot, parse_log, parse_spot, spot_from_line

__all__ = ["Analyzer", "Spot", "parse_log", "parse_spot", "spot_from_line"]
