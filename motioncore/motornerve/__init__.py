"""MotorNerve (seed 001): a character steered live by an intent, with no state machine
or blend tree written by hand — a network maps the recent motion and a 12-D intent to
the next pose.

* :mod:`~motioncore.motornerve.intent`: the intent vector and world commands;
* :mod:`~motioncore.motornerve.state`: the 130-D motion state (6-D joint rotations,
  root velocity, turn rate, hips height);
* :mod:`~motioncore.motornerve.dataset`: training data from the permissive corpus (or a
  user's clips), augmented and split by take;
* :mod:`~motioncore.motornerve.network`: the network and its numpy runtime (no torch);
  :mod:`~motioncore.motornerve.train` and :mod:`~motioncore.motornerve.contact_loss`
  train it with torch;
* :mod:`~motioncore.motornerve.runtime`: 30 Hz inference to 60 Hz motion, the gate,
  the blend; :mod:`~motioncore.motornerve.drive`: a play on a rig, measured;
  :mod:`~motioncore.motornerve.timeline`: keyframed intent timelines;
* :mod:`~motioncore.motornerve.matching` (with :mod:`~motioncore.motornerve.motion_database`
  and :mod:`~motioncore.motornerve.inertialize`): the motion-matching baseline;
* :mod:`~motioncore.motornerve.streams` and :mod:`~motioncore.motornerve.evaluate`: the
  scripted streams and the evaluation, with :mod:`motioncore.measures`.
"""
