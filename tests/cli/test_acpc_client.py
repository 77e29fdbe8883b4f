"""``pokerai acpc``: the protocol core on edge-case lines, and whole matches against a fake dealer.

The fake dealer is written here, apart from ``pokerai.engine.history``: it
builds its ``MATCHSTATE`` lines itself (whole-hand raise totals, ``/`` between
rounds, empty rounds after an all-in) and uses the engine only to check that
every action the client sends is legal.
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from pokerai.agents.base import Agent, HandSummary, Observation
from pokerai.cli.acpc_protocol import (
    ACPCClient,
    AgentError,
    ProtocolError,
    action_token,
    is_comment,
    parse_matchstate,
)
from pokerai.cli.main import main
from pokerai.engine.cards import format_cards, parse_cards
from pokerai.engine.state import Action, ActionKind, HUNLConfig, HUNLState

CONFIG = HUNLConfig(50, 100, (20_000, 20_000))
SOCKET_TIMEOUT = 600
"""Seconds a fake dealer or the client waits on a socket: only a safety net against a hang, never
reached on a working run, however slow or busy the machine (the first blueprint decision of a
process may compile kernels and load the network)."""
SEAT_BUTTON = 1  # the fake dealer's player index is the seat; seat 1 is the small blind


class ScriptedAgent(Agent):
    """Plays the given actions in order (fold / call / raise-to on the street), whatever it sees."""

    name = "scripted"

    def __init__(self, moves: list[tuple[str, int]]) -> None:
        self.moves = list(moves)
        self.hands: list[tuple[int, int]] = []
        self.summaries: list[HandSummary] = []

    def begin_hand(self, player: int, button: int) -> None:
        self.hands.append((player, button))

    def end_hand(self, summary: HandSummary) -> None:
        self.summaries.append(summary)

    def act(self, observation: Observation, rng: np.random.Generator) -> Action:
        kind, amount = self.moves.pop(0)
        if kind == "f":
            return Action(observation.player, ActionKind.FOLD)
        if kind == "c":
            return observation.check_or_call()
        return Action(observation.player, ActionKind.RAISE, amount)


def client_with(*moves: tuple[str, int]) -> ACPCClient:
    return ACPCClient(ScriptedAgent(list(moves)), np.random.default_rng(0))


# ---------------------------------------------------------------------- the line parser and the core


def test_parse_all_in_call_with_empty_later_rounds() -> None:
    parsed = parse_matchstate("MATCHSTATE:0:3:r20000c///:AsKs|QhQd/2c7d9h/Tc/3s")
    state = parsed.state
    assert parsed.viewer == 0 and parsed.hand_number == 3
    assert state.is_over and state.folded is None and state.street == 3
    assert state.button == SEAT_BUTTON and state.big_blind_player == 0
    assert state.returns() == (-20_000, 20_000)  # queens hold


def test_parse_fold_preflop_and_showdown_lines() -> None:
    folded = parse_matchstate("MATCHSTATE:1:0:f:|7c2d").state
    assert folded.is_over and folded.folded == 1 and folded.returns() == (50, -50)
    showdown = parse_matchstate("MATCHSTATE:1:9:cc/cc/cc/cc:TdTs|2c3c/AhKh7d/8s/9s").state
    assert showdown.is_over and showdown.returns() == (100, -100)
    # A raise is to a whole-hand total: r500 on the flop after r300c is a bet of 200 on the street.
    flop_bet = parse_matchstate("MATCHSTATE:0:1:r300c/r500:AsKs|/2c7d9h").state
    assert flop_bet.to_act == 1 and flop_bet.bets == [200, 0] and flop_bet.pot == 800


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("MATCHSTATE:2:0::AsKs|", "position 2"),
        ("MATCHSTATE:0:0:r150:AsKs|", "below the minimum"),
        ("MATCHSTATE:0:0:cc/r300:AsKs|", "board round"),
        ("MATCHSTATE:0:0:zz:AsKs|", "unreadable action"),
        ("MATCHSTATE:0:0::AsAs|", "As"),
        ("MATCHSTATE:0:0::|AsKs", "viewer"),
        ("STATE:0:cc/cc/cc/cc:AsKs|QhQd/2c7d9h/Tc/3s:0|0:a|b", "not a MATCHSTATE line"),
        ("hello dealer", "not a MATCHSTATE line"),
    ],
)
def test_malformed_lines_name_the_line(line: str, named: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_matchstate(line)
    assert line in str(caught.value) and named in str(caught.value)


def test_action_tokens_are_whole_hand_totals_and_never_illegal() -> None:
    state = parse_matchstate("MATCHSTATE:0:1:r300c/:AsKs|/2c7d9h").state
    assert action_token(state, Action(0, ActionKind.RAISE, 200)) == "r500"
    assert action_token(state, Action(0, ActionKind.CHECK)) == "c"
    assert action_token(state, Action(0, ActionKind.RAISE, 19_700)) == "r20000"
    with pytest.raises(ValueError, match="above"):
        action_token(state, Action(0, ActionKind.RAISE, 19_701))
    with pytest.raises(ValueError, match="below the minimum"):
        action_token(state, Action(0, ActionKind.RAISE, 99))
    with pytest.raises(ValueError, match="cannot fold"):
        action_token(state, Action(0, ActionKind.FOLD))


def test_client_all_in_call_hand() -> None:
    client = client_with(("c", 0))
    assert client.receive("MATCHSTATE:0:0::AsKs|\r\n") is None  # seat 1 acts first preflop
    assert client.receive("# a comment") is None and client.receive(";another") is None
    reply = client.receive("MATCHSTATE:0:0:r20000:AsKs|")
    assert reply == "MATCHSTATE:0:0:r20000:AsKs|:c"
    assert client.in_hand
    assert client.receive("MATCHSTATE:0:0:r20000c///:AsKs|QhQd/2c7d9h/Tc/3s") is None
    assert not client.in_hand
    assert (client.tally.hands, client.tally.chips) == (1, -20_000)
    assert client.tally.mbb_per_hand == -200_000.0


def test_client_fold_and_showdown_hands_tally() -> None:
    client = client_with(("f", 0), ("c", 0), ("c", 0), ("c", 0), ("c", 0))
    assert client.receive("MATCHSTATE:1:0::|7c2d") == "MATCHSTATE:1:0::|7c2d:f"
    assert client.receive("MATCHSTATE:1:0:f:|7c2d") is None
    lines = [
        ("MATCHSTATE:0:1::TdTs|", None),
        ("MATCHSTATE:0:1:c:TdTs|", ":c"),
        ("MATCHSTATE:0:1:cc/:TdTs|/AhKh7d", ":c"),
        ("MATCHSTATE:0:1:cc/c:TdTs|/AhKh7d", None),
        ("MATCHSTATE:0:1:cc/cc/:TdTs|/AhKh7d/8s", ":c"),
        ("MATCHSTATE:0:1:cc/cc/c:TdTs|/AhKh7d/8s", None),
        ("MATCHSTATE:0:1:cc/cc/cc/:TdTs|/AhKh7d/8s/9s", ":c"),
        ("MATCHSTATE:0:1:cc/cc/cc/c:TdTs|/AhKh7d/8s/9s", None),
        ("MATCHSTATE:0:1:cc/cc/cc/cc:TdTs|2c3c/AhKh7d/8s/9s", None),
    ]
    for line, suffix in lines:
        assert client.receive(line) == (None if suffix is None else line + suffix), line
    assert (client.tally.hands, client.tally.chips) == (2, -50 + 100)
    assert client.agent.hands == [(1, 1), (0, 1)]  # type: ignore[attr-defined]
    folded, shown = client.agent.summaries  # type: ignore[attr-defined]
    assert (folded.player, folded.opponent_cards, folded.returns[folded.player]) == (1, None, -50)
    assert folded.hole_cards == tuple(parse_cards("7c2d"))
    assert (shown.player, shown.returns[0]) == (0, 100)
    assert shown.opponent_cards == tuple(parse_cards("2c3c")), "shown at the showdown"
    assert shown.board == tuple(parse_cards("AhKh7d8s9s"))


def test_client_rejects_inconsistent_lines() -> None:
    client = client_with(("r", 300))
    assert client.receive("MATCHSTATE:1:0::|AsKs") == "MATCHSTATE:1:0::|AsKs:r300"
    with pytest.raises(ProtocolError, match="does not record our action"):
        client.receive("MATCHSTATE:1:0:r400:|AsKs")  # the dealer clamped or changed our raise
    client = client_with()
    client.receive("MATCHSTATE:0:0::AsKs|")
    with pytest.raises(ProtocolError, match="hole cards changed"):
        client.receive("MATCHSTATE:0:0:c:AsKd|")
    client = client_with()
    client.receive("MATCHSTATE:0:0::AsKs|")
    with pytest.raises(ProtocolError, match="before hand 0 ended"):
        client.receive("MATCHSTATE:0:1::AsKs|")
    client = client_with()
    with pytest.raises(ProtocolError, match="does not show the opponent's cards"):
        client.receive("MATCHSTATE:0:0::AsKs|")
        client.receive("MATCHSTATE:0:0:r20000c///:AsKs|/2c7d9h/Tc/3s")


def test_client_never_sends_an_illegal_size() -> None:
    client = client_with(("r", 150))  # below the minimum raise to 200
    with pytest.raises(AgentError, match="below the minimum raise to 200"):
        client.receive("MATCHSTATE:1:0::|AsKs")


def test_is_comment() -> None:
    assert is_comment("# x") and is_comment(";x") and not is_comment("MATCHSTATE:0:0::AsKs|")


# ---------------------------------------------------------------------- the fake dealer


class LocalDealer(threading.Thread):
    """A dealer thread listening on a free localhost port (``port``) for one client."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(SOCKET_TIMEOUT)
        self.port = self.server.getsockname()[1]


