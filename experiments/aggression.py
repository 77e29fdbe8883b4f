"""How often each player of a hand log raises at its postflop decisions where it may.

Reads ``pokerai eval --log`` files (ACPC ``STATE`` lines) and counts, for every player name,
what :class:`~pokerai.agents.opponent.Aggression` counts: decisions on the flop, turn and river
where raising was legal, with nothing to call and facing a bet or raise, and how many of them
were raises, the share of those decisions that were raises of more than
:data:`~pokerai.search.responses.OVERBET` pots, and the mean strength of its hand at its bets and
raises in the hands it showed down (:meth:`~pokerai.agents.opponent.Aggression.weakness`).
The blueprint's figures are :data:`~pokerai.search.responses.AGGRESSION_REFERENCE` and
:data:`~pokerai.search.responses.SHOWN_REFERENCE`:

    B="blueprint:checkpoints/hunl_tiny?threshold=0"
    OMP_NUM_THREADS=1 pokerai eval --a "$B" --b "$B" --pairs 5000 --seed 20261220 --workers 2 \\
        --log runs/bb.log
    python experiments/aggression.py runs/bb.log
"""

from __future__ import annotations

import argparse
from collections import defaultdict

from pokerai.agents.base import HandSummary
from pokerai.agents.opponent import Aggression
from pokerai.engine.history import parse_acpc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="+", help="hand logs of pokerai eval --log")
    args = parser.parse_args()
    models: dict[str, Aggression] = defaultdict(Aggression)
    for path in args.logs:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if not line.startswith("STATE:"):
                    continue
                parsed = parse_acpc(line)
                if parsed.names is None:
                    raise ValueError(f"{path}: a hand without player names: {line.strip()!r}")
                for player, name in enumerate(parsed.names):
                    # The model counts the opponent of the summary's seat: here, ``player``.
                    models[name].observe(HandSummary.from_state(parsed.state, 1 - player))
    print(
        "| player | nothing to call: decisions | raises | facing a bet: decisions | raises "
        "| overbets, nothing to call | overbets, facing a bet | shown bets and raises | their mean strength |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, model in sorted(models.items()):
        cells = []
        for calm, raised in model.counts:
            total = calm + raised
            cells += [f"{total:,}", f"{raised / total:.3f}" if total else "–"]
        for (calm, raised), overbets in zip(model.counts, model.overbets, strict=True):
            total = calm + raised
            cells.append(f"{overbets / total:.3f}" if total else "–")
        strength, shown = model.shown
        cells += [f"{shown:,}", f"{strength / shown:.3f}" if shown else "–"]
        print(f"| `{name}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
