#!/usr/bin/env python3
"""Build a card abstraction: a thin wrapper over ``pokerai abstraction build``.

python scripts/build_abstraction.py                      # configs/abstraction_default.yaml
python scripts/build_abstraction.py configs/abstraction_tiny.yaml runs/abstraction_tiny.npz
"""

from __future__ import annotations

import sys
from pathlib import Path

from pokerai.cli.main import main

ROOT = Path(__file__).resolve().parents[1]

if __name__ == "__main__":
    config = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "configs" / "abstraction_default.yaml")
    out = sys.argv[2] if len(sys.argv) > 2 else str(ROOT / "runs" / f"{Path(config).stem}.npz")
    sys.exit(main(["abstraction", "build", "--config", config, "--out", out]))
