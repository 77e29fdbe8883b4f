"""The range solver's numba kernel: Discounted CFR over a public tree, every private hand at once.

Layout (built by :mod:`pokerai.solvers.postflop.game`)
------------------------------------------------------
* The **action tree** is the betting tree of every street, small (hundreds of nodes): arrays
  ``a_*`` indexed by action node. A chance node's one child is the root of the next street's
  action tree, the same whatever card comes.
* An **instance** is one street's action tree on one board (the spot's first street, or a street
  after a dealt card). Its player nodes own a block of the strategy storage: the node's regrets
  and strategy sums sit at ``i_offset[instance] + a_local[node]``, laid out ``[action][hand]``
  over the acting player's hands. The instances below chance node ``k`` of an instance (the
  ``k``-th chance node of its street, ``a_local`` of a chance node) are consecutive, one per
  card that can come: ``i_child[instance] + k * b_cards[board] + j``.
* A **board** is the public cards of an instance. The boards dealt from board ``b`` are
  ``b_child[b] .. b_child[b] + b_cards[b] - 1``; only one card of each class of suit-isomorphic
  cards is dealt (its board lists, in ``iso_*``, the suit swaps that map the merged cards onto it),
  and its value for a hand ``h`` counts ``value[swap(h)]`` once for each merged card.
* **Hands** are per player (``nh[p]`` of them, rows of ``[2, H]`` arrays padded to the larger
  player). A hand that holds a card of the board is not in the lists; a hand that holds a dealt
  card is given no reach (opponent) and no value (own) below that card.

Terminal values are linear in the hands: a fold is the opponent's reach of the hands sharing no
card with mine (totals less per-card sums, the identical hand added back once), a showdown sweeps
both players' hands in rank order (Johanson et al., IJCAI 2011). Values are counterfactual, in
chips won or lost since the spot began, and un-normalised: the opponent's reach carries its range
weights and ``1 / cards left`` at each chance node (every pair of hands sees the same number of
cards that can come).

The iteration is Discounted CFR with alternating updates (Brown & Sandholm, AAAI 2019) in the
schedule that postflop-solver uses: positive regrets discounted by ``t^1.5 / (t^1.5 + 1)``,
negative ones halved, and the strategy sums by ``((t - p) / (t - p + 1))^3`` where ``p`` is the
largest power of 4 up to ``t`` (the average restarts at ``t = 4^k``); the sums add the current
strategy unweighted by the player's own reach. :func:`discount` gives the three factors.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numba
import numpy as np
import numpy.typing as npt

PLAYER, CHANCE, FOLD, SHOWDOWN = 0, 1, 2, 3
TRAIN, BEST_RESPONSE, AVERAGE = 0, 1, 2
"""Kernel modes: a DCFR pass of one player; that player's best response to the other's average
strategy; both players' average strategies."""


class Kernel(NamedTuple):
    """The arrays of one spot that a solve reads (never written). Module docstring for the layout."""

    a_kind: npt.NDArray[np.int64]
    a_player: npt.NDArray[np.int64]
    a_first: npt.NDArray[np.int64]
    a_num: npt.NDArray[np.int64]
    a_amount: npt.NDArray[np.float64]  # terminals: chips the winner wins since the spot began
    a_local: npt.NDArray[np.int64]
    i_board: npt.NDArray[np.int64]
    i_offset: npt.NDArray[np.int64]
    i_child: npt.NDArray[np.int64]
    b_card: npt.NDArray[np.int64]  # the card dealt to reach the board (-1 at the first board)
    b_cards: npt.NDArray[np.int64]  # boards dealt from it
    b_child: npt.NDArray[np.int64]
    b_factor: npt.NDArray[np.float64]  # 1 / cards that can come after it, per pair of hands
    b_iso_first: npt.NDArray[np.int64]
    b_iso_count: npt.NDArray[np.int64]
    iso_swap: npt.NDArray[np.int64]  # suit swap ids, referenced by b_iso_first
    swap_hand: npt.NDArray[Any]  # [2, swaps, H]: the hand each hand becomes under a swap
    sd_first: npt.NDArray[np.int64]  # [2, boards]: showdown lists of river boards (-1 elsewhere)
    sd_count: npt.NDArray[np.int64]
    sd_hand: npt.NDArray[Any]  # [2, total]: hands in ascending rank order
    sd_rank: npt.NDArray[Any]
    sd_cards: npt.NDArray[Any]  # [2, total, 2]: their cards
    nh: npt.NDArray[np.int64]  # [2]
    cards: npt.NDArray[Any]  # [2, H, 2]
    same: npt.NDArray[Any]  # [2, H]: the opponent's identical hand, or -1
    card_first: npt.NDArray[np.int64]  # [2, 53]: hands holding card c are card_hand[p, first[c]:first[c+1]]
    card_hand: npt.NDArray[Any]  # [2, 2H]


