"""α, θ_max, the measure and the blend are defined once (:mod:`motioncore.parameters`):
the API, the forms and the clip page's sliders read their bounds and defaults from
there, and no other source file writes them down again."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from django.contrib.auth.models import AbstractUser
from django.test import Client

from motioncore import parameters as p
from support.paths import REPO_ROOT, SAMPLE_DIR
from support.web import processed
from webapp.projects.models import Project
from webapp.transitions.views import TransitionForm

COPIES = (
    re.compile(r"\balpha\b\s*[:=][^\n]*[^.\d]0\.6\b"),
    re.compile(r"\b(theta_max_deg|thetaMaxDeg|theta)\b\s*[:=][^\n]*\b75(\.0)?\b"),
    re.compile(r"\bblend_s\b\s*[:=][^\n]*\b0\.12\b"),
    re.compile(r"(initial|default)=75(\.0)?\b"),
)
"""A default written down again: ``alpha: float = 0.6``, ``theta_max_deg = …(default=75.0``."""
SOURCES = ("motioncore", "webapp", "static/js", "templates")


def copies_in(files: dict[str, str]) -> list[str]:
    """``path:line`` of every line (outside motioncore/parameters.py) that copies a default."""
    found = []
    for path, text in files.items():
        if path == "motioncore/parameters.py" or "/migrations/" in path:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if any(pattern.search(line) for pattern in COPIES):
                found.append(f"{path}:{number}")
    return found


def _tracked(revision: str | None) -> dict[str, str]:
    listed = subprocess.run(
        ["git", "ls-files", *SOURCES]
        if revision is None
        else ["git", "ls-tree", "-r", "--name-only", revision, *SOURCES],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    code = [f for f in listed if f.endswith((".py", ".js", ".html"))]
    if revision is None:
        return {
            f: (REPO_ROOT / f).read_text(encoding="utf-8")
            for f in code
            if (REPO_ROOT / f).is_file()
        }
    return {
        f: subprocess.run(
            ["git", "show", f"{revision}:{f}"], cwd=REPO_ROOT, capture_output=True, text=True
        ).stdout
        for f in code
    }


def test_no_source_file_writes_a_default_again() -> None:
    assert copies_in(_tracked(None)) == []


def test_the_scan_finds_the_copies_there_were() -> None:
    before = "08b372f"  # the tree before the parameters had one source
    if subprocess.run(["git", "cat-file", "-e", before], cwd=REPO_ROOT).returncode != 0:
        pytest.skip("a shallow clone without the earlier commit")
    found = copies_in(_tracked(before))
    assert "webapp/api/serializers.py:256" in found  # theta_max_deg = …(default=75.0, …)
    assert "motioncore/mtp.py:266" in found  # alpha: float = 0.6,
    assert len(found) >= 10


def test_the_form_and_the_api_take_their_bounds_from_the_definition() -> None:
    form = TransitionForm()
    alpha = form.fields["alpha"]
    assert (alpha.min_value, alpha.max_value, alpha.initial) == (  # type: ignore[attr-defined]
        p.ALPHA.minimum,
        p.ALPHA.maximum,
        p.ALPHA.default,
    )
    assert [value for value, _ in form.fields["measure"].choices] == list(p.MEASURE.choices)  # type: ignore[attr-defined]


@pytest.mark.django_db
def test_the_clip_page_sliders_span_the_accepted_bounds(
    project: Project, members: dict[str, AbstractUser], media_root: Path
) -> None:
    walk = processed(project, members["editor"], SAMPLE_DIR / "games105" / "walk60.bvh")
    client = Client()
    client.force_login(members["viewer"])
    html = client.get(f"/clips/{walk.pk}/").content.decode()
    alpha = re.search(r'<input type="range"[^>]*data-alpha[^>]*>', html)
    theta = re.search(r'<input type="range"[^>]*data-theta[^>]*>', html)
    assert alpha is not None and theta is not None
    assert f'min="{p.ALPHA.minimum:g}" max="{p.ALPHA.maximum:g}"' in alpha.group(0)
    assert f'max="{p.THETA_MAX_DEG.maximum:g}"' in theta.group(0)
