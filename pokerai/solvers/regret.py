"""Regret maths shared by the CFR family: regret matching, flooring, discounting.

Pure functions over ``[num_infosets, num_actions]`` float64 tables, compiled
with numba; each touches only the rows ``low .. high - 1`` (one player's block)
and only legal entries.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def regret_matching(cumulative_regret, prediction, use_prediction, legal_mask, low, high, out):
    """Regret matching (Hart & Mas-Colell, "A Simple Adaptive Procedure Leading to Correlated
    Equilibrium", Econometrica 2000) into ``out``.

    ``out[I, a] = R+(I, a) / sum_b R+(I, b)`` over legal actions, uniform when
    no regret is positive (never NaN). With ``use_prediction`` the regrets are
    ``cumulative_regret + prediction`` first: predictive regret matching
    (Farina, Kroer & Sandholm, "Faster Game Solving via Predictive Blackwell
    Approachability: Connecting Regret Matching and Mirror Descent", AAAI 2021).
    """
    num_actions = cumulative_regret.shape[1]
    for info in range(low, high):
        total = 0.0
        legal_count = 0
        for a in range(num_actions):
            if legal_mask[info, a]:
                legal_count += 1
                regret = cumulative_regret[info, a]
                if use_prediction:
                    regret += prediction[info, a]
                if regret > 0.0:
                    total += regret
        for a in range(num_actions):
            if not legal_mask[info, a]:
                out[info, a] = 0.0
                continue
            if total > 0.0:
                regret = cumulative_regret[info, a]
                if use_prediction:
                    regret += prediction[info, a]
                out[info, a] = regret / total if regret > 0.0 else 0.0
            else:
                out[info, a] = 1.0 / legal_count


@njit(cache=True)
def discount_factor(iteration, exponent):
    """DCFR's discount ``t^e / (t^e + 1)`` for iteration ``t`` (Brown & Sandholm 2019)."""
    scaled = float(iteration) ** exponent
    return scaled / (scaled + 1.0)


@njit(cache=True)
def discount_and_floor(cumulative_regret, legal_mask, low, high, iteration, floor_at_zero,
                       discount, positive_exponent, negative_exponent):  # fmt: skip
    """Finish iteration t's regret update, after its regrets were added to the table.

    * plain CFR: nothing;
    * ``discount`` (DCFR, Brown & Sandholm 2019): positive entries are
      multiplied by ``t^alpha / (t^alpha + 1)`` and negative ones by
      ``t^beta / (t^beta + 1)``; linear CFR is alpha = beta = 1;
    * ``floor_at_zero`` (CFR+, Tammelin 2014): ``R = max(R, 0)``.
    """
    if not (discount or floor_at_zero):
        return
    positive = discount_factor(iteration, positive_exponent) if discount else 1.0
    negative = discount_factor(iteration, negative_exponent) if discount else 1.0
    num_actions = cumulative_regret.shape[1]
    for info in range(low, high):
        for a in range(num_actions):
            if not legal_mask[info, a]:
                continue
            regret = cumulative_regret[info, a]
            if discount:
                regret *= positive if regret > 0.0 else negative
            if floor_at_zero and regret < 0.0:
                regret = 0.0
            cumulative_regret[info, a] = regret
