"""The "solve a spot" API (``pokerai.web.spot``) through FastAPI's test client: bad spots refused
with one sentence, a small river solved and browsed, locks, and a long solve that does not hold the
server while it runs."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from pokerai.engine.cards import parse_cards
from pokerai.engine.ranges import CLASS_NAMES, hand_class_name, parse_range
from pokerai.search.combos import ALL_COMBOS
from pokerai.web.analysis import Analyzer
from pokerai.web.app import create_app
from pokerai.web.spot import range_text

RIVER = {
    "board": "Td9d6hQc7s",
    "oop": "AA,KK,QQ,AK",
    "ip": "TT-88,AQs",
    "pot": 100,
    "stack": 100,
    "bets": "50%",
    "raises": "a",
}
TURN = {
    "board": "Td9d6hQc",
    "oop": "66+,A8s+,AJo+,KQo",
    "ip": "QQ-22,AQs-A2s,ATo+",
    "pot": 100,
    "stack": 100,
    "bets": "50%",
    "raises": "a",
    "target": 0,
    "iterations": 100_000,
}
"""A turn spot whose solve runs until it is stopped (target 0, a cap it takes minutes to reach)."""
WAIT_S = 1800.0  # generous: the first solve of a session compiles the kernels
"""How long a poll waits for a solve to end: long, as a busy machine may be slow; never a bound on speed."""


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Analyzer("random"))) as test_client:
        yield test_client


def wait_for_end(client: TestClient, job: str) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT_S
    while True:
        answer = client.get(f"/api/spot/{job}")
        assert answer.status_code == 200, answer.text
        status: dict[str, Any] = answer.json()
        if status["status"] != "running":
            return status
        assert time.monotonic() < deadline, "the solve did not end"
        time.sleep(0.02)


def solve(client: TestClient, **changes: Any) -> tuple[str, dict[str, Any]]:
    answer = client.post("/api/spot", json={**RIVER, **changes})
    assert answer.status_code == 200, answer.text
    job = answer.json()["id"]
    return job, wait_for_end(client, job)


def node(client: TestClient, job: str, path: str = "") -> dict[str, Any]:
    answer = client.get(f"/api/spot/{job}/node", params={"path": path})
    assert answer.status_code == 200, answer.text
    payload: dict[str, Any] = answer.json()
    return payload


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"oop": "AA,KX"}, "'KX'"),
        ({"bets": "50%%"}, "50%%"),
        ({"raises": "two"}, "two"),
        ({"board": "Td9d6hQcTd"}, "Td"),
        ({"pot": -100}, "pot"),
        ({"stack": 0}, "stack"),
        ({"stack": -5}, "stack"),
        ({"ip": "TdTc,88"}, "on the board"),
        ({"board": "TdTcTh9d6h", "ip": "TT"}, "empty"),
        ({"board": "Td9d"}, "3, 4 or 5"),
        ({"pot": "100"}, "pot"),
        ({"target": -1}, "target"),
        ({"iterations": 10**9}, "iteration cap"),
        ({"colour": "red"}, "unknown field 'colour'"),
        ({"locks": [{"path": ["Check"], "strategies": {"AKx": [1, 0, 0]}}]}, "'AKx'"),
        ({"locks": [{"path": ["Check"], "strategies": {"TT": [1, 0]}}]}, "2 numbers for the 3 actions"),
        ({"locks": [{"path": ["Bet 50", "Fold"], "strategies": {"TT": [1]}}]}, "only a player's decision"),
        ({"locks": [{"path": ["Raise 7"], "strategies": {"TT": [1]}}]}, "'Raise 7' is not one of"),
        ({"locks": [{"path": [], "strategies": {"TT": [1, 0, 0]}}]}, "OOP range holds no TT"),
    ],
)
def test_a_bad_spot_is_refused_with_one_sentence(
    client: TestClient, changes: dict[str, Any], words: str
) -> None:
    answer = client.post("/api/spot", json={**RIVER, **changes})
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert words in error and "\n" not in error and "Traceback" not in error


def test_a_missing_field_is_refused(client: TestClient) -> None:
    answer = client.post("/api/spot", json={key: value for key, value in RIVER.items() if key != "ip"})
    assert answer.status_code == 400 and answer.json()["error"] == "the spot needs ip"


def test_a_spot_over_the_memory_cap_is_refused_before_it_starts() -> None:
    with TestClient(create_app(Analyzer("random"), spot_memory_bytes=10_000)) as small:
        answer = small.post("/api/spot", json=RIVER)
        assert answer.status_code == 400
        assert "more than the" in answer.json()["error"] and "allowed" in answer.json()["error"]


def test_a_river_solves_and_every_node_can_be_browsed(client: TestClient) -> None:
    started = client.post("/api/spot", json=RIVER).json()
    # The hands: AA, KK, QQ less the Qc, AK (6 + 6 + 3 + 16) and TT less the Td, 99, 88, AQs (3 + 6 + 6).
    # A river this small may be solved before the answer is sent.
    assert started["status"] in ("running", "done") and started["hands"] == [31, 15]
    assert started["memory_bytes"] > 0 and started["action_nodes"]["player"] > 0
    status = wait_for_end(client, started["id"])
    assert status["status"] == "done" and status["exploitability_pct"] <= 0.5
    assert status["progress"][-1] == [status["iterations"], status["exploitability_pct"]]
    assert status["summary"]["oop_ev"] + status["summary"]["ip_ev"] == pytest.approx(100)
    root = node(client, started["id"])
    assert (root["kind"], root["player"], root["street"]) == ("player", "oop", "river")
    assert root["actions"] == ["Check", "Bet 50", "All-in 100"]
    assert [cell["hand"] for cell in root["classes"]] == list(CLASS_NAMES)
    held = {cell["hand"]: cell for cell in root["classes"] if cell["weight"] > 0}
    assert set(held) == {"AA", "KK", "QQ", "AKs", "AKo"}
    assert held["QQ"]["weight"] == 3  # the Qc is on the board
    for cell in held.values():
        assert sum(cell["strategy"]) == pytest.approx(1.0) and 0 <= cell["equity"] <= 1
    for hand in root["hands"]:
        assert sum(hand["strategy"]) == pytest.approx(1.0)
        assert hand["class"] == hand_class_name(*parse_cards(hand["hand"]))
    assert sum(h["weight"] for h in root["hands"]) == pytest.approx(sum(c["weight"] for c in held.values()))
    after_bet = node(client, started["id"], "Bet 50")
    assert (after_bet["player"], after_bet["actions"]) == ("ip", ["Fold", "Call", "All-in 100"])
    ip_classes = {cell["hand"] for cell in after_bet["classes"] if cell["weight"] > 0}
    assert ip_classes <= {"TT", "99", "88", "AQs"} and "88" in ip_classes
    assert node(client, started["id"], "Bet 50/Fold")["kind"] == "fold"
    wrong = client.get(f"/api/spot/{started['id']}/node", params={"path": "Bet 70"})
    assert wrong.status_code == 400 and "'Bet 70' is not one" in wrong.json()["error"]
    assert client.get("/api/spot/nope").status_code == 404


def test_a_locked_class_keeps_its_strategy(client: TestClient) -> None:
    lock = {"path": ["Check"], "strategies": {"99": [0, 1, 0]}}  # IP's sets of nines always bet after a check
    job, status = solve(client, locks=[lock], target=0.3)
    assert status["status"] == "done" and status["locks"] == [lock]
    nines = next(cell for cell in node(client, job, "Check")["classes"] if cell["hand"] == "99")
    assert nines["strategy"] == [0.0, 1.0, 0.0]


def test_a_running_solve_does_not_hold_the_server(client: TestClient) -> None:
    started = client.post("/api/spot", json=TURN)
    assert started.status_code == 200, started.text
    job = started.json()["id"]
    # While it runs, its status, the analyzer's own views, a second start and its node are answered.
    first = client.get(f"/api/spot/{job}").json()
    assert first["status"] == "running"
    assert client.get("/api/bot").status_code == 200
    assert client.get("/api/spot", params={"hole": "AhKh"}).status_code == 200  # the analyzer, preflop
    busy = client.post("/api/spot", json=RIVER)
    assert busy.status_code == 409 and job in busy.json()["error"]
    assert client.get(f"/api/spot/{job}/node").status_code == 409
    deadline = time.monotonic() + WAIT_S
    while client.get(f"/api/spot/{job}").json()["iterations"] < 10:  # the solve makes progress meanwhile
        assert time.monotonic() < deadline, "the solve made no progress"
        time.sleep(0.02)
    assert client.delete(f"/api/spot/{job}").status_code == 200
    status = wait_for_end(client, job)
    assert status["status"] == "stopped" and 10 <= status["iterations"] < TURN["iterations"]
    assert node(client, job, "Check/Check/2c")["street"] == "river"  # a stopped solve can be browsed


def test_range_text_weighs_each_class_by_its_mean_over_live_combos() -> None:
    weights = np.zeros(len(ALL_COMBOS))
    classes = np.array([hand_class_name(int(a), int(b)) for a, b in ALL_COMBOS])
    weights[classes == "AA"] = 0.02
    weights[classes == "KQs"] = 0.01
    # AsKs holds a board card: AKs is one live combo of the three at the top weight.
    for combo in ("AhKh", "AsKs"):
        weights[[tuple(sorted(parse_cards(combo))) == (a, b) for a, b in ALL_COMBOS]] = 0.02
    text = range_text(weights, parse_cards("As2c3d"))
    assert text == "AA,AKs:0.333,KQs:0.5"
    assert range_text(np.zeros(len(ALL_COMBOS)), ()) == ""


def test_bot_ranges_need_a_blueprint_and_a_street_start(client: TestClient) -> None:
    for params, words in (
        ({"hole": "AhKh", "board": "Ks7d2c", "history": "r300c/"}, "no blueprint"),
        ({"hole": "AhKh", "board": "", "history": "r300"}, "flop, turn or river"),
        ({"hole": "AhKh", "board": "Ks7d2c", "history": "r300c/r600"}, "beginning of a street"),
    ):
        answer = client.get("/api/spot/ranges", params=params)
        assert answer.status_code == 400 and words in answer.json()["error"]


def test_range_text_parses_back_to_the_class_weights() -> None:
    rng = np.random.default_rng(0)
    weights = rng.random(len(ALL_COMBOS))
    board = parse_cards("Ks7d2c")
    parsed = parse_range(range_text(weights, board))
    means: dict[str, list[float]] = {}
    for (a, b), weight in zip(ALL_COMBOS, weights, strict=True):
        if not {int(a), int(b)} & set(board):
            means.setdefault(hand_class_name(int(a), int(b)), []).append(float(weight))
    top = max(np.mean(values) for values in means.values())
    for (a, b), weight in parsed.items():
        assert weight == pytest.approx(np.mean(means[hand_class_name(a, b)]) / top, abs=5e-4)


@pytest.mark.slow  # loads the shipped blueprint (several seconds)
def test_the_bots_ranges_at_an_analyzer_spot_fill_the_range_boxes() -> None:
    """At the analyzer's example (the button raised, the big blind called, the flop came) the big blind
    is OOP: the texts are the blueprint's public beliefs by class, and the spot they make builds."""
    from pokerai.agents.table import default_opponent_spec
    from pokerai.search.beliefs import public_beliefs
    from pokerai.solvers.postflop import SpotConfig, build_spot
    from pokerai.web.analysis import EXAMPLE_SPOT, parse_spot

    analyzer = Analyzer(default_opponent_spec().replace("search:", "blueprint:", 1))
    with TestClient(create_app(analyzer)) as blueprint_client:
        answer = blueprint_client.get("/api/spot/ranges", params=EXAMPLE_SPOT)
    assert answer.status_code == 200, answer.text
    filled = answer.json()
    assert (filled["board"], filled["pot"], filled["stack"]) == ("Ks7d2c", 600, 19_700)
    state = parse_spot(EXAMPLE_SPOT["hole"], EXAMPLE_SPOT["board"], EXAMPLE_SPOT["history"]).state
    assert analyzer.blueprint_agent is not None
    beliefs = public_beliefs(
        analyzer.blueprint_agent.blueprint, state, threshold=analyzer.blueprint_agent.threshold
    )
    big_blind = 1 - state.button
    for text, player in ((filled["oop"], big_blind), (filled["ip"], state.button)):
        assert text == range_text(beliefs[player], state.board)
    assert filled["oop"] != filled["ip"]
    config = SpotConfig(
        filled["board"], filled["oop"], filled["ip"], pot=600, stack=19_700, bets="a", raises=""
    )
    spot = build_spot(config)
    assert len(spot.hands[0]) > 100 and len(spot.hands[1]) > 100


def test_older_solutions_are_dropped_to_keep_within_the_memory_cap() -> None:
    with TestClient(create_app(Analyzer("random"))) as fresh:
        size = fresh.post("/api/spot", json={**RIVER, "iterations": 0}).json()["memory_bytes"]
    with TestClient(create_app(Analyzer("random"), spot_memory_bytes=2 * size)) as small:
        first, _ = solve(small, iterations=0)
        second, _ = solve(small, iterations=0)
        assert small.get(f"/api/spot/{first}").status_code == 200  # two fit the cap
        third, _ = solve(small, iterations=0)
        assert small.get(f"/api/spot/{first}").status_code == 404  # three do not: the oldest went
        assert [small.get(f"/api/spot/{job}").status_code for job in (second, third)] == [200, 200]