class State(NamedTuple):
    """What a solve writes: regrets and strategy sums (float32, the storage layout), the locked
    strategy (``NaN`` where a hand is free; ``[1]`` with ``locked[0] = 0`` when nothing is locked),
    and the discount factors of the current iteration (``alpha, beta, gamma``)."""

    regret: npt.NDArray[np.float32]
    strategy_sum: npt.NDArray[np.float32]
    locked: npt.NDArray[np.float32]
    discount: npt.NDArray[np.float64]


class Scratch(NamedTuple):
    """Buffers of one traversal, one level per tree depth."""

    values: npt.NDArray[np.float32]  # [depth, actions, H]: the children's values
    strategy: npt.NDArray[np.float32]  # [depth, actions, H]: the node's strategy
    reach: npt.NDArray[np.float32]  # [depth, H]: the opponent's reach at a node (row ``row[depth]``)
    totals: npt.NDArray[np.float32]  # [H]
    per_card: npt.NDArray[np.float64]  # [52]
    wide: npt.NDArray[np.float64]  # [H]: a showdown's values before they are rounded to float32
    node: npt.NDArray[np.int64]  # [depth]: the walk's stack
    inst: npt.NDArray[np.int64]
    next: npt.NDArray[np.int64]
    slot: npt.NDArray[np.int64]
    row: npt.NDArray[np.int64]


def discount(iteration: int) -> npt.NDArray[np.float64]:
    """``[alpha, beta, gamma]`` of iteration ``iteration`` (from 0), the module docstring's schedule."""
    out = np.zeros(3)
    _discount(iteration, out)
    return out


@numba.njit(cache=True, nogil=True)
def _discount(iteration, out):
    power = 0
    if iteration > 0:
        power = 1
        while power * 4 <= iteration:
            power *= 4
    t_alpha = float(max(iteration - 1, 0))
    pow_alpha = t_alpha * math.sqrt(t_alpha)
    t_gamma = float(iteration - power)
    out[0] = pow_alpha / (pow_alpha + 1.0)
    out[1] = 0.5
    out[2] = (t_gamma / (t_gamma + 1.0)) ** 3


def scratch(depth: int, actions: int, hands: int) -> Scratch:
    """Buffers for a walk of a tree ``depth`` deep with at most ``actions`` children."""
    return _scratch(depth, actions, hands)


@numba.njit(cache=True, nogil=True)
def _scratch(depth, actions, hands):
    frames = depth + 2
    return Scratch(
        np.zeros((frames, actions, hands), np.float32), np.zeros((frames, actions, hands), np.float32),
        np.zeros((frames, hands), np.float32), np.zeros(hands, np.float32), np.zeros(52), np.zeros(hands),
        np.zeros(frames, np.int64), np.zeros(frames, np.int64), np.zeros(frames, np.int64),
        np.zeros(frames, np.int64), np.zeros(frames, np.int64),
    )  # fmt: skip


@numba.njit(cache=True, nogil=True)
def fold_values(reach, opp_cards, own_cards, same, opp_count, own_count, payoff, out, per_card):
    """``out[h] = payoff ×`` the opponent's ``reach`` of the hands that share no card with own hand ``h``:
    the total, less the per-card sums of ``h``'s two cards, plus the identical hand (``same[h]``, or -1)
    that both took out. Linear in the hands (the fold half of the card-removal sweep)."""
    total = 0.0
    per_card[:] = 0.0
    for h in range(opp_count):
        w = reach[h]
        total += w
        per_card[opp_cards[h, 0]] += w
        per_card[opp_cards[h, 1]] += w
    for h in range(own_count):
        s = same[h]
        value = total - per_card[own_cards[h, 0]] - per_card[own_cards[h, 1]]
        if s >= 0:
            value += reach[s]
        out[h] = payoff * value


