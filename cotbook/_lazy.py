"""Lazy faces: a package's public names, each imported from its module on first use.

A face lists its names as a literal ``_LAZY = {name: module}`` (read from the source by
:func:`cotbook.book.records.import_closure`, so that a record counts only the modules it
reaches) and takes its ``__getattr__`` and ``__dir__`` from :func:`face`.
"""

from __future__ import annotations

import importlib


def face(package: str, table: dict, namespace: dict, *, keep: bool = True):
    """``(__getattr__, __dir__)`` of the package ``package`` whose globals are ``namespace``.

    A name of ``table`` (name -> module) is imported on first use: the module itself where
    the name is the module's own, else the module's attribute of that name.  ``keep`` binds
    it in ``namespace``, so that the next look-up is a plain one; without it every look-up
    asks the module, so that a name patched where it is defined is patched here too.
    """

    def __getattr__(name):
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(table[name])
        value = module if table[name] == f"{package}.{name}" else getattr(module, name)
        if keep:
            namespace[name] = value
        return value

    def __dir__():
        return sorted([*namespace, *table])

    return __getattr__, __dir__
