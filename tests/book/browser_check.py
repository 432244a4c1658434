"""Render built book pages in headless Chromium and report what a reader would see broken.

`check_site(html_dir)` copies the built HTML into a temporary folder, injects
`browser_probe.js` into each page and opens the pages in one headless Chromium, in a few tabs
at once (each opens its pages one after another), which it drives over the DevTools protocol on
a pipe (standard library only); it reads the probe's result back from each page. It returns one
line per fault, each starting with the page, e.g. ``book/model.html: red TeX text
'\\undefinedmacro'``:

- math: a Sphinx math element MathJax did not typeset, TeX delimiters left as text, a TeX error
  or an undefined macro (MathJax draws those in red), MathJax that never loads or finishes;
- images: an <img> the browser could not load, or whose file is not in the build;
- cell outputs: tracebacks, error outputs, stderr outputs, exception lines in an output (except
  in a cell whose code catches exceptions and prints them on purpose);
- links: a relative link to a file missing from the build, or whose #fragment names no element
  on the target page (external http(s)/mailto links are not followed);
- the console: every error and warning the page's console shows while it is open, at every
  width (console.error/warn/assert, an uncaught exception or rejected promise, a file the
  browser could not load: CONSOLE_EVENTS), e.g. ``book/model.html: console error: Uncaught
  SyntaxError: Identifier 'x' has already been declared (at book/model.html:63)``;
- glyphs: text that needs a font the book does not ship (an emoji such as ✅, which a browser
  or PDF without an emoji font draws as an empty box; a private-use code point);
- layout, at each of WINDOW_WIDTHS: a printed line of a cell output that overflows its output box
  (so every line wider than the text column), a code cell's input (its <pre> or highlight block,
  hidden `hide-input` toggles opened) or another code block (a docstring's doctest on the API
  pages, a literal block) whose code is wider than its box, so that it scrolls (the fault names
  the widest code line), a cell output (text, HTML table) or a table whose
  content is wider than its box or passes the text column, a display equation cut off by its box
  or the column or drawn under its equation number, text of a figure drawn in the page (an
  inline SVG: the explorer's axes) that runs into other text of it; the fault names the element
  (its first 60 characters, an equation by its number and TeX) and by how many px it overflows
  at which width,
  e.g. ``book/model.html: display equation (2) '\\Read(...' is cut off by 199, 148, 130 px at
  window widths 800, 1400 px``. The page is opened and typeset in a window as wide as the
  widest width; then the window (the viewport) is narrowed to each narrower width, so that the
  theme's CSS media queries apply as in a window that wide, and the layout is measured again on
  the same page (no reload, no second MathJax typeset);
- a page whose probe does not report "done" in time (a hang or a script error), or whose layout
  cannot be measured at a narrower width, is a fault too; so is a tab or browser that crashes
  or stops answering (the browser is then started again for the pages left).

The test suite uses it on the real build (tests/test_browser.py) and on planted faults.
"""

from __future__ import annotations

import fcntl
import html
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from cotbook.book.build.pdf import find_chromium  # noqa: F401 (the tests import it from here)

