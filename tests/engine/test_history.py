"""Hand histories: the readable text, ACPC lines, and the parser that rebuilds a state from a line."""

from __future__ import annotations

import numpy as np
import pytest

from pokerai.engine.cards import format_cards, parse_cards
from pokerai.engine.history import format_history, parse_acpc, to_acpc
from pokerai.engine.state import Action, ActionKind, HUNLConfig, HUNLState
from tests.engine.test_state import choose, random_config

DECK = parse_cards("AhAd KcKd 2c7h9s Jd 3c")


def public(state: HUNLState, viewer: int | None) -> tuple[object, ...]:
    """Everything about a state that an ACPC line carries (for ``viewer``, or all of it for None)."""
    showdown = state.is_over and state.folded is None
    holes = tuple(state.hole_cards(p) if viewer is None or p == viewer or showdown else None for p in (0, 1))
    return (
        state.config, state.button, tuple(state.history), state.street, state.board, tuple(state.stacks),
        tuple(state.bets), tuple(state.committed), state.pot, state.to_act, state.is_over, state.folded,
        state.returns() if state.is_over else None, holes, state.min_raise_to, state.max_raise_to,
    )  # fmt: skip


def played(button: int = 0, config: HUNLConfig | None = None) -> HUNLState:
    state = HUNLState.new(config or HUNLConfig(), button, deck=DECK)
    state.raise_to(300)
    state.call()
    state.check()
    state.raise_to(400)
    state.raise_to(1_200)
    state.call()
    return state


def test_acpc_lines_use_reverse_blinds_seats() -> None:
    state = played(button=0)  # player 0 is the button, so it sits in seat 1; player 1 (big blind) in seat 0
    assert to_acpc(state, viewer=0, hand_number=7) == "MATCHSTATE:1:7:r300c/cr700r1500c/:|AhAd/2c7h9s/Jd"
    assert to_acpc(state, viewer=1, hand_number=7) == "MATCHSTATE:0:7:r300c/cr700r1500c/:KcKd|/2c7h9s/Jd"
    assert to_acpc(state) == "STATE:0:r300c/cr700r1500c/:KcKd|AhAd/2c7h9s/Jd"
    state.check()
    state.raise_to(18_500)  # all-in on the turn: r20000 over the whole hand
    state.call()
    assert to_acpc(state, names=("alice", "bob")) == (
        "STATE:0:r300c/cr700r1500c/cr20000c/:KcKd|AhAd/2c7h9s/Jd/3c:-20000|20000:bob|alice"
    )
    assert to_acpc(state, viewer=1) == "MATCHSTATE:0:0:r300c/cr700r1500c/cr20000c/:KcKd|AhAd/2c7h9s/Jd/3c"


def test_all_in_preflop_runs_the_betting_to_the_river_and_a_fold_hides_cards() -> None:
    state = HUNLState.new(HUNLConfig(), 1, deck=DECK)
    state.raise_to(20_000)
    state.call()
    assert to_acpc(state) == "STATE:0:r20000c///:AhAd|KcKd/2c7h9s/Jd/3c:20000|-20000:p0|p1"
    folded = HUNLState.new(HUNLConfig(), 1, deck=DECK)
    folded.raise_to(300)
    folded.fold()
    assert to_acpc(folded, viewer=1) == "MATCHSTATE:1:0:r300f:|KcKd"
    assert to_acpc(folded) == "STATE:0:r300f:AhAd|KcKd:-100|100:p0|p1"


def test_parse_matchstate_rebuilds_the_decision() -> None:
    line = parse_acpc("MATCHSTATE:0:30:r250c/cr500:Ks8h|/Td4s2c", HUNLConfig())
    state = line.state
    assert line.viewer == 0 and line.hand_number == 30 and line.results is None
    assert state.button == 1 and state.street == 1 and state.to_act == 0
    assert state.hole_cards(0) == tuple(parse_cards("Ks8h")) and state.hole_cards_known == (True, False)
    assert state.board == tuple(parse_cards("Td4s2c"))
    assert state.bets == [0, 250] and state.pot == 750 and state.legal_actions() == (
        ActionKind.FOLD, ActionKind.CALL, ActionKind.RAISE
    )  # fmt: skip
    assert state.min_raise_to == 500
    assert to_acpc(state, viewer=0, hand_number=30) == "MATCHSTATE:0:30:r250c/cr500:Ks8h|/Td4s2c"
    swapped = parse_acpc("MATCHSTATE:0:30:r250c/cr500:Ks8h|/Td4s2c", button=0).state
    assert swapped.button == 0 and swapped.hole_cards(1) == tuple(parse_cards("Ks8h"))


