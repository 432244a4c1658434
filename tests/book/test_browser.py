"""Every built page renders cleanly in a real browser (headless Chromium).

The checker (tests/book/browser_check.py) is shown to catch faults planted into a tiny book built
with the real MathJax configuration and extensions and into a copy of a real built page.
"""

import re
import shutil
from html import escape

import jupytext
import nbformat
import pytest
import yaml
from book_build import ROOT, build_book
from browser_check import (
    INSTALL_HINT,
    WINDOW_HEIGHT,
    WINDOW_WIDTHS,
    check_site,
    find_chromium,
    site_pages,
)


@pytest.fixture(scope="session")  # session scope: it fails before the book is built
def chromium():
    path = find_chromium()
    if path is None:
        pytest.fail(INSTALL_HINT, pytrace=False)  # CI must run this test: never skip it
    return path


@pytest.fixture(scope="module")
def site_check(chromium, built_book):
    """The faults of every page of the real book, and each page's length (px)."""
    assert (built_book.html / "index.html").is_file(), built_book.log[-3000:]
    # real time: on a busy machine MathJax may take seconds to typeset a long page, which is
    # no fault of the book, so the probe waits up to 30 s (a page that renders waits no longer)
    heights: dict[str, int] = {}
    faults = check_site(built_book.html, chromium=chromium, wait_ms=30_000, heights=heights)
    return faults, heights


def test_every_page_renders_cleanly(built_book, site_check):
    pages = site_pages(built_book.html)
    assert len([p for p in pages if p.startswith("book/")]) >= 13
    faults, _ = site_check
    assert not faults, "pages with faults:\n" + "\n".join(faults)


#: The most screens (WINDOW_HEIGHT px tall, in the widest window) the introduction and the
#: part "The paper in an hour" may fill together: the path a reader can take in an hour.
HOUR_SCREENS = 60


def test_the_hour_path_fits_an_hour(site_check):
    _, heights = site_check
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    hour = next(p for p in toc["parts"] if p["caption"] == "The paper in an hour")
    pages = [f"{toc['root']}.html"] + [f"{c['file']}.html" for c in hour["chapters"]]
    screens = {page: heights[page] / WINDOW_HEIGHT for page in pages}
    total = sum(screens.values())
    assert total <= HOUR_SCREENS, f"{total:.1f} screens: {screens}"


TINY_MATH = r"""# Planted math

An undefined macro $\undefinedmacro{x}$ next to the book's own macros: $\vb{x}$,
$\E[x] = \Tr \mathbf{A}$ and

$$
\calE_t = \R \cdot \Read(\Atten(\mathbf{P}))
$$
"""


def _tiny_page() -> str:
    """A MyST notebook (jupytext) with the planted math and one code cell."""
    kernelspec = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook = nbformat.v4.new_notebook(metadata={"kernelspec": kernelspec})
    notebook.cells = [
        nbformat.v4.new_markdown_cell(TINY_MATH),
        nbformat.v4.new_code_cell('print("hello")'),
    ]
    return jupytext.writes(notebook, fmt="md:myst")


@pytest.fixture(scope="module")
def tiny_book(tmp_path_factory):
    """A one-page book with the real book's Sphinx/MathJax settings, not executed, whose
    repository.url is set (so launch buttons must appear)."""
    src = tmp_path_factory.mktemp("tiny_book")
    real = yaml.safe_load((ROOT / "_config.yml").read_text())
    config = {
        "title": "tiny",
        "only_build_toc_files": True,
        "exclude_patterns": [".*", "**/.*", "_build"],
        "execute": {"execute_notebooks": "off"},
        "parse": real["parse"],
        "sphinx": {
            "extra_extensions": real["sphinx"]["extra_extensions"],
            "config": {"mathjax3_config": real["sphinx"]["config"]["mathjax3_config"]},
        },
        "html": real.get("html", {}),
        "launch_buttons": real["launch_buttons"],
        "repository": {"url": "https://github.com/example-org/cotbook-demo", "branch": "main"},
    }
    (src / "_config.yml").write_text(yaml.safe_dump(config))
    (src / "_toc.yml").write_text("format: jb-book\nroot: page\n")
    (src / "page.md").write_text(_tiny_page())
    build = build_book(src, src / "out", timeout_s=300)
    assert build.returncode == 0, build.log[-3000:]
    return build


