"""Evaluation of a hold'em Deep CFR run while it trains: the blueprint in a duplicate match.

Hold'em is far too large for exact exploitability, so ``pokerai train`` measures a
HUNL run by play: at each evaluation point the trainer's fresh policy networks are
copied into a :class:`~pokerai.deepcfr.export.Blueprint` (no disk round-trip),
wrapped in a :class:`~pokerai.agents.blueprint.BlueprintAgent`, and played in a
seeded duplicate match (:func:`~pokerai.eval.duplicate.duplicate_match`) against
a fixed opponent, ``heuristic`` by default, on the run's own blinds and stacks.
The same seed at every evaluation point gives the same deals, so the curve moves
only because the blueprint does.

Scalars (TensorBoard tags), with ``<opponent>`` the opponent's spec:

* ``eval/mbb_vs_<opponent>``: the blueprint's mean result, milli-big-blinds per hand;
* ``eval/mbb_vs_<opponent>_ci95``: the half-width of its duplicate 95% confidence interval.
"""

from __future__ import annotations

from pokerai.agents.blueprint import BlueprintAgent
from pokerai.agents.spec import make_agent
from pokerai.deepcfr.export import Blueprint
from pokerai.deepcfr.trainer import DeepCFRTrainer, Evaluator
from pokerai.eval.duplicate import duplicate_match
from pokerai.games.hunl import HUNLGame


def hunl_evaluator(pairs: int, seed: int = 0, *, opponent: str = "heuristic") -> Evaluator:
    """An evaluator for ``DeepCFRTrainer.train``: ``pairs`` duplicate deal pairs against ``opponent``.

    Returns ``{"eval/mbb_vs_<opponent>": mbb per hand, "eval/mbb_vs_<opponent>_ci95": half-width}``
    (floats; the half-width is infinite with one pair). Bad arguments are a ``ValueError`` when the
    evaluator is built, not at the first evaluation point.
    """
    if isinstance(pairs, bool) or not isinstance(pairs, int) or pairs <= 0:
        raise ValueError(
            f"the number of evaluation deal pairs must be a positive whole number, got {pairs!r}"
        )
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"the evaluation seed must be a non-negative whole number, got {seed!r}")
    make_agent(opponent)  # a bad spec fails here, naming itself
    tag = f"eval/mbb_vs_{opponent.strip()}"

    def evaluate(trainer: DeepCFRTrainer) -> dict[str, float]:
        if not isinstance(trainer.game, HUNLGame):
            raise ValueError(f"hunl_evaluator plays hold'em, but this run's game is {trainer.config.game!r}")
        blueprint = Blueprint.from_trainer(trainer)
        result = duplicate_match(
            BlueprintAgent(blueprint),
            make_agent(opponent),
            pairs,
            seed=seed,
            config=trainer.game.config,
        )
        return {tag: float(result.mbb_per_hand), f"{tag}_ci95": float(result.estimate.half_width)}

    return evaluate


__all__ = ["hunl_evaluator"]
