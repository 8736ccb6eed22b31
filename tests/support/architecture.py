"""Measures of the code's structure: import cycles (from grimp's graph, which counts
every import statement, those inside functions too) and sizes of modules and
functions (from the syntax tree)."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


class ImportGraph(Protocol):
    """What :func:`import_cycles` reads of a grimp graph."""

    @property
    def modules(self) -> set[str]: ...

    def find_modules_directly_imported_by(self, module: str) -> set[str]: ...


def import_cycles(graph: ImportGraph, package: str) -> list[list[str]]:
    """The strongly connected groups of two or more modules of ``package`` (each sorted):
    every module of a group imports, directly or through the others, every other one.
    Empty when the package's imports form no cycle (Tarjan's algorithm, iterative)."""
    modules = {m for m in graph.modules if m == package or m.startswith(package + ".")}
    edges = {m: sorted(graph.find_modules_directly_imported_by(m) & modules) for m in modules}
    return [group for group in _strongly_connected(edges) if len(group) > 1]


def _strongly_connected(edges: dict[str, list[str]]) -> Iterator[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    yield _pop_group(stack, on_stack, node)
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(edges[child])))
            elif child in on_stack:
                low[node] = min(low[node], index[child])


def _pop_group(stack: list[str], on_stack: set[str], root: str) -> list[str]:
    group = []
    while True:
        member = stack.pop()
        on_stack.discard(member)
        group.append(member)
        if member == root:
            return sorted(group)


@dataclass(frozen=True)
class Oversize:
    """A module (``name`` empty) or a function over its size, and its length in lines."""

    path: Path
    lines: int
    line: int = 1
    name: str = ""


def python_files(
    roots: Iterable[Path], skip_parts: tuple[str, ...] = ("migrations",)
) -> list[Path]:
    """Every ``.py`` file under ``roots``, leaving out folders named in ``skip_parts``."""
    return sorted(
        path
        for root in roots
        for path in root.rglob("*.py")
        if not set(path.parts) & set(skip_parts)
    )


def long_modules(paths: Iterable[Path], max_lines: int) -> list[Oversize]:
    """Files with more than ``max_lines`` lines."""
    found = []
    for path in paths:
        count = len(path.read_text(encoding="utf-8").splitlines())
        if count > max_lines:
            found.append(Oversize(path, count))
    return found


def long_functions(paths: Iterable[Path], max_lines: int) -> list[Oversize]:
    """Functions (methods and nested ones too) longer than ``max_lines`` lines, from their
    ``def`` (or first decorator) to their last line."""
    found = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([d.lineno for d in node.decorator_list] + [node.lineno])
                count = (node.end_lineno or node.lineno) - first + 1
                if count > max_lines:
                    found.append(Oversize(path, count, node.lineno, node.name))
    return found
