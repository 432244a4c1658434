"""The "Working on a chapter" commands of the chapter *Running the book* (book/running.md) do what
that chapter says.

The commands are read from the chapter and run as written (a line ending in a backslash goes on
in the next, as in the shell), with `.venv/bin/` pointing at this environment's scripts, in a
sandbox: the root of a one-chapter book whose chapter (named as in the commands) is a tiny MyST
notebook with the real chapters' front matter, printing a number and its working folder. So the
test takes seconds, executes no real chapter, and writes nothing into the repository or into
`.venv`. It checks that JupyterLab runs with jupytext's server and lab extensions, that the
chapter's set-up makes `.md` files open as notebooks, that a live JupyterLab started by the
chapter's command serves the chapter as a notebook and saves it back unchanged, and that both
commands that execute a chapter execute it, in `book/`, without the kernel's "running over TCP
without encryption" warning from the project's own runner (whose Sphinx extension gives a book
build's kernels the same settings).
"""

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from importlib.metadata import version
from pathlib import Path

import nbformat
import pytest
from jupyter_core.paths import jupyter_config_path

from cotbook.book.build import chapters
from cotbook.book.sphinx import notebooks as sphinx_notebooks

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "book" / "running.md"  # the chapter that holds the commands
VENV_BIN = Path(sys.executable).parent
TCP_WARNING = "running over TCP without encryption"
# The sandbox chapter: what its two code cells print (a number, and the folder it runs in).
CELLS = ("print(2**10)", "import os\n\nprint(os.path.basename(os.getcwd()))")
PRINTED = ["1024\n", "book\n"]


