"""7-card hand evaluation and exact equity: pokerai against phevaluator, treys, eval7 and pokerkit.

Every implementation evaluates the same random 7-card hands (seeded); each peer through its
fastest public single-hand call with its cards converted to its own type beforehand, and
pokerai both vectorised (``rank_hands`` on an [N, 7] array) and one hand at a time
(``rank_hand``). Each figure is the median rate of several runs. Before timing, the
benchmark checks that every peer orders the hands as pokerai does.

    pip install -e ".[dev,peers]"
    python benchmarks/bench_evaluator.py            # about 1 minute
    python benchmarks/bench_evaluator.py --quick    # fewer hands and repeats

Prints Markdown tables (pasted into docs/BENCHMARKS.md). Single process, one core.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.engine.cards import format_card
from pokerai.engine.equity import combinations, equity
from pokerai.engine.evaluator import rank_hand, rank_hands, tables


def median_rate(run: Callable[[], Any], count: int, repeats: int) -> float:
    """Median of ``count / seconds`` over ``repeats`` runs of ``run``."""
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        rates.append(count / (time.perf_counter() - start))
    return statistics.median(rates)


def median_seconds(run: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def peers(
    hands: list[list[int]],
) -> dict[str, tuple[Callable[[], list[Any]], Callable[[list[Any]], list[int]]]]:
    """name -> (evaluate every hand, map its results to 'higher is better' integers)."""
    import eval7
    import phevaluator
    import pokerkit
    import treys

    names = [[format_card(card) for card in hand] for hand in hands]

    def run_phevaluator() -> list[int]:
        evaluate = phevaluator.evaluate_cards
        return [evaluate(*hand) for hand in hands]

    treys_cards = [[treys.Card.new(name) for name in hand] for hand in names]
    treys_evaluator = treys.Evaluator()

    def run_treys() -> list[int]:
        evaluate = treys_evaluator.evaluate
        return [evaluate(hand[:2], hand[2:]) for hand in treys_cards]

    eval7_cards = [[eval7.Card(name) for name in hand] for hand in names]

    def run_eval7() -> list[int]:
        evaluate = eval7.evaluate
        return [evaluate(hand) for hand in eval7_cards]

    pokerkit_cards = [list(pokerkit.Card.parse("".join(hand))) for hand in names]

    def run_pokerkit() -> list[Any]:
        from_game = pokerkit.StandardHighHand.from_game
        return [from_game(hand[:2], hand[2:]) for hand in pokerkit_cards]

    def pokerkit_order(results: list[Any]) -> list[int]:
        ordered = sorted(set(results))
        position = {hand: index for index, hand in enumerate(ordered)}
        return [position[hand] for hand in results]

    return {
        "phevaluator 0.6 (C, `evaluate_cards`)": (run_phevaluator, lambda r: [-x for x in r]),
        "treys (Python, `Evaluator.evaluate`)": (run_treys, lambda r: [-x for x in r]),
        "eval7 (Cython, `evaluate`)": (run_eval7, lambda r: list(r)),
        "pokerkit 0.7 (Python, `StandardHighHand.from_game`)": (run_pokerkit, pokerkit_order),
    }


def same_order(ours: npt.NDArray[np.int32], theirs: list[int]) -> bool:
    """Whether two lists of strengths order every consecutive pair of hands the same way."""
    a, b = np.asarray(ours, dtype=np.int64), np.asarray(theirs, dtype=np.int64)
    return bool(np.array_equal(np.sign(np.diff(a)), np.sign(np.diff(b))))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer hands and repeats")
    parser.add_argument("--repeats", type=int, default=7, help="timing repeats (median)")
    args = parser.parse_args()
    repeats = 3 if args.quick else args.repeats
    vector_count = 200_000 if args.quick else 2_000_000
    single_count = 20_000 if args.quick else 200_000
    pokerkit_count = 2_000 if args.quick else 20_000

    peer_versions = ", ".join(
        f"{name} {version(name)}" for name in ("phevaluator", "treys", "eval7", "pokerkit")
    )
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"numpy {np.__version__}, {peer_versions}\n")  # fmt: skip

    start = time.perf_counter()
    built = tables()
    first_call = time.perf_counter() - start
    megabytes = sum(t.nbytes for t in built.nonflush.values()) / 2**20
    print(f"evaluator tables: built in {built.build_seconds:.3f} s (first call {first_call:.3f} s), "
          f"{megabytes:.1f} MiB\n")  # fmt: skip

    rng = np.random.default_rng(0)
    hands = np.argsort(rng.random((vector_count, 52)), axis=1)[:, :7].astype(np.uint8)
    hands_int64 = hands.astype(np.int64)
    single = hands[:single_count].tolist()

    rows: list[tuple[str, int, float]] = []
    rows.append(("pokerai `rank_hands` (numpy, uint8 [N, 7], validate=False)", vector_count,
                 median_rate(lambda: rank_hands(hands, validate=False), vector_count, repeats)))  # fmt: skip
    rows.append(("pokerai `rank_hands` (numpy, uint8 [N, 7], validated)", vector_count,
                 median_rate(lambda: rank_hands(hands), vector_count, repeats)))  # fmt: skip
    rows.append(("pokerai `rank_hands` (numpy, int64 [N, 7], validated)", vector_count,
                 median_rate(lambda: rank_hands(hands_int64), vector_count, repeats)))  # fmt: skip
    ours_single = rank_hands(hands[:single_count])
    one_at_a_time = median_rate(lambda: [rank_hand(hand) for hand in single], single_count, repeats)
    rows.append(("pokerai `rank_hand` (one hand at a time)", single_count, one_at_a_time))

    for name, (run, to_strength) in peers(single).items():
        count = pokerkit_count if "pokerkit" in name else single_count
        if count < single_count:
            subset = single[:count]
            run = peers(subset)[name][0]
        results = run()
        assert same_order(ours_single[:count], to_strength(results)), f"{name} orders the hands differently"
        rows.append(
            (name, count, median_rate(run, count, max(1, repeats // 2) if count < single_count else repeats))
        )

    fastest = rows[0][2]
    print("| evaluator | hands | 7-card evaluations/s | pokerai vectorised speed-up |")
    print("|---|---:|---:|---:|")
    for name, count, rate in rows:
        print(f"| {name} | {count:,} | {rate:,.0f} | {fastest / rate:,.1f}x |")

    print()
    start = time.perf_counter()
    combinations(48, 5)
    combination_seconds = time.perf_counter() - start
    first = equity("AhKh", "QsQd")
    warm = median_seconds(lambda: equity("AhKh", "QsQd"), repeats)
    sampled = median_seconds(lambda: equity("AhKh", "QsQd", samples=1_000_000, seed=1), repeats)
    print("| equity AhKh vs QsQd preflop | boards | seconds (median) | equity of AhKh |")
    print("|---|---:|---:|---:|")
    print(f"| exact (every board), warm | {first.boards:,} | {warm:.3f} | {first.equity[0]:.6f} |")
    print(f"| exact, first call (index table of C(48, 5) built in {combination_seconds:.3f} s) "
          f"| {first.boards:,} | {first.seconds:.3f} | {first.equity[0]:.6f} |")  # fmt: skip
    mc = equity("AhKh", "QsQd", samples=1_000_000, seed=1)
    print(
        f"| Monte Carlo, seed 1 | 1,000,000 | {sampled:.3f} | {mc.equity[0]:.6f} ± {mc.standard_error:.6f} |"
    )


if __name__ == "__main__":
    main()