def test_parse_state_checks_results_and_keeps_names() -> None:
    line = parse_acpc("STATE:3:r300c/cr700r1500c/cr20000c/:KcKd|AhAd/2c7h9s/Jd/3c:-20000|20000:bob|alice")
    assert line.viewer is None and line.hand_number == 3
    assert line.results == (-20_000, 20_000) and line.names == ("bob", "alice")
    assert line.state.returns() == (-20_000, 20_000) and line.state.is_over
    with pytest.raises(
        ValueError, match=r"results '-100\|100' do not match the hand, which gives '-20000\|20000'"
    ):
        parse_acpc("STATE:3:r300c/cr700r1500c/cr20000c/:KcKd|AhAd/2c7h9s/Jd/3c:-100|100:bob|alice")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("HELLO:0:0::AhAd|", "expected MATCHSTATE"),
        ("MATCHSTATE:2:0::AhAd|", "position 2 is not a seat"),
        (
            "MATCHSTATE:0:0:r150:AhAd|",
            "action 'r150' in round 1: raise to 150 is below the minimum raise to 200",
        ),
        (
            "MATCHSTATE:0:0:r300c/r50:AhAd|/2c7h9s",
            "action 'r50' in round 2: player 0 already has 300 in the pot",
        ),
        ("MATCHSTATE:0:0:cf:AhAd|", "player 0 cannot fold: there is no bet to call"),
        ("MATCHSTATE:0:0:r300x:AhAd|", "unreadable action at 'x'"),
        ("MATCHSTATE:0:0:r300f/c:AhAd|", "starts round 2 while round 1 is still open"),
        ("MATCHSTATE:0:0:r300fc:AhAd|", "the hand is already over"),
        ("MATCHSTATE:0:0:r300c:AhAd|", "stops in round 1 but the state is in round 2"),
        ("MATCHSTATE:0:0:r300c/:AhAd|", "show 0 board round"),
        ("MATCHSTATE:0:0:r300c/:AhAd|/2c7h", "the flop '2c7h' should be 3 card"),
        ("MATCHSTATE:0:0::|AhAd", "the viewer's (seat 0) hole cards are missing"),
        ("MATCHSTATE:0:0::AhAh|", "card Ah appears more than once"),
        ("MATCHSTATE:0:0::AhAd|Ah2c", "card Ah appears more than once"),
        ("MATCHSTATE:0:0::AhXd|", "rank 'X' is not one of"),
        ("MATCHSTATE:0:0::AhAdKc|", "should be two cards"),
        ("STATE:0:r300f:AhAd|", "a STATE line must show both seats' hole cards"),
        ("STATE:0:r300:AhAd|KcKd:300|-300:a|b", "the line has results but the hand is not over"),
        ("STATE:0:r300f:AhAd|KcKd:x|y:a|b", "result 'x' is not a number"),
        ("STATE:0:r300f:AhAd|KcKd:-100|100:a", "names 'a' should be two non-empty names"),
    ],
)
def test_bad_lines_are_errors_that_name_the_problem(line: str, message: str) -> None:
    with pytest.raises(ValueError, match="bad ACPC line") as error:
        parse_acpc(line)
    assert message in str(error.value)


def test_acpc_round_trip_over_random_hands() -> None:
    rng = np.random.default_rng(5)
    lines = 0
    for hand in range(2_000):
        config = random_config(rng)
        state = HUNLState.new(config, hand % 2, rng=rng)
        checkpoints = [state.clone()]
        while not state.is_over:
            kind, amount = choose(state, rng)
            if kind is ActionKind.FOLD:
                state.fold()
            elif kind is ActionKind.RAISE:
                state.raise_to(amount)
            else:
                state.check_or_call()
            checkpoints.append(state.clone())
        middle = checkpoints[int(rng.integers(len(checkpoints)))]
        for snapshot in (middle, state):
            for viewer in (None, 0, 1):
                line = to_acpc(snapshot, viewer, hand_number=hand)
                parsed = parse_acpc(line, config, button=snapshot.button)
                assert parsed.hand_number == hand and parsed.viewer == viewer
                assert public(parsed.state, viewer) == public(snapshot, viewer), line
                assert to_acpc(parsed.state, viewer, hand_number=hand) == line
                lines += 1
    assert lines == 12_000