def guide_commands() -> list[str]:
    """The commands of the bash blocks in the "Working on a chapter" section of book/running.md,
    one a line once the shell's line continuations (a backslash ending a line) are joined."""
    text = GUIDE.read_text()
    section = re.search(r"^## Working on a chapter\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert section, f"{GUIDE.name} has no section '## Working on a chapter'"
    blocks = re.findall(r"```bash\n(.*?)```", section.group(1), re.S)
    lines = [line for block in blocks for line in block.replace("\\\n", "").splitlines()]
    return [line.strip() for line in lines if line.strip()]


def test_guide_commands_join_continued_lines():
    """The chapter breaks long commands to fit its code column; joined, they are four commands."""
    assert "\\\n" in GUIDE.read_text()
    assert len(guide_commands()) == 4
    assert not [c for c in guide_commands() if c.endswith("\\")]


def command(*words: str) -> str:
    """The one command of the chapter containing every one of ``words``."""
    found = [c for c in guide_commands() if all(w in c for w in words)]
    assert len(found) == 1, f"expected one command with {words} in {GUIDE.name}, got {found}"
    return found[0]


def in_venv(cmd: str) -> str:
    """``cmd`` with the chapter's ``.venv/bin/`` replaced by this environment's scripts folder."""
    return cmd.replace(".venv/bin/", f"{VENV_BIN}/")


def run(cmd: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    result = subprocess.run(
        in_venv(cmd), shell=True, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    assert result.returncode == 0, f"{cmd}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    return result


def chapter_name() -> str:
    """The chapter every command names (``book/<name>.md``, ``chapters <name>``)."""
    lab = command("jupyter lab")
    match = re.search(r"book/(\w+)\.md", lab)
    assert match, f"the JupyterLab command opens no book/<chapter>.md: {lab}"
    return match.group(1)


def code_outputs(path: Path) -> list[str]:
    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.source for c in cells] == list(CELLS)
    return ["".join(o.get("text", "") for o in c.outputs) for c in cells]


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory) -> Path:
    """A book root with one tiny chapter in the chapters' format, named as in the commands."""
    root = tmp_path_factory.mktemp("chapter_sandbox")
    name = chapter_name()
    (root / "_toc.yml").write_text(f"format: jb-book\nroot: book/{name}\n")
    (root / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    front = (ROOT / "book" / "intro.md").read_text().split("---\n\n", 1)[0]
    body = "".join(f"```{{code-cell}} ipython3\n{source}\n```\n\n" for source in CELLS)
    (root / "book").mkdir()
    (root / "book" / f"{name}.md").write_text(
        front + "mystnb:\n  execution_timeout: 300\n---\n\n# Tiny\n\n" + body.rstrip("\n") + "\n"
    )
    return root


def test_commands_name_one_real_chapter():
    name = chapter_name()
    assert name in {p.stem for p in chapters.chapter_paths(ROOT)}
    assert name != chapters.README_FIGURE[0]  # that chapter also rewrites a README image
    assert f"chapters {name}" in command("-m cotbook chapters")
    assert f"book/{name}.md" in command("jupytext", "--execute")


@pytest.mark.slow
def test_jupyterlab_and_nbconvert_are_pinned_and_run(lab):
    pins = dict(
        line.split("==") for line in (ROOT / "requirements.txt").read_text().split() if "==" in line
    )
    # the version the chapter's JupyterLab command runs (live, started by the `lab` fixture,
    # which the tests below share) shows in its page: no second JupyterLab start for it
    shown = page_config(lab)["appVersion"]
    assert shown == pins["jupyterlab"] == version("jupyterlab")
    assert pins["nbconvert"] == version("nbconvert")  # what jupytext --execute runs on
    assert pins["jupytext"] == version("jupytext")


@pytest.fixture(scope="module")
def viewer_settings(sandbox) -> Path:
    """Run the chapter's default-viewer command in the sandbox; the settings file it writes."""
    cmd = command("jupytext-config", "set-default-viewer")
    run(cmd, sandbox)
    words = shlex.split(cmd)
    return sandbox / words[words.index("--settings-file") + 1]


def test_default_viewer_command_makes_md_open_as_notebook(viewer_settings, sandbox):
    # The file lies in the venv's Jupyter config folder, which JupyterLab reads.
    relative = viewer_settings.relative_to(sandbox).as_posix()
    assert relative == ".venv/etc/jupyter/labconfig/default_setting_overrides.json"
    assert Path(sys.prefix) / "etc" / "jupyter" in [Path(p) for p in jupyter_config_path()]
    settings = json.loads(viewer_settings.read_text())
    viewers = settings["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]
    assert viewers["markdown"] == "Jupytext Notebook"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def lab(sandbox, viewer_settings):
    """The chapter's JupyterLab command, live in the sandbox: a function ``(path, body) -> JSON``
    for its REST API. The sandbox's `.venv/etc/jupyter` stands in for the real venv's."""
    port, token = free_port(), "lab-test"
    extra = f" --no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port={port}"
    extra += f" --IdentityProvider.token={token}"
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        extra += " --allow-root"
    env = dict(
        os.environ,
        JUPYTER_CONFIG_PATH=str(viewer_settings.parent.parent),
        JUPYTER_RUNTIME_DIR=str(sandbox / "runtime"),
    )
    log = sandbox / "jupyterlab.log"
    with log.open("w") as sink:
        proc = subprocess.Popen(
            in_venv(command("jupyter lab")) + extra,
            shell=True,
            cwd=sandbox,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def api(path, body=None):
        """GET ``path`` (PUT ``body`` when given); the decoded JSON, or the text of a page."""
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/{path}",
            data=None if body is None else json.dumps(body).encode(),
            method="GET" if body is None else "PUT",
            headers={"Authorization": f"token {token}"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read().decode()
        return json.loads(text) if "json" in response.headers["Content-Type"] else text

    deadline = time.monotonic() + 90
    while True:
        try:
            api("api/status")
            break
        except OSError:
            assert proc.poll() is None, f"JupyterLab exited at start-up:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"JupyterLab not up in 90 s:\n{log.read_text()}"
            time.sleep(0.5)
    api.log = log
    yield api
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=30)


def page_config(lab) -> dict:
    """The configuration JupyterLab's page carries (its version, its extensions)."""
    config = re.search(r'<script id="jupyter-config-data"[^>]*>(.*?)</script>', lab("lab"), re.S)
    assert config, "JupyterLab's page carries no jupyter-config-data"
    return json.loads(config.group(1))


@pytest.mark.slow
def test_jupyterlab_runs_jupytext_server_and_lab_extensions(lab):
    """jupytext's server extension (its contents manager, which reads .md files as notebooks)
    and its JupyterLab extension (the *Jupytext Notebook* viewer) are both active."""
    assert "jupyterlab_jupytext | extension was successfully loaded" in lab.log.read_text()
    page = page_config(lab)
    federated = {e["name"] for e in page["federated_extensions"]}
    assert "jupyterlab-jupytext" in federated
    assert "jupyterlab-jupytext" not in page.get("disabledExtensions", {})


@pytest.mark.slow
def test_jupyterlab_opens_chapter_as_notebook_and_saves_it_unchanged(lab, sandbox):
    name = chapter_name()
    plugin = lab("lab/api/settings/@jupyterlab/docmanager-extension:plugin")
    viewers = plugin["schema"]["properties"]["defaultViewers"]["default"]
    assert viewers["markdown"] == "Jupytext Notebook"
    # The server's root is the sandbox (the repository in the chapter), so jupytext reads the
    # [tool.jupytext] options of its pyproject.toml.
    model = lab(f"api/contents/book/{name}.md?type=notebook&content=1")
    assert model["type"] == "notebook"
    cells = model["content"]["cells"]
    assert [c["source"] for c in cells if c["cell_type"] == "code"] == list(CELLS)
    assert model["content"]["metadata"]["kernelspec"]["name"] == "python3"
    saved = {"type": "notebook", "format": "json", "content": model["content"]}
    lab("api/contents/book/saved.md", saved)
    original = (sandbox / "book" / f"{name}.md").read_text()
    assert (sandbox / "book" / "saved.md").read_text() == original


@pytest.mark.slow
def test_cotbook_chapters_command_executes_the_chapter(sandbox):
    name = chapter_name()
    result = run(command("-m cotbook chapters"), sandbox)
    assert code_outputs(chapters.executed_copy(sandbox, Path(f"{name}.md"))) == PRINTED
    assert TCP_WARNING not in result.stderr


@pytest.mark.slow
def test_jupytext_scratch_command_executes_the_chapter(sandbox):
    cmd = command("jupytext", "--execute")
    run(cmd, sandbox)
    words = shlex.split(cmd)
    out = sandbox / words[words.index("--output") + 1]
    assert out.parent.relative_to(sandbox).parts[0] == "_build"
    assert code_outputs(out) == PRINTED


def test_book_build_kernels_get_the_runner_settings():
    """The book's Sphinx extension gives the kernels myst-nb starts during a book build (through
    jupyter-cache and nbclient, with no configuration of ours) the chapter runner's settings."""
    from jupyter_client.manager import AsyncKernelManager, KernelManager

    trait = KernelManager.class_traits()["transport_encryption"]
    before = trait.default_value
    try:
        sphinx_notebooks._encrypted_kernels()
        assert AsyncKernelManager().transport_encryption == "auto"
    finally:
        trait.default_value = before
    assert AsyncKernelManager().transport_encryption == before == "disabled"
