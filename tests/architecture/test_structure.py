"""The layout holds the design: no import cycle in ``motioncore`` or ``webapp`` (imports
inside functions count), the import contracts of ``.importlinter`` hold, and no module
or function is over the size guideline (docs/STYLE: modules under 400 lines,
functions rarely over 60; the numba kernel is the one listed exception)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import grimp
import pytest

from support.architecture import import_cycles, long_functions, long_modules, python_files
from support.paths import REPO_ROOT

MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
SIZE_EXCEPTIONS = {"motioncore/bvh/kernel.py:_scan"}
"""``path:function`` allowed over the size: the jitted scanner of BVH numbers."""


@pytest.mark.parametrize("package", ["motioncore", "webapp"])
def test_no_import_cycle(package: str) -> None:
    graph = grimp.build_graph(package, cache_dir=None)
    assert import_cycles(graph, package) == []


def test_the_cycle_finder_finds_a_cycle_through_a_function_import(tmp_path: Path) -> None:
    package = tmp_path / "toy"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from toy import b\n")
    (package / "b.py").write_text("def later():\n    from toy import c\n")
    (package / "c.py").write_text("import toy.a\n")
    (package / "d.py").write_text("import toy.a\n")
    sys.path.insert(0, str(tmp_path))
    try:
        graph = grimp.build_graph("toy", cache_dir=None)
    finally:
        sys.path.remove(str(tmp_path))
    assert import_cycles(graph, "toy") == [["toy.a", "toy.b", "toy.c"]]


def test_the_import_contracts_hold() -> None:
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint is not None, "import-linter is a dev dependency (pyproject.toml)"
    done = subprocess.run(
        [lint, "--no-cache"], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def _code() -> list[Path]:
    return python_files([REPO_ROOT / "motioncore", REPO_ROOT / "webapp"])


def test_no_module_over_the_size() -> None:
    over = [
        (str(o.path.relative_to(REPO_ROOT)), o.lines)
        for o in long_modules(_code(), MAX_MODULE_LINES)
    ]
    assert over == []


def test_no_function_over_the_size() -> None:
    over = [
        (f"{o.path.relative_to(REPO_ROOT)}:{o.line} {o.name}", o.lines)
        for o in long_functions(_code(), MAX_FUNCTION_LINES)
        if f"{o.path.relative_to(REPO_ROOT)}:{o.name}" not in SIZE_EXCEPTIONS
    ]
    assert over == []


def test_the_size_measures_count_what_they_name(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(61))
    source = tmp_path / "long.py"
    source.write_text(textwrap.dedent("@decorated\ndef long():\n") + body + "\n")
    (found,) = long_functions([source], MAX_FUNCTION_LINES)
    assert (found.lines, found.line, found.name) == (63, 2, "long")
    assert long_functions([source], 63) == []
    assert [o.lines for o in long_modules([source], 62)] == [63]
    assert long_modules([source], 63) == []
