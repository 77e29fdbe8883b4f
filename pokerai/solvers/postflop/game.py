"""A spot's kernel arrays: the action tree flattened, its instances on every board, hands and showdowns.

:func:`layout` turns an action tree (:mod:`pokerai.solvers.postflop.tree`) and the two players'
hands into a :class:`~pokerai.solvers.postflop.kernel.Kernel` (the layout is in that module's
docstring). Suit isomorphism: two suits are interchangeable on a board when the board holds the
same ranks in both and swapping them maps each player's range onto itself, weights included;
then only the card of the lowest such suit is dealt and stands for the others.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.engine.cards import make_card, rank_of, suit_of
from pokerai.engine.evaluator import rank_hands
from pokerai.solvers.postflop.kernel import CHANCE, FOLD, PLAYER, SHOWDOWN, Kernel
from pokerai.solvers.postflop.tree import ActionNode

SUIT_PAIRS: tuple[tuple[int, int], ...] = tuple(combinations(range(4), 2))
"""The six suit swaps, by id."""
RANK_CHUNK = 64
"""River boards ranked at a time while the showdown lists are built."""
SHOWDOWN_BYTES = 8
"""Bytes of one hand in a river board's showdown list (hand, rank and cards)."""


@dataclass(frozen=True, eq=False)
class Layout:
    """A spot's kernel arrays and what the solver needs to read them back.

    Attributes:
        kernel: the arrays.
        nodes: the action tree's nodes in kernel order (``nodes[i]`` is action node ``i``).
        board_cards: each board's cards.
        inst_root: each instance's street root (an action node).
        storage: float32 entries of the regrets (and of the strategy sums).
        depth, actions: the action tree's depth and most children of a player node.
        cuts: the chance nodes of the first street, in ``a_local`` order.
        num_nodes: nodes of the whole game tree (instances times their street's nodes).
    """

    kernel: Kernel
    nodes: tuple[ActionNode, ...]
    board_cards: tuple[tuple[int, ...], ...]
    inst_root: npt.NDArray[np.int64]
    storage: int
    depth: int
    actions: int
    cuts: npt.NDArray[np.int64]
    num_nodes: int


def _flatten(root: ActionNode) -> tuple[list[ActionNode], list[int]]:
    """The nodes breadth-first (a node's children consecutive) and each node's first child."""
    order = [root]
    first: list[int] = []
    index = 0
    while index < len(order):
        first.append(len(order))
        order.extend(order[index].children)
        index += 1
    return order, first


def _depth(node: ActionNode) -> int:
    return 1 + max((_depth(child) for child in node.children), default=0)


def symmetric_swaps(
    hands: Sequence[npt.NDArray[np.int64]], weights: Sequence[npt.NDArray[np.float64]]
) -> list[bool]:
    """For each suit swap of :data:`SUIT_PAIRS`: whether it maps both players' ranges onto themselves."""
    result = []
    for a, b in SUIT_PAIRS:
        ok = True
        for cards, weight in zip(hands, weights, strict=True):
            table = {(int(x), int(y)): float(w) for (x, y), w in zip(cards, weight, strict=True)}
            for (x, y), w in table.items():
                if table.get(_swapped(x, y, a, b)) != w:
                    ok = False
                    break
        result.append(ok)
    return result


def swap_card(card: int, a: int, b: int) -> int:
    """``card`` with suits ``a`` and ``b`` exchanged."""
    suit = suit_of(card)
    return make_card(rank_of(card), b if suit == a else a if suit == b else suit)


def _swapped(x: int, y: int, a: int, b: int) -> tuple[int, int]:
    p, q = swap_card(x, a, b), swap_card(y, a, b)
    return (p, q) if p < q else (q, p)


