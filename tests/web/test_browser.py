"""The analyzer's page in a real browser: headless Chromium driven by Selenium.

The browser is Debian's ``chromium`` with ``chromium-driver`` (``.ci/run`` installs both); without
them these tests are skipped, saying so. The server is the real app under uvicorn on a free port.
Waits are long (a busy machine may be slow), never a bound on speed.

``POKERAI_SCREENSHOT=docs/img/analyzer.png pytest -m slow tests/web/test_browser.py`` saves the
README's screenshot.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pokerai.agents.table import DEFAULT_BOT, default_opponent_spec
from pokerai.search.allin import load_solver_kernel
from pokerai.web.analysis import EXAMPLE_SPOT, Analyzer
from pokerai.web.app import create_app

WAIT_S = 120.0
BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> tuple[str, str] | None:
    """(browser, driver) executables, or None when either is missing."""
    driver = shutil.which("chromedriver") or (
        "/usr/lib/chromium/chromedriver" if Path("/usr/lib/chromium/chromedriver").exists() else None
    )
    browser = next((found for name in BROWSERS if (found := shutil.which(name))), None)
    return (browser, driver) if browser and driver else None


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The analyzer of the shipped blueprint served on a free local port: its base URL."""
    import uvicorn

    analyzer = Analyzer(default_opponent_spec(), name=DEFAULT_BOT)  # as pokerai analyze builds it
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    app_server = uvicorn.Server(uvicorn.Config(create_app(analyzer), log_level="warning"))
    thread = threading.Thread(target=app_server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT_S
    while not app_server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    app_server.should_exit = True
    thread.join(WAIT_S)
    listener.close()


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[dev]')")
    found = find_browser()
    if found is None:
        pytest.skip(
            "no headless browser: install Debian's chromium and chromium-driver "
            "(apt-get install chromium chromium-driver; .ci/run does)"
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, chromedriver = found
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1250"):
        options.add_argument(argument)
    session = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    session.set_page_load_timeout(WAIT_S)
    yield session
    session.quit()


def api(server: str, path: str, **params: str) -> Any:
    with urllib.request.urlopen(f"{server}{path}?{urllib.parse.urlencode(params)}", timeout=WAIT_S) as answer:
        return json.load(answer)


def wait_until(driver: Any, condition: Any) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT_S, poll_frequency=0.05).until(condition)


def click(driver: Any, element_id: str) -> None:
    from selenium.webdriver.common.by import By

    driver.find_element(By.ID, element_id).click()


def shown_frequencies(driver: Any, table: str, hole: str, board: str, history: str) -> list[Any]:
    """The rows of a frequency table once it shows the spot (hole, board, history): (action, amount,
    probability, the percentage shown)."""
    from selenium.webdriver.common.by import By

    key = f"{hole}|{board}|{history}"
    wait_until(driver, lambda session: session.find_element(By.ID, table).get_attribute("data-spot") == key)
    return table_rows(driver, table)


def table_rows(driver: Any, table: str) -> list[tuple[str, int, float, str]]:
    from selenium.webdriver.common.by import By

    return [
        (
            str(row.get_attribute("data-action")),
            int(str(row.get_attribute("data-amount"))),
            float(str(row.get_attribute("data-probability"))),
            row.find_element(By.CSS_SELECTOR, "td.pct").text,
        )
        for row in driver.find_elements(By.CSS_SELECTOR, f"#{table} tr")
    ]


def as_shown(actions: list[dict[str, Any]]) -> list[tuple[str, int, float, str]]:
    return [(a["action"], a["amount"], a["probability"], f"{100 * a['probability']:.1f}%") for a in actions]


def test_the_page_opens_on_the_example_spot_and_names_the_bot_as_given(server: str, driver: Any) -> None:
    from selenium.webdriver.common.by import By

    driver.get(server)
    wait_until(driver, lambda session: session.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    example = api(server, "/api/spot", **EXAMPLE_SPOT)
    shown = shown_frequencies(driver, "freq-blueprint", *EXAMPLE_SPOT.values())
    assert shown == as_shown(example["actions"])
    assert driver.find_element(By.ID, "bot-name").text == "bot: search:checkpoints/hunl_blueprint"


def test_a_spot_built_by_clicking_shows_the_apis_frequencies(server: str, driver: Any) -> None:
    from selenium.webdriver.common.by import By

    driver.get(server)
    wait_until(driver, lambda session: session.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    click(driver, "clear")  # the page opens on an example spot
    click(driver, "card-Ah")
    click(driver, "card-Kh")
    preflop = api(server, "/api/spot", hole="AhKh", board="", history="")
    assert shown_frequencies(driver, "freq-blueprint", "AhKh", "", "") == as_shown(preflop["actions"])
    # The button calls; the big blind (now holding the picked cards) checks; the flop is dealt.
    driver.find_element(By.CSS_SELECTOR, "#actions button[data-action=call]").click()
    facing = api(server, "/api/spot", hole="AhKh", board="", history="c")
    assert shown_frequencies(driver, "freq-blueprint", "AhKh", "", "c") == as_shown(facing["actions"])
    driver.find_element(By.CSS_SELECTOR, "#actions button[data-action=check]").click()
    wait_until(driver, lambda session: "more board card" in session.find_element(By.ID, "message").text)
    for card in ("Ks", "7d", "2c"):
        click(driver, f"card-{card}")
    flop = api(server, "/api/spot", hole="AhKh", board="Ks7d2c", history="cc/")
    assert shown_frequencies(driver, "freq-blueprint", "AhKh", "Ks7d2c", "cc/") == as_shown(flop["actions"])
    pot = driver.find_element(By.ID, "fact-pot").text
    assert pot == f"pot {flop['pot']}"
    # An illegal amount is refused with the engine's sentence, and the spot stays as it was.
    driver.find_element(By.ID, "amount").send_keys("50")
    click(driver, "amount-apply")
    wait_until(driver, lambda session: session.find_element(By.ID, "error").text)
    assert driver.find_element(By.ID, "error").text == "raise to 50 is below the minimum raise to 100"
    assert driver.find_element(By.ID, "history").get_attribute("value") == "cc/"


def test_a_log_loads_and_steps_through_a_hand(server: str, driver: Any) -> None:
    from selenium.webdriver.common.by import By

    lines = [
        "STATE:0:r300c/cr600c/cc/r1800f:AhKh|QsQd/Ks7d2c/5h/9c:600|-600:alice|bob",
        "STATE:1:cc/cc/cc/cc:7c2d|8h8s/Ks7d2c/5h/9c:100|-100:alice|bob",
    ]
    driver.get(server)
    wait_until(driver, lambda session: session.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    driver.execute_script("document.getElementById('log-text').value = arguments[0];", "\n".join(lines))
    click(driver, "log-load")
    hand = api(server, "/api/hand", line=lines[0])
    first = hand["decisions"][0]
    wait_until(driver, lambda session: "decision 1 of" in session.find_element(By.ID, "replay-line-0").text)
    assert driver.find_element(By.ID, "replay-line-2").text.startswith("played: raise 300")
    for index in range(1, 4):
        click(driver, "step-next")
        wait_until(
            driver,
            lambda session, index=index: (
                f"decision {index + 1} of" in session.find_element(By.ID, "replay-line-0").text
            ),
        )
    decision = hand["decisions"][3]
    assert decision["street"] == "flop" and decision["played"]["action"] == "bet"
    assert table_rows(driver, "replay-freq") == as_shown(decision["bot"])
    played = f"played: bet {decision['played']['amount']} (the bot plays it "
    assert driver.find_element(By.ID, "replay-line-2").text.startswith(played)
    assert first["hole"] == "QsQd" and first["name"] == "bob"


@pytest.mark.slow
def test_a_searched_spot_and_the_screenshot(server: str, driver: Any, tmp_path: Path) -> None:
    """The river after search, with the range grid and heat map drawn: saved as a screenshot."""
    from selenium.webdriver.common.by import By

    load_solver_kernel()
    params = {"hole": "AhKh", "board": "Ks7d2c5h9c", "history": "r300c/cc/cc/"}
    driver.get(server)
    wait_until(driver, lambda session: session.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    click(driver, "clear")  # the page opens on an example spot
    for card in ("Ah", "Kh"):
        click(driver, f"card-{card}")
    history = driver.find_element(By.ID, "history")
    history.clear()
    history.send_keys(params["history"])
    click(driver, "history-apply")
    for card in ("Ks", "7d", "2c", "5h", "9c"):
        click(driver, f"card-{card}")
    wait_until(
        driver, lambda session: session.find_element(By.ID, "search-status").get_attribute("data-iterations")
    )
    searched = shown_frequencies(driver, "freq-search", *params.values())
    assert sum(row[2] for row in searched) == pytest.approx(1.0)
    assert len(driver.find_elements(By.CSS_SELECTOR, "#hero-grid .cell")) == 169
    assert len(driver.find_elements(By.CSS_SELECTOR, "#villain-grid .cell")) == 169
    target = Path(os.environ.get("POKERAI_SCREENSHOT", tmp_path / "analyzer.png"))
    target.parent.mkdir(parents=True, exist_ok=True)
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1400, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    assert driver.save_screenshot(str(target))
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