class FakeDealer(LocalDealer):
    """An ACPC dealer for one client on localhost: deals ``hands`` hands from ``seed``, plays the other seat.

    The client sits in seat ``hand % 2``. Every reply must echo the line it answers and
    carry a legal action; ``errors`` collects what went wrong, ``client_chips`` the client's net.
    """

    def __init__(self, hands: int, seed: int) -> None:
        super().__init__()
        self.hands, self.seed = hands, seed
        self.errors: list[str] = []
        self.client_chips = 0
        self.hands_played = 0
        self.client_raises = 0

    def run(self) -> None:
        try:
            connection, _ = self.server.accept()
        except OSError as error:
            self.errors.append(f"no client: {error}")
            return
        with connection, self.server:
            connection.settimeout(SOCKET_TIMEOUT)
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            stream = connection.makefile("rb")
            version = stream.readline().decode()
            if version.strip() != "VERSION:2.0.0":
                self.errors.append(f"first line {version!r} is not VERSION:2.0.0")
                return
            rng = np.random.default_rng(self.seed)
            try:
                for hand in range(self.hands):
                    self._play(connection, stream, hand, rng)
            except Exception as error:  # reported by the test, never swallowed
                self.errors.append(f"{type(error).__name__}: {error}")

    @staticmethod
    def _line(state: HUNLState, rounds: list[list[str]], seat: int, hand: int) -> str:
        showdown = state.is_over and state.folded is None
        holes = [
            format_cards(state.hole_cards(player)) if player == seat or showdown else "" for player in (0, 1)
        ]
        board = state.deal[4:9]
        cards = "|".join(holes) + "".join(
            "/" + format_cards(part) for part in (board[:3], board[3:4], board[4:5])[: state.street]
        )
        betting = "/".join("".join(tokens) for tokens in rounds)
        return f"MATCHSTATE:{seat}:{hand}:{betting}:{cards}"

    def _play(self, connection: socket.socket, stream: object, hand: int, rng: np.random.Generator) -> None:
        seat = hand % 2
        state = HUNLState.new(CONFIG, SEAT_BUTTON, deck=rng.permutation(52)[:9].tolist())
        rounds: list[list[str]] = [[]]
        line = self._line(state, rounds, seat, hand)
        self._send(connection, line, rng)
        while not state.is_over:
            player = state.to_act
            assert player is not None
            if player == seat:
                reply = stream.readline().decode().rstrip("\r\n")  # type: ignore[attr-defined]
                if not reply.startswith(line + ":"):
                    raise AssertionError(f"reply {reply!r} does not answer {line!r}")
                token = reply[len(line) + 1 :]
                action = self._client_action(state, token)
                state.verify(action)  # raises: the client sent an illegal action
                self.client_raises += action.kind is ActionKind.RAISE
            else:
                action = self._own_action(state, rng)
            street = state.street
            state.apply(action)
            if action.kind is ActionKind.FOLD:
                rounds[-1].append("f")
            elif action.kind is ActionKind.RAISE:
                rounds[-1].append(f"r{state.committed[player]}")
            else:
                rounds[-1].append("c")
            rounds += [[] for _ in range(state.street - street)]
            line = self._line(state, rounds, seat, hand)
            self._send(connection, line, rng)
        self.client_chips += state.returns()[seat]
        self.hands_played += 1

    @staticmethod
    def _send(connection: socket.socket, line: str, rng: np.random.Generator) -> None:
        comment = "# a comment the client must ignore\r\n" if rng.random() < 0.05 else ""
        connection.sendall(f"{comment}{line}\r\n".encode())

    @staticmethod
    def _client_action(state: HUNLState, token: str) -> Action:
        player = state.to_act
        assert player is not None
        if token == "f":
            return Action(player, ActionKind.FOLD)
        if token == "c":
            kind = ActionKind.CALL if state.call_amount > 0 else ActionKind.CHECK
            return Action(player, kind, state.call_amount)
        if not (token.startswith("r") and token[1:].isdigit()):
            raise AssertionError(f"action {token!r} is not f, c or r<N>")
        total = int(token[1:])
        return Action(player, ActionKind.RAISE, total - (state.committed[player] - state.bets[player]))

    @staticmethod
    def _own_action(state: HUNLState, rng: np.random.Generator) -> Action:
        player = state.to_act
        assert player is not None
        legal = state.legal_actions()
        draw = rng.random()
        if ActionKind.FOLD in legal and draw < 0.15:
            return Action(player, ActionKind.FOLD)
        if ActionKind.RAISE in legal and draw > 0.7:
            low, high = state.min_raise_to, state.max_raise_to
            assert low is not None and high is not None
            amount = (low, high, int(rng.integers(low, high + 1)))[int(rng.integers(3))]
            return Action(player, ActionKind.RAISE, amount)
        kind = ActionKind.CALL if ActionKind.CALL in legal else ActionKind.CHECK
        return Action(player, kind, state.call_amount if kind is ActionKind.CALL else 0)


