"""Motion-quality measures, independent of the code whose output they grade.

Every number the product reports about feet (the clean report, transitions, PFNN
walks, Labanotation animations, the benches) comes from here. None of it uses the
contact detector (:mod:`motioncore.contacts`), its thresholds, its floor or its
hysteresis: a foot lock graded by the contacts it locked would read perfect while
the feet slide. What is shared is geometry only: the points of a foot
(:mod:`motioncore.contacts.foot_points`) and forward kinematics.

The measures of motion itself (joint speed, the distribution of rotations, how soon
motion answers a command, pose drift) grade the motion that MotorNerve and the
motion-matching baseline produce, so they use neither: only forward kinematics,
:mod:`motioncore.quat` and joint roles.

Definitions (fixed, absolute, deliberately simple):

* **floor**: given by the caller where it is known (0 for motion the product
  synthesises on the ground plane); otherwise :data:`FLOOR_PERCENTILE` of the
  lowest foot point's height over the clip.
* **planted** (this module's own test, not a contact detector): the ankle is
  within :data:`PLANTED_BAND_M` (2 cm) of its standing height (the
  :data:`STANDING_PERCENTILE` of its heights) and slower than
  :data:`PLANTED_SPEED_MPS` (1 m/s).
* **foot slide**: on planted frames where the foot is on the ground (its lowest
  point within :data:`TOUCH_BAND_M`, 1 cm, of where it rests while planted), the
  horizontal speed of the foot's slowest sole point (heel, ball, tip: not the
  ankle, which is above the sole, so a foot turning about it still slides), m/s;
  speeds are displacements over :data:`SPEED_SPAN_S` either side, inside the
  run of planted frames less its first and last :data:`SPEED_SPAN_S` (the foot
  arriving and leaving), so the same motion reads the same at any frame rate.
  Per step (a run of planted frames) the slide is that speed integrated, metres.
* **floor penetration**: how far the lowest foot point goes under the floor
  (worst depth, m) and the share of frames where it is more than
  :data:`PENETRATION_BAND_M` (1 cm) under.
* **grounded**: the foot's lowest point within :data:`GROUNDED_BAND_M` (2 cm) of
  the floor and slower than :data:`PLANTED_SPEED_MPS`. The **contact share** of a
  foot is its share of grounded frames; **stance/swing** is grounded over not
  grounded frames (both feet pooled); **cadence** is grounded onsets (runs of at
  least :data:`MIN_RUN_S`) per minute, both feet.
* **contact skid** (:mod:`motioncore.measures.skid`): what foot slide cannot see, a
  foot skidding fast as it lands or dragging as it lifts off. Each sole point (heel,
  ball, tip) touches the floor while it is within :data:`CONTACT_BAND_M` (1 cm) of
  it, by height alone, each point on its own; its path is the straight line between
  frames, so a contact starts and ends where that line crosses the band (a one-frame
  touch at speed still travels). The **skid** of a contact is the largest horizontal
  distance of that path from where it entered the band, metres: the net travel, which
  ±1 mm of jitter does not add up. Reported per contact (foot, point, frames, skid,
  peak horizontal speed), the worst per foot and overall. A foot turning on its ball
  sweeps its heel and tip: a contact that another point of the same foot spans (to
  within a frame), in contact and still (within 5 mm) all through it, is a turn about
  that point and is listed, not counted as skid.
* **joint speed**: the angle between a joint's local rotations in successive frames
  times the frame rate, degrees/second; the **maximum joint speed** is the largest
  over every joint that is not an end site and every frame.
* **rotation distribution**: per joint, the histogram of the angle of its local
  rotation from identity (``2 arccos |w|``, degrees) in :data:`ROTATION_BINS` (36)
  equal bins on [0°, 180°], normalised to sum 1. The **rotation KL** of generated
  motion against reference motion pools the frames of each set, adds
  :data:`KL_SMOOTHING` to every bin of both histograms and renormalises, takes
  KL(P_reference ‖ Q_generated) per joint in nats and averages over the joints: a
  generated set that never reaches poses the reference holds reads high.
* **reaction**: of a counterfactual pair (two plays from the same start, identical
  up to the command's frame, one with the new command), the frames from the command
  to the first frame where they part: for a change of commanded velocity, where the
  difference of the hips' horizontal velocity (central differences) along the
  change exceeds :data:`REACTION_SPEED_MPS` (5 cm/s); for a pose command, where any
  joint's position relative to the hips' ground point differs by more than
  :data:`REACTION_POSE_M` (1 cm).
* **pose drift**: every joint's position relative to the hips in the heading frame
  (the hips' yaw, from the line between the upper legs), and the hips' height, each
  averaged over the first and over the last :data:`DRIFT_WINDOW_S` (10 s) of a long
  play under a steady command; the largest difference, metres.

Conventions: ``F`` frames, metres, seconds, Y up, world frame.

The measures of a join (the hips' velocity jump either side of it, the excess
acceleration and joint speed a blend adds) are defined in :mod:`motioncore.measures.joins`.

The definitions live in four modules of one namespace, :mod:`motioncore.measures.feet`,
:mod:`motioncore.measures.skid`, :mod:`motioncore.measures.motion` and
:mod:`motioncore.measures.joins`; callers use ``measures.measure``,
``measures.contact_skid``, ``measures.rotation_kl``, ``measures.measure_join`` and so on.
"""

