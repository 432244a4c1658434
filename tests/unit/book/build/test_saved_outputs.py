"""cotbook.book.build.chapters: the saved notebooks do not depend on how the kernel split its
output."""

import nbformat

from cotbook.book.build import chapters


def test_coalesce_streams_merges_consecutive_prints_of_one_stream():
    out = [
        nbformat.v4.new_output("stream", name="stdout", text="a\n"),
        nbformat.v4.new_output("stream", name="stdout", text="b\n"),
        nbformat.v4.new_output("stream", name="stderr", text="warn\n"),
        nbformat.v4.new_output("stream", name="stdout", text="c\n"),
        nbformat.v4.new_output("display_data", data={"text/plain": "x"}),
        nbformat.v4.new_output("stream", name="stdout", text="d\n"),
    ]
    merged = chapters.coalesce_streams(out)
    assert [(o.output_type, o.get("name"), o.get("text")) for o in merged] == [
        ("stream", "stdout", "a\nb\n"),
        ("stream", "stderr", "warn\n"),
        ("stream", "stdout", "c\n"),
        ("display_data", None, None),
        ("stream", "stdout", "d\n"),
    ]