def test_checker_reports_undefined_macro_only(chromium, tiny_book):
    heights: dict[str, int] = {}
    faults = check_site(tiny_book.html, ["page.html"], chromium=chromium, heights=heights)
    assert list(heights) == ["page.html"] and 0 < heights["page.html"] < 20 * WINDOW_HEIGHT
    # the book's macros (\vb, \E, \Tr, \calE, \R, \Read, \Atten) render; the undefined one is red;
    # the console stays clean
    assert faults == ["page.html: red TeX text '\\undefinedmacro'"]


def test_launch_buttons_appear_with_a_real_repository(tiny_book):
    page = (tiny_book.html / "page.html").read_text()
    assert "https://mybinder.org/v2/gh/example-org/cotbook-demo/main?urlpath=tree/page.md" in page
    assert "executablebooks/jupyter-book" not in page
    assert '<a href="_sources/page.ipynb"' in page  # the .ipynb download is there too
    assert (tiny_book.html / "_sources" / "page.ipynb").is_file()


#: What the console says of a file the page asks for and the build does not have.
NOT_FOUND = "Failed to load resource: net::ERR_FILE_NOT_FOUND"
PLANTED = {
    "book/model.html": """
<p>Planted: <img src="../_images/no-such-figure.png" alt="missing">
<img src="../_static/corrupt.png" alt="corrupt">
<a href="no-such-chapter.html">dead link</a>
<a href="numerics.html#no-such-section">dead fragment</a>
<a href="#no-such-anchor-here">dead local fragment</a>
<a href="numerics.html">good link</a> <a href="https://example.invalid/x">external</a>
<span class="math notranslate nohighlight">x_{untypeset}</span>
raw $\\alpha_{raw}$ TeX</p>
<div class="cell docutils container"><div class="cell_output docutils container">
<div class="output traceback highlight-ipythontb notranslate"><div class="highlight"><pre>
Traceback (most recent call last):
  File "&lt;cell&gt;", line 1, in &lt;module&gt;
ZeroDivisionError: division by zero
</pre></div></div></div></div>
<div class="cell docutils container"><div class="cell_input docutils container">
<pre>print(d["key"])</pre></div><div class="cell_output docutils container">
<div class="output stream highlight-myst-ansi notranslate"><div class="highlight"><pre>
KeyError: 'planted-key'
</pre></div></div>
<div class="output stderr highlight-myst-ansi notranslate"><div class="highlight"><pre>
planted warning on stderr
</pre></div></div></div></div>
<p>Planted marks: ✅ passed</p><p>and ✔️ too</p><p>an icon \ue000 glyph</p>
<p>Text fonts draw these: τ_c − ∞ ≤ ✓ © → ²</p>
<svg viewBox="0 0 200 100" width="400" role="img">
<text x="10" y="40" font-size="12">planted tick 1e-42</text>
<text x="60" y="44" font-size="12">planted axis label</text>
<text x="10" y="90" font-size="12">planted text apart</text></svg>
""",
}


