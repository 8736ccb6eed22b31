"""Skeletons: the semantic role of each joint, which way the body faces, the canonical
skeleton and retargeting onto it and back.

* :mod:`motioncore.skeleton.roles`: :func:`infer` the :class:`JointRoles` of a rig
  (re-exported here), from joint names (:mod:`motioncore.skeleton.names`) and, where
  names say nothing, topology and rest geometry (:mod:`motioncore.skeleton.topology`);
  the steps share :mod:`motioncore.skeleton.context` and match limbs in
  :mod:`motioncore.skeleton.limbs`;
* :mod:`motioncore.skeleton.facing`: the reference joint, forward axis and heading;
* :mod:`motioncore.skeleton.canonical`: the canonical humanoid;
* :mod:`motioncore.skeleton.retarget`: retargeting between a rig and the canonical
  skeleton, on the rig's landmarks (:mod:`motioncore.skeleton.landmarks`).
"""

from motioncore.skeleton.roles import ROLES, JointRoles, infer

__all__ = ["ROLES", "JointRoles", "infer"]
