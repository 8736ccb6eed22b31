"""motioncore: the numeric core of Kinetograph.

A pure array library (numpy/scipy); it never imports Django, Celery or settings.

Conventions, stated once for the whole package:

* quaternions are ``(w, x, y, z)``, Hamilton product, unit length, active
  rotations (``v' = q v q*``);
* Euler orders are written as the BVH channel list reads, e.g. ``"ZXY"`` means
  ``R = Rz @ Rx @ Ry`` (intrinsic; the last axis is applied to the vector first);
* internal units are metres, seconds and radians; the world is right-handed
  with **Y up**;
* a clip is whole arrays: local rotations ``[F, J, 4]``, local translations
  ``[F, J, 3]``; functions never loop over frames and never mutate inputs.
"""

from motioncore.errors import BVHParseError, MotionCoreError, SkeletonError

__all__ = ["BVHParseError", "MotionCoreError", "SkeletonError"]
