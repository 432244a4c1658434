"""Licences, citation and version: the files a reuser needs exist and agree with the package."""

import re
import tomllib
from datetime import date

import yaml

from cotbook import __version__
from cotbook.book import records
from cotbook.book.sphinx import footer as sphinx_footer

ROOT = records.ROOT


def test_licence_files_name_their_licences():
    code = (ROOT / "LICENSE").read_text()
    content = (ROOT / "LICENSE-CONTENT").read_text()
    assert code.startswith("BSD 3-Clause License") and "Neither the name" in code
    assert "Creative Commons Attribution 4.0" in content
    assert sphinx_footer.CONTENT_LICENCE_URL + "legalcode" in content


def test_citation_file_matches_the_package():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    required = {"cff-version", "message", "type", "title", "authors", "version", "date-released"}
    assert required | {"license", "references"} <= set(cff), required - set(cff)
    assert cff["cff-version"] == "1.2.0"
    assert cff["version"] == __version__
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["version"] == __version__
    assert cff["license"] == sphinx_footer.CODE_LICENCE
    # a quoted ISO date: unquoted, YAML reads a date object, which CFF's schema refuses
    assert isinstance(cff["date-released"], str)
    assert date.fromisoformat(cff["date-released"]) >= date(2026, 11, 21)  # the first commit
    # the book's public repository, where it has one: the same address as the book's buttons
    url = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]
    assert cff.get("repository-code", "") == url


def test_citation_file_cites_the_paper_and_the_authors_code():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    paper, code = cff["references"]
    assert (paper["type"], paper["status"], paper["year"]) == ("article", "preprint", 2026)
    assert paper["title"] == "An Asymptotic Theory of Chain-of-Thought in In-Context Learning"
    assert [(a["given-names"], a["family-names"]) for a in paper["authors"]] == [
        ("Kaito", "Takanami"),
        ("Cengiz", "Pehlevan"),
    ]
    assert "identifiers" not in paper and "doi" not in paper  # the paper's source gives none
    assert code["type"] == "software"
    assert code["repository-code"] == "https://github.com/taka255/cot_asymptotics"
    assert code["url"] == f"{code['repository-code']}/tree/{code['commit']}"
    bib = (ROOT / "book" / "references.bib").read_text()
    assert code["commit"] in bib.split("@misc{takanami2026code,", 1)[1].split("\n}", 1)[0]


def test_how_to_cite_gives_the_package_version():
    intro = (ROOT / "book" / "intro.md").read_text()
    section = intro.split("## How to cite", 1)[1].split("\n## ", 1)[0]
    assert re.search(rf"note\s*=\s*\{{Version {re.escape(__version__)};", section)
    assert "{cite}`takanami2026cot`" in section


def test_footer_marks_a_dirty_or_missing_commit():
    base = {"version": "9.9", "commit": "abcdef0123", "dirty": False}
    assert "git abcdef0 ·" in sphinx_footer.footer(base)
    assert "git abcdef0+dirty" in sphinx_footer.footer({**base, "dirty": True})
    assert "no git" in sphinx_footer.footer({**base, "commit": None})
    assert "&lt;b&gt;" in sphinx_footer.footer({**base, "version": "<b>"})  # escaped