def deal_classes(board: Sequence[int], symmetric: Sequence[bool]) -> list[tuple[int, list[int]]]:
    """The cards that can come on ``board``, one per class of isomorphic cards: ``(card, swaps)`` where
    ``swaps`` are the ids of the suit swaps that map each merged card onto ``card``."""
    ranks = [frozenset(rank_of(c) for c in board if suit_of(c) == s) for s in range(4)]
    canon = list(range(4))
    for suit in range(4):
        for lower in range(suit):
            pair = SUIT_PAIRS.index((lower, suit))
            if canon[lower] == lower and ranks[lower] == ranks[suit] and symmetric[pair]:
                canon[suit] = lower
                break
    used = set(board)
    merged: dict[int, list[int]] = {}
    for card in range(52):
        if card in used:
            continue
        suit = suit_of(card)
        if canon[suit] == suit:
            merged.setdefault(card, [])
        else:
            merged.setdefault(make_card(rank_of(card), canon[suit]), []).append(
                SUIT_PAIRS.index((canon[suit], suit))
            )
    return sorted(merged.items())


def _street_locals(
    order: list[ActionNode], first: list[int], hands: Sequence[int]
) -> tuple[npt.NDArray[np.int64], dict[int, int], dict[int, list[int]]]:
    """``a_local`` of every node, and per street root its storage size and its chance nodes in order."""
    local = np.full(len(order), -1, dtype=np.int64)
    size: dict[int, int] = {}
    chances: dict[int, list[int]] = {}
    roots = [0] + [first[i] for i, node in enumerate(order) if node.kind == CHANCE]
    for root in roots:
        offset, found, stack = 0, list[int](), [root]
        while stack:
            index = stack.pop()
            node = order[index]
            if node.kind == PLAYER:
                local[index] = offset
                offset += len(node.children) * hands[node.player]
                stack.extend(range(first[index] + len(node.children) - 1, first[index] - 1, -1))
            elif node.kind == CHANCE:
                local[index] = len(found)
                found.append(index)
        size[root], chances[root] = offset, found
    return local, size, chances


def layout(
    root: ActionNode,
    board: Sequence[int],
    hands: Sequence[npt.NDArray[np.int64]],
    weights: Sequence[npt.NDArray[np.float64]],
    pot: int,
    check_memory: Callable[[int], None] | None = None,
) -> Layout:
    """The kernel arrays of a spot: action tree ``root`` on ``board``, each player's ``hands`` ``[H, 2]``
    (none holding a board card) and range ``weights``, starting ``pot``.

    Once the instances are known, and before the largest tables (the storage itself is left to the
    solve), ``check_memory(bytes)`` is given an upper bound of what a solve will hold and may raise.
    """
    order, first = _flatten(root)
    nh = np.array([len(hands[0]), len(hands[1])], dtype=np.int64)
    local, size, chances = _street_locals(order, first, [int(n) for n in nh])
    symmetric = symmetric_swaps(hands, weights)
    boards: list[tuple[int, ...]] = [tuple(board)]
    b_card, b_child, b_cards, b_factor, b_iso = [-1], [-1], [0], [0.0], [[]]  # type: list[int], list[int], list[int], list[float], list[list[int]]

    def deal(b: int) -> None:
        if b_child[b] >= 0:
            return
        classes = deal_classes(boards[b], symmetric)
        b_child[b], b_cards[b] = len(boards), len(classes)
        for card, swaps in classes:
            boards.append((*boards[b], card))
            b_card.append(card)
            b_child.append(-1)
            b_cards.append(0)
            b_factor.append(1.0 / (52 - len(boards[b]) - 4))
            b_iso.append(swaps)

    inst_root, inst_board, inst_offset, inst_child = [0], [0], [0], [-1]
    storage = size[0]
    num_nodes = 0
    street_nodes = _street_node_counts(order, first)
    inst = 0
    while inst < len(inst_root):
        street_root, b = inst_root[inst], inst_board[inst]
        num_nodes += street_nodes[street_root]
        if chances[street_root]:
            deal(b)
            inst_child[inst] = len(inst_root)
            for chance in chances[street_root]:
                for j in range(b_cards[b]):
                    inst_root.append(first[chance])
                    inst_board.append(b_child[b] + j)
                    inst_offset.append(storage)
                    inst_child.append(-1)
                    storage += size[first[chance]]
        inst += 1
    if check_memory is not None:
        rivers = sum(1 for cards in boards if len(cards) == 5)
        check_memory(8 * storage + 2 * rivers * int(nh.max()) * SHOWDOWN_BYTES + 32 * len(inst_root))
    kernel = Kernel(
        a_kind=np.array([n.kind for n in order], dtype=np.int64),
        a_player=np.array([n.player for n in order], dtype=np.int64),
        a_first=np.array(first, dtype=np.int64),
        a_num=np.array([len(n.children) for n in order], dtype=np.int64),
        a_amount=np.array([_amount(n, pot) for n in order]),
        a_local=local,
        i_board=np.array(inst_board, dtype=np.int64),
        i_offset=np.array(inst_offset, dtype=np.int64),
        i_child=np.array(inst_child, dtype=np.int64),
        b_card=np.array(b_card, dtype=np.int64),
        b_cards=np.array(b_cards, dtype=np.int64),
        b_child=np.array(b_child, dtype=np.int64),
        b_factor=np.array(b_factor),
        b_iso_first=np.cumsum([0] + [len(s) for s in b_iso[:-1]]).astype(np.int64),
        b_iso_count=np.array([len(s) for s in b_iso], dtype=np.int64),
        iso_swap=np.array([s for swaps in b_iso for s in swaps] or [0], dtype=np.int64),
        swap_hand=_swap_hands(hands, symmetric),
        **_showdowns(boards, hands),
        nh=nh,
        cards=_padded([np.asarray(h, dtype=np.int64) for h in hands], (2,), np.uint8),
        same=_same_hands(hands),
        **_card_index(hands),
    )
    cuts = np.array(chances[0], dtype=np.int64)
    actions = max((len(n.children) for n in order if n.kind == PLAYER), default=1)
    return Layout(
        kernel, tuple(order), tuple(boards), np.array(inst_root, dtype=np.int64), storage,
        _depth(root) + 1, actions, cuts, num_nodes,
    )  # fmt: skip


