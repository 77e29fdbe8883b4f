"""Tabular policies: what every solver hands to the rest of pokerai."""

from __future__ import annotations

import numpy as np

from pokerai.games.protocol import State
from pokerai.solvers.tree import GameTree


def normalize_rows_or(weights: np.ndarray, fallback: np.ndarray | float) -> np.ndarray:
    """Rows (last axis) of non-negative ``weights`` scaled to sum to 1; ``fallback`` where a row sums to 0.

    ``fallback`` broadcasts against ``weights`` (a scalar such as ``1 / num_actions``, or a
    uniform row per row); the result has the dtype numpy gives ``weights / totals`` (float32
    weights with a Python float fallback stay float32). Never divides by 0.
    """
    totals = weights.sum(axis=-1, keepdims=True)
    return np.where(totals > 0.0, weights / np.where(totals > 0.0, totals, 1.0), fallback)


def normalize_rows(weights: np.ndarray, legal_mask: np.ndarray) -> np.ndarray:
    """Rows of ``weights`` scaled to sum to 1 over legal actions; uniform where a row sums to 0.

    ``weights`` and ``legal_mask`` are ``[num_infosets, num_actions]``; illegal
    entries of the result are 0. Never returns NaN.
    """
    uniform = legal_mask / legal_mask.sum(axis=1, keepdims=True)
    return normalize_rows_or(np.where(legal_mask, weights, 0.0), uniform)


class TabularPolicy:
    """A behaviour strategy for both players of a compiled game.

    ``probabilities`` is float64 ``[num_infosets, num_actions]`` in the
    tree's information-set order: row ``i`` is the distribution at information
    set ``tree.infoset_keys[i]`` over action ids, 0 on illegal actions.
    """

    def __init__(self, tree: GameTree, probabilities: np.ndarray) -> None:
        probabilities = np.asarray(probabilities, dtype=np.float64)
        expected = (tree.num_infosets, tree.num_actions)
        if probabilities.shape != expected:
            raise ValueError(f"policy table has shape {probabilities.shape}, expected {expected}")
        if np.any(probabilities[~tree.legal_mask] != 0.0):
            raise ValueError("policy puts probability on an illegal action")
        if np.any(probabilities < 0.0) or not np.allclose(probabilities.sum(axis=1), 1.0):
            raise ValueError("policy rows must be probability distributions over legal actions")
        self.tree = tree
        self.probabilities = probabilities

    @classmethod
    def uniform(cls, tree: GameTree) -> TabularPolicy:
        """Every legal action equally likely."""
        return cls(tree, normalize_rows(np.ones(tree.legal_mask.shape), tree.legal_mask))

    @classmethod
    def from_weights(cls, tree: GameTree, weights: np.ndarray) -> TabularPolicy:
        """Normalise non-negative ``[num_infosets, num_actions]`` weights (uniform where all 0)."""
        return cls(tree, normalize_rows(weights, tree.legal_mask))

    @classmethod
    def from_dict(cls, tree: GameTree, table: dict[str, dict[str, float]]) -> TabularPolicy:
        """Build from ``{infoset_key: {action_name: probability}}`` (the ``to_dict`` form).

        Information sets missing from ``table`` are uniform. Unknown keys or
        action names are a ``ValueError`` that names them.
        """
        weights = np.where(tree.legal_mask, 1.0, 0.0)
        for key, row in table.items():
            index = tree.infoset_index(key)
            by_name = {name: action for action, name in tree.action_names[index].items()}
            weights[index] = 0.0
            for name, probability in row.items():
                if name not in by_name:
                    raise ValueError(
                        f"information set {key!r} has no action {name!r}; "
                        f"its actions are {', '.join(by_name)}"
                    )
                weights[index, by_name[name]] = probability
        return cls(tree, normalize_rows(weights, tree.legal_mask))

    def action_probabilities(self, state: State) -> dict[int, float]:
        """``{action: probability}`` over the legal actions at a decision ``state``."""
        player = state.current_player()
        row = self.probabilities[self.tree.infoset_index(state.information_state_key(player))]
        return {int(a): float(row[a]) for a in state.legal_actions()}

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{infoset_key: {action_name: probability}}`` for every information set."""
        return {
            key: {name: float(self.probabilities[i, a]) for a, name in names.items()}
            for i, (key, names) in enumerate(zip(self.tree.infoset_keys, self.tree.action_names, strict=True))
        }