def test_checker_reports_planted_faults(chromium, built_book, tmp_path):
    html = tmp_path / "html"
    shutil.copytree(built_book.html, html)
    (html / "_static" / "corrupt.png").write_bytes(b"not a png at all")
    for page, snippet in PLANTED.items():
        text = (html / page).read_text()
        (html / page).write_text(text.replace("</article>", snippet + "</article>", 1))
    # a page whose MathJax never finishes typesetting must fail, not pass silently
    hang = (html / "book" / "numerics.html").read_text()
    assert '<script defer="defer" src="../_static/mathjax/tex-chtml.js"></script>' in hang
    (html / "book" / "numerics.html").write_text(
        hang.replace(
            '<script defer="defer" src="../_static/mathjax/tex-chtml.js"></script>',
            "<script>window.MathJax = {startup: {promise: new Promise(() => {})}};</script>",
        )
    )
    # a page whose MathJax is missing from the build
    (html / "book" / "intro.html").write_text(
        (html / "book" / "intro.html").read_text().replace("tex-chtml.js", "no-mathjax.js")
    )

    faults = check_site(
        html,
        ["book/model.html", "book/numerics.html", "book/intro.html"],
        chromium=chromium,
        wait_ms=2000,
    )
    report = "\n".join(faults)
    expected = [
        "book/model.html: missing image file: _images/no-such-figure.png is not in the build",
        "book/model.html: image failed to load: ../_images/no-such-figure.png",
        "book/model.html: image failed to load: ../_static/corrupt.png",
        "book/model.html: broken link: book/no-such-chapter.html is not in the build",
        "book/model.html: broken link: book/numerics.html#no-such-section (no element with "
        "that id)",
        "book/model.html: broken link: book/model.html#no-such-anchor-here (no element with "
        "that id)",
        "book/model.html: math not typeset: x_{untypeset}",
        "book/model.html: raw TeX left in the text: $\\alpha_{raw}$ TeX",
        "book/model.html: error output: ZeroDivisionError: division by zero",
        "book/model.html: exception in output: KeyError: 'planted-key'",
        "book/model.html: stderr output: planted warning on stderr",
        "book/model.html: character U+2705 '✅' needs a font the book does not ship: "
        "'Planted marks: ✅ passed'",
        "book/model.html: character U+2714 U+FE0F '✔️' needs a font the book does not ship: "
        "'and ✔️ too'",
        "book/model.html: character U+E000 '\ue000' needs a font the book does not ship: "
        "'an icon \ue000 glyph'",
        f"book/model.html: console error: {NOT_FOUND} (at _images/no-such-figure.png)",
        "book/numerics.html: MathJax did not finish typesetting within 2000 ms",
        "book/intro.html: MathJax did not load (no MathJax.startup.promise after 2000 ms)",
        f"book/intro.html: console error: {NOT_FOUND} (at _static/mathjax/no-mathjax.js)",
    ]
    for fault in expected:
        assert fault in faults, f"not reported: {fault}\nreported:\n{report}"
    assert not [f for f in faults if "example.invalid" in f], report
    # texts of a drawn figure that overlap, in a figure as wide at every window width: 12 px
    # letters drawn twice as large, 8 px apart (their boxes are as high as the font's ascent and
    # descent, about 1.2 letter heights)
    overlap = _overflow(
        faults, "book/model.html: figure text 'planted tick 1e-42' runs into 'planted axis", "by"
    )
    assert list(overlap) == [800, 1400] and 14 <= overlap[800] == overlap[1400] <= 26, report
    # the unplanted parts of the page are clean, so nothing else is reported there
    on_model = [f for f in faults if f.startswith("book/model.html: ")]
    assert len(on_model) == 1 + len([f for f in expected if f.startswith("book/model")]), report


#: Scripts planted in a page's <head>: what they write to the console, and what is only logged.
PLANTED_CONSOLE = """
<script>const plantedTwice = 1;</script><script>const plantedTwice = 2;</script>
<script>
console.error("planted console error");
console.warn("planted console warning", 42);
console.assert(1 === 2, "planted assertion");
console.log("planted log"); console.info("planted info"); console.debug("planted debug");
Promise.reject(new Error("planted rejection"));
window.addEventListener("resize", () => console.warn("planted warning when narrowed"));
</script>
<script src="no-such-script.js"></script>
"""