def _street_node_counts(order: list[ActionNode], first: list[int]) -> dict[int, int]:
    """Per street root, the nodes of its street (its chance nodes included, the next streets not)."""
    counts: dict[int, int] = {}
    roots = [0] + [first[i] for i, node in enumerate(order) if node.kind == CHANCE]
    for root in roots:
        count, stack = 0, [root]
        while stack:
            index = stack.pop()
            count += 1
            if order[index].kind == PLAYER:
                stack.extend(range(first[index], first[index] + len(order[index].children)))
        counts[root] = count
    return counts


def _amount(node: ActionNode, pot: int) -> float:
    """Chips the winner of a terminal wins since the spot began (each player put in half the pot)."""
    if node.kind == FOLD:
        return pot / 2 + node.committed[node.player]
    if node.kind == SHOWDOWN:
        return pot / 2 + min(node.committed)
    return 0.0


def _padded(
    arrays: Sequence[npt.NDArray[Any]], tail: tuple[int, ...], dtype: type = np.int64
) -> npt.NDArray[Any]:
    width = max(max(len(a) for a in arrays), 1)
    out: npt.NDArray[Any] = np.zeros((len(arrays), width, *tail), dtype=dtype)
    for i, array in enumerate(arrays):
        out[i, : len(array)] = array
    return out


def _swap_hands(hands: Sequence[npt.NDArray[np.int64]], symmetric: Sequence[bool]) -> npt.NDArray[Any]:
    width = max(len(hands[0]), len(hands[1]), 1)
    out = np.zeros((2, len(SUIT_PAIRS), width), dtype=np.uint16)  # rows of unused swaps stay 0
    for player, cards in enumerate(hands):
        index = {(int(x), int(y)): i for i, (x, y) in enumerate(cards)}
        for swap, (a, b) in enumerate(SUIT_PAIRS):
            if symmetric[swap]:
                out[player, swap, : len(cards)] = [index[_swapped(int(x), int(y), a, b)] for x, y in cards]
    return out


def _same_hands(hands: Sequence[npt.NDArray[np.int64]]) -> npt.NDArray[Any]:
    width = max(len(hands[0]), len(hands[1]), 1)
    out = np.full((2, width), -1, dtype=np.int16)
    for player in range(2):
        index = {(int(x), int(y)): i for i, (x, y) in enumerate(hands[1 - player])}
        for h, (x, y) in enumerate(hands[player]):
            out[player, h] = index.get((int(x), int(y)), -1)
    return out