PROBE_JS = Path(__file__).with_name("browser_probe.js")
PROBE = "window.__cotbookProbe"  # what the probe exposes: .result, .done, .layoutAt(width)
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
COMMAND_S = 20.0  # wall-clock limit (s) for a DevTools command that does not wait for the page
START_S = 60.0  # for the browser to start and answer its first command
MAX_STARTS = 3  # browsers started for one check_site (the first and two after crashes)
#: The DevTools events that carry what a page writes to the console (console.error(), an
#: uncaught exception, a file the browser could not load, ...), and the levels of those that
#: are faults, by their names in those events.
CONSOLE_EVENTS = ("Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded")
CONSOLE_LEVELS = {"error": "error", "assert": "error", "warning": "warning"}
CONSOLE_LIMIT = 20  # console faults reported per page
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
    heights: dict[str, int] | None = None,
) -> list[str]:
    """Open `pages` of the build in `html_dir` (default: all) in Chromium; return the faults.

    Each fault is one line "<page>: <what is wrong>". One browser opens the pages, `jobs` tabs
    at once; `wait_ms` is how long (real time) the probe waits for MathJax and images before it
    calls them failed; `timeout_s` is the wall-clock limit for one page (at all `widths`);
    `widths` are the browser window widths (px) at which the layout is checked. A dict passed
    as `heights` is filled with the length (px) of each page that rendered, at the widest width,
    its hidden code folded, as a reader first sees it (windows are WINDOW_HEIGHT px tall).
    The build itself is not modified: pages are probed in a temporary copy. Raises BrowserError
    if Chromium does not start, or fails (crashes, stops answering) MAX_STARTS times.
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

    probe = PROBE_JS.read_text().replace("__WAIT_MS__", str(wait_ms))
    with tempfile.TemporaryDirectory(prefix="cotbook-browser-", ignore_cleanup_errors=True) as tmp:
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

        browsers = _Browsers(chromium, Path(tmp))

        def run(page):
            return page, browsers.probe((site / page).as_uri(), widths, wait_ms, timeout_s)

        in_site = site.as_uri() + "/"  # (a console message names files by their URLs)
        try:
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                for page, (result, problems) in pool.map(run, to_open):
                    faults.extend(f"{page}: {p.replace(in_site, '')}" for p in problems)
                    if result is not None:
                        results[page] = result
        finally:
            browsers.close()

        # (the ids of a page whose probe did not finish are read from its HTML, when needed)
        ids_cache = {page: set(r["ids"]) for page, r in results.items() if "ids" in r}
        for page, result in results.items():
            if result.get("status") != "done":
                faults.append(
                    f"{page}: page did not finish rendering (probe status "
                    f"{result.get('status')!r}; MathJax or a script hung or failed)"
                )
            if heights is not None and "height" in result:
                heights[page] = int(result["height"])
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


class BrowserError(RuntimeError):
    """The browser did not start, exited, or stopped answering."""


class _Timeout(Exception):
    """A DevTools command (or an awaited event) got no answer in time."""


class _TabLost(Exception):
    """The tab's page crashed or the tab was closed."""


class _ProtocolError(Exception):
    """The browser answered a command with an error."""


class _ProbeError(Exception):
    """A script evaluated in the page threw."""


#: Run as `python -c _TRAMPOLINE IN OUT PROGRAM ARGS...`: makes the fds IN and OUT the fds 3
#: and 4, then runs PROGRAM.
_TRAMPOLINE = (
    "import os, sys; a = sys.argv; os.dup2(int(a[1]), 3); os.dup2(int(a[2]), 4); "
    "os.close(int(a[1])); os.close(int(a[2])); os.execv(a[3], a[3:])"
)