def test_checker_reports_what_the_console_shows(chromium, built_book, tmp_path):
    html = tmp_path / "html"
    shutil.copytree(built_book.html, html)
    page = html / "book" / "model.html"
    page.write_text(page.read_text().replace("<head>", "<head>" + PLANTED_CONSOLE, 1))
    faults = check_site(html, ["book/model.html"], chromium=chromium)
    report = "\n".join(faults)
    # (the scripts' lines in the page, as in "(at book/model.html:12)", left out)
    found = {re.sub(r" \(at book/model\.html:\d+\)$", "", f) for f in faults}
    at = "book/model.html: console "
    assert found == {
        f"{at}error: Uncaught SyntaxError: Identifier 'plantedTwice' has already been declared",
        f"{at}error: planted console error",
        f"{at}warning: planted console warning 42",
        f"{at}error: planted assertion",
        f"{at}error: Uncaught (in promise) Error: planted rejection",
        f"{at}error: {NOT_FOUND} (at book/no-such-script.js)",
        # at the narrower window width, after the page was first measured
        f"{at}warning: planted warning when narrowed",
    }, report


def _planted_output(text: str, kind: str = "stream highlight-myst-ansi") -> str:
    """A cell output as myst-nb renders it: `text` printed (a <pre>), or HTML when kind is
    'text_html'."""
    body = text
    if kind != "text_html":
        body = f'<div class="highlight"><pre><span></span>{text}\n</pre></div>'
    return (
        f'<div class="cell docutils container"><div class="cell_output docutils container">'
        f'<div class="output {kind} notranslate">{body}</div></div></div>'
    )


def _planted_input(code: str, hidden: bool = False) -> str:
    """A code cell's input as myst-nb renders it, in the toggle of a `hide-input` cell when
    `hidden`."""
    source = (
        '<div class="cell_input docutils container"><div class="highlight-ipython3 notranslate">'
        f'<div class="highlight"><pre><span></span>{code}\n</pre></div></div></div>'
    )
    if hidden:
        source = (
            '<details class="admonition hide above-input"><summary aria-label="Toggle hidden '
            'content"><p class="collapsed admonition-title">Show code cell source</p>'
            '<p class="expanded admonition-title">Hide code cell source</p></summary>'
            f"{source}</details>"
        )
    tag = " tag_hide-input" if hidden else ""
    return f'<div class="cell{tag} docutils container">{source}</div>'


def _planted_equation(number: int, tex: str) -> str:
    """A numbered display equation as Sphinx writes it (MathJax typesets it in the browser)."""
    return (
        f'<div class="math notranslate nohighlight" id="equation-planted-{number}">'
        f'<span class="eqno">({number})<a class="headerlink" href="#equation-planted-{number}">'
        f"#</a></span>\\[{tex}\\]</div>"
    )


LONG_LINES = {150: "planted long line A ", 200: "planted long line B "}
SHORT_LINE = "planted line of 85 characters, too wide for the output box only in an 800 px window"


def _planted_layout() -> str:
    """Outputs, tables and equations that do not fit the text column, and ones that do."""
    lines = [_planted_output(start + "x" * (n - len(start))) for n, start in LONG_LINES.items()]
    columns = "".join(f"<th>planted_column_{i}</th>" for i in range(30))
    cells = "".join(f"<td>planted wide table cell {i}</td>" for i in range(30))
    return "\n".join(
        [
            *lines,
            _planted_output(SHORT_LINE.ljust(85, ".")),
            _planted_output("a short planted line that fits\nand a second one"),
            _planted_output(f'<table class="dataframe"><tr>{columns}</tr></table>', "text_html"),
            f'<div class="pst-scrollable-table-container"><table class="table"><tr>{cells}</tr>'
            f"</table></div>",
            '<div class="pst-scrollable-table-container"><table class="table"><tr><td>narrow '
            "planted table</td></tr></table></div>",
            _planted_equation(91, " + ".join(f"a_{{{i}}}" for i in range(1, 61))),
            _planted_equation(92, r"y = \frac{1}{2}"),
        ]
    )


