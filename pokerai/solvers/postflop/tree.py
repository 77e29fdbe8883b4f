"""The action tree of a postflop spot, built as postflop-solver's ``ActionTree`` builds it.

Sizes come from :mod:`pokerai.solvers.postflop.sizes`. At each player node:

* with no bet to face, the player may check or bet each of its bet sizes, where a pot share is of
  the pot at the start of the street plus both players' chips in so far;
* facing a bet, it may fold, call or raise each of its raise sizes (``"60%"`` raises *by* 60% of
  the pot after the call; ``"2.5x"`` raises *to* 2.5 times the bet), unless the bet was all-in or
  the street's raises reached ``raise_cap``;
* all-in is added where it is at most ``add_allin_threshold`` pots (beyond the bet faced);
* every amount is rounded half away from zero, then clamped between the minimum bet or raise (one
  chip; the bet faced plus the last raise's size) and the stack; an amount that would leave at most
  ``force_allin_threshold`` of the pot after a call behind becomes all-in;
* amounts within ``merging_threshold`` of a larger one (PioSOLVER's rule: the pot shares ``X > Y``
  merge where ``(1 + X) / (1 + Y) < 1 + threshold``) are dropped, from the largest down.

A street ends with a check from IP after a check, or a call. Before the river that is a chance node
(the next card; one child, the same tree for every card); after an all-in is called, one chance node
per street left, then the showdown. Actions are ordered as postflop-solver orders them: fold, check,
call, bets, raises, all-in, each by amount.

Amounts follow postflop-solver's ``Action``: ``("bet", 120)`` and ``("raise", 300)`` are the
player's total bet on this street after the action, ``("allin", 900)`` likewise; fold, check and
call carry 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

from pokerai.solvers.postflop.sizes import (
    ADDITIVE,
    ALL_IN,
    GEOMETRIC,
    POT_RELATIVE,
    PREVIOUS_BET_RELATIVE,
    BetSizes,
    SizeError,
)

__all__ = [
    "ACTION_NAMES",
    "CHANCE",
    "FOLD",
    "PLAYER",
    "SHOWDOWN",
    "ActionNode",
    "TreeConfig",
    "action_label",
    "build_tree",
    "count_nodes",
]

PLAYER = 0
CHANCE = 1
FOLD = 2
SHOWDOWN = 3
"""Node kinds."""

ACTION_NAMES = ("fold", "check", "call", "bet", "raise", "allin")
"""Action names, in postflop-solver's order (ties between bets broken by amount)."""
_ACTION_ORDER = {name: index for index, name in enumerate(ACTION_NAMES)}
_LABELS = {
    "fold": "Fold",
    "check": "Check",
    "call": "Call",
    "bet": "Bet",
    "raise": "Raise",
    "allin": "All-in",
}

NUM_STREETS = 3
RIVER = 2
MAX_CHIPS = 2**31 - 1
"""postflop-solver counts chips in 32-bit integers: the pot plus both stacks must fit."""
MAX_DEPTH = 200
"""The most actions on a path from the root (trees that players build have a few dozen)."""
_MERGE_EPSILON = 1e-12

Action = tuple[str, int]


@dataclass(frozen=True)
class TreeConfig:
    """A spot's betting: where it starts, the chips, the sizes and the all-in rules.

    ``sizes[street][player]``: three streets (flop, turn, river), each a pair (OOP, IP) of
    :class:`~pokerai.solvers.postflop.sizes.BetSizes`; the streets before ``street`` are unused.
    """

    street: int
    """0 flop, 1 turn, 2 river: the street the spot starts on."""
    pot: int
    """Chips in the pot at the root (> 0)."""
    stack: int
    """Effective stack behind at the root (> 0)."""
    sizes: tuple[tuple[BetSizes, BetSizes], ...]
    raise_cap: int | None = None
    """The most raises on one street (a bet is not a raise); None: no cap, as postflop-solver."""
    add_allin_threshold: float = 1.5
    force_allin_threshold: float = 0.15
    merging_threshold: float = 0.1


