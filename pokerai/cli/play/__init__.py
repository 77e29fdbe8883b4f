"""``pokerai play``: a heads-up no-limit session against the bot in a terminal.

Blinds are 50/100 chips and both stacks are reset before each hand; the default bot
(:data:`~pokerai.agents.table.DEFAULT_BOT`) searches every postflop street over the tabular MCCFR
blueprint shipped in ``checkpoints/hunl_blueprint``. One module a job, each testable on its own:

* :mod:`~pokerai.cli.play.actions`: :func:`~pokerai.cli.play.actions.parse_user_action` turns one
  typed line into a legal engine action (or a command), or one sentence saying why it is not;
* :mod:`~pokerai.cli.play.narration`: the text shown at each action and decision;
* :mod:`~pokerai.cli.play.screen`: the terminal shared with the thinking line and the warm-up thread;
* :mod:`~pokerai.cli.play.session`: :class:`~pokerai.cli.play.session.PlaySession` plays the hands;
* :mod:`~pokerai.cli.play.command`: the argparse subcommand and its handler.

Nothing is imported here, so ``pokerai --help`` stays light.
"""
