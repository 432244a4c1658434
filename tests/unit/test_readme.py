"""README.md is a front page: short, with the two set-up commands near its top, the test command
the one CI runs (`.ci/run`), and the same two commands in the chapter *Running the book*
(book/running.md), which holds what the README leaves out. Its quick start is checked by
tests/unit/test_quickstart.py, its verdict table by tests/unit/book/test_ledger.py."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAX_LINES = 120  # the whole front page
SET_UP_WITHIN = 40  # the set-up commands stand within its first 40 lines
VENV = "python3.11 -m venv "


def set_up_commands(text: str) -> list[str]:
    """The command lines that set up `.venv` (``python3.11 -m venv ...``), the shell's line
    continuations (a backslash ending a line) joined and runs of spaces folded."""
    lines = text.replace("\\\n", "").splitlines()
    return [" ".join(line.split()) for line in lines if line.startswith(VENV)]


def ci_test_command() -> str:
    commands = set_up_commands((ROOT / ".ci" / "run").read_text())
    assert len(commands) == 1, commands
    return commands[0]


def test_readme_is_a_front_page():
    lines = README.read_text().splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines, over {MAX_LINES}"


def test_readme_gives_both_set_up_commands_near_its_top():
    text = README.read_text()
    top = "\n".join(text.splitlines()[:SET_UP_WITHIN])
    build, test = set_up_commands(top)
    assert set_up_commands(text) == [build, test]  # no third one further down
    assert build.endswith(" && .venv/bin/python -m cotbook build")
    assert test == ci_test_command()  # CI runs exactly the README's test command
    assert build.split(" && ")[:2] == test.split(" && ")[:2]  # the same .venv, the same pins


def test_running_the_book_gives_the_same_set_up_commands():
    guide = (ROOT / "book" / "running.md").read_text()
    assert set_up_commands(guide) == set_up_commands(README.read_text())
    assert "\\\n" in guide  # broken there to fit the book's code column, joined here


def test_readme_links_lead_to_files_of_the_repository():
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text())
    local = [t for t in targets if not t.startswith("https://")]
    assert {"LICENSE", "LICENSE-CONTENT", "CITATION.cff", "book/running.md"} <= set(local)
    missing = [t for t in local if not (ROOT / t).is_file()]
    assert not missing, f"README.md links to missing files: {missing}"
