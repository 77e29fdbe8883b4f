"""Random heads-up hands played to the end per second: pokerai's HUNL engine against pokerkit, in one run.

Both engines play the same random policy, drawn from one numpy Generator per
engine with the same seed: at each decision a legal kind is picked uniformly
(fold / check-or-call / bet-or-raise); a raise goes to the minimum, to all-in or
to a uniform amount between, a third of the time each. Blinds 50/100, stacks
20,000 each. pokerai deals nine cards from the Generator and ranks showdowns
with ``pokerai.engine.evaluator.rank_hand``; pokerkit deals and burns from its
own deck, collects bets, shows and pushes chips through its automations (its
fastest ordinary path). Each measurement is the median of ``--repeats`` runs.

    python benchmarks/bench_engine_hands.py              # about 30 seconds
    python benchmarks/bench_engine_hands.py --hands 2000 --repeats 3

Prints a Markdown table (pasted into docs/BENCHMARKS.md). Single process, one core.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
import warnings
from collections.abc import Callable

import numpy as np

from pokerai.engine.state import ActionKind, HUNLConfig, HUNLState


def pick(kinds: int, low: int, high: int, rng: np.random.Generator) -> tuple[int, int]:
    """(index of the kind among the legal ones, raise-to) of the shared random policy."""
    index = int(rng.random() * kinds)
    shape = rng.random()
    amount = low if shape < 1 / 3 else high if shape < 2 / 3 else low + int(rng.random() * (high - low + 1))
    return index, amount


def play_pokerai(hands: int, seed: int) -> int:
    """Play ``hands`` random hands; returns the number of actions taken."""
    rng = np.random.default_rng(seed)
    config = HUNLConfig()
    actions = 0
    raise_kind = ActionKind.RAISE
    for hand in range(hands):
        state = HUNLState.new(config, hand & 1, rng=rng)
        while state.to_act is not None:
            kinds = state.legal_actions()
            low, high = state.min_raise_to or 0, state.max_raise_to or 0
            index, amount = pick(len(kinds), low, high, rng)
            kind = kinds[index]
            if kind is raise_kind:
                state.raise_to(amount)
            elif kind is ActionKind.FOLD:
                state.fold()
            else:
                state.check_or_call()
            actions += 1
    return actions


def play_pokerkit(hands: int, seed: int) -> int:
    import pokerkit

    automations = tuple(pokerkit.Automation)  # every automation: deal, burn, collect, show, push, pull
    rng = np.random.default_rng(seed)
    actions = 0
    for _ in range(hands):
        state = pokerkit.NoLimitTexasHoldem.create_state(
            automations, True, 0, (50, 100), 100, (20_000, 20_000), 2
        )
        while state.status:
            options = []
            if state.can_fold():
                options.append(0)
            options.append(1)  # check or call is always legal at a decision
            can_raise = state.can_complete_bet_or_raise_to()
            if can_raise:
                options.append(2)
            low = state.min_completion_betting_or_raising_to_amount or 0
            high = state.max_completion_betting_or_raising_to_amount or 0
            index, amount = pick(len(options), low, high, rng)
            option = options[index]
            if option == 2:
                state.complete_bet_or_raise_to(amount)
            elif option == 0:
                state.fold()
            else:
                state.check_or_call()
            actions += 1
    return actions


def rate(play: Callable[[int, int], int], hands: int, repeats: int) -> tuple[float, float]:
    """(median hands per second, actions per hand) over ``repeats`` runs of ``hands`` hands."""
    rates, actions = [], 0
    for repeat in range(repeats):
        start = time.perf_counter()
        actions = play(hands, repeat)
        rates.append(hands / (time.perf_counter() - start))
    return statistics.median(rates), actions / hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--hands", type=int, default=20_000, help="hands per pokerai run (pokerkit plays a tenth)"
    )
    parser.add_argument("--repeats", type=int, default=5, help="runs per engine; the median is reported")
    args = parser.parse_args()
    from importlib.metadata import version

    import pokerkit  # noqa: F401  (fail early when the dev extra is missing)

    warnings.simplefilter("ignore")
    play_pokerai(200, 99)  # warm up the evaluator's tables outside the timing
    ours, our_actions = rate(play_pokerai, args.hands, args.repeats)
    theirs, their_actions = rate(play_pokerkit, max(args.hands // 10, 100), args.repeats)
    print(f"Python {platform.python_version()}, numpy {np.__version__}, pokerkit {version('pokerkit')}, "
          f"{platform.machine()}; {args.hands:,} pokerai hands x {args.repeats} runs")  # fmt: skip
    print()
    print("| engine | hands/s | actions/hand | pokerai speed-up |")
    print("|---|---:|---:|---:|")
    print(f"| pokerai | {ours:,.0f} | {our_actions:.2f} | 1.0x |")
    print(f"| pokerkit {version('pokerkit')} | {theirs:,.0f} | {their_actions:.2f} | {ours / theirs:.1f}x |")


if __name__ == "__main__":
    main()