def _high_fd(fd: int) -> int:
    """`fd` moved to a number >= 10, so that _TRAMPOLINE can dup it to 3 or 4 safely."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


class _Browser:
    """One headless Chromium driven over the DevTools protocol (--remote-debugging-pipe): it
    reads NUL-terminated JSON commands on its fd 3 and writes NUL-terminated JSON replies and
    events on its fd 4. A thread reads them; commands to a tab carry the sessionId of a flat
    session (Target.attachToTarget, flatten=true). Several threads may send commands at once."""

    def __init__(self, chromium: str, workdir: Path):
        self.profile = Path(tempfile.mkdtemp(prefix="profile-", dir=workdir))
        self._log = workdir / f"{self.profile.name}.log"
        self._cond = threading.Condition()
        self._write_lock = threading.Lock()
        self._next_id = 0
        self._replies: dict[int, dict | None] = {}  # id of a command waiting -> its reply
        self._events: dict[str, list[dict]] = {}  # events of each session, not yet awaited
        self._lost: dict[str, str] = {}  # sessions whose tab crashed or closed -> why
        self._shut = False
        self.closed: str | None = None  # why the browser can no longer be used
        commands_r, self._commands = os.pipe()
        self._replies_fd, replies_w = os.pipe()
        commands_r, replies_w = _high_fd(commands_r), _high_fd(replies_w)
        os.set_blocking(self._commands, False)
        # a Python trampoline puts the pipe's ends on the fds 3 and 4 that Chromium expects
        argv = [
            sys.executable,
            "-I",
            "-S",
            "-c",
            _TRAMPOLINE,
            str(commands_r),
            str(replies_w),
            chromium,
            *CHROMIUM_FLAGS,
            "--remote-debugging-pipe",
            f"--user-data-dir={self.profile}",
            "about:blank",
        ]
        try:
            with open(self._log, "wb") as log:
                self._proc = subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    pass_fds=(commands_r, replies_w),
                    start_new_session=True,  # its own process group: close() kills it whole
                )
        except OSError as err:
            os.close(self._commands)
            os.close(self._replies_fd)
            shutil.rmtree(self.profile, ignore_errors=True)
            raise BrowserError(f"Chromium did not start ({err})") from None
        finally:
            os.close(commands_r)
            os.close(replies_w)
        self._reader = threading.Thread(target=self._read, name="chromium-devtools", daemon=True)
        self._reader.start()
        try:
            self.command("Browser.getVersion", timeout=START_S)
        except (BrowserError, _ProtocolError) as err:
            self.close()
            raise BrowserError(f"Chromium did not start: {err}") from None

    def _read(self) -> None:
        pending = b""
        while True:
            try:
                chunk = os.read(self._replies_fd, 1 << 20)
            except OSError:
                chunk = b""
            if not chunk:
                break
            *messages, pending = (pending + chunk).split(b"\0")
            with self._cond:
                for raw in messages:
                    try:
                        self._dispatch(json.loads(raw))
                    except (ValueError, TypeError, AttributeError):
                        continue  # not a protocol message
                self._cond.notify_all()
        try:
            code = self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        with self._cond:
            if self.closed is None:
                self.closed = f"the browser exited (exit {code}{self._log_tail()})"
            self._cond.notify_all()

    def _dispatch(self, message: dict) -> None:
        if "id" in message:
            if message["id"] in self._replies:
                self._replies[message["id"]] = message
            return
        method, params = message.get("method"), message.get("params") or {}
        session = message.get("sessionId")
        if method == "Inspector.targetCrashed" and session:
            self._lost[session] = "the page crashed"
        elif method == "Target.detachedFromTarget":
            self._lost.setdefault(params.get("sessionId"), "the tab was closed")
        elif session:
            self._events.setdefault(session, []).append(message)

    def _log_tail(self) -> str:
        try:
            lines = self._log.read_text(errors="replace").strip().splitlines()[-3:]
        except OSError:
            return ""
        return "; " + " | ".join(lines) if lines else ""

    def _check(self, session: str | None) -> None:
        if self.closed is not None:
            raise BrowserError(self.closed)
        if session in self._lost:
            raise _TabLost(self._lost[session])

    def call(self, method: str, params=None, *, session=None, until: float) -> dict:
        """The result of one command (to the browser, or to a tab's `session`), which must come
        by `until` (time.monotonic()); else _Timeout."""
        message = {"method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        with self._cond:
            self._check(session)
            self._next_id += 1
            ident = message["id"] = self._next_id
            self._replies[ident] = None
        try:
            self._send(json.dumps(message).encode() + b"\0", method, until)
            with self._cond:
                while self._replies[ident] is None:
                    self._check(session)
                    left = until - time.monotonic()
                    if left <= 0:
                        raise _Timeout(f"no answer to {method}")
                    self._cond.wait(left)
                reply = self._replies[ident]
        finally:
            with self._cond:
                self._replies.pop(ident, None)
        if "error" in reply:
            raise _ProtocolError(f"{method}: {reply['error'].get('message')}")
        return reply.get("result") or {}

    def _send(self, data: bytes, method: str, until: float) -> None:
        view = memoryview(data)
        with self._write_lock:
            while view:
                if self._commands < 0:
                    raise BrowserError(self.closed or "the browser was closed")
                try:
                    view = view[os.write(self._commands, view) :]
                except BlockingIOError:  # the pipe is full: the browser does not read
                    left = until - time.monotonic()
                    if left <= 0:
                        raise _Timeout(f"the browser does not read {method}") from None
                    select.select([], [self._commands], [], min(left, 0.5))
                except OSError as err:
                    raise BrowserError(f"the browser does not read its commands ({err})") from None

    def command(self, method: str, params=None, timeout: float = COMMAND_S) -> dict:
        """A command to the browser itself; one it does not answer in time closes it."""
        try:
            return self.call(method, params, until=time.monotonic() + timeout)
        except _Timeout:
            self.close(f"the browser stopped answering (no answer to {method} in {timeout:g} s)")
            raise BrowserError(self.closed) from None

    def wait_event(self, session: str, method: str, until: float) -> dict:
        """The params of the next event `method` of `session` not yet awaited."""
        with self._cond:
            while True:
                events = self._events.get(session, [])
                for i, event in enumerate(events):
                    if event.get("method") == method:
                        del events[i]
                        return event.get("params") or {}
                self._check(session)
                left = until - time.monotonic()
                if left <= 0:
                    raise _Timeout(f"no {method}")
                self._cond.wait(left)

    def take_events(self, session: str, methods) -> list[dict]:
        """The messages of `session`'s events `methods` received so far (not awaited), in the
        order they came; they are removed."""
        kept, taken = [], []
        with self._cond:
            for event in self._events.get(session, []):
                (taken if event.get("method") in methods else kept).append(event)
            self._events[session] = kept
        return taken

    def forget(self, session: str) -> None:
        with self._cond:
            self._events.pop(session, None)

    def close(self, why: str = "the browser was closed", gently: bool = False) -> None:
        """Kill the browser (its whole process group), reap it, remove its profile. `gently`:
        ask it to close first (then it reaps its own child processes)."""
        if gently and self.closed is None:
            try:
                self.call("Browser.close", until=time.monotonic() + 5)
            except (BrowserError, _Timeout, _ProtocolError):
                pass
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        with self._cond:
            if self.closed is None:
                self.closed = why
            self._cond.notify_all()
            if self._shut:
                return
            self._shut = True
        try:  # (its group: the renderers too, even if the browser itself has exited)
            os.killpg(self._proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self._proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        self._reader.join(timeout=10)
        with self._write_lock:
            os.close(self._commands)
            self._commands = -1
        if not self._reader.is_alive():
            os.close(self._replies_fd)
        shutil.rmtree(self.profile, ignore_errors=True)
        self._log.unlink(missing_ok=True)


class _Tab:
    """A tab of `browser`, in a browser context of its own, that opens pages one after another.
    A call that fails or gets no answer in time marks it broken; closing it (disposing of its
    context) also ends a page that hangs."""

    def __init__(self, browser: _Browser):
        self.browser = browser
        self.broken = False
        self.showing = False  # a page is open (not the blank one)
        self.session: str | None = None
        self.context = browser.command("Target.createBrowserContext")["browserContextId"]
        try:
            target = browser.command(
                "Target.createTarget", {"url": "about:blank", "browserContextId": self.context}
            )["targetId"]
            attach = {"targetId": target, "flatten": True}
            self.session = browser.command("Target.attachToTarget", attach)["sessionId"]
            self.call("Inspector.enable")  # (its event Inspector.targetCrashed)
            self.call("Page.enable")  # (Page.loadEventFired)
            self.call("Runtime.enable")  # (the console: see CONSOLE_EVENTS)
            self.call("Log.enable")
        except (_Timeout, _TabLost, _ProtocolError) as err:
            self.close()
            browser.close(f"a new tab does not work ({err})")
            raise BrowserError(browser.closed) from None
        except BaseException:
            self.close()
            raise

    def call(self, method: str, params=None, until: float | None = None) -> dict:
        until = time.monotonic() + COMMAND_S if until is None else until
        try:
            return self.browser.call(method, params, session=self.session, until=until)
        except _Timeout:
            self._timed_out()
            raise
        except (_TabLost, _ProtocolError):
            self.broken = True
            raise

    def _timed_out(self) -> None:
        """After the page did not answer in time: BrowserError if the browser does not either
        (then the page is not to blame)."""
        self.broken = True
        self.browser.command("Browser.getVersion", timeout=min(COMMAND_S, 5.0))

    def evaluate(self, expression: str, until: float, wait: bool = False):
        """The (JSON) value of `expression` in the page (awaited if `wait`); _ProbeError if it
        throws."""
        params = {"expression": expression, "returnByValue": True, "awaitPromise": wait}
        reply = self.call("Runtime.evaluate", params, until)
        details = reply.get("exceptionDetails")
        if details:
            text = (details.get("exception") or {}).get("description") or details.get("text")
            raise _ProbeError(" ".join(str(text).split())[:300])
        return (reply.get("result") or {}).get("value")

    def load_event(self, until: float) -> None:
        try:
            self.browser.wait_event(self.session, "Page.loadEventFired", until)
        except _Timeout:
            self._timed_out()
            raise
        except _TabLost:
            self.broken = True
            raise

    def blank(self, width: int, widest: int) -> None:
        """Show a blank page in a window `width` px wide (leaving the page shown before first,
        so that it is not laid out again at the new width)."""
        if self.showing:
            self.call("Page.navigate", {"url": "about:blank"})
            self.load_event(time.monotonic() + COMMAND_S)
            self.showing = False
        self.browser.forget(self.session)  # events of the pages before
        self.call("Emulation.setDeviceMetricsOverride", _viewport(width, widest))

    def console(self) -> list[str]:
        """The errors and warnings on the console of the page shown (what has come so far)."""
        return _console_faults(self.browser.take_events(self.session, CONSOLE_EVENTS))

    def close(self) -> None:
        try:
            self.browser.command("Target.disposeBrowserContext", {"browserContextId": self.context})
        except (BrowserError, _ProtocolError):
            pass  # a browser that stopped answering is closed: the next page starts a new one
        if self.session is not None:
            self.browser.forget(self.session)


class _Browsers:
    """The browser the pages are opened in, shared by the worker threads (each opens its pages
    in a tab of its own): started when first needed, and again after it crashed or stopped
    answering (MAX_STARTS in all)."""

    def __init__(self, chromium: str, workdir: Path):
        self._chromium, self._workdir = chromium, workdir
        self._lock = threading.Lock()
        self._browser: _Browser | None = None
        self._starts = 0
        self._failed: BrowserError | None = None
        self._local = threading.local()  # .tab: the worker thread's tab

    def _get(self) -> _Browser:
        with self._lock:
            if self._failed is not None:
                raise self._failed
            if self._browser is not None and self._browser.closed is None:
                return self._browser
            if self._browser is not None:
                self._browser.close()
                if self._starts >= MAX_STARTS:
                    self._failed = BrowserError(
                        f"Chromium failed {self._starts} times; last: {self._browser.closed}"
                    )
                    raise self._failed
            self._starts += 1
            try:
                self._browser = _Browser(self._chromium, self._workdir)
            except BrowserError as err:
                self._failed = err
                raise
            return self._browser

    def _blank_tab(self, width: int, widest: int) -> _Tab:
        """The worker thread's tab, showing a blank page in a window `width` px wide."""
        browser = self._get()
        tab = getattr(self._local, "tab", None)
        self._local.tab = None
        if tab is not None and (tab.browser is not browser or tab.broken):
            tab.close()
            tab = None
        if tab is not None:
            try:
                tab.blank(width, widest)
                self._local.tab = tab
                return tab
            except (_Timeout, _TabLost, _ProtocolError):
                tab.close()
        tab = _Tab(browser)
        try:
            tab.blank(width, widest)
        except (_Timeout, _TabLost, _ProtocolError) as err:
            tab.close()
            browser.close(f"a new tab does not work ({err})")
            raise BrowserError(browser.closed) from None
        self._local.tab = tab
        return tab

    def probe(self, url: str, widths, wait_ms: int, timeout_s: float):
        """(probe result or None, problems) for the page at `url`; a page during which the
        browser failed is opened once more, in a new browser."""
        try:
            return self._probe(url, widths, wait_ms, timeout_s)
        except BrowserError:
            if self._failed is not None:
                raise
        try:
            return self._probe(url, widths, wait_ms, timeout_s)
        except BrowserError as err:
            if self._failed is not None:
                raise
            return None, [f"browser failed while the page was open ({err})"]

    def _probe(self, url: str, widths, wait_ms: int, timeout_s: float):
        tab = self._blank_tab(max(widths), max(widths))
        try:
            result, problems = _probe_page(tab, url, widths, wait_ms, timeout_s)
            return result, problems + tab.console()
        finally:
            if tab.broken:  # (closing it ends the page if that still runs or hangs)
                self._local.tab = None
                tab.close()

    def close(self) -> None:
        with self._lock:
            if self._browser is not None:
                self._browser.close(gently=True)


def _viewport(width: int, widest: int) -> dict:
    """Emulation.setDeviceMetricsOverride's params for a window `width` px wide (the screen is
    as wide as the widest window)."""
    return {
        "width": width,
        "height": WINDOW_HEIGHT,
        "deviceScaleFactor": 1,
        "mobile": False,
        "screenWidth": widest,
        "screenHeight": WINDOW_HEIGHT,
    }


def _probe_page(tab: _Tab, url: str, widths, wait_ms: int, timeout_s: float):
    """(probe result or None, problems) for the page at `url`, opened in `tab` (blank, in a
    window as wide as the widest of `widths`); the window is then narrowed to each of the other
    widths and the layout measured again. Raises BrowserError if the browser fails."""
    page_end = time.monotonic() + timeout_s
    too_slow = f"browser did not finish within {timeout_s:g} s"

    def by(seconds: float) -> float:
        return min(page_end, time.monotonic() + seconds)

    widest = max(widths)
    try:
        # The probe gives up on MathJax and images after at most 3 * wait_ms; the rest is
        # for loading the page.
        ready_by = by((3 * wait_ms + 5_000) / 1000)
        try:
            tab.showing = True
            navigated = tab.call("Page.navigate", {"url": url}, ready_by)
            if navigated.get("errorText"):
                return None, [f"page did not load ({navigated['errorText']})"]
            while True:  # (the probe runs before the page's load event)
                tab.load_event(ready_by)
                if tab.evaluate(f"!!{PROBE}", ready_by):
                    break
            result = tab.evaluate(f"{PROBE}.done", ready_by, wait=True)
        except _Timeout:
            if time.monotonic() >= page_end:
                return None, [too_slow]
            try:  # what the probe has written so far says where it stopped
                result = tab.evaluate(f"{PROBE}.result", by(5))
            except _Timeout:
                result = {"status": "unresponsive"}
        if not isinstance(result, dict):
            return None, [f"no probe result in the rendered page (got {result!r})"]
        if result.get("status") != "done":
            return result, []
        layout, faults = result.setdefault("layout", {}), result.setdefault("faults", [])
        for width in sorted((w for w in widths if w != widest), reverse=True):
            until = by((3 * wait_ms + 1_000) / 1000)
            try:
                tab.call("Emulation.setDeviceMetricsOverride", _viewport(width, widest), until)
                answer = tab.evaluate(f"{PROBE}.layoutAt({width})", until, wait=True)
            except _Timeout:
                if time.monotonic() >= page_end:
                    return result, [too_slow]
                faults.append(f"page did not finish rendering at window width {width} px")
                break  # a page that hangs stays hung
            except _ProbeError as err:
                answer = {"error": str(err)}
            if not isinstance(answer, dict) or answer.get("error"):
                error = answer.get("error") if isinstance(answer, dict) else repr(answer)
                faults.append(f"probe error at window width {width} px: {error}")
            else:
                layout[str(width)] = answer.get("layout") or []
        return result, []
    except _ProbeError as err:
        return None, [f"no probe result in the rendered page ({err})"]
    except _TabLost as err:
        return None, [f"browser tab failed: {err}"]
    except _ProtocolError as err:
        return None, [f"browser refused a command: {err}"]


def _console_faults(events: list[dict]) -> list[str]:
    """One fault per error or warning among the DevTools `events` (CONSOLE_EVENTS) of a page, in
    the order they came (at most CONSOLE_LIMIT), e.g. "console error: Uncaught SyntaxError:
    Identifier 'x' has already been declared (at file:///.../page.html:63)"."""
    faults = []
    for event in events:
        method, params = event["method"], event.get("params") or {}
        if method == "Runtime.consoleAPICalled":
            level = CONSOLE_LEVELS.get(params.get("type"))
            text = " ".join(_remote_text(arg) for arg in params.get("args") or [])
            frames = (params.get("stackTrace") or {}).get("callFrames") or [{}]
            where = frames[0]
        elif method == "Runtime.exceptionThrown":
            level, where = "error", params.get("exceptionDetails") or {}
            thrown = where.get("exception")
            text = where.get("text", "")
            if thrown:  # (only its first line: the message, not the stack)
                text = f"{text} {_remote_text(thrown).splitlines()[0]}"
        else:  # Log.entryAdded: what the browser itself reports (a file that did not load, ...)
            where = params.get("entry") or {}
            level = CONSOLE_LEVELS.get(where.get("level"))
            text = where.get("text", "")
        if level is None:
            continue
        at = where.get("url") or ""
        if at and isinstance(where.get("lineNumber"), int):
            at += f":{where['lineNumber'] + 1}"
        text = " ".join(text.split())[:300] + (f" (at {at})" if at else "")
        faults.append(f"console {level}: {text}")
    if len(faults) > CONSOLE_LIMIT:
        more = len(faults) - CONSOLE_LIMIT
        faults = faults[:CONSOLE_LIMIT] + [f"console: ... and {more} more errors and warnings"]
    return faults


def _remote_text(value: dict) -> str:
    """How the console prints a DevTools RemoteObject (a logged value, a thrown exception)."""
    if "value" in value:
        return str(value["value"])
    return str(value.get("unserializableValue") or value.get("description") or value.get("type"))


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
