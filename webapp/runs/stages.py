"""The contract of a pipeline stage: ``stage(context, progress) -> None``.

Stages belong to the apps that define kinds of run (``webapp/clips/stages.py``: the
upload pipeline ``ingest``, ``clean``, ``analyze``; ``webapp/transitions/stages.py``:
``transition``; ``webapp/pfnn/stages.py``: ``pfnn``), which register them with
:mod:`webapp.runs.registry`; the run engine (:mod:`webapp.runs.pipeline`) looks them up
by name and imports none of them.

A stage reads the run (``context.run``: its clip, its parameters) or what earlier
stages left in ``context``, reports ``progress(fraction, message)`` now and then, and
stores artifacts tied to the run (:func:`webapp.clips.services.artifact_save`), so that
a re-run after a crash replaces its own partial output instead of adding duplicates.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from motioncore.clip import Clip as MotionClip
from webapp.runs.models import Run

Progress = Callable[[float, str], None]  # (fraction of the stage done in [0, 1], message)


class ResultRecorder(Protocol):
    """Stores a kind of run's result (e.g. on the run's transition), while the worker owns
    the run."""

    def __call__(self, *, run: Run, result: dict[str, Any]) -> None: ...


@dataclass
class Context:
    """What stages share within one run.

    Attributes:
        run: the run being executed (claimed by this worker).
        motion: the motion an earlier stage read (the upload pipeline's ``ingest``).
        cleaned: the motion an earlier stage cleaned (the upload pipeline's ``clean``).
        outputs: anything else a stage leaves for the next ones.
        recorder: the result recorder of the kind whose stage is running (set by the
            pipeline before each stage; ``None`` when that kind registered none).
    """

    run: Run
    motion: MotionClip | None = None
    cleaned: MotionClip | None = None
    outputs: dict[str, Any] = field(default_factory=dict)
    recorder: ResultRecorder | None = None

    def record_result(self, result: dict[str, Any]) -> None:
        """Hand ``result`` to the running stage's kind's result recorder.

        Raises:
            LookupError: that kind registered no result recorder (a bug in its app).
        """
        if self.recorder is None:
            raise LookupError(f"run {self.run.pk}: this stage's kind records no result")
        self.recorder(run=self.run, result=result)


StageFunction = Callable[[Context, Progress], None]
