"""The training curve of tabular blueprint runs: strength against deals trained, on fixed seeds.

Every snapshot a run wrote (``runs/<run>/snapshots/<deals>/``, the config's ``snapshot_every``)
is measured three ways, each on the same deals for every snapshot and every run:

* **head to head** against a reference bot (by default the Deep CFR bot that shipped before the
  tabular blueprint), ``--pairs`` duplicate pairs from ``--seed``, plain and with AIVAT that
  knows the snapshot's policy only (:class:`Opaque`);
* **local best response** in Lisý & Bowling's menu (fold or call preflop; fold, call, pot or
  all-in on the flop, turn and river), ``--lbr-hands`` hands from ``--seed``, with AIVAT;
* **the fold frequency** against LBR's pot-sized bets on each street, counted in the same LBR
  hands. Above 50%, a pure bluff of the pot makes money.

Results are kept in ``runs/<run>/curve.json`` (``--store``: another name keeps other settings
apart; a snapshot measured with the same settings is not measured again, so the script can be
rerun as a run goes on), written as TensorBoard scalars to
``runs/<run>/curve/`` (``curve/h2h_aivat``, ``curve/lbr_aivat``, ``curve/fold_flop`` ...) and
drawn, every run on the same axes, to ``--plot``.

    OMP_NUM_THREADS=1 python benchmarks/blueprint_curve.py runs/hunl_blueprint__mccfr__0__* \\
        --pairs 2000 --lbr-hands 1000 --seed 424242 --plot docs/img/blueprint_curve.png

``--spec`` says how a snapshot is played (``{}`` stands for its folder).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from common import Opaque  # benchmarks/common.py, beside this script

from pokerai.agents.spec import make_agent
from pokerai.engine.state import ActionKind, HUNLConfig, HUNLState, Street
from pokerai.eval.aivat import AIVATConfig, hand_aivat
from pokerai.eval.duplicate import AIVAT_STREAM, check_conservation, duplicate_match, mean_ci95
from pokerai.eval.lbr import LBR_MENUS, LocalBestResponse, play_lbr_hand

REFERENCE = "blueprint:checkpoints/hunl_tiny?threshold=0.3&allin=solve"
STREET_NAMES = ("preflop", "flop", "turn", "river")


def lbr_with_folds(target: Any, hands: int, seed: int) -> dict[str, Any]:
    """LBR (Lisý & Bowling's menu) against ``target``: plain and AIVAT mbb/hand with 95% intervals, and
    per postflop street how often the target folded to LBR's pot-sized bets."""
    config = HUNLConfig()
    target.drop_time_budgets()
    exploiter = LocalBestResponse(target, LBR_MENUS["lisy-bowling"])
    plain = np.zeros(hands)
    aivat = np.zeros(hands)
    faced = {name: [0, 0] for name in STREET_NAMES[1:]}
    for hand in range(hands):
        state, me, agents = play_lbr_hand(target, exploiter, config, seed, hand)
        plain[hand] = check_conservation(state)[me]
        aivat[hand] = hand_aivat(
            state, me, agents, np.random.default_rng([seed, hand, AIVAT_STREAM]), AIVATConfig()
        )
        replay = HUNLState.new(config, state.button, deck=state.deal)
        for index, action in enumerate(state.history):
            street = replay.street
            if action.player == me and action.kind is ActionKind.RAISE and street > Street.PREFLOP:
                all_in = action.amount >= replay.bets[me] + replay.stacks[me]
                answer = state.history[index + 1] if index + 1 < len(state.history) else None
                if not all_in:
                    tally = faced[STREET_NAMES[street]]
                    tally[0] += 1
                    tally[1] += answer is not None and answer.kind is ActionKind.FOLD
            replay.apply(action)
    scale = 1000.0 / config.big_blind
    result: dict[str, Any] = {}
    for name, values in (("lbr", plain), ("lbr_aivat", aivat)):
        estimate = mean_ci95(values, scale)
        result[name] = [estimate.mean, estimate.low, estimate.high]
    for name, (count, folds) in faced.items():
        result[f"fold_{name}"] = [folds / count if count else float("nan"), count]
    return result


def head_to_head(agent: Any, reference: Any, pairs: int, seed: int) -> dict[str, Any]:
    """Duplicate pairs of ``agent`` against ``reference``: plain and AIVAT mbb/hand with 95% intervals
    (AIVAT knows ``agent``'s policy only)."""
    result = duplicate_match(agent, Opaque(reference), pairs, seed=seed, aivat=True)
    scale = 1000.0 / result.big_blind / result.hands_per_pair
    out: dict[str, Any] = {"h2h": [result.estimate.mean, result.estimate.low, result.estimate.high]}
    if result.aivat_results is not None:
        estimate = mean_ci95(result.aivat_results.sum(axis=1) * scale)
        out["h2h_aivat"] = [estimate.mean, estimate.low, estimate.high]
    return out


def measure_run(run: Path, args: argparse.Namespace, say: Callable[[str], None]) -> list[dict[str, Any]]:
    """Measure the snapshots of ``run`` not yet in its ``curve.json``; returns all its rows, by deals."""
    settings = {"pairs": args.pairs, "lbr_hands": args.lbr_hands, "seed": args.seed, "spec": args.spec,
                "reference": args.reference}  # fmt: skip
    store = run / args.store
    rows: list[dict[str, Any]] = []
    if store.is_file():
        saved = json.loads(store.read_text())
        if saved.get("settings") == settings:
            rows = saved["rows"]
    done = {row["deals"] for row in rows}
    snapshots = sorted((run / "snapshots").glob("[0-9]*"))
    reference = make_agent(args.reference)
    for folder in snapshots:
        deals = int(folder.name)
        if deals in done or (args.every and deals % args.every):
            continue
        started = time.perf_counter()
        agent = make_agent(args.spec.format(folder))
        row: dict[str, Any] = {"deals": deals}
        if args.pairs:
            row.update(head_to_head(agent, reference, args.pairs, args.seed))
        if args.lbr_hands:
            row.update(lbr_with_folds(agent, args.lbr_hands, args.seed))
        row["seconds"] = round(time.perf_counter() - started, 1)
        rows.append(row)
        rows.sort(key=lambda item: item["deals"])
        store.write_text(json.dumps({"settings": settings, "rows": rows}, indent=1))
        say(describe(run.name, row))
        _tensorboard(run, row)
    return rows


def describe(name: str, row: dict[str, Any]) -> str:
    parts = [f"{name} {row['deals'] / 1e6:,.0f} M deals:" if row["deals"] else f"{name}:"]
    for key in ("h2h", "h2h_aivat", "lbr", "lbr_aivat"):
        if key in row:
            mean, low, high = row[key]
            parts.append(f"{key} {mean:+,.0f} [{low:+,.0f}, {high:+,.0f}]")
    folds = [f"{row[f'fold_{street}'][0]:.2f}" for street in STREET_NAMES[1:] if f"fold_{street}" in row]
    if folds:
        parts.append("folds to pot " + "/".join(folds))
    parts.append(f"({row['seconds']:.0f} s)")
    return " ".join(parts)


def _tensorboard(run: Path, row: dict[str, Any]) -> None:
    from torch.utils.tensorboard import SummaryWriter

    with SummaryWriter(str(run / "curve")) as writer:
        for key, value in row.items():
            if key in ("deals", "seconds"):
                continue
            writer.add_scalar(f"curve/{key}", value[0], row["deals"])


def plot(curves: dict[str, list[dict[str, Any]]], path: Path, reference_lbr: float | None = None) -> None:
    import matplotlib
    from plots import save_figure  # benchmarks/plots.py, beside this script

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 3, figsize=(15, 4.8))
    panels = (
        ("h2h_aivat", "head to head vs the previous bot (mbb/hand, AIVAT)"),
        ("lbr_aivat", "what LBR wins (mbb/hand, AIVAT)"),
    )
    for axis, (key, title) in zip(axes[:2], panels, strict=True):
        for name, rows in curves.items():
            points = [(row["deals"] / 1e6, *row[key]) for row in rows if key in row]
            if points:
                x, mean, low, high = np.array(points).T
                axis.errorbar(x, mean, yerr=[mean - low, high - mean], marker="o", capsize=3, label=name)
        axis.axhline(0.0, color="grey", linewidth=0.8)
        if key == "lbr_aivat" and reference_lbr is not None:
            axis.axhline(
                reference_lbr, color="red", linestyle="--", linewidth=0.8, label="against the reference"
            )
        axis.set_title(title)
        axis.set_xlabel("deals trained (millions)")
    for name, rows in curves.items():
        for street, style in zip(STREET_NAMES[1:], ("-", "--", ":"), strict=True):
            points = [
                (row["deals"] / 1e6, row[f"fold_{street}"][0]) for row in rows if f"fold_{street}" in row
            ]
            if points:
                x, y = np.array(points).T
                axes[2].plot(x, y, style, marker=".", label=f"{name} {street}")
    axes[2].axhline(0.5, color="red", linewidth=0.8)
    axes[2].set_title("folds to LBR's pot-sized bets")
    axes[2].set_xlabel("deals trained (millions)")
    axes[2].set_ylim(0.0, 1.0)
    for axis in axes:
        axis.legend(fontsize=7)
    save_figure(figure, path)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("runs", nargs="+", type=Path, help="tabular run folders (with snapshots/)")
    parser.add_argument(
        "--pairs", type=int, default=2000, help="duplicate pairs against --reference (0: none)"
    )
    parser.add_argument("--lbr-hands", type=int, default=1000, help="LBR hands (0: none)")
    parser.add_argument("--seed", type=int, default=424242)
    parser.add_argument("--every", type=int, default=0, help="measure only snapshots at multiples of this")
    parser.add_argument("--spec", default="blueprint:{}", help="how a snapshot plays; {} is its folder")
    parser.add_argument("--reference", default=REFERENCE, help="the head-to-head opponent")
    parser.add_argument("--plot", type=Path, help="draw every run's curve to this PNG")
    parser.add_argument(
        "--store",
        default="curve.json",
        help="file in each run folder that keeps its measured rows (another name keeps other settings apart)",
    )
    parser.add_argument(
        "--lbr-reference",
        action="store_true",
        help="also run LBR against the reference bot itself on the same hands (the line to get below)",
    )
    args = parser.parse_args()
    torch.set_num_threads(1)
    curves = {}
    for run in args.runs:
        if not (run / "snapshots").is_dir():
            parser.error(f"{run} has no snapshots/ folder (set snapshot_every in its config)")
        curves[run.name.split("__")[0]] = measure_run(run, args, lambda line: print(line, flush=True))
    if args.lbr_reference:
        store = args.runs[0] / args.store.replace(".json", "_reference.json")
        key = {"reference": args.reference, "lbr_hands": args.lbr_hands, "seed": args.seed}
        saved = json.loads(store.read_text()) if store.is_file() else {}
        if saved.get("settings") != key:
            started = time.perf_counter()
            row = lbr_with_folds(make_agent(args.reference), args.lbr_hands, args.seed)
            row.update(deals=0, seconds=round(time.perf_counter() - started, 1))
            saved = {"settings": key, "row": row}
            store.write_text(json.dumps(saved, indent=1))
        print(describe(f"reference {args.reference}", saved["row"]), flush=True)
    if args.plot:
        store = args.runs[0] / args.store.replace(".json", "_reference.json")
        reference = json.loads(store.read_text())["row"]["lbr_aivat"][0] if store.is_file() else None
        plot(curves, args.plot, reference)


if __name__ == "__main__":
    main()
