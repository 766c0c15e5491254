"""The arena: many hands of four bots, fast, with honest statistics.

Command line (``BOT`` is ``pkg.mod`` or ``pkg.mod:Name``, see :mod:`sdk.arena.loader`)::

    python -m sdk.arena bots.greedy bots.greedy bots.random bots.random \\
        --hands 20000 --duplicate --workers 2 --out runs/greedy-vs-random --log

From Python::

    from sdk.arena import run_arena
    result = run_arena(["bots.greedy", "bots.greedy", "bots.random", "bots.random"],
                       hands=20000, duplicate=True)
    print(result.pair("greedy", "random").verdict)

Every match is played in-process with :func:`sdk.local.play_match`: the same views,
requests and budget policy as over the network (a decision slower than the budget gets
the fallback, exactly as a server would send it). A *deal* is one match seed replayed
under every seating of the duplicate set; deals are the unit of parallel work and the
independent observations of the statistics (:mod:`sdk.arena.stats`). Results for a seed
are identical for every backend (``local``, ``process``, ``ray``) and worker count.
With more than two bots every pair is compared, and a pair is called significant only
when its paired t test survives Holm's adjustment for all the pairs of the run
(:class:`~sdk.arena.result.PairStats`), so six comparisons do not find a "winner" by
chance more often than one.

Modules: ``loader`` (bot specs and seeding), ``deal`` (seeds, seatings, playing a deal),
``runner`` (backends), ``stats`` (t intervals, p-values, Holm's adjustment), ``timing`` (decision-time histograms),
``result`` (aggregation, :class:`ArenaResult`), ``report`` (tables, Markdown, files),
``progress`` (live bar), ``recordfiles`` (the game records of ``--save-logs`` and
``--log``), ``cli`` (the command line).
"""

from sdk.arena.api import run_arena
from sdk.arena.loader import BotFactory, BotLoadError, load_bot
from sdk.arena.result import ArenaResult, BotStats, PairStats
from sdk.arena.stats import Interval

__all__ = [
    "ArenaResult",
    "BotFactory",
    "BotLoadError",
    "BotStats",
    "Interval",
    "PairStats",
    "load_bot",
    "run_arena",
]