@numba.njit(cache=True, nogil=True)
def _fold_values(k, node, player, reach, out, per_card):
    """A fold: ``±amount`` times the opponent's reach of the hands that share no card with mine."""
    opponent = 1 - player
    payoff = -k.a_amount[node] if k.a_player[node] == player else k.a_amount[node]
    opp_cards, own_cards = k.cards[opponent], k.cards[player]
    fold_values(
        reach, opp_cards, own_cards, k.same[player], k.nh[opponent], k.nh[player], payoff, out, per_card
    )


@numba.njit(cache=True, nogil=True)
def showdown_values(
    own_hand, own_rank, own_cards, opp_hand, opp_rank, opp_cards, reach, payoff, out, per_card
):
    """``out[own_hand[q]] = payoff ×`` (the opponent's ``reach`` of the weaker hands less that of the stronger
    ones, pairs sharing no card only). Both hand lists are in ascending rank order (``own_rank``,
    ``opp_rank``); one sweep up and one down, each keeping the total and per-card sums of the opponent's
    hands passed (Johanson et al., IJCAI 2011). Hands of equal rank are added in list order."""
    n, m = own_hand.shape[0], opp_hand.shape[0]
    total = 0.0
    per_card[:] = 0.0
    j = 0
    for q in range(n):
        rank = own_rank[q]
        while j < m and opp_rank[j] < rank:
            w = reach[opp_hand[j]]
            total += w
            per_card[opp_cards[j, 0]] += w
            per_card[opp_cards[j, 1]] += w
            j += 1
        out[own_hand[q]] = total - per_card[own_cards[q, 0]] - per_card[own_cards[q, 1]]
    total = 0.0
    per_card[:] = 0.0
    j = m
    for q in range(n - 1, -1, -1):
        rank = own_rank[q]
        while j > 0 and opp_rank[j - 1] > rank:
            start = j - 1  # the group of equal rank, added in list order
            while start > 0 and opp_rank[start - 1] == opp_rank[j - 1]:
                start -= 1
            for g in range(start, j):
                w = reach[opp_hand[g]]
                total += w
                per_card[opp_cards[g, 0]] += w
                per_card[opp_cards[g, 1]] += w
            j = start
        h = own_hand[q]
        out[h] -= total - per_card[own_cards[q, 0]] - per_card[own_cards[q, 1]]
        out[h] = payoff * out[h]


@numba.njit(cache=True, nogil=True)
def _showdown_values(k, node, board, player, reach, out, per_card, wide):
    """A showdown on a river board: ``amount`` times (the opponent's reach of the weaker hands less that
    of the stronger ones), card-free pairs only, by one sweep up and one down the rank order. The sweep
    works in float64 (``wide``), so the difference of the two sums loses nothing to float32."""
    opponent = 1 - player
    payoff = k.a_amount[node]
    a, n = k.sd_first[player, board], k.sd_count[player, board]
    b, m = k.sd_first[opponent, board], k.sd_count[opponent, board]
    own_hand, own_rank, own_cards = (
        k.sd_hand[player, a : a + n],
        k.sd_rank[player, a : a + n],
        k.sd_cards[player, a : a + n],
    )
    opp_hand, opp_rank, opp_cards = (
        k.sd_hand[opponent, b : b + m], k.sd_rank[opponent, b : b + m], k.sd_cards[opponent, b : b + m]
    )  # fmt: skip
    showdown_values(
        own_hand, own_rank, own_cards, opp_hand, opp_rank, opp_cards, reach, payoff, wide, per_card
    )
    for h in range(k.nh[player]):
        out[h] = 0.0
    for q in range(n):
        out[own_hand[q]] = wide[own_hand[q]]


