"""A record's provenance: the code that produced it (found under the checkout), the machine."""

from cotbook.book import records
from cotbook.book.records import provenance


def test_cpu_names_the_model_and_the_vector_sets_read_from_cpuinfo(tmp_path, monkeypatch):
    """The CPU a record was written on: its float32 training rounds by the vector set."""
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: Some CPU 9\nflags\t\t: fpu sse2 avx2 fma\n")
    real = provenance.Path
    monkeypatch.setattr(provenance, "Path", lambda p: info if p == "/proc/cpuinfo" else real(p))
    assert records.cpu() == {"model": "Some CPU 9", "vector": ["avx2", "fma"]}
    info.write_text("model name\t: Other\nflags\t\t: avx2 fma avx512f avx512bw\n")
    assert records.cpu() == {"model": "Other", "vector": ["avx2", "fma", "avx512f"]}
    info.unlink()
    assert records.cpu()["vector"] is None


def test_source_hash_ignores_docstrings_and_comments(tmp_path, monkeypatch):
    (tmp_path / "demo_mod_a.py").write_text('"""Doc."""\nx = 1  # one\n')
    (tmp_path / "demo_mod_b.py").write_text('"""Other doc."""\n\nx = 1\n')
    (tmp_path / "demo_mod_c.py").write_text('"""Doc."""\nx = 2\n')
    monkeypatch.setattr(provenance, "ROOT", tmp_path)  # modules are found on disk, not imported
    assert len(records.source_hash(["demo_mod_a"])) == 16
    assert provenance._code_of("demo_mod_a") == provenance._code_of("demo_mod_b")
    assert records.source_hash(["demo_mod_c"]) != records.source_hash(["demo_mod_a"])
    (tmp_path / "demo_mod_d.py").write_text("x = 1\n")
    (tmp_path / "demo_mod_e.py").write_text('"""Doc."""\n# a comment\nx = (1)\n')
    assert provenance._code_of("demo_mod_d") == provenance._code_of("demo_mod_e")


def test_every_record_is_produced_by_its_roots_found_under_the_checkout():
    """The modules are found under ROOT: a wrong one finds none, every closure is empty, every
    committed record reads stale and one written then would never stale (issue 64 moved the
    records one folder deeper)."""
    assert (provenance.ROOT / "cotbook" / "book" / "records" / "provenance.py").is_file()
    for name, spec in records.RESULTS.items():
        assert {"cotbook", *spec.roots} <= set(spec.producers), name
    scaling = records.RESULTS["engine_scaling"].producers
    assert {"cotbook.book.records.store", "cotbook.book.runs.runner"} <= set(scaling)
    assert "cotbook.book.authors.manifest" in records.RESULTS["authors_released"].producers
    assert "cotbook.theory" in records.RESULTS["ridge_depths"].producers