def _card_index(hands: Sequence[npt.NDArray[np.int64]]) -> dict[str, npt.NDArray[Any]]:
    width = 2 * max(len(hands[0]), len(hands[1]), 1)
    card_first = np.zeros((2, 53), dtype=np.int64)
    card_hand = np.zeros((2, width), dtype=np.uint16)
    for player, cards in enumerate(hands):
        by_card: list[list[int]] = [[] for _ in range(52)]
        for h, (x, y) in enumerate(cards):
            by_card[int(x)].append(h)
            by_card[int(y)].append(h)
        card_first[player, 1:] = np.cumsum([len(b) for b in by_card])
        flat = [h for b in by_card for h in b]
        card_hand[player, : len(flat)] = flat
    return {"card_first": card_first, "card_hand": card_hand}


def _showdowns(
    boards: Sequence[tuple[int, ...]], hands: Sequence[npt.NDArray[np.int64]]
) -> dict[str, npt.NDArray[Any]]:
    """Each river board's hands per player in ascending rank order (hands holding a board card left out)."""
    rivers = [b for b, cards in enumerate(boards) if len(cards) == 5]
    sd_first = np.full((2, len(boards)), -1, dtype=np.int64)
    sd_count = np.zeros((2, len(boards)), dtype=np.int64)
    lists: list[tuple[list[npt.NDArray[np.int64]], list[npt.NDArray[np.int64]]]] = []
    for player, cards in enumerate(hands):
        cards = np.asarray(cards, dtype=np.int64).reshape(-1, 2)
        hand_lists, rank_lists = [], []
        if rivers and len(cards):
            river_cards = np.array([boards[b] for b in rivers], dtype=np.int64)  # [R, 5]
            blocked = np.zeros((len(rivers), len(cards)), dtype=bool)
            ranks = np.zeros((len(rivers), len(cards)), dtype=np.int64)
            for start in range(0, len(rivers), RANK_CHUNK):  # bounded scratch memory
                chunk = river_cards[start : start + RANK_CHUNK]
                seven = np.concatenate(
                    [
                        np.repeat(chunk[:, None, :], len(cards), axis=1),
                        np.broadcast_to(cards, (len(chunk), *cards.shape)),
                    ],
                    axis=2,
                ).reshape(-1, 7)
                hit = (chunk[:, None, :, None] == cards[None, :, None, :]).any(axis=(2, 3))  # [R, H]
                safe = np.where(hit.reshape(-1)[:, None], np.arange(7), seven)
                blocked[start : start + len(chunk)] = hit
                ranks[start : start + len(chunk)] = rank_hands(safe, validate=False).reshape(
                    len(chunk), len(cards)
                )
        offset = 0
        for r, b in enumerate(rivers):
            if len(cards):
                keep = np.flatnonzero(~blocked[r])
                keep = keep[np.argsort(ranks[r, keep], kind="stable")]
                hand_lists.append(keep.astype(np.int64))
                rank_lists.append(ranks[r, keep])
            else:
                keep = np.zeros(0, dtype=np.int64)
                hand_lists.append(keep)
                rank_lists.append(keep)
            sd_first[player, b], sd_count[player, b] = offset, len(keep)
            offset += len(keep)
        lists.append((hand_lists, rank_lists))
    flat_hands = [np.concatenate(h) if h else np.zeros(0, dtype=np.int64) for h, _ in lists]
    flat_ranks = [np.concatenate(r) if r else np.zeros(0, dtype=np.int64) for _, r in lists]
    flat_cards = [np.asarray(hands[p], dtype=np.int64).reshape(-1, 2)[h] for p, h in enumerate(flat_hands)]
    return {
        "sd_first": sd_first,
        "sd_count": sd_count,
        "sd_hand": _padded(flat_hands, (), np.uint16),
        "sd_rank": _padded(flat_ranks, (), np.int32),
        "sd_cards": _padded(flat_cards, (2,), np.uint8),
    }


__all__ = ["SUIT_PAIRS", "Layout", "deal_classes", "layout", "swap_card", "symmetric_swaps"]
