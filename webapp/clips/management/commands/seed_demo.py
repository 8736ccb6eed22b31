"""``manage.py seed_demo``: a demo user, a demo project and three sample clips.

Idempotent: the user and the project are created once; uploading the same bytes
again returns the existing clip (``clip_upload_create`` deduplicates by sha256), so
a second call changes nothing and queues no new runs. The password is fixed and
public (``kinetograph-demo``): this is for a local demo, not for a server anyone
else can reach.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandParser

from webapp.clips.services import clip_upload_create
from webapp.projects.models import Membership, Project, Role
from webapp.projects.services import project_create

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "kinetograph-demo"
DEMO_PROJECT = "Demo project"
SAMPLES = (
    # relative to tests/data; provenance and licences in tests/data/ATTRIBUTION.md
    "games105/walk60.bvh",  # metres, Y up, 60 fps, one rotation order
    "cmu-bvh11/131_02.bvh",  # CMU units, 120 fps, mixed ZYX/ZXY orders
    "cmu-pybvh/bvh_test1.bvh",  # inches, Z up, four rotation orders
)


class Command(BaseCommand):
    help = "Create the demo user, the demo project and its sample clips (idempotent)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--samples-dir",
            default=str(Path(settings.BASE_DIR) / "tests" / "data"),
            help="folder holding the sample clips (default: tests/data of this checkout)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        user = self._user()
        project = self._project(user)
        samples = Path(options["samples_dir"])
        for relative in SAMPLES:
            path = samples / relative
            if not path.is_file():
                self.stderr.write(f"skipped {relative}: {path} is missing")
                continue
            result = clip_upload_create(
                project=project, user=user, name=path.name, data=path.read_bytes()
            )
            state = "uploaded, run queued" if result.created else "already there"
            self.stdout.write(f"clip {result.clip.pk} {result.clip.name}: {state}")
        self.stdout.write(
            self.style.SUCCESS(
                f"demo user {DEMO_USERNAME!r}, password {DEMO_PASSWORD!r}; "
                f"project {project.pk} {project.name!r}"
            )
        )

    def _user(self) -> User:
        model = get_user_model()
        user: User | None = model.objects.filter(username=DEMO_USERNAME).first()
        if user is None:
            user = model.objects.create_user(username=DEMO_USERNAME, password=DEMO_PASSWORD)
            self.stdout.write(f"created user {DEMO_USERNAME!r}")
        elif not user.check_password(DEMO_PASSWORD):
            self.stderr.write(
                f"user {DEMO_USERNAME!r} exists with another password; left unchanged"
            )
        return user

    def _project(self, user: User) -> Project:
        owned = Membership.objects.filter(
            user=user, role=Role.OWNER, project__name=DEMO_PROJECT
        ).select_related("project")
        membership = owned.order_by("project_id").first()
        if membership is not None:
            return membership.project
        project = project_create(user=user, name=DEMO_PROJECT)
        self.stdout.write(f"created project {project.pk} {DEMO_PROJECT!r}")
        return project
