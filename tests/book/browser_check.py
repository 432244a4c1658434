"""Render built book pages in headless Chromium and report what a reader would see broken.

`check_site(html_dir)` copies the built HTML into a temporary folder, injects
`browser_probe.js` into each page, opens every page with `chromium --headless --dump-dom`
(several at once) and reads the probe's JSON back from the dumped DOM. It returns one line per
fault, each starting with the page, e.g. ``book/model.html: red TeX text '\\undefinedmacro'``:

- math: a Sphinx math element MathJax did not typeset, TeX delimiters left as text, a TeX error
  or an undefined macro (MathJax draws those in red), MathJax that never loads or finishes;
- images: an <img> the browser could not load, or whose file is not in the build;
- cell outputs: tracebacks, error outputs, stderr outputs, exception lines in an output (except
  in a cell whose code catches exceptions and prints them on purpose);
- links: a relative link to a file missing from the build, or whose #fragment names no element
  on the target page (external http(s)/mailto links are not followed);
- layout, at each of WINDOW_WIDTHS: a printed line of a cell output that overflows its output box
  (so every line wider than the text column), a code cell's input (its <pre> or highlight block,
  hidden `hide-input` toggles opened) whose code is wider than its box, so that it scrolls (the
  fault names the widest code line), a cell output (text, HTML table) or a table whose
  content is wider than its box or passes the text column, a display equation cut off by its box
  or the column or drawn under its equation number; the fault names the element (its first 60
  characters, an equation by its number and TeX) and by how many px it overflows at which width,
  e.g. ``book/model.html: display equation (2) '\\Read(...' is cut off by 199, 148, 130 px at
  window widths 800, 1400 px``. The page is opened in a window as wide as the widest width;
  the probe measures the narrower ones in a frame of that width (one browser per page);
- a page whose probe does not report "done" (a hang or a script error) is a fault too.

The test suite uses it on the real build (tests/test_browser.py) and on planted faults.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from cotbook.book.pdf import find_chromium  # noqa: F401 (the tests import it from here)

PROBE_JS = Path(__file__).with_name("browser_probe.js")
PROBE_ID = "cotbook-probe"
INSTALL_HINT = (
    "Chromium is needed for the browser rendering test but was not found on PATH. "
    "Install it with `apt-get install chromium` (Debian/Ubuntu; CI does this in .ci/run), "
    "or point COTBOOK_CHROMIUM at a Chromium/Chrome binary."
)
# Flags that work headless as root in a container (see the project's toolchain notes).
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--mute-audio",
)
SKIPPED_DIRS = ("_static", "_sources", "_images")
#: Browser window widths (px) each page is laid out at: Chromium's default headless window and a
#: laptop. The text column is 721 and 772 px wide at these widths (790 px at 1920: a wider
#: screen widens the column, so it adds no check and costs a layout per page).
WINDOW_WIDTHS = (800, 1400)
WINDOW_HEIGHT = 1000
MIN_WIDTH, MAX_WIDTH = 320, 3840
_PROBE_RE = re.compile(r'<pre[^>]*\bid="' + PROBE_ID + r'"[^>]*>(.*?)</pre>', re.S)
_REFRESH_RE = re.compile(r'<meta\s+http-equiv="refresh"\s+content="\d+\s*;\s*url=([^"]+)"', re.I)


def site_pages(html_dir: str | os.PathLike) -> list[str]:
    """Every HTML page of a build, as paths relative to `html_dir` ('book/model.html', ...)."""
    root = _html_root(html_dir)
    pages = []
    for path in sorted(root.rglob("*.html")):
        rel = path.relative_to(root)
        if rel.parts[0] not in SKIPPED_DIRS:
            pages.append(rel.as_posix())
    return pages


def check_site(
    html_dir: str | os.PathLike,
    pages: list[str] | None = None,
    *,
    chromium: str | None = None,
    jobs: int = 2,
    wait_ms: int = 10_000,
    timeout_s: float = 120.0,
    widths: tuple[int, ...] = WINDOW_WIDTHS,
) -> list[str]:
    """Open `pages` of the build in `html_dir` (default: all) in Chromium; return the faults.

    Each fault is one line "<page>: <what is wrong>". `jobs` browsers run at once; `wait_ms` is
    how long (in the browser's virtual time) the probe waits for MathJax and images before it
    calls them failed; `timeout_s` is the wall-clock limit for one browser run (one page at all
    `widths`); `widths` are the browser window widths (px) at which the layout is checked.
    The build itself is not modified: pages are probed in a temporary copy.
    """
    root = _html_root(html_dir)
    all_pages = site_pages(root)
    if pages is None:
        pages = all_pages
    else:
        if isinstance(pages, str):
            raise ValueError("pages must be a list of page paths, not a single string")
        missing = [p for p in pages if p not in all_pages]
        if missing:
            raise ValueError(f"pages: not HTML pages of {root}: {missing}")
    if not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
    if not isinstance(wait_ms, int) or wait_ms < 100:
        raise ValueError(f"wait_ms must be an integer >= 100, got {wait_ms!r}")
    if not timeout_s > 0:
        raise ValueError(f"timeout_s must be > 0, got {timeout_s!r}")
    widths = _checked_widths(widths)
    if chromium is None:
        chromium = find_chromium()
    if chromium is None or not Path(chromium).is_file():
        raise FileNotFoundError(INSTALL_HINT)

    frame_widths = sorted(w for w in widths if w != max(widths))
    probe = (
        PROBE_JS.read_text()
        .replace("__WAIT_MS__", str(wait_ms))
        .replace("__FRAME_WIDTHS__", json.dumps(frame_widths))
    )
    with tempfile.TemporaryDirectory(prefix="cotbook-browser-") as tmp:
        site = Path(tmp) / "site"
        _copy_tree(root, site)
        faults: list[str] = []
        results: dict[str, dict] = {}
        to_open = []
        for page in pages:
            text = (site / page).read_text(encoding="utf-8")
            refresh = _REFRESH_RE.search(text)
            if refresh:  # a redirect page (index.html): check where it points, do not open it
                target = (site / page).parent / html.unescape(refresh.group(1))
                results[page] = {
                    "status": "done",
                    "faults": [],
                    "ids": [],
                    "links": [target.resolve().as_uri()],
                    "images": [],
                }
                continue
            _replace_file(site / page, _inject(text, probe))
            to_open.append(page)

        def run(index_page):
            index, page = index_page
            profile = Path(tmp) / f"profile-{index}"
            return page, _run_chromium(
                chromium,
                site / page,
                profile,
                wait_ms,
                timeout_s,
                max(widths),
                frames=len(widths) - 1,
            )

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for page, (result, problem) in pool.map(run, enumerate(to_open)):
                if problem:
                    faults.append(f"{page}: {problem}")
                if result is not None:
                    results[page] = result

        ids_cache = {page: set(r.get("ids", [])) for page, r in results.items()}
        for page, result in results.items():
            if result.get("status") != "done":
                faults.append(
                    f"{page}: page did not finish rendering (probe status "
                    f"{result.get('status')!r}; MathJax or a script hung or failed)"
                )
            faults.extend(f"{page}: {fault}" for fault in result.get("faults", []))
            faults.extend(f"{page}: {fault}" for fault in _layout_faults(result))
            faults.extend(
                f"{page}: {fault}" for fault in _reference_faults(site, page, result, ids_cache)
            )
    return sorted(dict.fromkeys(faults))


def _checked_widths(widths) -> tuple[int, ...]:
    if isinstance(widths, (str, bytes)) or not hasattr(widths, "__iter__"):
        raise ValueError(f"widths must be a sequence of window widths in px, got {widths!r}")
    widths = tuple(widths)
    bad = [
        w
        for w in widths
        if isinstance(w, bool) or not isinstance(w, int) or not MIN_WIDTH <= w <= MAX_WIDTH
    ]
    if not widths or bad:
        raise ValueError(
            f"widths must be window widths in px, integers in [{MIN_WIDTH}, "
            f"{MAX_WIDTH}], at least one; got {widths!r}"
        )
    return tuple(dict.fromkeys(widths))


def _layout_faults(result: dict) -> list[str]:
    """One fault per layout finding of a page, naming its overflow at every window width where it
    occurs, e.g. "display equation (2) '...' is cut off by 199, 148 px at window widths 800,
    1400 px"."""
    by_what: dict[str, dict[int, int]] = {}
    layout = result.get("layout") or {}
    for width in sorted(layout, key=int):
        for finding in layout[width]:
            by_what.setdefault(finding["what"], {})[int(width)] = finding["px"]
    faults = []
    for what, by_width in by_what.items():
        sizes = ", ".join(str(px) for px in by_width.values())
        where = ", ".join(str(width) for width in by_width)
        plural = "s" if len(by_width) > 1 else ""
        faults.append(f"{what} by {sizes} px at window width{plural} {where} px")
    return faults


def _html_root(html_dir) -> Path:
    if html_dir is None or isinstance(html_dir, bool):
        raise ValueError("html_dir must be the path of a built HTML folder")
    root = Path(html_dir)
    if not root.is_dir():
        raise ValueError(f"html_dir is not a folder: {root}")
    return root.resolve()


def _copy_tree(src: Path, dst: Path) -> None:
    """Copy a build cheaply: hard links where possible (pages are replaced, never written in)."""

    def link_or_copy(a, b):
        try:
            os.link(a, b)
        except OSError:
            shutil.copy2(a, b)

    shutil.copytree(src, dst, copy_function=link_or_copy)


def _replace_file(path: Path, text: str) -> None:
    path.unlink()  # break a hard link to the original build before writing
    path.write_text(text, encoding="utf-8")


def _inject(page_html: str, probe: str) -> str:
    script = f"<script>\n{probe}\n</script>\n"
    at = page_html.rfind("</body>")
    if at < 0:
        return page_html + script
    return page_html[:at] + script + page_html[at:]


def _run_chromium(
    chromium, page: Path, profile: Path, wait_ms: int, timeout_s: float, width: int, frames: int = 0
):
    """(probe result or None, problem or None) for one page in a window `width` px wide, whose
    probe opens the page again in `frames` narrower frames."""
    # The probe may wait up to three times wait_ms (MathJax load, typeset, images), per frame too.
    budget = (1 + frames) * (3 * wait_ms + 1_000) + 5_000
    cmd = [
        chromium,
        *CHROMIUM_FLAGS,
        f"--window-size={width},{WINDOW_HEIGHT}",
        f"--user-data-dir={profile}",
        f"--virtual-time-budget={budget}",
        "--dump-dom",
        page.as_uri(),
    ]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return None, f"browser did not finish within {timeout_s:g} s"
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    matches = _PROBE_RE.findall(proc.stdout)
    if not matches:
        tail = (proc.stderr or "").strip().splitlines()[-3:]
        return None, (
            f"no probe result in the rendered page (chromium exit {proc.returncode}; "
            f"{' | '.join(tail)})"
        )
    try:
        return json.loads(html.unescape(matches[-1])), None
    except json.JSONDecodeError as err:
        return None, f"unreadable probe result ({err})"


def _reference_faults(site: Path, page: str, result: dict, ids_cache: dict) -> list[str]:
    """Links and images of one page that point at files (or #fragments) missing from the build."""
    faults = []
    for kind, urls in (("link", result.get("links", [])), ("image", result.get("images", []))):
        for url in urls:
            parts = urlsplit(url)
            if parts.scheme != "file":
                continue  # http(s), mailto, data:, javascript: are not part of the build
            target = Path(unquote(parts.path))
            try:
                rel = target.resolve().relative_to(site.resolve()).as_posix()
            except ValueError:
                faults.append(f"{kind} points outside the build: {target}")
                continue
            if not target.exists():
                what = "missing image file" if kind == "image" else "broken link"
                faults.append(f"{what}: {rel} is not in the build")
                continue
            fragment = unquote(parts.fragment)
            if kind == "link" and fragment and rel.endswith(".html"):
                if rel not in ids_cache:
                    ids_cache[rel] = _static_ids(target)
                if fragment not in ids_cache[rel]:
                    faults.append(f"broken link: {rel}#{fragment} (no element with that id)")
    return faults


class _IdCollector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value and (name == "id" or (name == "name" and tag == "a")):
                self.ids.add(value)


def _static_ids(path: Path) -> set[str]:
    collector = _IdCollector()
    collector.feed(path.read_text(encoding="utf-8", errors="replace"))
    return collector.ids
