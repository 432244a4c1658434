"""The order a test run hands out its files (tests/file_order.py, read by tests/conftest.py)."""

import file_order


def test_files_run_slowest_first_each_file_whole_and_in_its_order():
    files = ["a.py", "b.py", "a.py", "c.ipynb", "new.py", "c.ipynb", "b.py"]
    seconds = {"a.py": 1.0, "b.py": 5.0, "c.ipynb": 3.0, "gone.py": 9.0}
    ranked = file_order.slowest_first(files, seconds)
    assert sorted(ranked) == list(range(len(files)))  # every item once
    # a file the record does not know first, then 5 s, 3 s, 1 s; each file's items in order
    assert ranked == [4, 1, 6, 3, 5, 0, 2]
    # equal costs keep the collection's order
    assert file_order.slowest_first(["x", "y", "x"], {"x": 2.0, "y": 2.0}) == [0, 2, 1]
    assert file_order.slowest_first([], seconds) == []
