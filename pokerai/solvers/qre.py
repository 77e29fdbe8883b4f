"""Agent logit quantal response equilibrium (QRE), traced from λ = 0 by path following.

Definition (McKelvey & Palfrey, "Quantal Response Equilibria for Extensive Form
Games", Experimental Economics 1998: the agent QRE). At
every information set I of player i the behaviour strategy is the logit of the
*conditional* expected values of its actions:

    P(I, a) = exp(λ·V(I, a)) / Σ_b exp(λ·V(I, b)),
    V(I, a) = Σ_{h∈I} π₋ᵢ(h) uᵢ(h·a) / Σ_{h∈I} π₋ᵢ(h),

where π₋ᵢ(h) is the reach of h through chance and the other player only and
uᵢ(h·a) is player i's expected return after playing a at h, both under P.
Dividing by the infoset reach (Bayesian beliefs over the histories of I) is
what the AKQ game's closed-form QRE equations use -- the caller's V carries the
``(p_A + p_Q)`` denominator -- and what Gambit's behaviour-strategy logit
solver uses, so our points are comparable with its. With λ < ∞ every action
has positive probability, so every information set reachable by chance has
positive reach and the beliefs are well defined; they are computed from log
reaches, so nothing underflows to 0/0 at large λ. An information set that
chance alone makes unreachable (none in our games) gets uniform beliefs.

Method. Unknowns are the log-odds z(I, a) = ln P(I, a) − ln P(I, r) of every
legal action against the information set's first legal action r (so each row
is a softmax and always a distribution). The QRE branch is the zero set of

    H(z, λ) = z(I, a) − λ·(V(I, a) − V(I, r)),

starting at z = 0 for λ = 0. We follow it with a predictor–corrector in λ:
an Euler step along the tangent dz/dλ = −H_z⁻¹ H_λ, then Newton's method on
H(·, λ) with the exact Jacobian H_z (forward-mode derivatives of V, one
numba pass over the compiled tree per unknown). A step is accepted only when
Newton converges; otherwise it is halved. Every returned point carries its
residual ‖P − logit(λ·V(P))‖∞, and ``trace_logit_qre`` raises ``QREError``
if any residual is above the tolerance or the path stalls.

Precision. At large λ the branch becomes ill-conditioned: beliefs at
information sets off the equilibrium path are ratios of probabilities like
e^{−λ·gap}, whose float64 log reaches carry rounding of ~1e-16·|log reach|.
On Leduc at λ = 10⁴ that alone puts a floor of about 3e-8 under the residual.
So a returned point that float64 Newton cannot bring below 1e-11 is polished
with H evaluated in 80-bit extended precision (``_ExtendedTree``, numpy
``longdouble``): chord-Newton with the float64 Jacobian's LU, variables and H
in extended precision. The reported residual is the extended-precision one;
Leduc then reaches about 6e-12 at λ = 10⁴. On a platform whose ``longdouble``
is plain float64 the polish gains nothing, and the tracer raises rather than
return a point above ``tolerance``.

Thermodynamics: per information set, entropy S = −Σ P ln P,
internal energy E = −Σ P·V with the conditional values V above, and free
energy F = E − S/λ (−∞ at λ = 0).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numba import njit
from scipy.linalg import lu_factor, lu_solve

from pokerai.games.protocol import Game
from pokerai.solvers.best_response import best_response, expected_node_values, expected_values, tree_of
from pokerai.solvers.policy import TabularPolicy
from pokerai.solvers.tree import CHANCE_NODE, DECISION_NODE, TERMINAL_NODE, GameTree

DEFAULT_TOLERANCE = 1e-9
"""Largest residual ‖P − logit(λ·V(P))‖∞ accepted at a returned point."""

CORRECTOR_TOLERANCE = 1e-11
"""At a returned λ, Newton stops once the residual is below this (or stops improving below ``tolerance``)."""

PATH_TOLERANCE = 1e-7
"""Between returned points the path is followed only this closely (it is polished at each target)."""


class QREError(RuntimeError):
    """The path could not be traced to a requested λ within tolerance."""


@njit(cache=True)
def _evaluate(z, kind, player, infoset, first_child, num_children, action, chance_probability,
              utility, legal_mask, reference_action):  # fmt: skip
    """Probabilities, node values, beliefs and conditional action values at log-odds ``z``.

    ``z`` is float64 ``[num_infosets, num_actions]`` (0 at the reference and
    illegal actions). Returns ``probabilities`` and ``log_probabilities``
    ``[num_infosets, num_actions]`` (0 / -inf off the legal actions),
    ``values`` (player 0's expected return at every node), ``beliefs`` (the
    normalised weight π₋ᵢ(h)/Σ_{h'∈I} π₋ᵢ(h') of each decision node within
    its information set) and ``action_values`` V(I, a) for the acting player.
    """
    num_infosets, num_actions = legal_mask.shape
    probabilities = np.zeros((num_infosets, num_actions))
    log_probabilities = np.full((num_infosets, num_actions), -np.inf)
    for i in range(num_infosets):
        top = -np.inf
        for a in range(num_actions):
            if legal_mask[i, a] and z[i, a] > top:
                top = z[i, a]
        total = 0.0
        for a in range(num_actions):
            if legal_mask[i, a]:
                total += math.exp(z[i, a] - top)
        log_total = top + math.log(total)
        for a in range(num_actions):
            if legal_mask[i, a]:
                log_probabilities[i, a] = z[i, a] - log_total
                probabilities[i, a] = math.exp(log_probabilities[i, a])
    num_nodes = kind.shape[0]
    # Log reach of chance + player 0 and of chance + player 1 (what the *other* player sees).
    log_reach = np.zeros((2, num_nodes))
    for node in range(num_nodes):
        start = first_child[node]
        for child in range(start, start + num_children[node]):
            for p in range(2):
                log_reach[p, child] = log_reach[p, node]
            if kind[node] == CHANCE_NODE:
                step = math.log(chance_probability[child]) if chance_probability[child] > 0 else -np.inf
                log_reach[0, child] += step
                log_reach[1, child] += step
            else:
                log_reach[player[node], child] += log_probabilities[infoset[node], action[child]]
    values = expected_node_values(kind, player, infoset, first_child, num_children, action,
                             chance_probability, utility, probabilities)  # fmt: skip
    # Beliefs: π₋ᵢ(h) normalised within each information set, from log reaches.
    top_weight = np.full(num_infosets, -np.inf)
    count = np.zeros(num_infosets)
    for node in range(num_nodes):
        if kind[node] == DECISION_NODE:
            weight = log_reach[1 - player[node], node]
            count[infoset[node]] += 1.0
            if weight > top_weight[infoset[node]]:
                top_weight[infoset[node]] = weight
    beliefs = np.zeros(num_nodes)
    belief_total = np.zeros(num_infosets)
    for node in range(num_nodes):
        if kind[node] == DECISION_NODE:
            info = infoset[node]
            if top_weight[info] == -np.inf:  # unreachable by chance: uniform beliefs
                beliefs[node] = 1.0
            else:
                beliefs[node] = math.exp(log_reach[1 - player[node], node] - top_weight[info])
            belief_total[info] += beliefs[node]
    action_values = np.zeros((num_infosets, num_actions))
    for node in range(num_nodes):
        if kind[node] == DECISION_NODE:
            info = infoset[node]
            beliefs[node] /= belief_total[info]
            sign = 1.0 if player[node] == 0 else -1.0
            start = first_child[node]
            for child in range(start, start + num_children[node]):
                action_values[info, action[child]] += beliefs[node] * sign * values[child]
    return probabilities, log_probabilities, values, beliefs, action_values


@njit(cache=True)
def _jacobian(lam, probabilities, values, beliefs, action_values, kind, player, infoset, first_child,
              num_children, action, chance_probability, legal_mask, reference_action, variable_infoset,
              variable_action):  # fmt: skip
    """The Jacobian ∂H/∂z ``[num_variables, num_variables]`` of H(z, λ) = z − λ·(V − V_ref).

    Column c is the forward-mode derivative with respect to z(J, b), J =
    ``variable_infoset[c]``, b = ``variable_action[c]``: it changes P(J, ·) by
    P(J, a)·(δ_ab − P(J, b)), hence the log reach of J's player below J, the
    node values above J and, through both, the conditional values V.
    """
    num_variables = variable_infoset.shape[0]
    num_nodes = kind.shape[0]
    num_infosets, num_actions = legal_mask.shape
    jacobian = np.zeros((num_variables, num_variables))
    d_log_reach = np.zeros(num_nodes)
    d_values = np.zeros(num_nodes)
    d_action_values = np.zeros((num_infosets, num_actions))
    d_belief_mean = np.zeros(num_infosets)
    for column in range(num_variables):
        target = variable_infoset[column]
        target_action = variable_action[column]
        mover = -1
        # Forward: derivative of the log reach of the player who owns ``target``.
        d_log_reach[0] = 0.0
        for node in range(num_nodes):
            start = first_child[node]
            for child in range(start, start + num_children[node]):
                d_log_reach[child] = d_log_reach[node]
                if kind[node] == DECISION_NODE and infoset[node] == target:
                    mover = player[node]
                    delta = 1.0 if action[child] == target_action else 0.0
                    d_log_reach[child] += delta - probabilities[target, target_action]
        # Backward: derivative of player 0's value at every node.
        for node in range(num_nodes - 1, -1, -1):
            if kind[node] == TERMINAL_NODE:
                d_values[node] = 0.0
                continue
            total = 0.0
            start = first_child[node]
            for child in range(start, start + num_children[node]):
                if kind[node] == CHANCE_NODE:
                    total += chance_probability[child] * d_values[child]
                else:
                    p = probabilities[infoset[node], action[child]]
                    total += p * d_values[child]
                    if infoset[node] == target:
                        delta = 1.0 if action[child] == target_action else 0.0
                        total += p * (delta - probabilities[target, target_action]) * values[child]
            d_values[node] = total
        d_action_values[:, :] = 0.0
        d_belief_mean[:] = 0.0
        for node in range(num_nodes):
            if kind[node] != DECISION_NODE:
                continue
            info = infoset[node]
            sign = 1.0 if player[node] == 0 else -1.0
            # Beliefs at player i's infosets move only with the other player's reach.
            d_log_weight = d_log_reach[node] if player[node] != mover else 0.0
            d_belief_mean[info] += beliefs[node] * d_log_weight
            start = first_child[node]
            for child in range(start, start + num_children[node]):
                d_action_values[info, action[child]] += (
                    beliefs[node] * sign * (d_values[child] + d_log_weight * values[child])
                )
        for row in range(num_variables):
            info = variable_infoset[row]
            a = variable_action[row]
            r = reference_action[info]
            d_value = d_action_values[info, a] - d_belief_mean[info] * action_values[info, a]
            d_reference = d_action_values[info, r] - d_belief_mean[info] * action_values[info, r]
            jacobian[row, column] = -lam * (d_value - d_reference)
        jacobian[column, column] += 1.0
    return jacobian


@dataclass(frozen=True, eq=False)
class QREPoint:
    """The logit QRE at one rationality λ.

    Arrays are ``[num_infosets, num_actions]`` (``action_values``) or
    ``[num_infosets]`` (``entropy``, ``internal_energy``, ``free_energy``) in
    the tree's information-set order.
    """

    rationality: float
    """λ."""
    policy: TabularPolicy
    residual: float
    """‖P − logit(λ·V(P))‖∞ over all information sets and actions."""
    exploitability: float
    """``pokerai.solvers.exploitability`` of the policy (mean best-response gain)."""
    player_values: tuple[float, float]
    """Each player's expected return when both play the QRE."""
    best_response_values: tuple[float, float]
    """Player p's return when p best-responds to the other player's QRE strategy."""
    action_values: np.ndarray
    entropy: np.ndarray
    internal_energy: np.ndarray
    free_energy: np.ndarray

    @property
    def best_response_gains(self) -> tuple[float, float]:
        """What each player gains by switching to a best response (their mean is ``exploitability``)."""
        return (
            self.best_response_values[0] - self.player_values[0],
            self.best_response_values[1] - self.player_values[1],
        )

    def exploitation_of(self, player: int, nash_value: float) -> float:
        """How much a best-responding opponent takes from ``player`` relative to the Nash value.

        ``nash_value`` is the game's value for player 0. This is the ε
        of player 1 (``player=0``): u₀* − min over player 1's strategies of
        player 0's return. ``exploitation_of(0) + exploitation_of(1)`` is the
        NashConv, twice ``exploitability``.
        """
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        own_nash = nash_value if player == 0 else -nash_value
        return own_nash + self.best_response_values[1 - player]

    def to_json(self) -> dict[str, Any]:
        """One entry of the ``lambdas`` list of ``pokerai qre --json``."""
        keys = self.policy.tree.infoset_keys
        free = [None if math.isinf(f) else float(f) for f in self.free_energy]
        return {
            "lambda": self.rationality,
            "exploitability": self.exploitability,
            "residual": self.residual,
            "game_value": self.player_values[0],
            "best_response_gains": list(self.best_response_gains),
            "policy": self.policy.to_dict(),
            "entropy": {k: float(s) for k, s in zip(keys, self.entropy, strict=True)},
            "internal_energy": {k: float(e) for k, e in zip(keys, self.internal_energy, strict=True)},
            "free_energy": dict(zip(keys, free, strict=True)),
        }