def _summary_numbers(out: str) -> tuple[int, int, float]:
    """(hands, chips, mbb/hand) from the client's summary line."""
    line = next(line for line in out.splitlines() if "mbb/hand" in line)
    hands = int(line.split("hands ")[1].split(",")[0])
    chips = int(line.split("chips won ")[1].split(",")[0])
    mbb = float(line.split(", ")[-1].split(" mbb")[0])
    return hands, chips, mbb


def run_acpc(port: int, *extra: str) -> int:
    return main(
        ["acpc", "--host", "127.0.0.1", "--port", str(port), "--timeout", str(SOCKET_TIMEOUT), *extra]
    )


@pytest.mark.parametrize(("agent", "hands", "seed"), [("random", 200, 11), ("heuristic", 30, 12)])
def test_full_match_against_the_fake_dealer(
    capsys: pytest.CaptureFixture[str], agent: str, hands: int, seed: int
) -> None:
    dealer = FakeDealer(hands, seed)
    dealer.start()
    status = run_acpc(dealer.port, "--agent", agent, "--seed", "3")
    dealer.join(SOCKET_TIMEOUT)
    assert dealer.errors == []
    assert status == 0
    assert dealer.hands_played == hands
    out = capsys.readouterr().out
    played, chips, mbb = _summary_numbers(out)
    assert (played, chips) == (hands, dealer.client_chips)
    assert mbb == pytest.approx(1000 * chips / 100 / hands, abs=0.05)
    if agent == "random":
        assert dealer.client_raises > 10  # raise sizes were exercised, all legal


