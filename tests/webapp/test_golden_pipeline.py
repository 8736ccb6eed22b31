"""A pipeline run's stored results for a sample clip equal those kept in
``tests/golden/`` (``viewer.json``, ``clean-report.json``, ``analysis.json``, and the
cleaned BVH by its digest; numbers to within :mod:`support.golden`'s tolerance): moving
the run engine's code changes nothing it stores.

Write them anew (only when a change of output is intended)::

    KINETOGRAPH_WRITE_GOLDEN=1 scripts/test tests/webapp/test_golden_pipeline.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from django.contrib.auth.models import AbstractUser, User

from support import golden
from webapp.clips.models import Artifact, ArtifactKind
from webapp.clips.services import clip_upload_create
from webapp.projects.models import Project
from webapp.runs import pipeline
from webapp.runs.models import Status

SAMPLE = golden.REPO_ROOT / "tests" / "data" / "games105" / "walk_forward.bvh"
KEPT = {
    ArtifactKind.VIEWER: "pipeline-viewer",
    ArtifactKind.CLEAN_REPORT: "pipeline-clean-report",
    ArtifactKind.ANALYSIS: "pipeline-analysis",
}


@pytest.mark.django_db
def test_pipeline_results_equal_the_golden_ones(
    project: Project, members: dict[str, AbstractUser], media_root: Path
) -> None:
    editor = members["editor"]
    assert isinstance(editor, User)
    made = clip_upload_create(
        project=project, user=editor, name=SAMPLE.name, data=SAMPLE.read_bytes()
    )
    run = made.clip.runs.get()
    pipeline.execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == Status.SUCCEEDED, run.error
    for kind, name in KEPT.items():
        artifact = Artifact.objects.get(run=run, kind=kind)
        with artifact.file.open("rb") as handle:
            stored = json.loads(handle.read())
        _check(name, stored)
    cleaned = Artifact.objects.get(run=run, kind=ArtifactKind.CLEANED_BVH)
    with cleaned.file.open("rb") as handle:
        _check("pipeline-cleaned-bvh", golden.bvh_digest(handle.read().decode()))


def _check(name: str, stored: object) -> None:
    if os.environ.get("KINETOGRAPH_WRITE_GOLDEN") == "1":
        golden.write(name, stored)
    differences = golden.same(stored, golden.read(name))
    assert not differences, f"{name} changed:\n" + "\n".join(differences[:20])
