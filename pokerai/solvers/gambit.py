"""Export a protocol game to Gambit (pygambit), the peer for logit QRE checks.

pygambit is optional (the ``[peers]`` extra); it is imported only when
``to_gambit`` is called, and a missing install is an ``ImportError`` that says
how to get it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from pokerai.games.protocol import Game, State
from pokerai.solvers.best_response import tree_of
from pokerai.solvers.policy import TabularPolicy


def to_gambit(game: Game) -> tuple[Any, list[tuple[str, str]]]:
    """The game as a pygambit extensive form, and its flat ``(infoset key, action name)`` order.

    Information sets are labelled with the game's keys, actions with its action
    names; payoffs and chance probabilities become exact rationals.
    """
    try:
        import pygambit as gbt
    except ImportError:
        raise ImportError('to_gambit needs pygambit: pip install -e ".[peers]"') from None

    def rational(x: float) -> Any:
        f = Fraction(x).limit_denominator(10**6)
        return gbt.Rational(f.numerator, f.denominator)

    gambit = gbt.Game.new_tree(players=["0", "1"], title=game.name)
    infosets: dict[str, Any] = {}

    def build(state: State, node: Any) -> None:
        if state.is_terminal():
            outcome = gambit.add_outcome(f"o{len(gambit.outcomes)}", [rational(r) for r in state.returns()])
            gambit.set_outcome(node, outcome)
            return
        if state.is_chance():
            outcomes = list(state.chance_outcomes())
            gambit.append_move(node, gambit.players.chance, [state.action_name(o) for o, _ in outcomes])
            gambit.set_chance_probs(node.infoset, [rational(p) for _, p in outcomes])
            for (o, _), child in zip(outcomes, node.children, strict=True):
                build(state.child(o), child)
            return
        player = state.current_player()
        key = state.information_state_key(player)
        actions = list(state.legal_actions())
        if key in infosets:
            gambit.append_infoset(node, infosets[key])
        else:
            gambit.append_move(node, gambit.players[str(player)], [state.action_name(a) for a in actions])
            infosets[key] = node.infoset
            node.infoset.label = key
        for a, child in zip(actions, node.children, strict=True):
            build(state.child(a), child)

    build(game.initial_state(), gambit.root)
    order = [(i.label, a.label) for p in gambit.players for i in p.infosets for a in i.actions]
    return gambit, order


def gambit_policy(game: Game, profile: Any, order: list[tuple[str, str]]) -> TabularPolicy:
    """A Gambit behaviour profile (flat, in ``order``) as a ``TabularPolicy`` of ``game``."""
    table: dict[str, dict[str, float]] = {}
    for index, (key, name) in enumerate(order):
        table.setdefault(key, {})[name] = float(profile[index])
    return TabularPolicy.from_dict(tree_of(game), table)
