"""Ready-to-play arrays for the browser viewer (the browser does no kinematics).

:func:`viewer_arrays` gives a JSON-able dict: joint ``names`` and ``parents``,
``fps``, ``times`` (seconds, ``[F]``), world ``positions`` flattened frame-major
(``[F * J * 3]``, metres, Y up), local rotations as flat ``x, y, z, w``
quaternions (``[F * J * 4]``, three.js order) and ``offsets`` (``[J * 3]``).
Values are rounded to float32 precision to keep the payload small.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from motioncore import fk
from motioncore.clip import Clip


def viewer_arrays(clip: Clip) -> dict[str, Any]:
    """The clip as flat arrays for playback (see the module docstring for layout)."""
    positions = fk.positions(clip).astype(np.float32)
    xyzw = clip.rotations[..., [1, 2, 3, 0]].astype(np.float32)
    return {
        "format": "kinetograph-viewer/1",
        "names": list(clip.skeleton.names),
        "parents": clip.skeleton.parents.tolist(),
        "end_site": clip.skeleton.end_site.tolist(),
        "fps": clip.fps,
        "frames": clip.num_frames,
        "joints": clip.skeleton.num_joints,
        "times": (np.arange(clip.num_frames) / clip.fps).astype(np.float32).tolist(),
        "offsets": clip.skeleton.offsets.astype(np.float32).ravel().tolist(),
        "positions": positions.ravel().tolist(),
        "rotations_xyzw": xyzw.ravel().tolist(),
        "units": {"length": "m", "time": "s", "up": "Y"},
    }
