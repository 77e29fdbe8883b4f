"""Latency of the hand analyzer's blueprint spot answer (``GET /api/spot``), over real HTTP.

    OMP_NUM_THREADS=1 python benchmarks/bench_analyze.py [--repeats 20] [--bot SPEC]

Serves ``--bot`` (by default ``pokerai analyze``'s, the default bot) with uvicorn on a free local port,
warms it up (the network's per-process tables, one request per spot), then times ``repeats``
requests of each spot below, from the client: the goal is at most 300 ms. ``/api/range`` is timed
the same way, since the page asks for it right after.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import threading
import time
import urllib.parse
import urllib.request

import uvicorn

from pokerai.agents.table import default_opponent_spec
from pokerai.web.analysis import Analyzer
from pokerai.web.app import create_app

SPOTS = {
    "preflop, facing a raise": {"hole": "AhKh", "board": "", "history": "r300"},
    "flop": {"hole": "AhKh", "board": "Ks7d2c", "history": "r300c/"},
    "turn, facing a bet": {"hole": "AhKh", "board": "Ks7d2c5h", "history": "r300c/cc/r900"},
    "river": {"hole": "AhKh", "board": "Ks7d2c5h9c", "history": "r300c/cc/cc/"},
}


def fetch(url: str) -> float:
    """Seconds from sending the request to reading the whole answer."""
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=600) as answer:
        answer.read()
        assert answer.status == 200
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--bot", metavar="SPEC", help="the bot to serve (default: the default bot)")
    args = parser.parse_args()
    analyzer = Analyzer(args.bot or default_opponent_spec())
    listener = socket.create_server(("127.0.0.1", 0))
    base = f"http://127.0.0.1:{listener.getsockname()[1]}"
    server = uvicorn.Server(uvicorn.Config(create_app(analyzer), log_level="warning"))
    threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    first = fetch(f"{base}/api/spot?{urllib.parse.urlencode(SPOTS['flop'])}")
    print(f"first request of the process (cold network tables): {1000 * first:.0f} ms")
    print(f"{'spot':<26} {'view':<6} {'median ms':>10} {'max ms':>8}")
    for name, params in SPOTS.items():
        for view in ("spot", "range"):
            url = f"{base}/api/{view}?{urllib.parse.urlencode(params)}"
            fetch(url)
            times = [fetch(url) for _ in range(args.repeats)]
            print(f"{name:<26} {view:<6} {1000 * statistics.median(times):>10.1f} {1000 * max(times):>8.1f}")
    server.should_exit = True


if __name__ == "__main__":
    main()
