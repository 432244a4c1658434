"""Sphinx extension: every chapter downloadable as its executed .ipynb; no launch buttons that
point at a repository the book does not live in; the build's kernels on encrypted sockets.

sphinx-book-theme offers an ".ipynb" entry in a page's download menu only when its launch-button
code has run, and that code runs only when a launch provider (Binder, ...) is configured. But
Jupyter Book's default ``repository.url`` is the Jupyter Book repository itself, so turning Binder
on without a real repository makes every launch button open someone else's project. This
extension separates the two:

- for every notebook page it copies the executed notebook (``<build>/jupyter_execute/<page>.ipynb``)
  to ``_sources/<page>.ipynb`` and sets ``ipynb_source``, so the download menu lists ".ipynb";
- when ``repository.url`` is empty or still Jupyter Book's default, it switches the launch
  providers off (and clears the repository URL), so no launch button is made; once the real
  repository URL is set in ``_config.yml``, the configured Binder buttons appear.

- myst-nb executes the chapters through jupyter-cache and nbclient, which create their kernel
  managers with no configuration a book can pass; the extension makes
  :func:`cotbook.book.build.chapters.kernel_config` (CurveZMQ keys, so ipykernel has no cause
  to warn "Kernel is running over TCP without encryption") the default of
  ``jupyter_client``'s ``KernelManager`` while the book builds.

- Figure numbers follow ``cotbook_figure_numbers`` (a config value of this extension; the book
  sets it false, since each caption names the paper's figure it regenerates). Sphinx's
  ``numfig`` cannot say so itself: sphinx-jupyterbook-latex, which Jupyter Book always loads,
  sets ``numfig = True`` in every build, HTML included.

Enable it in ``_config.yml`` under ``sphinx.extra_extensions`` as
``cotbook.book.sphinx.notebooks``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

#: Jupyter Book's default_config.yml sets repository.url to its own repository.
PLACEHOLDER_REPOSITORIES = ("https://github.com/executablebooks/jupyter-book",)
#: Launch-button providers of sphinx-book-theme that build links into the repository.
LAUNCH_PROVIDERS = (
    "binderhub_url",
    "jupyterhub_url",
    "colab_url",
    "deepnote_url",
    "jupyterlite_url",
    "thebe",
)


def has_real_repository(repository_url) -> bool:
    """Whether `repository_url` names the book's own repository (not empty, not the default)."""
    if repository_url is None:
        return False
    if not isinstance(repository_url, str):
        raise ValueError(f"repository_url must be a string, got {type(repository_url).__name__}")
    url = repository_url.strip().rstrip("/")
    if url.endswith(".git"):
        url = url[: -len(".git")]
    return bool(url) and url.lower() not in PLACEHOLDER_REPOSITORIES


def _launch_buttons_need_repository(app, config) -> None:
    options = dict(config.html_theme_options or {})
    if has_real_repository(options.get("repository_url")):
        return
    launch = dict(options.get("launch_buttons") or {})
    enabled = [key for key in LAUNCH_PROVIDERS if launch.get(key)]
    if enabled:
        logger.info(
            "cotbook.book.sphinx.notebooks: no repository.url in _config.yml, launch buttons "
            f"({', '.join(enabled)}) left out"
        )
    for key in LAUNCH_PROVIDERS:
        launch[key] = False if key == "thebe" else ""
    options["launch_buttons"] = launch
    options["repository_url"] = ""
    config.html_theme_options = options


def _add_notebook_download(app, pagename, templatename, context, doctree) -> None:
    if doctree is None or app.builder.format != "html":
        return
    metadata = app.env.metadata.get(pagename, {})
    if "kernelspec" not in metadata:
        return  # not a notebook page
    executed = Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"
    if not executed.is_file():
        logger.warning(
            f"cotbook.book.sphinx.notebooks: no executed notebook for {pagename}: {executed}"
        )
        return
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(executed, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


def _encrypted_kernels() -> None:
    from jupyter_client.manager import KernelManager

    from ..build.chapters import kernel_config

    traits = KernelManager.class_traits()
    for name, value in kernel_config()["KernelManager"].items():
        traits[name].default_value = value


def _figure_numbers(app, config) -> None:
    config.numfig = bool(config.cotbook_figure_numbers)


def setup(app):
    _encrypted_kernels()
    app.add_config_value("cotbook_figure_numbers", True, "env", [bool])
    # after sphinx-jupyterbook-latex's config-inited handler (priority 500) forced numfig on
    app.connect("config-inited", _figure_numbers, priority=900)
    # config-inited with a priority after Jupyter Book/sphinx-book-theme have filled the options
    app.connect("config-inited", _launch_buttons_need_repository, priority=900)
    # before sphinx-book-theme's header buttons (priority 501) read ipynb_source
    app.connect("html-page-context", _add_notebook_download, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
