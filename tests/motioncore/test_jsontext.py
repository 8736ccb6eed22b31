"""JSON with bounded nesting (issue 16, finding 9)."""

from __future__ import annotations

import pytest

from motioncore import jsontext


def test_depth_counts_brackets_outside_strings() -> None:
    assert jsontext.depth('{"a": [1, {"b": "[[[["}]}') == 3
    assert jsontext.depth("3") == 0
    assert jsontext.depth('"\\"[" ') == 0


def test_a_document_deeper_than_the_bound_is_refused_before_decoding() -> None:
    with pytest.raises(jsontext.TooDeep, match="5000 levels deep; at most 64"):
        jsontext.loads("[" * 5000 + "]" * 5000)
    assert jsontext.depth(str(jsontext.loads("[" * 64 + "]" * 64, max_depth=64))) == 64
    with pytest.raises(jsontext.TooDeep):
        jsontext.loads("[" * 65 + "]" * 65, max_depth=64)
    assert jsontext.loads('{"a": [1, 2]}') == {"a": [1, 2]}
