"""The book builds with zero warnings (Sphinx -W, nitpicky) and renders math offline."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_book_builds_without_warnings(tmp_path):
    jb = Path(sys.executable).with_name("jupyter-book")
    result = subprocess.run(
        [str(jb), "build", str(ROOT), "-W", "-n", "--keep-going", "--path-output", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-5000:]
    # Sphinx reports "path:line: WARNING: ..."; -W already turns these into a failed build.
    assert "WARNING:" not in log, log[-5000:]
    html = tmp_path / "_build" / "html"
    assert (html / "_static" / "mathjax" / "tex-chtml.js").is_file()  # MathJax bundled
    page = (html / "book" / "model.html").read_text()
    assert "mathjax/tex-chtml.js" in page and "cdn.jsdelivr" not in page
    assert page.count("<img alt=") >= 2  # the chapter's figures were executed and embedded
