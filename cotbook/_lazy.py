"""Faces whose names are imported on first use (ground of every wing's sub-packages).

A face lists its public names in a literal ``_LAZY`` table, name -> the module that defines it
(:func:`cotbook.book.records.import_closure` reads that table from the source, so importing one
module of a package runs only the modules it imports itself, and a record counts only the
modules it reaches), and takes its ``__getattr__`` and ``__dir__`` from :func:`face`.
"""

from __future__ import annotations

import importlib

__all__ = ["face"]


def face(namespace: dict, table: dict, *, keep: bool = True):
    """``(__getattr__, __dir__)`` of the package whose globals are ``namespace``: a name of
    ``table`` is imported on first use.  A name that is the last part of its module's name is
    that module (so a module of a sub-package is on the face under its own name); any other is
    the module's attribute of that name.  ``keep`` binds it in ``namespace``, so that the next
    look-up is a plain one; without it every look-up asks the module, so that a name patched
    where it is defined is patched on the face too.

    Examples
    --------
    >>> namespace = {"__name__": "demo"}
    >>> getattr_, dir_ = face(namespace, {"sqrt": "math", "json": "json"})
    >>> dir_()
    ['__name__', 'json', 'sqrt']
    >>> getattr_("sqrt")(4.0), getattr_("json").__name__, sorted(namespace)
    (2.0, 'json', ['__name__', 'json', 'sqrt'])
    """
    package = namespace["__name__"]

    def __getattr__(name):
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(table[name])
        value = module if table[name].rpartition(".")[2] == name else getattr(module, name)
        if keep:
            namespace[name] = value
        return value

    def __dir__():
        return sorted([*namespace, *table])

    return __getattr__, __dir__
