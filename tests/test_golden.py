"""The command line's JSON for a fixed list of samples equals what was kept in
``tests/golden/`` (see :mod:`support.golden`): a refactoring changes no output."""

from __future__ import annotations

import pytest

from support import golden


@pytest.mark.parametrize("name", sorted(golden.CASES))
def test_output_equals_the_golden_one(name: str) -> None:
    assert golden.golden_path(name).is_file(), f"write it: python {golden.__file__} --write"
    assert golden.run_case(name) == golden.read(name)
