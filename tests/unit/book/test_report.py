import numpy as np
import pytest

from cotbook.book import report


def test_max_rel_diff():
    assert report.max_rel_diff([1.0, 2.0], [1.0, 4.0]) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="same shape"):
        report.max_rel_diff([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="identically zero"):
        report.max_rel_diff([1.0], [0.0])
    with pytest.raises(ValueError, match="a must contain only finite"):
        report.max_rel_diff([np.nan], [1.0])


def test_check_prints_and_raises(capsys):
    report.check("agreement", 3e-13, 1e-12)
    assert capsys.readouterr().out == "agreement: max error 3.0e-13 <= 1e-12\n"
    with pytest.raises(AssertionError, match="exceeds the tolerance"):
        report.check("agreement", 2e-12, 1e-12)
    with pytest.raises(ValueError, match="error must be a finite number >= 0"):
        report.check("agreement", float("nan"), 1e-12)
    with pytest.raises(ValueError, match="tol must be a finite number > 0"):
        report.check("agreement", 0.0, 0.0)


def test_check_can_print_only_its_verdict(capsys):
    """A ratio of two round-off quantities: its digits change with the machine, the verdict not."""
    report.check("difference / bound", 0.022, 1.0, verdict=True)
    report.check("difference / bound", 0.011, 1.0, verdict=True)
    assert capsys.readouterr().out == "difference / bound <= 1: yes\n" * 2
    with pytest.raises(AssertionError, match="max error 1.5e\\+00 exceeds the tolerance 1e\\+00"):
        report.check("difference / bound", 1.5, 1.0, verdict=True)


def test_markdown_formats_and_refuses_bad_rows():
    md = report.markdown(["name", "$x$"], [["a", 0.5], ["bbb", 12]], ["{}", "{:.1%}"])
    assert md.data == "| name | $x$ |\n|---:|---:|\n| a | 50.0% |\n| bbb | 12 |"
    assert report.markdown(["x"], [[None]]).data.endswith("| — |")  # nothing measured
    with pytest.raises(ValueError, match="every row must have 2 entries"):
        report.markdown(["name", "x"], [["a"]])
    with pytest.raises(ValueError, match="must not contain '\\|'"):
        report.markdown(["$|e|$"], [[1.0]])


def test_bound():
    assert report.bound(3e-13) == "< 1e-12"
    assert report.bound(3e-12) == "< 1e-11"
    assert report.bound(0.002) == "2.0e-03"
    # at decade resolution: an error bound whose digits are round-off
    assert report.bound(3.8e-13, report.DECADES) == report.bound(4.0e-13, report.DECADES)
    assert [report.bound(v, report.DECADES) for v in (0.0, 6.3e-9, 0.5)] == [
        "< 1e-16",
        "< 1e-08",
        "< 1e+00",
    ]
    with pytest.raises(ValueError, match="value must be a finite number >= 0"):
        report.bound(-1.0)
