"""BVH files: reading, writing and checking them.

* :mod:`motioncore.bvh.files`: :func:`load` a file into a :class:`~motioncore.clip.Clip`,
  :func:`dump` and :func:`save` one (re-exported here);
* :mod:`motioncore.bvh.limits`: what a file may declare (frames, duration, joints, nesting);
* :mod:`motioncore.bvh.text`: the text reader (hierarchy and motion sections),
  with :mod:`motioncore.bvh.hierarchy` (the ``HIERARCHY`` grammar);
* :mod:`motioncore.bvh.fast`: the one-pass reader of the motion numbers, compiled by
  numba (:mod:`motioncore.bvh.kernel`) when it is importable;
* :mod:`motioncore.bvh.conventions`: the position-channel convention of a file;
* :mod:`motioncore.bvh.units`: the unit and up-axis guesses;
* :mod:`motioncore.bvh.report`: the validation report of a loaded file.
"""

from motioncore.bvh.files import Z_UP_TO_Y_UP, dump, load, read_raw, save
from motioncore.bvh.limits import Limits

__all__ = ["Z_UP_TO_Y_UP", "Limits", "dump", "load", "read_raw", "save"]