_BY_PX = re.compile(r" by ([\d, ]+) px at window widths? ([\d, ]+) px$")


def _overflow(faults: list[str], start: str, what: str) -> dict[int, int]:
    """The one fault that starts with `start` and says `what`, as {window width: px}."""
    found = [f for f in faults if f.startswith(start) and what in f]
    assert len(found) == 1, f"{start!r} reported {len(found)} times:\n" + "\n".join(faults)
    match = _BY_PX.search(found[0])
    assert match, found[0]
    sizes, widths = ([int(x) for x in group.split(", ")] for group in match.groups())
    return dict(zip(widths, sizes, strict=True))


def test_checker_reports_what_does_not_fit_the_text_column(chromium, built_book, tmp_path):
    html = tmp_path / "html"
    shutil.copytree(built_book.html, html)
    page = html / "book" / "model.html"
    page.write_text(page.read_text().replace("</article>", _planted_layout() + "</article>", 1))
    faults = check_site(html, ["book/model.html"], chromium=chromium)
    report = "\n".join(faults)
    assert WINDOW_WIDTHS == (800, 1400)
    at, line = "book/model.html: ", "overflows its output box"

    # Printed lines wider than the text column, at every width. The overflow grows by one
    # monospace character (14 px: about 8.4 px) per character; the narrower the window, the
    # narrower the column (721, 772 px) and the more is cut off.
    long_a, long_b = (
        _overflow(faults, f"{at}printed line ({n} characters) '{start}xxx", line)
        for n, start in LONG_LINES.items()
    )
    assert list(long_a) == list(long_b) == [800, 1400], report
    for width in WINDOW_WIDTHS:
        assert 7.8 <= (long_b[width] - long_a[width]) / 50 <= 9.0, report
    assert long_a[800] - long_a[1400] == pytest.approx(51, abs=4), report
    assert 1170 <= long_a[1400] + 740 <= 1350, report  # 150 characters in a 740 px wide box

    # a line that fits the output box at 1400 px but not at 800 px
    short = _overflow(faults, f"{at}printed line (85 characters) '{SHORT_LINE[:20]}", line)
    assert list(short) == [800] and 10 <= short[800] <= 50, report

    fit = "does not fit the text column"
    html_table = _overflow(faults, f"{at}output table 'planted_column_0 planted_column_1", fit)
    prose_table = _overflow(faults, f"{at}table 'planted wide table cell 0 planted", fit)
    for table in (html_table, prose_table):
        assert list(table) == [800, 1400], report
        assert table[800] - table[1400] == pytest.approx(51, abs=4), report
        assert table[1400] > 1000, report

    # the long equation is cut off at the column's edge, and runs under its number
    cut = _overflow(faults, f"{at}display equation (91) 'a_{{1}} + a_{{2}}", "is cut off")
    under = _overflow(
        faults, f"{at}display equation (91) 'a_{{1}} + a_{{2}}", "its equation number"
    )
    assert list(cut) == list(under) == [800, 1400], report
    assert cut[800] - cut[1400] == pytest.approx(51, abs=4) and cut[1400] > 1000, report
    assert all(30 <= px <= 80 for px in under.values()), report  # about the number's width

    # the short output, the narrow table and equation (92) fit: nothing else is reported
    assert len([f for f in faults if f.startswith(at)]) == 7, report


#: The longest code line the chapters hold (book/*.md): it fits a cell's input box at every
#: window width, hidden (in the narrower toggle of a `hide-input` cell) or not.
MAX_CODE_LINE = 79
#: Planted code lines, by length and box: a cell's input ("shown", or "hidden" in the toggle of
#: a `hide-input` cell) or a doctest block, as the API pages' docstrings show them; the window
#: widths at which each is reported. A visible input box or a code block of the text holds 81
#: characters at 800 px and 87 at 1400 px, a hidden input box 79 and 85.
PLANTED_CODE = {
    (120, "shown"): [800, 1400],
    (85, "shown"): [800],
    (MAX_CODE_LINE + 1, "hidden"): [800],
    (MAX_CODE_LINE, "hidden"): [],
    (MAX_CODE_LINE, "shown"): [],
    (120, "doctest"): [800, 1400],
    (85, "doctest"): [800],
    (MAX_CODE_LINE, "doctest"): [],
}