def test_format_history_reads_like_a_hand_history() -> None:
    state = played(button=0)
    state.check()
    state.raise_to(1_000)
    state.fold()
    text = format_history(state)
    assert text.splitlines() == [
        "Heads-up no-limit hold'em, blinds 50/100",
        "player 0 (button, small blind): stack 20000, cards Ah Ad",
        "player 1 (big blind): stack 20000, cards Kc Kd",
        "player 0 posts the small blind 50",
        "player 1 posts the big blind 100",
        "*** PREFLOP ***",
        "player 0 raises to 300",
        "player 1 calls 200",
        "*** FLOP *** [2c 7h 9s]",
        "player 1 checks",
        "player 0 bets 400",
        "player 1 raises to 1200",
        "player 0 calls 800",
        "*** TURN *** [2c 7h 9s Jd]",
        "player 1 checks",
        "player 0 bets 1000",
        "player 1 folds",
        "*** SUMMARY ***",
        "player 0 wins the pot of 3000 uncontested",
        "returns: player 0 +1500, player 1 -1500",
        "final stacks: player 0 21500, player 1 18500",
    ]
    hidden = format_history(state, viewer=1)
    assert "player 0 (button, small blind): stack 20000, cards ?? ??" in hidden
    assert "cards Kc Kd" in hidden


def test_format_history_marks_all_ins_and_splits() -> None:
    state = HUNLState.new(HUNLConfig(stacks=(20_000, 450)), 0, deck=parse_cards("2c3d 4h5c AsKsQsJsTs"))
    state.raise_to(300)
    state.raise_to(450)
    state.call()
    lines = format_history(state).splitlines()
    assert "player 1 raises to 450 (all-in)" in lines and "player 0 calls 150" in lines
    assert "*** RIVER *** [As Ks Qs Js Ts]" in lines
    assert "split pot of 900: each player gets 450" in lines
    running = HUNLState.new(HUNLConfig(), 0, deck=DECK)
    assert format_history(running).splitlines()[-1] == "pot 150; player 0 to act"


def test_parse_a_full_dealer_log_line() -> None:
    # Seat 1 (button) raises to 250, seat 0 calls; flop checked through; seat 0 bets 250 on the turn
    # (500 in all) and seat 1 calls; on the river seat 0 checks, seat 1 bets 750 (1250 in all), seat 0 folds.
    line = parse_acpc("STATE:41:r250c/cc/r500c/cr1250f:5d6c|9hQd/3sKd4c/Jc/6s:-500|500:alice|bob")
    state = line.state
    assert state.history[-3:] == [
        Action(0, ActionKind.CHECK),
        Action(1, ActionKind.RAISE, 750),
        Action(0, ActionKind.FOLD),
    ]
    assert state.street == 3 and state.folded == 0 and state.final_pot == 1_000
    assert line.results == (-500, 500) and line.names == ("alice", "bob") and state.stacks == [19_500, 20_500]


def test_a_parsed_matchstate_can_be_played_on_with_placeholder_cards() -> None:
    line = parse_acpc("MATCHSTATE:1:0:r300c/c:|AhAd/2c7h9s", rng=np.random.default_rng(1))
    state = line.state
    assert line.viewer == 1 and state.to_act == 1 and state.hole_cards_known == (False, True)
    opponent = set(state.hole_cards(0))
    assert len(opponent) == 2 and not opponent & set(parse_cards("AhAd2c7h9s"))
    assert len(set(state.deal)) == 9
    state.raise_to(400)
    state.call()
    assert state.street == 2 and len(state.board) == 4
    assert (
        to_acpc(state, viewer=1)
        == f"MATCHSTATE:1:0:r300c/cr700c/:|AhAd/2c7h9s/{format_cards(state.board[3:])}"
    )
    assert "player 0 (big blind): stack 20000, cards ?? ??" in format_history(state)
