"""README.md's Python examples (its ```pycon blocks) run as doctests: they must exist and pass."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def pycon_blocks(text: str) -> list[tuple[int, str]]:
    """The ```pycon fenced blocks of a Markdown text: each one's body and the line before it (0-based)."""
    pattern = re.compile(r"^```pycon\n(.*?)^```$", flags=re.MULTILINE | re.DOTALL)
    return [(text.count("\n", 0, match.start(1)), match.group(1)) for match in pattern.finditer(text)]


def test_the_readme_examples_run_as_written() -> None:
    blocks = pycon_blocks(README.read_text(encoding="utf-8"))
    assert blocks, "README.md has no ```pycon example"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner()
    for number, (line, block) in enumerate(blocks, start=1):
        test = parser.get_doctest(block, {}, f"README.md example {number}", str(README), line)
        assert test.examples, f"README.md example {number} has no >>> lines"
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, f"{results.failed} of {results.attempted} README examples failed (above)"
