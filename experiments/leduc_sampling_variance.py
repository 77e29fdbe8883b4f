"""Where Deep CFR's error on Leduc comes from: its sampling scheme with a perfect fit, tabular.

Question: with a perfect fit, how much of Deep CFR's error on Leduc is its sampling scheme?
Answer: docs/RESULTS.md, "Deep CFR on Leduc" > "What the config does, and why".

    python experiments/leduc_sampling_variance.py --variant sample --iterations 300 --traversals 100
    python experiments/leduc_sampling_variance.py --variant enumerate-chance --iterations 1000 --traversals 1
    python experiments/leduc_sampling_variance.py --variant full --iterations 300 --traversals 1 \\
        --simultaneous

This replays Deep CFR's loop with the networks replaced by what a perfect fit would return:

* per iteration t and player p, ``--traversals`` traversals for p with the current strategy,
  then p's strategy is updated (alternating, as ``DeepCFRTrainer`` does; ``--simultaneous``
  updates both players from the same strategies);
* the "advantage network" is the exact t-weighted sum of each information set's regret
  samples (regret matching on a sum is regret matching on the mean);
* the average strategy is the exact t- and reach-weighted average of the strategies played
  (what the policy network's reservoir estimates), so only the regret samples are noisy.

``--variant`` says what a traversal samples; the traverser always explores all its actions:

* ``sample``: external sampling (chance and the opponent sampled), the paper's scheme;
* ``expand-opponent``: the opponent's actions explored and weighted, chance sampled;
* ``enumerate-chance``: chance explored, the opponent sampled (``chance: enumerate``);
* ``baseline-opponent`` / ``baseline-all``: external sampling with a tabular history baseline
  at the opponent's (and chance) nodes, VR-MCCFR style (Schmid et al. 2019): the sampled
  child's value is corrected by ``sum_a w(a) b(a) - b(sampled)``, and the baseline follows the
  sampled values as an exponential average (``--baseline-rate``);
* ``full``: nothing sampled (exact linear CFR with regret matching).

Explored nodes weigh their samples by the probability of the explored branches, so every
variant estimates the same regrets. It prints the exact exploitability (NashConv / 2) at a
quarter, half and all of the iterations, and the nodes visited.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from pokerai.games.leduc import LeducPoker
from pokerai.solvers.best_response import exploitability, tree_of
from pokerai.solvers.policy import TabularPolicy, normalize_rows
from pokerai.solvers.tree import CHANCE_NODE, DECISION_NODE, TERMINAL_NODE

VARIANTS = ("sample", "expand-opponent", "enumerate-chance", "baseline-opponent", "baseline-all", "full")


class Replay:
    """Deep CFR's loop on Leduc with an exact fit, for one sampling variant."""

    def __init__(self, variant: str, seed: int, baseline_rate: float) -> None:
        self.tree = tree = tree_of(LeducPoker())
        self.kind = tree.kind.tolist()
        self.player = tree.player.tolist()
        self.infoset = tree.infoset.tolist()
        self.first_child = tree.first_child.tolist()
        self.num_children = tree.num_children.tolist()
        self.action = tree.action.tolist()
        self.chance_probability = tree.chance_probability.tolist()
        self.utility = tree.utility.tolist()
        self.regrets = np.zeros(tree.legal_mask.shape)
        self.average = np.zeros(tree.legal_mask.shape)
        self.baselines = [np.zeros(tree.num_nodes), np.zeros(tree.num_nodes)]
        self.expand_opponent = variant in ("expand-opponent", "full")
        self.expand_chance = variant in ("enumerate-chance", "full")
        self.baseline_chance = variant == "baseline-all"
        self.baseline_opponent = variant in ("baseline-opponent", "baseline-all")
        self.baseline_rate = baseline_rate
        self.rng = np.random.default_rng(seed)
        self.nodes = 0

    def strategy(self) -> np.ndarray:
        return normalize_rows(np.maximum(self.regrets, 0.0) * self.tree.legal_mask, self.tree.legal_mask)

    def traverse(self, node: int, traverser: int, strategy: np.ndarray, weight: float, reach: float) -> float:
        """The traverser's sampled value below ``node``; ``reach`` weighs explored branches."""
        self.nodes += 1
        kind = self.kind[node]
        if kind == TERMINAL_NODE:
            return self.utility[node] if traverser == 0 else -self.utility[node]
        children = range(self.first_child[node], self.first_child[node] + self.num_children[node])
        if kind == DECISION_NODE and self.player[node] == traverser:
            row = strategy[self.infoset[node]]
            values = np.zeros(row.shape[0])
            for child in children:
                values[self.action[child]] = self.traverse(child, traverser, strategy, weight, reach)
            value = float(row @ values)
            mask = self.tree.legal_mask[self.infoset[node]]
            self.regrets[self.infoset[node]] += weight * reach * (values - value) * mask
            return value
        chance = kind == CHANCE_NODE
        if chance:
            probabilities = [self.chance_probability[child] for child in children]
        else:
            row = strategy[self.infoset[node]]
            probabilities = [row[self.action[child]] for child in children]
        if self.expand_chance if chance else self.expand_opponent:
            return sum(
                p * self.traverse(child, traverser, strategy, weight, reach * p)
                for p, child in zip(probabilities, children, strict=True)
                if p > 0
            )
        picked = children[
            int(self.rng.choice(len(probabilities), p=np.asarray(probabilities) / sum(probabilities)))
        ]
        value = self.traverse(picked, traverser, strategy, weight, reach)
        if not (self.baseline_chance if chance else self.baseline_opponent):
            return value
        baseline = self.baselines[traverser]
        corrected = sum(p * baseline[child] for p, child in zip(probabilities, children, strict=True))
        corrected += value - baseline[picked]
        baseline[picked] += self.baseline_rate * (value - baseline[picked])
        return float(corrected)

    def accumulate_average(self, strategy: np.ndarray, weight: float) -> None:
        """Add the strategy weighted by ``weight`` times each player's own reach of each infoset."""
        tree = self.tree
        reach = np.ones((tree.num_nodes, 2))
        own = np.zeros(tree.num_infosets)
        for node in range(1, tree.num_nodes):  # breadth first: parents come first
            parent = tree.parent[node]
            reach[node] = reach[parent]
            if tree.kind[parent] == DECISION_NODE:
                reach[node, tree.player[parent]] *= strategy[tree.infoset[parent], tree.action[node]]
        decisions = np.flatnonzero(tree.kind == DECISION_NODE)
        own[tree.infoset[decisions]] = reach[decisions, tree.player[decisions]]
        self.average += weight * own[:, None] * strategy


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--variant", choices=VARIANTS, default="sample")
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--traversals", type=int, default=100, help="per player and iteration")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--simultaneous", action="store_true", help="update both players from one strategy")
    parser.add_argument("--baseline-rate", type=float, default=0.5)
    args = parser.parse_args()
    replay = Replay(args.variant, args.seed, args.baseline_rate)
    report = {max(1, args.iterations * share // 4) for share in (1, 2, 4)}
    start = time.perf_counter()
    for t in range(1, args.iterations + 1):
        played = replay.strategy()
        for traverser in (0, 1):
            strategy = played if (traverser == 0 or args.simultaneous) else replay.strategy()
            for _ in range(args.traversals):
                replay.traverse(0, traverser, strategy, float(t), 1.0)
        replay.accumulate_average(played, float(t))
        if t in report:
            value = exploitability(TabularPolicy.from_weights(replay.tree, replay.average))
            print(
                f"{args.variant}: iteration {t}, {t * args.traversals:,} traversals per player, "
                f"{replay.nodes:,} nodes, exploitability {value:.4f} ({time.perf_counter() - start:.0f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
