"""Every built page renders cleanly in a real browser (headless Chromium).

The checker (tests/book/browser_check.py) is shown to catch faults planted into a tiny book built
with the real MathJax configuration and into a copy of a real built page.
"""

import shutil

import jupytext
import nbformat
import pytest
import yaml
from book_build import ROOT, build_book
from browser_check import INSTALL_HINT, check_site, find_chromium, site_pages


@pytest.fixture(scope="session")  # session scope: it fails before the book is built
def chromium():
    path = find_chromium()
    if path is None:
        pytest.fail(INSTALL_HINT, pytrace=False)  # CI must run this test: never skip it
    return path


def test_every_page_renders_cleanly(chromium, built_book):
    assert (built_book.html / "index.html").is_file(), built_book.log[-3000:]
    pages = site_pages(built_book.html)
    assert len([p for p in pages if p.startswith("book/")]) >= 13
    faults = check_site(built_book.html, chromium=chromium)
    assert not faults, "pages with faults:\n" + "\n".join(faults)


TINY_MATH = r"""# Planted math

An undefined macro $\undefinedmacro{x}$ next to the book's own macros: $\vb{x}$,
$\E[x] = \Tr \mathbf{A}$ and

$$
\pdv{f}{x} = \Read(\Atten(\mathbf{P}))
$$
"""


def _tiny_page() -> str:
    """A MyST notebook (jupytext) with the planted math and one code cell."""
    kernelspec = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook = nbformat.v4.new_notebook(metadata={"kernelspec": kernelspec})
    notebook.cells = [nbformat.v4.new_markdown_cell(TINY_MATH),
                      nbformat.v4.new_code_cell('print("hello")')]
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
    faults = check_site(tiny_book.html, ["page.html"], chromium=chromium)
    # the book's macros (\vb, \E, \Tr, \pdv, \Read, \Atten) render; the undefined one is red
    assert faults == ["page.html: red TeX text '\\undefinedmacro'"]


def test_launch_buttons_appear_with_a_real_repository(tiny_book):
    page = (tiny_book.html / "page.html").read_text()
    assert "https://mybinder.org/v2/gh/example-org/cotbook-demo/main?urlpath=tree/page.md" in page
    assert "executablebooks/jupyter-book" not in page
    assert '<a href="_sources/page.ipynb"' in page  # the .ipynb download is there too
    assert (tiny_book.html / "_sources" / "page.ipynb").is_file()


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
    (html / "book" / "numerics.html").write_text(hang.replace(
        '<script defer="defer" src="../_static/mathjax/tex-chtml.js"></script>',
        "<script>window.MathJax = {startup: {promise: new Promise(() => {})}};</script>",
    ))
    # a page whose MathJax is missing from the build
    (html / "book" / "intro.html").write_text(
        (html / "book" / "intro.html").read_text().replace("tex-chtml.js", "no-mathjax.js"))

    faults = check_site(
        html, ["book/model.html", "book/numerics.html", "book/intro.html"],
        chromium=chromium, wait_ms=2000,
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
        "book/numerics.html: MathJax did not finish typesetting within 2000 ms",
        "book/intro.html: MathJax did not load (no MathJax.startup.promise after 2000 ms)",
    ]
    for fault in expected:
        assert fault in faults, f"not reported: {fault}\nreported:\n{report}"
    assert not [f for f in faults if "example.invalid" in f], report
    # the unplanted parts of the page are clean, so nothing else is reported there
    on_model = [f for f in faults if f.startswith("book/model.html: ")]
    assert len(on_model) == len([f for f in expected if f.startswith("book/model.html")]), report


def test_checker_reports_a_probe_that_never_finishes(chromium, built_book, tmp_path):
    html = tmp_path / "html"
    shutil.copytree(built_book.html, html)
    # Without MathJax and with timers that never fire, the probe waits forever: the browser's
    # time budget runs out before it reports "done", and that must be a fault.
    hang = html / "book" / "references.html"
    hang.write_text(hang.read_text().replace("tex-chtml.js", "no-mathjax.js").replace(
        "<head>", "<head><script>window.setTimeout = function () { return 0; };</script>", 1))
    # A page script that breaks the probe (an exception inside it) is a fault too.
    broken = html / "genindex.html"
    broken.write_text(broken.read_text().replace(
        "<head>", "<head><script>document.createTreeWalker = null;</script>", 1))
    faults = check_site(html, ["book/references.html", "genindex.html"], chromium=chromium,
                        wait_ms=500, timeout_s=60)
    report = "\n".join(faults)
    assert ("book/references.html: page did not finish rendering (probe status 'running'; "
            "MathJax or a script hung or failed)") in faults, report
    assert ("genindex.html: page did not finish rendering (probe status 'error'; "
            "MathJax or a script hung or failed)") in faults, report
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
