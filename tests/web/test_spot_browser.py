"""The "solve a spot" page in a real browser (headless Chromium, the analyzer's browser-test fixtures):
the bot's ranges come over from the analyzer's spot, a river is solved, its grids match the API, an
action walks the tree and a lock set on the page holds in the re-solve."""

from __future__ import annotations

from typing import Any

import pytest

import tests.web.test_browser as browser
from pokerai.web.analysis import EXAMPLE_SPOT
from tests.web.test_browser import api, click, wait_until

server = browser.server
driver = browser.driver
RIVER = {
    "board": "Td9d6hQc7s",
    "oop": "AA,KK,QQ,AK",
    "ip": "TT-88,AQs",
    "pot": "100",
    "stack": "100",
    "bets": "50%",
    "raises": "a",
}


def attribute(driver: Any, element_id: str, name: str) -> str | None:
    from selenium.webdriver.common.by import By

    value = driver.find_element(By.ID, element_id).get_attribute(name)
    return None if value is None else str(value)


def solved(driver: Any) -> str:
    """Wait for the page's solve to end; its job id."""

    wait_until(driver, lambda session: attribute(session, "progress", "data-status") == "done")
    job = str(attribute(driver, "progress", "data-job"))
    wait_until(driver, lambda session: attribute(session, "solution", "data-job") == job)
    return job


def shown_frequencies(driver: Any, actions: int) -> dict[str, list[float]]:
    """Per hand class in the range: the frequency each action's grid shows."""
    from selenium.webdriver.common.by import By

    shown: dict[str, list[float]] = {}
    for index in range(actions):
        for cell in driver.find_elements(By.CSS_SELECTOR, f"#grid-action-{index} .cell"):
            if float(str(cell.get_attribute("data-weight"))) > 0:
                shown.setdefault(str(cell.get_attribute("data-hand")), []).append(
                    float(str(cell.get_attribute("data-frequency")))
                )
    return shown


@pytest.mark.slow  # about 15 s: the shipped blueprint, the analyzer page's own views, two solves
def test_a_spot_from_the_analyzer_is_solved_browsed_and_locked(server: str, driver: Any) -> None:
    from selenium.webdriver.common.by import By

    driver.get(server)
    wait_until(driver, lambda session: session.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    click(driver, "solve-link")  # the analyzer's example spot: its ranges fill the boxes
    ranges = api(server, "/api/spot/ranges", **EXAMPLE_SPOT)
    wait_until(driver, lambda session: attribute(session, "oop", "value") == ranges["oop"])
    assert driver.find_element(By.ID, "ip").get_attribute("value") == ranges["ip"]
    assert driver.find_element(By.ID, "pot").get_attribute("value") == "600"

    for field, value in RIVER.items():
        box = driver.find_element(By.ID, field)
        box.clear()
        box.send_keys(value)
    click(driver, "solve")
    job = solved(driver)
    root = api(server, f"/api/spot/{job}/node")  # the root
    assert len(driver.find_elements(By.CSS_SELECTOR, "#grid-action-0 .cell")) == 169
    shown = shown_frequencies(driver, len(root["actions"]))
    expected = {cell["hand"]: cell["strategy"] for cell in root["classes"] if cell["weight"] > 0}
    assert shown.keys() == expected.keys() == {"AA", "KK", "QQ", "AKs", "AKo"}
    for hand, frequencies in shown.items():
        assert frequencies == expected[hand] and abs(sum(frequencies) - 1) < 1e-6

    driver.find_element(By.CSS_SELECTOR, "#node-actions button[data-label='Bet 50']").click()
    wait_until(driver, lambda session: attribute(session, "solution", "data-path") == "Bet 50")
    assert "IP to act" in driver.find_element(By.ID, "node-info").text
    buttons = driver.find_elements(By.CSS_SELECTOR, "#node-actions button")
    labels = [button.get_attribute("data-label") for button in buttons]
    assert labels == ["Fold", "Call", "All-in 100"]

    # Back at the root, lock OOP's queens to bet half the pot, and re-solve.
    driver.find_element(By.CSS_SELECTOR, "#path button[data-depth='0']").click()
    wait_until(driver, lambda session: attribute(session, "solution", "data-path") == "")
    driver.find_element(By.CSS_SELECTOR, "#grid-action-0 .cell[data-hand='QQ']").click()
    for index, share in enumerate(("0", "1", "0")):
        box = driver.find_element(By.ID, f"lock-share-{index}")
        box.clear()
        box.send_keys(share)
    click(driver, "lock-add")
    assert "QQ plays" in driver.find_element(By.ID, "locks").text
    click(driver, "lock-solve")
    wait_until(driver, lambda session: attribute(session, "progress", "data-job") != job)
    solved(driver)
    assert shown_frequencies(driver, 3)["QQ"] == [0.0, 1.0, 0.0]