@pytest.mark.slow  # about 13 s: a whole match against the default bot in a subprocess
def test_match_with_the_default_bot_from_another_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the shipped blueprint is found from any working directory
    dealer = FakeDealer(8, 5)
    dealer.start()
    status = run_acpc(dealer.port, "--seed", "1")
    dealer.join(SOCKET_TIMEOUT)
    assert dealer.errors == [] and status == 0
    out = capsys.readouterr().out
    assert "search:checkpoints/hunl_blueprint" in out
    assert _summary_numbers(out)[:2] == (8, dealer.client_chips)


class ScriptedDealer(LocalDealer):
    """Sends ``lines`` (after one ending in ``|reply``, reads the reply), then closes or stays open."""

    def __init__(self, lines: list[str], *, close: bool) -> None:
        super().__init__()
        self.lines, self.close = lines, close
        self.replies: list[str] = []

    def run(self) -> None:
        connection, _ = self.server.accept()
        with connection, self.server:
            stream = connection.makefile("rb")
            stream.readline()  # VERSION
            for line in self.lines:
                expects_reply = line.endswith("|reply")
                text = line.removesuffix("|reply")
                connection.sendall(f"{text}\r\n".encode())
                if expects_reply:
                    self.replies.append(stream.readline().decode().strip())
            if not self.close:
                connection.settimeout(SOCKET_TIMEOUT)
                stream.read()  # stay open until the client hangs up


