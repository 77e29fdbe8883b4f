"""The analyzer's JSON API, through FastAPI's test client: known spots, bad inputs, the range grid."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

import pokerai.agents.search as search_module
from pokerai.agents.base import Observation
from pokerai.agents.blueprint import BlueprintAgent, slot_range_policy
from pokerai.agents.search import SearchAgent
from pokerai.agents.spec import make_agent
from pokerai.agents.table import default_opponent_spec
from pokerai.cli.play.session import PlaySession
from pokerai.engine.cards import parse_cards
from pokerai.engine.equity import hand_class
from pokerai.engine.history import to_acpc
from pokerai.engine.state import HUNLConfig, HUNLState
from pokerai.search.allin import load_solver_kernel
from pokerai.search.beliefs import public_beliefs
from pokerai.search.combos import ALL_COMBOS, combos_holding
from pokerai.web.analysis import ACTION_NAMES, EXAMPLE_SPOT, Analyzer, cell_name
from pokerai.web.app import create_app

SPOT = {"hole": "AhKh", "board": "Ks7d2c", "history": "r300c/"}


BLUEPRINT = default_opponent_spec().replace("search:", "blueprint:", 1)
"""The shipped blueprint unsearched: the analyzer then runs its own searches, within 300 ms."""


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer(BLUEPRINT, search_budget_ms=300)


@pytest.fixture(scope="module")
def client(analyzer: Analyzer) -> Iterator[TestClient]:
    with TestClient(create_app(analyzer)) as test_client:
        yield test_client


def get(client: TestClient, path: str, **params: Any) -> dict[str, Any]:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    payload: dict[str, Any] = response.json()
    return payload


def flop_state() -> HUNLState:
    """The spot SPOT built move by move on the engine: the button raises to 300, the big blind
    (holding AhKh) calls, and the flop Ks7d2c comes with the big blind to act."""
    deck = [*parse_cards("AhKh"), *parse_cards("QsQd"), *parse_cards("Ks7d2c5h9c")]
    state = HUNLState.new(HUNLConfig(), button=1, deck=deck)
    state.raise_to(300)
    state.call()
    return state


def test_a_known_spot_gives_the_blueprints_frequencies_and_the_spots_facts(
    client: TestClient, analyzer: Analyzer
) -> None:
    answer = get(client, "/api/spot", **SPOT)
    state = flop_state()
    assert (answer["player"], answer["position"], answer["street"]) == (0, "big blind", "flop")
    assert (answer["pot"], answer["stacks"], answer["call_amount"]) == (
        600,
        {"bot": 19_700, "opponent": 19_700},
        0,
    )
    assert answer["pot_odds"] is None and answer["source"] == "blueprint"
    assert answer["legal"] == ["check", "bet", "allin"]
    probabilities = [action["probability"] for action in answer["actions"]]
    assert sum(probabilities) == pytest.approx(1.0)
    assert {action["action"] for action in answer["actions"]} <= set(ACTION_NAMES)
    assert answer["actions"][0] == {"action": "check", "amount": 0, "probability": pytest.approx(
        probabilities[0]), "acpc": "c"}  # fmt: skip
    # The same agent asked directly on the engine's state.
    agent = analyzer.blueprint_agent
    assert isinstance(agent, BlueprintAgent)
    slots, actions = agent.decision(Observation.from_state(state))
    direct = slot_range_policy(slots[np.newaxis, :], actions)
    assert [(a["amount"], a["probability"]) for a in answer["actions"]] == [
        (int(amount), pytest.approx(float(p)))
        for amount, p in zip(direct.amounts, direct.probabilities[:, 0], strict=True)
    ]
    assert 0.5 < answer["equity"]["equity"] < 1.0  # top pair, top kicker against a calling range


def test_the_page_opens_on_an_example_spot_and_names_the_bot_as_given(client: TestClient) -> None:
    described = get(client, "/api/bot")
    assert described["bot"] == BLUEPRINT and described["example"] == EXAMPLE_SPOT
    example = get(client, "/api/spot", **described["example"])
    assert example["street"] == "flop" and sum(a["probability"] for a in example["actions"]) == pytest.approx(
        1.0
    )
    named = Analyzer("call", name="call as typed")
    assert named.describe()["bot"] == "call as typed" and Analyzer(" call ").describe()["bot"] == "call"


def test_facing_a_raise_gives_the_pot_odds_and_names_the_sizes(client: TestClient) -> None:
    answer = get(client, "/api/spot", hole="7c2d", history="r300")
    assert (answer["player"], answer["pot"], answer["call_amount"]) == (0, 400, 200)
    assert answer["pot_odds"] == pytest.approx(200 / 600)
    names = [action["action"] for action in answer["actions"]]
    assert names[:2] == ["fold", "call"] and set(names[2:]) <= {"raise", "allin"}
    assert all(action["acpc"].startswith("r") for action in answer["actions"][2:])
    assert sum(action["probability"] for action in answer["actions"]) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("params", "sentence"),
    [
        ({"hole": "AhKx"}, "malformed card 'Kx': suit 'x' is not one of cdhs"),
        ({"hole": "Ah"}, "hole cards 'Ah' should be two cards"),
        ({"hole": "AhAh"}, "card Ah appears more than once"),
        ({"hole": "AhKh", "board": "Ah7d2c", "history": "cc/"}, "card Ah appears more than once"),
        (
            {"hole": "AhKh", "board": "Ks7d"},
            "a board of 2 cards (Ks7d) is not a preflop, flop, turn or river",
        ),
        ({"hole": "AhKh", "history": "r150"}, "raise to 150 is below the minimum raise to 200"),
        ({"hole": "AhKh", "history": "r30000"}, "above player 1's all-in raise to 20000"),
        ({"hole": "AhKh", "history": "r300c"}, "stops in round 1 but the state is in round 2"),
        ({"hole": "AhKh", "history": "r300c/"}, "show 0 board round(s) but the betting reaches the flop"),
        ({"hole": "AhKh", "history": "x"}, "is not ACPC betting"),
        ({"hole": "AhKh", "history": "f"}, "the hand is over"),
        ({"hole": "AhKh", "stack": "lots"}, "stack 'lots' is not a whole number of chips"),
        ({"hole": "AhKh", "stack": "10"}, "less than the big blind"),
    ],
)
def test_bad_input_is_a_400_with_the_engines_sentence(
    client: TestClient, params: dict[str, str], sentence: str
) -> None:
    for path in ("/api/spot", "/api/range", "/api/search"):
        response = client.get(path, params=params)
        assert response.status_code == 400, response.text
        assert sentence in response.json()["error"]


def test_the_range_grid_sums_to_the_range(client: TestClient, analyzer: Analyzer) -> None:
    answer = get(client, "/api/range", **SPOT)
    agent = analyzer.blueprint_agent
    assert agent is not None
    state = flop_state()
    beliefs = public_beliefs(agent.blueprint, state, threshold=agent.threshold, hole_cards=(50, 45))
    cells = answer["cells"]
    assert len(cells) == 169 and answer["hero_cell"] == "AKs"
    expected: dict[str, float] = {}
    for combo, weight in zip(ALL_COMBOS, beliefs[0], strict=True):
        high, low = hand_class((int(combo[0]), int(combo[1])))
        name = cell_name(12 - high, 12 - low)
        expected[name] = expected.get(name, 0.0) + float(weight)
    assert {cell["hand"]: cell["weight"] for cell in cells} == pytest.approx(expected)
    assert sum(cell["weight"] for cell in cells) == pytest.approx(answer["total_weight"]) == pytest.approx(1)
    for cell in cells:
        if cell["combos"]:
            assert sum(cell["mix"]) == pytest.approx(1.0), cell
    # The cells' mixes, weighted by the cells' weights, are the whole range's action frequencies.
    live = ALL_COMBOS[~combos_holding(state.board)]
    slots, actions = agent.range_decision(Observation.from_state(state), live)
    rows = slot_range_policy(slots, actions).probabilities
    overall = rows @ beliefs[0][~combos_holding(state.board)]
    mixed = sum(np.array(cell["mix"]) * cell["weight"] for cell in cells)
    assert mixed == pytest.approx(overall)
    heat = {cell["hand"]: cell["weight"] for cell in answer["opponent"]["cells"]}
    assert sum(heat.values()) == pytest.approx(1.0)
    assert answer["opponent"]["player"] == 1


def test_a_search_asked_before_its_warm_up_is_done_is_not_kept(
    client: TestClient, cold_search: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold search (its first-time work not done within the budget) answers with the blueprint and says
    so; the spot is searched once the warm-up is done, not left with the cold answer."""

    def held_warm_up(agent: SearchAgent) -> None:  # the first-time work, held by the gate (and cheap)
        cold_search.wait()
        load_solver_kernel()
        search_module._WARMED.update((1, 2, 3))

    monkeypatch.setattr(SearchAgent, "warm_up", held_warm_up)
    river = {"hole": "QhJh", "board": "Qs8d3c4h2s", "history": "r300c/cc/cc/"}  # a spot no other test asks
    first = get(client, "/api/search", **river)
    assert first["iterations"] == 0 and not first["cached"] and "warming up" in first["note"]
    cold_search.set()
    search_module._warm_thread.join()  # type: ignore[union-attr]
    second = get(client, "/api/search", **river)
    assert second["iterations"] > 0 and not second["cached"] and second["note"] == ""