@dataclass(frozen=True)
class ActionNode:
    """One node of the action tree; see the module docstring for the rules that build it."""

    kind: int
    """PLAYER, CHANCE, FOLD or SHOWDOWN."""
    player: int
    """PLAYER: the player to act (0 OOP, 1 IP); FOLD: the player who folded; else -1."""
    street: int
    """0 flop, 1 turn, 2 river; a chance node's street is the one that just ended."""
    committed: tuple[int, int]
    """Chips each player has put in since the spot began (the root's pot not counted)."""
    actions: tuple[Action, ...] = ()
    """PLAYER only: ``(name, amount)`` per child."""
    children: tuple[ActionNode, ...] = field(default=(), repr=False)
    """PLAYER: one per action; CHANCE: one, the next street's tree; FOLD and SHOWDOWN: none."""


@dataclass(frozen=True)
class _Betting:
    """The betting so far on the current street (postflop-solver's ``BuildTreeInfo``)."""

    stacks: tuple[int, int]
    previous_action: str = ""  # "" at the root, "chance" after a card, else the last action's name
    num_bets: int = 0  # bets and raises on this street
    all_in: bool = False  # the last bet or raise was all-in
    previous_amount: int = 0  # the street total of the last bet or raise (0 after a call)

    def after(self, player: int, action: Action) -> _Betting:
        name, amount = action
        if name == "call":
            stacks = (self.stacks[1], self.stacks[1]) if player == 0 else (self.stacks[0], self.stacks[0])
            return _Betting(stacks, name, 0, self.all_in, 0)
        if name in ("bet", "raise", "allin"):
            to_call = self.stacks[player] - self.stacks[1 - player]
            left = self.stacks[player] - (amount - self.previous_amount + to_call)
            stacks = (left, self.stacks[1]) if player == 0 else (self.stacks[0], left)
            return _Betting(stacks, name, self.num_bets + 1, name == "allin", amount)
        return _Betting(self.stacks, name, self.num_bets, self.all_in, self.previous_amount)


def _round(value: float) -> int:
    """Rust's ``value.round() as i32``: half away from zero, saturating, NaN to 0."""
    if math.isnan(value):
        return 0
    if value >= MAX_CHIPS:
        return MAX_CHIPS
    if value <= -MAX_CHIPS - 1:
        return -MAX_CHIPS - 1
    whole = math.trunc(value)
    fraction = value - whole  # exact for floats
    if fraction >= 0.5:
        whole += 1
    elif fraction <= -0.5:
        whole -= 1
    return whole


def _check_config(config: TreeConfig) -> None:
    if config.street not in (0, 1, 2):
        raise ValueError(
            f"the starting street must be 0 (flop), 1 (turn) or 2 (river), got {config.street!r}"
        )
    for name in ("pot", "stack"):
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"the {name} must be a positive whole number of chips, got {value!r}")
    if config.pot + 2 * config.stack > MAX_CHIPS:
        raise ValueError(f"the pot plus both stacks must be at most {MAX_CHIPS:,} chips")
    if config.raise_cap is not None and (
        isinstance(config.raise_cap, bool) or not isinstance(config.raise_cap, int) or config.raise_cap < 0
    ):
        raise ValueError(f"the raise cap must be None or a whole number >= 0, got {config.raise_cap!r}")
    for name in ("add_allin_threshold", "force_allin_threshold", "merging_threshold"):
        value = getattr(config, name)
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
            raise ValueError(f"the {name.replace('_', ' ')} must be a finite number >= 0, got {value!r}")
    if len(config.sizes) != NUM_STREETS or any(len(pair) != 2 for pair in config.sizes):
        raise ValueError("sizes must hold, for each of the 3 streets, a pair of BetSizes (OOP, IP)")
    for pair in config.sizes:
        for sizes in pair:
            if not isinstance(sizes, BetSizes):
                raise ValueError(f"sizes must be BetSizes, got {type(sizes).__name__}")
            if any(size.kind == PREVIOUS_BET_RELATIVE for size in sizes.bet):
                raise SizeError("a multiple of the bet faced ('2.5x') can only be a raise size")


