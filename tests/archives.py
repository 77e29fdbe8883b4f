"""Files for the loaders' refusal tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def foreign_npz(path: Path, **arrays: Any) -> Path:
    """``arrays`` saved as an ``.npz`` archive at ``path``, a file that no pokerai writer made."""
    np.savez(path, **arrays)
    return path