@numba.njit(cache=True, nogil=True)
def _deal_reach(k, board, opponent, reach, out):
    """The opponent's reach below the card that reaches ``board``: scaled by ``1 / cards left`` and 0 for
    the hands that hold the card."""
    factor = k.b_factor[board]
    for h in range(k.nh[opponent]):
        out[h] = reach[h] * factor
    card = k.b_card[board]
    for q in range(k.card_first[opponent, card], k.card_first[opponent, card + 1]):
        out[k.card_hand[opponent, q]] = 0.0


@numba.njit(cache=True, nogil=True)
def _add_dealt(k, board, player, child, out):
    """Add a dealt card's values ``child`` to ``out``: the hands that hold the card get none, and each
    isomorphic card merged into this one adds the values of the swapped hands."""
    card = k.b_card[board]
    for q in range(k.card_first[player, card], k.card_first[player, card + 1]):
        child[k.card_hand[player, q]] = 0.0
    for h in range(k.nh[player]):
        out[h] += child[h]
    for i in range(k.b_iso_first[board], k.b_iso_first[board] + k.b_iso_count[board]):
        swap = k.iso_swap[i]
        for h in range(k.nh[player]):
            out[h] += child[k.swap_hand[player, swap, h]]


@numba.njit(cache=True, nogil=True)
def _strategy(k, st, node, offset, actor, mode, out, totals):
    """The actor's strategy at a player node into ``out`` ``[actions, H]``: regret matching (``TRAIN``)
    or the normalised strategy sums; locked hands play their locked strategy."""
    n = k.a_num[node]
    hands = k.nh[actor]
    source = st.regret if mode == TRAIN else st.strategy_sum
    for h in range(hands):
        totals[h] = 0.0
    for c in range(n):
        row = source[offset + c * hands : offset + (c + 1) * hands]
        for h in range(hands):
            x = row[h]
            x = x if x > 0.0 else np.float32(0.0)
            out[c, h] = x
            totals[h] += x
    uniform = np.float32(1.0 / n)
    for h in range(hands):
        totals[h] = np.float32(1.0) / totals[h] if totals[h] > 0.0 else np.float32(0.0)
    for c in range(n):
        for h in range(hands):
            out[c, h] = out[c, h] * totals[h] if totals[h] > 0.0 else uniform
    if st.locked.shape[0] > 1:
        for h in range(hands):
            if not math.isnan(st.locked[offset + h]):
                for c in range(n):
                    out[c, h] = st.locked[offset + c * hands + h]


@numba.njit(cache=True, nogil=True)
def _update(k, st, node, offset, player, values, strategy, out):
    """DCFR's updates of ``player`` at its node: strategy sums and regrets, from the children's
    ``values`` and the node's value ``out``. Locked hands keep theirs."""
    n = k.a_num[node]
    hands = k.nh[player]
    alpha, beta, gamma = np.float32(st.discount[0]), np.float32(st.discount[1]), np.float32(st.discount[2])
    lock = st.locked.shape[0] > 1
    for c in range(n):
        base = offset + c * hands
        regret = st.regret[base : base + hands]
        sums = st.strategy_sum[base : base + hands]
        for h in range(hands):
            if lock and not math.isnan(st.locked[offset + h]):
                continue
            sums[h] = sums[h] * gamma + strategy[c, h]
            r = regret[h]
            regret[h] = r * (alpha if r >= 0.0 else beta) + values[c, h] - out[h]


@numba.njit(cache=True, nogil=True)
def _finish_player(k, st, node, inst, player, mode, cut, values, strategy, out, totals):
    """A node of ``player``: its value from the children's ``values`` (best one, or the strategy's mix)
    and, in ``TRAIN`` mode, DCFR's updates."""
    n = k.a_num[node]
    hands = k.nh[player]
    offset = k.i_offset[inst] + k.a_local[node]
    if mode == BEST_RESPONSE:
        for h in range(hands):
            best = values[0, h]
            for c in range(1, n):
                if values[c, h] > best:
                    best = values[c, h]
            out[h] = best
        if st.locked.shape[0] > 1:  # a locked hand's best response is its lock
            for h in range(hands):
                if not math.isnan(st.locked[offset + h]):
                    out[h] = 0.0
                    for c in range(n):
                        out[h] += st.locked[offset + c * hands + h] * values[c, h]
        return
    _strategy(k, st, node, offset, player, mode, strategy, totals)
    for h in range(hands):
        out[h] = 0.0
    for c in range(n):
        for h in range(hands):
            out[h] += strategy[c, h] * values[c, h]
    if mode == TRAIN and cut != 1:
        _update(k, st, node, offset, player, values, strategy, out)