@dataclass
class QREResult:
    """A traced logit QRE branch: one point per requested λ, ascending."""

    game: str
    points: list[QREPoint]
    seconds: float
    """Wall time of the trace (compilation of the tree and kernels excluded)."""
    steps: int
    """Accepted predictor–corrector steps."""
    rejected_steps: int = 0
    newton_iterations: int = 0
    factorisations: int = 0
    """Jacobians computed and LU-factorised."""

    def to_json(self) -> dict[str, Any]:
        """The ``pokerai qre --json`` object."""
        return {
            "game": self.game,
            "lambdas": [point.to_json() for point in self.points],
            "seconds": self.seconds,
            "steps": self.steps,
        }


EXTENDED = np.longdouble
"""80-bit extended precision where the platform has it (x86-64 Linux): used only to polish points."""


class _ExtendedTree:
    """Level-by-level numpy arrays of a tree, for evaluating H in extended precision.

    At large λ off-path beliefs are ratios of reaches like e^(−10⁵); in float64
    the log reaches carry absolute errors of ~1e-11, which λ turns into ~1e-7 of
    noise in H. Redoing the evaluation in extended precision (eps 1e-19) lets
    Newton polish a returned point below the tolerance.
    """

    def __init__(self, tree: GameTree) -> None:
        self.tree = tree
        nodes = np.arange(1, tree.num_nodes)
        parents = tree.parent[nodes]
        self.levels = [nodes[tree.depth[nodes] == d] for d in range(1, int(tree.depth.max()) + 1)]
        self.parent = tree.parent
        chance_child = tree.kind[np.maximum(tree.parent, 0)] == CHANCE_NODE
        chance_child[0] = False
        self.chance_child = chance_child
        with np.errstate(divide="ignore"):
            self.log_chance = np.log(tree.chance_probability.astype(EXTENDED))
        self.decision = np.flatnonzero(tree.kind == DECISION_NODE)
        self.decision_parent_child = nodes[tree.kind[parents] == DECISION_NODE]

    def evaluate(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Extended-precision (probabilities, conditional action values) at log-odds table ``z``."""
        tree = self.tree
        legal = tree.legal_mask
        shifted = np.where(legal, z, -np.inf)
        shifted = shifted - shifted.max(axis=1, keepdims=True)
        weights = np.where(legal, np.exp(shifted), 0)
        totals = weights.sum(axis=1, keepdims=True)
        probabilities = weights / totals
        log_probabilities = np.where(legal, shifted - np.log(totals), -np.inf)
        log_reach = np.zeros((2, tree.num_nodes), dtype=EXTENDED)
        for level in self.levels:
            parent = self.parent[level]
            log_reach[:, level] = log_reach[:, parent]
            from_chance = self.chance_child[level]
            chance_nodes = level[from_chance]
            log_reach[:, chance_nodes] += self.log_chance[chance_nodes]
            decided = level[~from_chance]
            mover = tree.player[self.parent[decided]]
            log_reach[mover, decided] += log_probabilities[
                tree.infoset[self.parent[decided]], tree.action[decided]
            ]
        values = np.where(tree.kind == TERMINAL_NODE, tree.utility.astype(EXTENDED), 0)
        for level in reversed(self.levels):
            parent = self.parent[level]
            from_chance = self.chance_child[level]
            strategy_index = (
                np.where(from_chance, 0, tree.infoset[parent]),
                np.where(from_chance, 0, tree.action[level]),
            )
            weight = np.where(
                from_chance, tree.chance_probability[level].astype(EXTENDED), probabilities[strategy_index]
            )
            np.add.at(values, parent, weight * values[level])
        decision = self.decision
        info = tree.infoset[decision]
        opponent_log_reach = log_reach[1 - tree.player[decision], decision]
        top = np.full(tree.num_infosets, -np.inf, dtype=EXTENDED)
        np.maximum.at(top, info, opponent_log_reach)
        beliefs = np.exp(opponent_log_reach - top[info])
        totals_by_info = np.zeros(tree.num_infosets, dtype=EXTENDED)
        np.add.at(totals_by_info, info, beliefs)
        belief_of_node = np.zeros(tree.num_nodes, dtype=EXTENDED)
        belief_of_node[decision] = beliefs / totals_by_info[info]
        children = self.decision_parent_child
        parent = self.parent[children]
        sign = np.where(tree.player[parent] == 0, 1, -1).astype(EXTENDED)
        action_values = np.zeros(legal.shape, dtype=EXTENDED)
        np.add.at(
            action_values,
            (tree.infoset[parent], tree.action[children]),
            belief_of_node[parent] * sign * values[children],
        )
        return probabilities, action_values


class _Branch:
    """The compiled tree, the variable layout and the H / Jacobian evaluations."""

    def __init__(self, tree: GameTree) -> None:
        self.tree = tree
        legal = tree.legal_mask
        self.reference_action = legal.argmax(axis=1).astype(np.int32)
        free = legal.copy()
        free[np.arange(tree.num_infosets), self.reference_action] = False
        rows, columns = np.nonzero(free)
        self.variable_infoset = rows.astype(np.int32)
        self.variable_action = columns.astype(np.int32)
        self.arrays = (tree.kind, tree.player, tree.infoset, tree.first_child, tree.num_children,
                       tree.action, tree.chance_probability)  # fmt: skip

    @property
    def num_variables(self) -> int:
        return int(self.variable_infoset.shape[0])

    def table(self, variables: np.ndarray) -> np.ndarray:
        z = np.zeros(self.tree.legal_mask.shape)
        z[self.variable_infoset, self.variable_action] = variables
        return z

    def evaluate(self, variables: np.ndarray) -> tuple[np.ndarray, ...]:
        return _evaluate(self.table(variables), *self.arrays, self.tree.utility, self.tree.legal_mask,
                         self.reference_action)  # fmt: skip

    def advantages(self, action_values: np.ndarray) -> np.ndarray:
        """V(I, a) − V(I, r) per variable: −∂H/∂λ."""
        reference = action_values[self.variable_infoset, self.reference_action[self.variable_infoset]]
        return action_values[self.variable_infoset, self.variable_action] - reference

    def jacobian(self, lam: float, evaluation: tuple[np.ndarray, ...]) -> np.ndarray:
        probabilities, _, values, beliefs, action_values = evaluation
        return _jacobian(lam, probabilities, values, beliefs, action_values, *self.arrays,
                         self.tree.legal_mask, self.reference_action, self.variable_infoset,
                         self.variable_action)  # fmt: skip

    def residual(self, lam: float, evaluation: tuple[np.ndarray, ...]) -> float:
        """‖P − logit(λ·V(P))‖∞."""
        probabilities, _, _, _, action_values = evaluation
        return logit_residual(probabilities, action_values, lam, self.tree.legal_mask)


def logit_residual(probabilities: np.ndarray, action_values: np.ndarray, lam: float,
                   legal_mask: np.ndarray) -> float:  # fmt: skip
    """‖P − softmax(λ·V)‖∞ over legal actions; arrays are ``[num_infosets, num_actions]``."""
    scaled = np.where(legal_mask, lam * action_values, -np.inf)
    scaled -= scaled.max(axis=1, keepdims=True)
    weights = np.where(legal_mask, np.exp(scaled), 0.0)
    response = weights / weights.sum(axis=1, keepdims=True)
    return float(np.max(np.abs(probabilities - response)))


def conditional_action_values(policy: TabularPolicy) -> np.ndarray:
    """V(I, a) of every legal action for the player acting at I, under ``policy``.

    float64 ``[num_infosets, num_actions]`` (0 on illegal actions): player i's
    expected return after playing a at I, the histories of I weighted by
    chance's and the other player's reach (Bayesian beliefs). The policy must
    give every action positive probability wherever beliefs are needed.
    """
    tree = policy.tree
    branch = _Branch(tree)
    with np.errstate(divide="ignore"):  # log 0 = -inf is what the kernel expects
        log_probabilities = np.log(np.where(tree.legal_mask, policy.probabilities, 1.0))
    evaluation = _evaluate(log_probabilities, *branch.arrays, tree.utility, tree.legal_mask,
                           branch.reference_action)  # fmt: skip
    return np.where(tree.legal_mask, evaluation[4], 0.0)


def _point(branch: _Branch, lam: float, variables: np.ndarray) -> QREPoint:
    evaluation = branch.evaluate(variables)
    probabilities, log_probabilities, _, _, action_values = evaluation
    tree = branch.tree
    policy = TabularPolicy(tree, probabilities)
    values = expected_values(policy)
    responses = (best_response(policy, 0).value, best_response(policy, 1).value)
    legal = tree.legal_mask
    entropy = -np.sum(np.where(legal, probabilities * np.where(legal, log_probabilities, 0.0), 0.0), axis=1)
    energy = -np.sum(np.where(legal, probabilities * action_values, 0.0), axis=1)
    free = energy - entropy / lam if lam > 0 else np.full(tree.num_infosets, -np.inf)
    gains = (responses[0] - values[0], responses[1] - values[1])
    return QREPoint(
        rationality=lam,
        policy=policy,
        residual=branch.residual(lam, evaluation),
        exploitability=(gains[0] + gains[1]) / 2.0,
        player_values=values,
        best_response_values=responses,
        action_values=action_values,
        entropy=entropy,
        internal_energy=energy,
        free_energy=free,
    )


def _check_lambdas(lambdas: Iterable[float]) -> list[float]:
    values = sorted({float(x) for x in lambdas})
    if not values:
        raise ValueError("give at least one λ")
    for x in values:
        if not math.isfinite(x) or x < 0:
            raise ValueError(f"λ must be a finite non-negative number, got {x!r}")
    return values


def trace_logit_qre(
    game: Game | GameTree,
    lambdas: Iterable[float],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    first_step: float = 0.1,
    max_steps: int = 100_000,
) -> QREResult:
    """Trace the principal logit QRE branch of ``game`` from λ = 0 and return it at ``lambdas``.

    ``lambdas`` (non-negative, any order, duplicates merged) come back
    ascending, one ``QREPoint`` each. Raises ``QREError`` naming λ when the
    path stalls (step below 1e-12·(1+λ), e.g. at a turning point) or a point's
    residual is above ``tolerance``.
    """
    targets = _check_lambdas(lambdas)
    if not tolerance > 0:
        raise ValueError(f"tolerance must be positive, got {tolerance!r}")
    tree = tree_of(game)
    branch = _Branch(tree)
    # Compile (or load) the kernels before the clock starts.
    warm = branch.evaluate(np.zeros(branch.num_variables))
    branch.jacobian(0.0, warm)
    start_time = time.perf_counter()
    result = QREResult(game=tree.game.name, points=[], seconds=0.0, steps=0)
    lam = 0.0
    variables = np.zeros(branch.num_variables)
    step = first_step
    corrector_tolerance = min(CORRECTOR_TOLERANCE, tolerance)
    evaluation = warm
    identity = np.eye(branch.num_variables)
    factors: tuple[np.ndarray, np.ndarray] | None = None
    for target in targets:
        while lam < target:
            if result.steps + result.rejected_steps >= max_steps:
                raise QREError(f"path tracing gave up after {max_steps} steps at λ = {lam:.6g}")
            if step < 1e-12 * (1.0 + lam):
                raise QREError(
                    f"path tracing stalled at λ = {lam:.6g} (step {step:.3g}); the branch may turn back here"
                )
            next_lam = min(lam + step, target)
            fresh = factors is None
            if factors is None:
                # H_z(z, λ') = I − λ'·∂(V − V_ref)/∂z. Its LU (the costly part) is reused for
                # the tangent and every corrector iteration of this and later steps -- a chord
                # method -- until the corrector slows down.
                sensitivity = identity - branch.jacobian(1.0, evaluation)
                factors = lu_factor(identity - next_lam * sensitivity, check_finite=False)
                result.factorisations += 1
            tangent = lu_solve(factors, branch.advantages(evaluation[4]), check_finite=False)
            corrected = _correct(branch, next_lam, variables + (next_lam - lam) * tangent, factors,
                                 max(PATH_TOLERANCE, corrector_tolerance))  # fmt: skip
            if corrected is None:
                factors = None
                if fresh:
                    result.rejected_steps += 1
                    step /= 2.0
                continue
            variables, evaluation, iterations = corrected
            result.newton_iterations += iterations
            result.steps += 1
            lam = next_lam
            # Corrector iterations are cheap (one tree pass and one triangular solve each);
            # a new Jacobian and LU are not, so steps grow while the chord still contracts fast.
            if iterations <= 5:
                step *= 2.0
            elif iterations >= 8:
                factors = None
                if iterations >= 12:
                    step /= 2.0
        variables, evaluation, factors = _polish(branch, target, variables, evaluation, factors,
                                                 corrector_tolerance, result)  # fmt: skip
        point = _point(branch, target, variables)
        if point.residual > corrector_tolerance:
            point = _polish_extended(branch, target, variables, point, corrector_tolerance)
        if not point.residual <= tolerance:
            raise QREError(
                f"logit QRE residual {point.residual:.3g} at λ = {target:g} is above {tolerance:g}"
            )
        result.points.append(point)
    result.seconds = time.perf_counter() - start_time
    return result


def _polish(
    branch: _Branch,
    target: float,
    variables: np.ndarray,
    evaluation: tuple[np.ndarray, ...],
    factors: tuple[np.ndarray, np.ndarray] | None,
    goal: float,
    result: QREResult,
) -> tuple[np.ndarray, tuple[np.ndarray, ...], tuple[np.ndarray, np.ndarray] | None]:
    """Polish the point at λ = ``target`` to residual ``goal``: Newton with a fresh Jacobian, then
    chord iterations (iterative refinement: at large λ the Jacobian is ill-conditioned, so one
    solve is not enough). Returns the variables, their evaluation and the LU factors last used."""
    for _ in range(4):
        residual = branch.residual(target, evaluation)
        if residual <= goal:
            break
        factors = lu_factor(branch.jacobian(target, evaluation), check_finite=False)
        result.factorisations += 1
        stalled = 0
        for _ in range(30):
            h = variables - target * branch.advantages(evaluation[4])
            candidate = variables - lu_solve(factors, h, check_finite=False)
            candidate_evaluation = branch.evaluate(candidate)
            candidate_residual = branch.residual(target, candidate_evaluation)
            if not math.isfinite(candidate_residual) or candidate_residual > 10.0 * residual:
                break
            variables, evaluation = candidate, candidate_evaluation
            stalled = stalled + 1 if candidate_residual >= residual else 0
            residual = min(residual, candidate_residual)
            if residual <= goal or stalled >= 3:
                break
    return variables, evaluation, factors


def _polish_extended(branch: _Branch, lam: float, variables: np.ndarray, point: QREPoint,
                     goal: float) -> QREPoint:  # fmt: skip
    """Chord-Newton on H evaluated in extended precision, from a float64 point.

    The float64 Jacobian's LU gives the corrections; the variables and H are
    kept in extended precision. Returns ``point`` with the extended-precision
    residual (and policy) when that is smaller, ``point`` unchanged otherwise.
    """
    extended = _ExtendedTree(branch.tree)
    legal = branch.tree.legal_mask
    factors = lu_factor(branch.jacobian(lam, branch.evaluate(variables)), check_finite=False)
    z = variables.astype(EXTENDED)

    def residual_of(z: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        table = np.zeros(legal.shape, dtype=EXTENDED)
        table[branch.variable_infoset, branch.variable_action] = z
        probabilities, action_values = extended.evaluate(table)
        scaled = np.where(legal, lam * action_values, -np.inf)
        scaled = scaled - scaled.max(axis=1, keepdims=True)
        weights = np.where(legal, np.exp(scaled), 0)
        response = weights / weights.sum(axis=1, keepdims=True)
        return float(np.max(np.abs(probabilities - response))), probabilities, action_values

    best, _, action_values = residual_of(z)
    best_z = z
    for _ in range(40):
        reference = action_values[branch.variable_infoset, branch.reference_action[branch.variable_infoset]]
        advantages = action_values[branch.variable_infoset, branch.variable_action] - reference
        h = z - lam * advantages
        z = z - lu_solve(factors, h.astype(np.float64), check_finite=False).astype(EXTENDED)
        residual, _, action_values = residual_of(z)
        if not math.isfinite(residual):
            break
        if residual < best:
            best, best_z = residual, z
        if best <= goal:
            break
    if best >= point.residual:
        return point
    polished = _point(branch, lam, best_z.astype(np.float64))
    return replace(polished, residual=best)


def _correct(
    branch: _Branch, lam: float, variables: np.ndarray, factors: tuple[np.ndarray, np.ndarray],
    goal: float, max_iterations: int = 20,
) -> tuple[np.ndarray, tuple[np.ndarray, ...], int] | None:  # fmt: skip
    """Chord-Newton on H(·, λ) from ``variables`` until the residual is below ``goal``.

    ``factors`` is the LU factorisation of an approximate H_z. Returns the
    point, its evaluation and the number of iterations; None when the
    iteration does not contract, or when a first correction larger than 1 in
    log-odds says the prediction was too far off to be sure of staying on the
    branch. Once the residual stops falling (rounding) the last point is
    returned as it is; the caller checks it.
    """
    evaluation = branch.evaluate(variables)
    residual = branch.residual(lam, evaluation)
    if residual <= goal:
        return variables, evaluation, 0
    previous_step = math.inf
    for iteration in range(1, max_iterations + 1):
        h = variables - lam * branch.advantages(evaluation[4])
        delta = lu_solve(factors, h, check_finite=False)
        size = float(np.max(np.abs(delta))) if delta.size else 0.0
        if not math.isfinite(size) or size > 0.8 * previous_step or (iteration == 1 and size > 1.0):
            return None
        previous_step = size
        variables = variables - delta
        evaluation = branch.evaluate(variables)
        new_residual = branch.residual(lam, evaluation)
        if new_residual <= goal or (new_residual >= residual and residual < 1e-9):
            return variables, evaluation, iteration
        residual = new_residual
    return None


__all__ = [
    "DEFAULT_TOLERANCE",
    "QREError",
    "QREPoint",
    "QREResult",
    "conditional_action_values",
    "logit_residual",
    "trace_logit_qre",
]