def test_malformed_line_exits_2_naming_it_without_hanging(capsys: pytest.CaptureFixture[str]) -> None:
    bad = "MATCHSTATE:0:0:r20:AsKs|"
    dealer = ScriptedDealer(["# hello", bad], close=False)
    dealer.start()
    started = time.monotonic()
    status = run_acpc(dealer.port, "--agent", "call")
    # The dealer never hangs up and the client's own timeout is SOCKET_TIMEOUT: returning before it means
    # the client gave up on the bad line at once rather than waiting for more.
    assert status == 2 and time.monotonic() - started < SOCKET_TIMEOUT
    err = capsys.readouterr().err
    assert bad in err and "error" in err and err.count("\n") == 1


def test_dealer_closing_mid_hand_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    first = "MATCHSTATE:1:0::|AsKs"
    dealer = ScriptedDealer([first + "|reply"], close=True)
    dealer.start()
    status = run_acpc(dealer.port, "--agent", "call")
    dealer.join(SOCKET_TIMEOUT)
    assert dealer.replies == [first + ":c"]
    assert status == 1
    captured = capsys.readouterr()
    assert "closed the connection in the middle of hand 0" in captured.err
    assert "hands 0" in captured.out


def test_silent_dealer_and_no_dealer_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    quiet = socket.create_server(("127.0.0.1", 0))
    try:
        status = main(["acpc", "--host", "127.0.0.1", "--port", str(quiet.getsockname()[1]),
                       "--agent", "call", "--timeout", "0.5"])  # fmt: skip
    finally:
        quiet.close()
    assert status == 1
    assert "sent nothing for 0.5 seconds" in capsys.readouterr().err
    with socket.create_server(("127.0.0.1", 0)) as closed:
        port = closed.getsockname()[1]
    assert run_acpc(port, "--agent", "call") == 1
    assert f"cannot connect to the dealer at 127.0.0.1:{port}" in capsys.readouterr().err


def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["acpc", "--host", "localhost", "--port", "70000"]) == 2
    assert "port must be in 1..65535" in capsys.readouterr().err
    assert main(["acpc", "--host", "localhost", "--port", "1", "--agent", "nope"]) == 2
    assert "unknown agent spec 'nope'" in capsys.readouterr().err