@numba.njit(cache=True, nogil=True)
def run(k, st, root, root_inst, player, reach, out, mode, cut, cut_reach, cut_values, scr):
    """``player``'s counterfactual values at ``root`` of instance ``root_inst`` into ``out`` ``[H]``, given
    the opponent's ``reach`` ``[H]``; in ``TRAIN`` mode also DCFR's updates of ``player`` below.

    A depth-first walk with an explicit stack (``scr.node``, ``scr.inst``, ``scr.next`` per depth): a
    node's children write their values into ``scr.values[depth]``, the row of the child (row 0 for each
    card in turn at a chance node). ``cut`` splits a pass at the chance nodes of the first instance so
    that the subtrees below them can run in parallel (:func:`traverse`): 1 stores the reach at each such
    chance node in ``cut_reach[k]`` and updates nothing; 2 reads the dealt cards' values from
    ``cut_values[k, j]``.
    """
    hands = k.nh[player]
    opponent = 1 - player
    for h in range(k.nh[opponent]):
        scr.reach[0, h] = reach[h]
    scr.row[0] = 0
    depth = 0
    scr.node[0], scr.inst[0] = root, root_inst
    entering = True
    while True:
        node, inst = scr.node[depth], scr.inst[depth]
        kind = k.a_kind[node]
        board = k.i_board[inst]
        target = out if depth == 0 else scr.values[depth - 1, scr.slot[depth - 1]]
        here = scr.reach[scr.row[depth]]
        if entering:
            scr.next[depth] = 0
            if kind in (FOLD, SHOWDOWN):
                if kind == FOLD:
                    _fold_values(k, node, player, here, target, scr.per_card)
                else:
                    _showdown_values(k, node, board, player, here, target, scr.per_card, scr.wide)
                scr.next[depth] = k.a_num[node]  # nothing to visit: finished
            elif kind == CHANCE:
                for h in range(hands):
                    target[h] = 0.0
                if cut != 0 and inst == 0:
                    chance = k.a_local[node]
                    if cut == 1:
                        for h in range(k.nh[opponent]):
                            cut_reach[chance, h] = here[h]
                    else:
                        for j in range(k.b_cards[board]):
                            _add_dealt(k, k.b_child[board] + j, player, cut_values[chance, j], target)
                    scr.next[depth] = k.b_cards[board]
            else:
                for h in range(hands):
                    target[h] = 0.0
                if k.a_player[node] != player:
                    offset = k.i_offset[inst] + k.a_local[node]
                    _strategy(
                        k,
                        st,
                        node,
                        offset,
                        opponent,
                        TRAIN if mode == TRAIN else AVERAGE,
                        scr.strategy[depth],
                        scr.totals,
                    )
        else:
            child = scr.next[depth]
            if kind == CHANCE:
                _add_dealt(k, k.b_child[board] + child, player, scr.values[depth, 0], target)
            elif k.a_player[node] != player:
                for h in range(hands):
                    target[h] += scr.values[depth, child, h]
            scr.next[depth] = child + 1
        child = scr.next[depth]
        if kind == PLAYER:  # terminal children are valued here, without a frame of their own
            own = k.a_player[node] == player
            while child < k.a_num[node]:
                below_node = k.a_first[node] + child
                below_kind = k.a_kind[below_node]
                if below_kind != FOLD and below_kind != SHOWDOWN:
                    break
                values = scr.values[depth, child]
                below = here
                if not own:
                    below = scr.reach[depth + 1]
                    strategy = scr.strategy[depth, child]
                    for h in range(k.nh[opponent]):
                        below[h] = here[h] * strategy[h]
                if below_kind == FOLD:
                    _fold_values(k, below_node, player, below, values, scr.per_card)
                else:
                    _showdown_values(k, below_node, board, player, below, values, scr.per_card, scr.wide)
                if not own:
                    for h in range(hands):
                        target[h] += values[h]
                child += 1
            scr.next[depth] = child
        count = k.b_cards[board] if kind == CHANCE else k.a_num[node]
        if kind != FOLD and kind != SHOWDOWN and child < count:
            below = scr.reach[depth + 1]
            scr.row[depth + 1] = depth + 1
            if kind == CHANCE:
                dealt = k.b_child[board] + child
                _deal_reach(k, dealt, opponent, here, below)
                scr.slot[depth] = 0
                scr.node[depth + 1] = k.a_first[node]
                scr.inst[depth + 1] = k.i_child[inst] + k.a_local[node] * count + child
            else:
                if k.a_player[node] == player:
                    scr.row[depth + 1] = scr.row[depth]
                else:
                    strategy = scr.strategy[depth, child]
                    for h in range(k.nh[opponent]):
                        below[h] = here[h] * strategy[h]
                scr.slot[depth] = child
                scr.node[depth + 1] = k.a_first[node] + child
                scr.inst[depth + 1] = inst
            depth += 1
            entering = True
            continue
        if kind == PLAYER and k.a_player[node] == player:
            _finish_player(
                k,
                st,
                node,
                inst,
                player,
                mode,
                cut,
                scr.values[depth],
                scr.strategy[depth],
                target,
                scr.totals,
            )
        if depth == 0:
            return
        depth -= 1
        entering = False