def test_search_reports_its_iterations_on_the_river_and_says_where_it_does_not_search(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    load_solver_kernel()  # the budget then counts iterations, not a first compile
    monkeypatch.setattr(search_module, "_WARMED", {1, 2, 3})  # and the search need not warm up first
    river = get(client, "/api/search", hole="AhKh", board="Ks7d2c5h9c", history="r300c/cc/cc/")
    assert river["available"] and river["iterations"] > 0 and river["seconds"] > 0
    assert sum(action["probability"] for action in river["actions"]) == pytest.approx(1.0)
    again = get(client, "/api/search", hole="AhKh", board="Ks7d2c5h9c", history="r300c/cc/cc/")
    assert again["cached"] and again["iterations"] == river["iterations"]
    preflop = {"hole": "AhKh", "history": "r300"}
    searched = get(client, "/api/search", **preflop)
    assert searched["iterations"] == 0 and "no search on the preflop" in searched["note"]
    spot = get(client, "/api/spot", **preflop)
    assert [a["probability"] for a in searched["actions"]] == pytest.approx(
        [a["probability"] for a in spot["actions"]]
    )


def test_a_bot_without_a_blueprint_shows_sampled_frequencies_and_no_search() -> None:
    with TestClient(create_app(Analyzer("call"))) as client:
        answer = get(client, "/api/spot", hole="7c2d", history="r300")
        assert answer["source"] == "bot"
        assert [(a["action"], a["probability"]) for a in answer["actions"]] == [("call", 1.0)]
        assert answer["equity"]["against"] == "every hand"
        assert get(client, "/api/search", hole="7c2d", history="r300")["available"] is False
        assert get(client, "/api/range", hole="7c2d", history="r300")["available"] is False


def test_a_street_pipeline_bot_shows_its_networks_frequencies(analyzer: Analyzer) -> None:
    # The street agent is a BlueprintAgent that searches; the spot view is its network's, unsearched.
    street = Analyzer(default_opponent_spec())  # the default bot
    assert type(street.blueprint_agent) is BlueprintAgent and street.blueprint_agent is not street.bot
    with TestClient(create_app(street)) as street_client, TestClient(create_app(analyzer)) as client:
        theirs, ours = get(street_client, "/api/spot", **SPOT), get(client, "/api/spot", **SPOT)
    assert theirs["source"] == "blueprint"
    assert [a["probability"] for a in theirs["actions"]] == pytest.approx(
        [a["probability"] for a in ours["actions"]]
    )


def test_step_applies_one_action_through_the_engine(client: TestClient) -> None:
    assert get(client, "/api/step", **SPOT, action="bet", amount="450")["history"] == "r300c/r750"
    checked = get(client, "/api/step", hole="AhKh", board="Ks7d2c", history="r300c/c", action="check")
    assert checked == {"history": "r300c/cc/", "street": "turn", "over": False, "board_cards": 4}
    folded = get(client, "/api/step", hole="AhKh", history="r300", action="fold")
    assert folded["over"] is True
    for params, sentence in [
        ({"action": "bet", "amount": "50"}, "raise to 50 is below the minimum raise to 100"),
        ({"action": "bet", "amount": "many"}, "amount 'many' is not a whole number of chips"),
        ({"action": "call"}, "cannot call"),
        ({"action": "jump"}, "action 'jump' is not one of"),
    ]:
        response = client.get("/api/step", params={**SPOT, **params})
        assert response.status_code == 400 and sentence in response.json()["error"], response.text


def test_a_pasted_line_is_the_spot_of_its_player_to_act(client: TestClient) -> None:
    line = get(client, "/api/line", line="MATCHSTATE:0:7:r300c/:AhKh|/Ks7d2c")
    assert line == {"hole": "AhKh", "board": "Ks7d2c", "history": "r300c/", "stack": 20_000}
    hidden = client.get("/api/line", params={"line": "MATCHSTATE:1:7:r300c/:|QsQd/Ks7d2c"})
    assert hidden.status_code == 400 and "does not show the hole cards" in hidden.json()["error"]
    over = client.get("/api/line", params={"line": "STATE:0:f:AhKh|QsQd:50|-50:a|b"})
    assert over.status_code == 400 and "over" in over.json()["error"]
    broken = client.get("/api/line", params={"line": "STATE:0:r300c/:AhKh"})
    assert broken.status_code == 400 and broken.json()["error"].startswith("bad ACPC line")


def play_log(stack: int) -> str:
    """Two hands of ``pokerai play`` against the call bot, the user checking and calling: its log."""
    log = io.StringIO()

    def read_line(prompt: str) -> str:
        return "" if "next hand" in prompt.lower() or "enter" in prompt.lower() else "c"

    session = PlaySession(make_agent("call"), opponent_name="call", stack=stack, seed=5, hands=2,
                          read_line=read_line, write=lambda text: None, log=log)  # fmt: skip
    session.run()
    return log.getvalue()


def test_a_play_log_loads_and_each_decision_shows_the_bots_answer(client: TestClient) -> None:
    text = play_log(stack=10_000)
    response = client.post("/api/log", json={"text": text})
    assert response.status_code == 200, response.text
    hands = response.json()["hands"]
    lines = [line for line in text.splitlines() if line.startswith("STATE:")]
    assert [hand["line"] for hand in hands] == lines and len(lines) == 2
    assert {hand["stack"] for hand in hands} == {10_000}, "the stack comes from the readable history"
    hand = get(client, "/api/hand", line=hands[0]["line"], stack=hands[0]["stack"])
    betting = hand["betting"]
    tokens = "".join(decision["played"]["acpc"] for decision in hand["decisions"])
    assert tokens == betting.replace("/", "")
    for decision in hand["decisions"]:
        assert sum(action["probability"] for action in decision["bot"]) == pytest.approx(1.0)
        assert 0.0 <= decision["played"]["probability"] <= 1.0
    # A replayed decision is the same spot as the spot builder's.
    last = hand["decisions"][-1]
    spot = get(
        client, "/api/spot", hole=last["hole"], board=last["board"], history=last["history"], stack=10_000
    )
    assert spot["actions"] == last["bot"]


def test_an_eval_log_and_bad_logs(client: TestClient) -> None:
    state = HUNLState.new(HUNLConfig(), button=1, deck=[*parse_cards("AhKh"), *parse_cards("QsQd2c3c4c5d6d")])
    state.raise_to(300)
    state.fold()
    text = to_acpc(state, hand_number=0, names=("a", "b")) + "\n"
    hands = client.post("/api/log", json={"text": text, "stack": 20_000}).json()["hands"]
    assert hands[0]["results"] == [-100, 100] and hands[0]["names"] == ["a", "b"]
    for body, sentence in [
        ({"text": "hello\n"}, "the log holds no ACPC STATE or MATCHSTATE line"),
        ({"text": "x\nSTATE:0:r300q:AhKh|QsQd\n"}, "line 2: bad ACPC line"),
        ({}, "bad request: text"),
    ]:
        response = client.post("/api/log", json=body)
        assert response.status_code == 400 and sentence in response.json()["error"], response.text
    missing = client.get("/api/hand", params={"line": "STATE:0:r300:AhKh|QsQd:1|2:a|b"})
    assert missing.status_code == 400 and "results" in missing.json()["error"]