def _merge(actions: list[Action], pot: int, offset: int, threshold: float) -> list[Action]:
    """Drop bets within ``threshold`` of the next larger kept one, from the largest down."""
    kept: list[Action] = []
    current = MAX_CHIPS
    for name, amount in reversed(actions):
        if name in ("bet", "raise", "allin") and amount > 0:
            ratio = (amount - offset) / pot
            current_ratio = (current - offset) / pot
            if ratio < (current_ratio - threshold) / (1.0 + threshold) * (1.0 - _MERGE_EPSILON):
                kept.append((name, amount))
                current = amount
        else:
            kept.append((name, amount))
    kept.reverse()
    return kept


class _Builder:
    def __init__(self, config: TreeConfig, max_nodes: int) -> None:
        self.config = config
        self.max_nodes = max_nodes
        self.num_nodes = 0

    def node(
        self,
        kind: int,
        player: int,
        street: int,
        betting: _Betting,
        actions: tuple[Action, ...] = (),
        children: tuple[ActionNode, ...] = (),
    ) -> ActionNode:
        self.num_nodes += 1
        if self.num_nodes > self.max_nodes:
            raise ValueError(
                f"the action tree has more than {self.max_nodes:,} nodes: use fewer sizes or a raise cap"
            )
        stack = self.config.stack
        committed = (stack - betting.stacks[0], stack - betting.stacks[1])
        return ActionNode(kind, player, street, committed, actions, children)

    def actions(self, street: int, player: int, betting: _Betting) -> list[Action]:
        config = self.config
        player_stack, opponent_stack = betting.stacks[player], betting.stacks[1 - player]
        previous = betting.previous_amount
        to_call = player_stack - opponent_stack
        pot = config.pot + 2 * (config.stack - opponent_stack)  # after a call
        max_amount = opponent_stack + previous
        min_amount = min(max(previous + to_call, 1), max_amount)
        spr_after_call = opponent_stack / pot
        streets_left = NUM_STREETS - street

        def geometric(num_streets: int, max_ratio: float) -> int:
            ratio = ((2.0 * spr_after_call + 1.0) ** (1.0 / num_streets) - 1.0) / 2.0
            return _round(pot * min(ratio, max_ratio))

        sizes = config.sizes[street][player]
        actions: list[Action] = []
        if betting.previous_action in ("", "check", "chance"):
            actions.append(("check", 0))
            for size in sizes.bet:
                if size.kind == POT_RELATIVE:
                    actions.append(("bet", _round(pot * size.ratio)))
                elif size.kind == ADDITIVE:
                    actions.append(("bet", size.chips))
                elif size.kind == GEOMETRIC:
                    actions.append(("bet", geometric(size.streets or streets_left, size.ratio)))
                elif size.kind == ALL_IN:
                    actions.append(("allin", max_amount))
            if max_amount <= _round(pot * config.add_allin_threshold):
                actions.append(("allin", max_amount))
        else:
            actions += [("fold", 0), ("call", 0)]
            capped = config.raise_cap is not None and betting.num_bets - 1 >= config.raise_cap
            if not betting.all_in and not capped:
                for size in sizes.raise_:
                    if size.kind == POT_RELATIVE:
                        actions.append(("raise", previous + _round(pot * size.ratio)))
                    elif size.kind == PREVIOUS_BET_RELATIVE:
                        actions.append(("raise", _round(previous * size.ratio)))
                    elif size.kind == ADDITIVE:
                        if size.cap == 0 or betting.num_bets <= size.cap:
                            actions.append(("raise", previous + size.chips))
                    elif size.kind == GEOMETRIC:
                        num_streets = max((size.streets or streets_left) - betting.num_bets + 1, 1)
                        actions.append(("raise", previous + geometric(num_streets, size.ratio)))
                    elif size.kind == ALL_IN:
                        actions.append(("allin", max_amount))
                if max_amount <= previous + _round(pot * config.add_allin_threshold):
                    actions.append(("allin", max_amount))

        def forces_all_in(amount: int) -> bool:
            new_pot = pot + 2 * (amount - previous)
            return max_amount <= amount + _round(new_pot * config.force_allin_threshold)

        clamped_actions: list[Action] = []
        for name, amount in actions:
            if name in ("bet", "raise"):
                clamped = min(max(amount, min_amount), max_amount)
                clamped_actions.append(("allin", max_amount) if forces_all_in(clamped) else (name, clamped))
            else:
                clamped_actions.append((name, amount))
        unique = sorted(set(clamped_actions), key=lambda action: (_ACTION_ORDER[action[0]], action[1]))
        return _merge(unique, pot, previous, config.merging_threshold)

    def player_node(self, street: int, player: int, betting: _Betting, depth: int) -> ActionNode:
        if depth > MAX_DEPTH:
            raise ValueError(f"the action tree is more than {MAX_DEPTH} actions deep: use larger sizes")
        actions = self.actions(street, player, betting)
        children = []
        for action in actions:
            after = betting.after(player, action)
            name = action[0]
            if name == "fold":
                children.append(self.node(FOLD, player, street, after))
            elif name == "call" or (name == "check" and player == 1):
                children.append(self.street_end(street, after, depth + 1))
            else:
                children.append(self.player_node(street, 1 - player, after, depth + 1))
        return self.node(PLAYER, player, street, betting, tuple(actions), tuple(children))

    def street_end(self, street: int, betting: _Betting, depth: int) -> ActionNode:
        if street == RIVER:
            return self.node(SHOWDOWN, -1, street, betting)
        next_betting = betting.after(0, ("chance", 0))
        if betting.all_in:
            child = self.street_end(street + 1, next_betting, depth)
        else:
            child = self.player_node(street + 1, 0, next_betting, depth)
        return self.node(CHANCE, -1, street, betting, (), (child,))