@numba.njit(cache=True, nogil=True)
def traverse(k, st, player, reach, out, mode, depth, actions, cut, cut_reach, cut_values):
    """One pass from the root (:func:`run`): whole (``cut`` 0), or the first street's part before (1) or
    after (2) the subtrees below its chance nodes, which :func:`cut_tasks` solves in between."""
    scr = _scratch(depth, actions, k.nh.max())
    run(k, st, 0, 0, player, reach, out, mode, cut, cut_reach, cut_values, scr)


@numba.njit(cache=True, nogil=True)
def iterate(k, st, first, count, reach, depth, actions):
    """DCFR iterations ``first .. first + count - 1`` on one thread (``reach`` ``[2, H]``: range weights)."""
    scr = _scratch(depth, actions, k.nh.max())
    out = np.zeros(k.nh.max(), np.float32)
    no_reach, no_values = np.zeros((1, 1), np.float32), np.zeros((1, 1, 1), np.float32)
    for t in range(first, first + count):
        _discount(t, st.discount)
        for player in range(2):
            run(k, st, 0, 0, player, reach[1 - player], out, TRAIN, 0, no_reach, no_values, scr)


@numba.njit(cache=True, nogil=True)
def cut_tasks(k, st, cuts, player, mode, depth, actions, cut_reach, cut_values, first, step):
    """The subtrees below the first street's chance nodes (one task per chance node and card), tasks
    ``first, first + step, ...``: threads that each take one ``first`` share them out evenly. Each task
    writes only its own subtree's storage and its own row of ``cut_values``."""
    count = k.b_cards[0]
    hands = k.nh.max()
    scr = _scratch(depth, actions, hands)
    reach = np.zeros(hands, np.float32)
    for task in range(first, cuts.shape[0] * count, step):
        chance = task % cuts.shape[0]
        j = task // cuts.shape[0]
        _deal_reach(k, k.b_child[0] + j, 1 - player, cut_reach[chance], reach)
        inst = k.i_child[0] + chance * count + j
        run(k, st, k.a_first[cuts[chance]], inst, player, reach, cut_values[chance, j], mode, 0, cut_reach,
            cut_values, scr)  # fmt: skip


@numba.njit(cache=True, nogil=True)
def average_strategy(k, st, node, offset, actor, out):
    """The average strategy ``[actions, H]`` of the actor's node at storage ``offset``."""
    _strategy(k, st, node, offset, actor, AVERAGE, out, np.zeros(out.shape[1], np.float32))
