"""The kinds of run: which app runs which stage, stores which artifact kinds, records results.

The run engine knows no kind of run. Each app that adds one registers it from its
``AppConfig.ready()``; for example the transitions app::

    class TransitionsConfig(AppConfig):
        def ready(self) -> None:
            from webapp.transitions import services, stages

            registry.register(
                "transitions",
                stages={"transition": stages.transition_stage},
                artifact_kinds=dict(TransitionArtifactKind.choices),
                record_result=services.transition_record_result,
            )

* :mod:`webapp.runs.pipeline` runs a run's stages by name (:func:`step`); a name no
  app registered fails the run with "Unknown pipeline stage ...".
* A stage stores artifacts through :func:`webapp.clips.services.artifact_save`, which
  refuses a kind no app registered (:func:`artifact_kind_check`); downloads and
  presenters read labels with :func:`artifact_kind_label`.
* A stage hands its kind's result to ``context.record_result(result)``, which calls
  the ``record_result`` its app registered (``record_result(run=..., result=...)``).

A stage name and an artifact kind belong to one kind of run: registering one that
another kind registered is an :class:`~django.core.exceptions.ImproperlyConfigured`
error. Registering a kind again under its own name replaces it (Django may run
``ready()`` again, e.g. when a test changes ``INSTALLED_APPS``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from django.core.exceptions import ImproperlyConfigured

from webapp.runs.stages import ResultRecorder, StageFunction

ARTIFACT_KIND_MAX_LENGTH = 64
"""The longest artifact kind name (the width of ``Artifact.kind``)."""


class UnknownStage(LookupError):
    """No app registered a stage of this name."""

    def __init__(self, name: str) -> None:
        super().__init__(f"Unknown pipeline stage {name!r}.")
        self.name = name


class UnknownArtifactKind(ValueError):
    """No app registered this artifact kind."""


@dataclass(frozen=True)
class RunKind:
    """One kind of run, as its app registered it.

    Attributes:
        name: the kind's name (by convention its app's label: ``"clips"``).
        stages: stage name → ``stage(context, progress)``.
        artifact_kinds: artifact kind (``Artifact.kind``) → label for people.
        record_result: ``record_result(run=..., result=...)``, or ``None``.
    """

    name: str
    stages: Mapping[str, StageFunction]
    artifact_kinds: Mapping[str, str]
    record_result: ResultRecorder | None = None


@dataclass(frozen=True)
class Step:
    """A stage to run: its name, its function and its kind's result recorder."""

    name: str
    function: StageFunction
    record_result: ResultRecorder | None


_KINDS: dict[str, RunKind] = {}


def register(
    name: str,
    *,
    stages: Mapping[str, StageFunction],
    artifact_kinds: Mapping[str, str] | None = None,
    record_result: ResultRecorder | None = None,
) -> RunKind:
    """Register (or replace) the kind of run ``name``; see the module docstring."""
    kind = RunKind(
        name=name,
        stages=MappingProxyType(dict(stages)),
        artifact_kinds=MappingProxyType(
            {str(k): str(v) for k, v in (artifact_kinds or {}).items()}
        ),
        record_result=record_result,
    )
    too_long = [k for k in kind.artifact_kinds if not 0 < len(k) <= ARTIFACT_KIND_MAX_LENGTH]
    if too_long:
        raise ImproperlyConfigured(
            f"Run kind {name!r}: artifact kinds are 1 to {ARTIFACT_KIND_MAX_LENGTH} "
            f"characters long: {too_long[0]!r}."
        )
    for other in _KINDS.values():
        if other.name == name:
            continue
        taken = sorted(set(other.stages) & set(kind.stages)) + sorted(
            set(other.artifact_kinds) & set(kind.artifact_kinds)
        )
        if taken:
            raise ImproperlyConfigured(
                f"Run kind {name!r} registers {taken[0]!r}, which run kind {other.name!r} has."
            )
    _KINDS[name] = kind
    return kind


def unregister(name: str) -> RunKind | None:
    """Forget the kind of run ``name`` (tests); the kind it was, if any."""
    return _KINDS.pop(name, None)


def kinds() -> tuple[RunKind, ...]:
    """Every registered kind of run, in registration order."""
    return tuple(_KINDS.values())


def kind_get(name: str) -> RunKind | None:
    """The kind of run registered as ``name``, if any."""
    return _KINDS.get(name)


def kind_of_stage(stage: str) -> RunKind | None:
    """The kind of run whose app registered the stage ``stage``, if any."""
    return next((kind for kind in _KINDS.values() if stage in kind.stages), None)


def step(name: str) -> Step:
    """The stage ``name`` with its kind's result recorder; :class:`UnknownStage` if no app
    registered it."""
    kind = kind_of_stage(name)
    if kind is None:
        raise UnknownStage(name)
    return Step(name, kind.stages[name], kind.record_result)


def artifact_kinds() -> dict[str, str]:
    """Every registered artifact kind → its label."""
    return {key: label for kind in _KINDS.values() for key, label in kind.artifact_kinds.items()}


def artifact_kind_check(kind: str) -> None:
    """Raise :class:`UnknownArtifactKind` unless some app registered ``kind``."""
    artifact_kind_label(kind)


def artifact_kind_label(kind: str) -> str:
    """The label of ``kind`` for people; :class:`UnknownArtifactKind` if no app registered it."""
    for registered in _KINDS.values():
        if kind in registered.artifact_kinds:
            return registered.artifact_kinds[kind]
    raise UnknownArtifactKind(
        f"No app registered the artifact kind {kind!r}: add it to the artifact_kinds of its "
        "kind of run (webapp.runs.registry.register, in the app's AppConfig.ready)."
    )
