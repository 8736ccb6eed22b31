"""GLB downloads: every result's motion on the mannequin made from its own skeleton
(:mod:`motioncore.character`), as binary glTF 2.0.

A result's GLB is made from its stored BVH when it is asked for (nothing more is
stored): a download name ending in ``.glb`` names the BVH artifact it is made from in
its app's downloads table (``"cleaned.glb"`` → the cleaned BVH). The BVH is read as an
upload is (unit and up axis guessed from the body); the GLB is the mannequin in the
clip's rest pose (less the bones that are translations, such as a carrier root's:
:func:`motioncore.character.bones.translated_bones`) with one animation of every frame.
Bounded by
``KINETOGRAPH_GLB_MAX_SAMPLES`` (frames × joints): past it, 413 naming the setting.
"""

from __future__ import annotations

from django.conf import settings

from motioncore import bvh
from motioncore.character.bones import translated_bones
from motioncore.character.glb import glb_bytes
from motioncore.character.mannequin import mannequin
from motioncore.errors import MotionCoreError
from webapp.core.downloads import Download, download_bytes
from webapp.core.errors import ServiceError, limit_exceeded

GLB_SUFFIX = ".glb"
GLB_CONTENT_TYPE = "model/gltf-binary"


def is_glb(name: str) -> bool:
    """Whether the download ``name`` is a GLB made from a BVH."""
    return name.lower().endswith(GLB_SUFFIX)


def glb_download(motion: Download, filename: str) -> Download:
    """The motion in ``motion`` (a stored or made BVH) on its mannequin, as the GLB
    ``filename``."""
    data = download_bytes(motion)
    try:
        clip = bvh.load(data)
    except MotionCoreError as error:
        raise ServiceError(f"The motion could not be read: {error}", code="unreadable") from error
    samples = clip.num_frames * clip.skeleton.num_joints
    if samples > settings.GLB_MAX_SAMPLES:
        raise limit_exceeded(
            f"{clip.num_frames} frames of {clip.skeleton.num_joints} joints is more than the "
            f"{settings.GLB_MAX_SAMPLES:,} samples a GLB download holds; download the BVH.",
            limit="glb_max_samples",
            value=samples,
            setting="KINETOGRAPH_GLB_MAX_SAMPLES",
        )
    try:
        body = mannequin(clip.skeleton, skip=translated_bones(clip))
        made = glb_bytes(clip, body, name=filename.rsplit(".", 1)[0])
    except ValueError as error:  # a skeleton with no bone to make a mannequin of
        raise ServiceError(f"No mannequin for this motion: {error}", code="no_mannequin") from error
    return Download(made, filename, GLB_CONTENT_TYPE)