def build_tree(config: TreeConfig, *, max_nodes: int = 1_000_000) -> ActionNode:
    """The root of ``config``'s action tree. A bad config is a ``ValueError`` (a
    :class:`~pokerai.solvers.postflop.sizes.SizeError` for sizes) that names the bad value, and so is a
    tree of more than ``max_nodes`` nodes."""
    _check_config(config)
    builder = _Builder(config, max_nodes)
    return builder.player_node(config.street, 0, _Betting((config.stack, config.stack)), 0)


def iter_nodes(root: ActionNode) -> Iterator[tuple[tuple[Action | None, ...], ActionNode]]:
    """Every node depth-first, children in order, with its path from the root: the actions taken,
    and None for each chance node passed."""
    pending: list[tuple[tuple[Action | None, ...], ActionNode]] = [((), root)]
    while pending:
        path, node = pending.pop()
        yield path, node
        if node.kind == CHANCE:
            pending.append(((*path, None), node.children[0]))
        else:
            pending.extend(
                reversed(
                    [
                        ((*path, action), child)
                        for action, child in zip(node.actions, node.children, strict=True)
                    ]
                )
            )


def count_nodes(root: ActionNode) -> dict[str, int]:
    """``{"player": .., "chance": .., "terminal": ..}``: the action tree's nodes by kind (a chance node
    counted once, whatever the card)."""
    counts = {"player": 0, "chance": 0, "terminal": 0}
    for _, node in iter_nodes(root):
        counts["player" if node.kind == PLAYER else "chance" if node.kind == CHANCE else "terminal"] += 1
    return counts


def action_label(name: str, amount: int) -> str:
    """``("bet", 120)`` -> ``"Bet 120"``; also ``"Check"``, ``"Raise 300"``, ``"All-in 900"``, ``"Fold"``.

    >>> action_label("allin", 900), action_label("check", 0)
    ('All-in 900', 'Check')
    """
    if name not in _LABELS:
        raise ValueError(f"unknown action {name!r}: expected one of {', '.join(ACTION_NAMES)}")
    return _LABELS[name] if name in ("fold", "check", "call") else f"{_LABELS[name]} {amount}"
