"""Background threads block SIGINT, so the terminal's Ctrl-C always reaches the main thread."""

from __future__ import annotations

import signal
import threading

import pytest

from pokerai.threads import start_background_thread

pytestmark = pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks only")


def blocked_signals() -> set[int]:
    return set(signal.pthread_sigmask(signal.SIG_BLOCK, []))


def test_the_thread_blocks_sigint_and_the_caller_keeps_its_mask() -> None:
    before = blocked_signals()
    seen: list[set[int]] = []
    thread = start_background_thread(lambda: seen.append(blocked_signals()), "test-thread")
    thread.join()
    assert thread.daemon and thread.name == "test-thread"
    assert signal.SIGINT in seen[0]
    assert blocked_signals() == before and signal.SIGINT not in before


def test_the_callers_mask_is_restored_when_the_thread_cannot_start(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    before = blocked_signals()
    with pytest.raises(RuntimeError, match="can't start new thread"):
        start_background_thread(lambda: None, "never")
    assert blocked_signals() == before