def _planted_code_line(n: int, box: str) -> str:
    start = f"{'>>> ' if box == 'doctest' else ''}planted_{box}_{n} = "
    return start + "x" * (n - len(start))


def _planted_code(n: int, box: str) -> str:
    """A planted code line `n` characters long in its `box` (see PLANTED_CODE)."""
    line = _planted_code_line(n, box)
    if box != "doctest":
        return _planted_input(line, hidden=box == "hidden")
    return (  # as Sphinx writes a docstring's doctest block
        '<div class="highlight-pycon notranslate"><div class="highlight"><pre><span></span>'
        f"{escape(line)}\n</pre></div></div>"
    )


def test_checker_reports_code_that_does_not_fit_its_box(chromium, built_book, tmp_path):
    site = tmp_path / "html"
    shutil.copytree(built_book.html, site)
    page = site / "book" / "model.html"
    planted = [_planted_code(*key) for key in PLANTED_CODE]
    planted.append(_planted_input("short = 1\nand_a_second = 2"))
    page.write_text(page.read_text().replace("</article>", "\n".join(planted) + "</article>", 1))
    faults = check_site(site, ["book/model.html"], chromium=chromium)
    report = "\n".join(faults)
    at = "book/model.html: code line"
    found = {}
    for (n, box), widths in PLANTED_CODE.items():
        start = f"{at} ({n} characters) '{_planted_code_line(n, box)[:20]}"
        if not widths:
            assert not [f for f in faults if f.startswith(start)], report
            continue
        what = "overflows its code box" if box == "doctest" else "overflows its input box"
        found[n, box] = _overflow(faults, start, what)
        assert list(found[n, box]) == widths, report
    # The overflow grows by one monospace character (about 8.4 px) per character, and the
    # box is 51 px wider in the 1400 px window (the text column is 721 and 772 px wide).
    for box in ("shown", "doctest"):
        long, short = found[120, box], found[85, box]
        assert 7.8 <= (long[800] - short[800]) / 35 <= 9.0, report
        assert long[800] - long[1400] == pytest.approx(51, abs=4), report
    assert 1 <= found[MAX_CODE_LINE + 1, "hidden"][800] <= 20, report
    # the unplanted code of the page (its own code cells) fits: nothing else is reported
    assert len([f for f in faults if f.startswith(at)]) == len(found), report