from motioncore.measures.feet import (
    FLOOR_PERCENTILE,
    GROUNDED_BAND_M,
    MIN_RUN_S,
    PENETRATION_BAND_M,
    PLANTED_BAND_M,
    PLANTED_SPEED_MPS,
    SPEED_SPAN_S,
    STANDING_PERCENTILE,
    TOUCH_BAND_M,
    FootMeasures,
    Measures,
    cadence,
    estimate_floor,
    foot_slide,
    grounded,
    measure,
    penetration,
    planted,
    speeds,
)
from motioncore.measures.joins import JoinMeasures, measure_join
from motioncore.measures.motion import (
    DRIFT_WINDOW_S,
    KL_SMOOTHING,
    REACTION_POSE_M,
    REACTION_SPEED_MPS,
    ROTATION_BINS,
    ROTATION_RANGE_DEG,
    heading_pose,
    max_joint_speed_degps,
    pose_drift_m,
    reaction_frames,
    rotation_angles_deg,
    rotation_histograms,
    rotation_kl,
    rotation_kl_per_joint,
)
from motioncore.measures.skid import CONTACT_BAND_M, Contact, Skid, contact_skid, point_skids

__all__ = [
    "CONTACT_BAND_M",
    "DRIFT_WINDOW_S",
    "FLOOR_PERCENTILE",
    "GROUNDED_BAND_M",
    "KL_SMOOTHING",
    "MIN_RUN_S",
    "PENETRATION_BAND_M",
    "PLANTED_BAND_M",
    "PLANTED_SPEED_MPS",
    "REACTION_POSE_M",
    "REACTION_SPEED_MPS",
    "ROTATION_BINS",
    "ROTATION_RANGE_DEG",
    "SPEED_SPAN_S",
    "STANDING_PERCENTILE",
    "TOUCH_BAND_M",
    "Contact",
    "FootMeasures",
    "JoinMeasures",
    "Measures",
    "Skid",
    "cadence",
    "contact_skid",
    "estimate_floor",
    "foot_slide",
    "grounded",
    "heading_pose",
    "max_joint_speed_degps",
    "measure",
    "measure_join",
    "penetration",
    "planted",
    "point_skids",
    "pose_drift_m",
    "reaction_frames",
    "rotation_angles_deg",
    "rotation_histograms",
    "rotation_kl",
    "rotation_kl_per_joint",
    "speeds",
]
