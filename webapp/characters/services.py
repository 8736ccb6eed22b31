"""Uploading and deleting characters (editors and owners), and a clip on a character.

An upload is read whole before anything is stored (:func:`motioncore.character.rig.read_rig`):
a file that is not glTF 2.0, has no skin, is no humanoid, points at separate files, or
passes a limit (``KINETOGRAPH_CHARACTER_MAX_BYTES``, the joint and vertex limits of
:class:`~motioncore.character.rig.RigLimits`) is refused with a 400
``invalid_character`` (413 ``file_too_large`` past the size) naming the problem, and
nothing is stored. The same bytes again answer the character already there.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import PurePosixPath

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction

from motioncore.character.glb import rest_glb_bytes
from motioncore.character.rig import CharacterRig, read_rig
from motioncore.errors import CharacterError
from webapp.characters.models import Character
from webapp.core.errors import ServiceError, TooLarge
from webapp.projects.models import Project, Role
from webapp.projects.permissions import require_role

SUFFIXES = (".glb", ".gltf")


def character_bytes_check(*, size: int) -> None:
    """Refuse an empty file or one over ``CHARACTER_MAX_BYTES`` (before reading it)."""
    if size == 0:
        raise ServiceError("The file is empty.", code="empty_file")
    if size > settings.CHARACTER_MAX_BYTES:
        raise TooLarge(
            f"A character file is at most {settings.CHARACTER_MAX_BYTES / 2**20:g} MiB.",
            code="file_too_large",
            details={"setting": "KINETOGRAPH_CHARACTER_MAX_BYTES"},
        )


def character_create(
    *,
    project: Project,
    user: User,
    name: str,
    data: bytes,
    overrides: Mapping[str, str] | None = None,
) -> Character:
    """Read the character in ``data`` and store it (see the module docstring)."""
    require_role(project=project, user=user, role=Role.EDITOR)
    character_bytes_check(size=len(data))
    if PurePosixPath(name).suffix.lower() not in SUFFIXES:
        raise ServiceError(
            f"{name!r} is not a .glb or .gltf file.",
            code="invalid_character",
            details={"name": name},
        )
    sha256 = hashlib.sha256(data).hexdigest()
    existing = Character.objects.filter(project=project, sha256=sha256).first()
    if existing is not None:
        return existing
    rig = rig_of(data, overrides)
    stem = PurePosixPath(name).stem or "character"
    try:
        with transaction.atomic():
            character = Character(
                project=project,
                name=name,
                sha256=sha256,
                report=rig.report,
                overrides=dict(overrides or {}),
                created_by=user,
            )
            character.original.save(name, ContentFile(data), save=False)
            body = rest_glb_bytes(rig.skeleton, rig.mesh, name=stem)
            character.body.save(f"{stem}.body.glb", ContentFile(body), save=False)
            character.save()
            return character
    except IntegrityError:  # a concurrent upload of the same bytes won
        winner = Character.objects.filter(project=project, sha256=sha256).first()
        if winner is None:
            raise
        return winner


def character_delete(*, character: Character, user: User) -> None:
    """Delete ``character`` and its files (editors and owners)."""
    require_role(project=character.project, user=user, role=Role.EDITOR)
    files = [character.original, character.body]
    character.delete()
    for file in files:
        if file.name:
            file.storage.delete(file.name)


def rig_of(data: bytes, overrides: Mapping[str, str] | None = None) -> CharacterRig:
    """The character in ``data``; 400 ``invalid_character`` naming the problem."""
    try:
        return read_rig(data, overrides=overrides)
    except CharacterError as error:
        raise ServiceError(f"Not a usable character: {error}.", code="invalid_character") from error


def character_rig(character: Character) -> CharacterRig:
    """The stored character's rig (read from its body: small, quick)."""
    with character.body.open("rb") as handle:
        data = handle.read()
    return rig_of(data, character.overrides or None)