def test_checker_reports_a_probe_that_never_finishes(chromium, built_book, tmp_path):
    html = tmp_path / "html"
    shutil.copytree(built_book.html, html)
    # Without MathJax on a page with math, and with timers that never fire, the probe waits
    # forever: its time runs out before it reports "done", and that must be a fault.
    hang = html / "book" / "ridge.html"
    hang.write_text(
        hang.read_text()
        .replace("tex-chtml.js", "no-mathjax.js")
        .replace(
            "<head>", "<head><script>window.setTimeout = function () { return 0; };</script>", 1
        )
    )
    # A page script that breaks the probe (an exception inside it) is a fault too.
    broken = html / "genindex.html"
    broken.write_text(
        broken.read_text().replace(
            "<head>", "<head><script>document.createTreeWalker = null;</script>", 1
        )
    )
    # The layout at the narrower widths is measured after the window is narrowed: a page that
    # hangs (its script loops) or breaks the probe then is a fault too (at 1400 px it is fine).
    when_narrowed = (
        "<head><script>window.addEventListener('resize', function () {"
        " if (window.innerWidth < 1000) {%s} });</script>"
    )
    narrow_hang = html / "book" / "intro.html"
    narrow_hang.write_text(
        narrow_hang.read_text().replace("<head>", when_narrowed % "for (;;) {}", 1)
    )
    narrow_broken = html / "search.html"
    narrow_broken.write_text(
        narrow_broken.read_text().replace(
            "<head>", when_narrowed % "Element.prototype.getBoundingClientRect = null;", 1
        )
    )
    pages = ["book/ridge.html", "genindex.html", "book/intro.html", "search.html"]
    # (pages opened at 1400 px, the window then narrowed to 800 px)
    faults = check_site(
        html, pages, chromium=chromium, wait_ms=500, timeout_s=60, widths=(800, 1400)
    )
    report = "\n".join(faults)
    assert "book/intro.html: page did not finish rendering at window width 800 px" in faults
    assert any(
        f.startswith("search.html: probe error at window width 800 px: TypeError") for f in faults
    ), report
    assert not [
        f for f in faults if "probe status" in f and "genindex" not in f and "ridge" not in f
    ], report
    assert (
        "book/ridge.html: page did not finish rendering (probe status 'running'; "
        "MathJax or a script hung or failed)"
    ) in faults, report
    assert (
        "genindex.html: page did not finish rendering (probe status 'error'; "
        "MathJax or a script hung or failed)"
    ) in faults, report
    assert any(f.startswith("genindex.html: probe error: TypeError") for f in faults), report


def test_check_site_validates_its_inputs(tmp_path):
    with pytest.raises(ValueError, match="html_dir"):
        check_site(tmp_path / "absent")
    (tmp_path / "a.html").write_text("<html><body></body></html>")
    with pytest.raises(ValueError, match="pages"):
        check_site(tmp_path, ["b.html"])
    with pytest.raises(ValueError, match="pages"):
        check_site(tmp_path, "a.html")
    with pytest.raises(ValueError, match="jobs"):
        check_site(tmp_path, jobs=0)
    with pytest.raises(ValueError, match="wait_ms"):
        check_site(tmp_path, wait_ms=1)
    for widths in ((), (800, 100), (800.0,), "800", 1400, (True,)):
        with pytest.raises(ValueError, match=r"widths must be .*\[320, 3840\]|widths must be a"):
            check_site(tmp_path, widths=widths)


def _explorer_curve(chromium, page, query):
    """The curve the explorer draws when opened at ``query`` (its controls set from the
    address, then drawn by the same handler a moved control calls)."""
    import html
    import json
    import subprocess

    from browser_check import CHROMIUM_FLAGS

    dom = subprocess.run(
        [chromium, *CHROMIUM_FLAGS, "--dump-dom", f"{page.as_uri()}#{query}"],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    values = re.search(r'data-log10e="([^"]*)"', dom)
    point = re.search(r'data-point="([^"]*)"', dom)
    assert values and point, dom[-2000:]
    return json.loads(html.unescape(values.group(1))), json.loads(html.unescape(point.group(1)))


def test_the_explorer_draws_the_precomputed_curves(chromium, built_book):
    """At two points set through its controls, the explorer page draws exactly the curve
    cotbook.book.explorer.interpolate gives from the committed record, and they differ."""
    import numpy as np

    from cotbook.book import explorer, records

    data = records.load("theory_explorer").data["page"]
    page = built_book.html / "book" / "explorer.html"
    drawn = []
    for alpha, tau, s in ((0.5, 3.0, 1), (2.0, 5.0, 3)):
        sigma2 = data["levels"][s]["sigma2"]
        curve, (a, t, k) = _explorer_curve(
            chromium, page, f"alpha={alpha}&tau={tau}&sigma2={sigma2}&t=40"
        )
        assert k == s and a == pytest.approx(alpha, rel=1e-9) and t == pytest.approx(tau)
        assert np.abs(np.array(curve) - explorer.interpolate(data, a, t, s)).max() < 2e-6
        drawn.append(np.array(curve))
    assert np.abs(drawn[0] - drawn[1]).max() > 0.5
