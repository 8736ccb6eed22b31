"""The parameters a user sets for analysis and transitions, defined once.

Each has one name, used alike by the keyword arguments of motioncore, the command
line (``--theta-max-deg``), the REST API (query and body fields), the pages' forms
and sliders (served to the page as JSON, :func:`as_json`) and the reports. Its
default, bounds and unit are here and nowhere else.

Defaults are seed 000's (§3.1: α between 0.5 and 0.7, θ_max between 60° and 90°;
§4.2: a 0.1–0.15 s transition).

Earlier names, still read for one release (:data:`RENAMED`): ``theta`` (the API's
analysis query and save body) and ``method`` (the momentum measure in the analysis
and transition APIs, the CLI and stored run parameters), ``curve`` (the measure in
motioncore and the transition report).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

Measure = Literal["speed", "energy", "pca"]
BlendKind = Literal["auto", "crossfade", "inertialize"]
DEFAULT_MEASURE: Measure = "speed"
DEFAULT_BLEND: BlendKind = "auto"


@dataclass(frozen=True)
class Number:
    """A number in ``[minimum, maximum]`` (inclusive), in ``unit`` (``""``: a ratio).

    An ``optional`` number may be left out: the library then chooses the value (the
    blend's length, from the mismatch at the join), and ``default`` is only where a
    form's field or slider starts."""

    name: str
    default: float
    minimum: float
    maximum: float
    step: float
    unit: str
    label: str
    description: str
    optional: bool = False


@dataclass(frozen=True)
class Choice:
    """One of ``choices`` (each shown to people as the ``labels`` entry at its index)."""

    name: str
    default: str
    choices: tuple[str, ...]
    labels: tuple[str, ...]
    label: str
    description: str


ALPHA = Number(
    name="alpha",
    default=0.6,
    minimum=0.05,
    maximum=1.0,
    step=0.01,
    unit="",
    label="α",
    description="Momentum retention: the cut is where the momentum has fallen to α of "
    "its motion unit's peak (seed 000 §3.1: 0.5–0.7).",
)
THETA_MAX_DEG = Number(
    name="theta_max_deg",
    default=75.0,
    minimum=0.0,
    maximum=180.0,
    step=1.0,
    unit="deg",
    label="θ_max",
    description="Largest angle between the velocity at the cut and the next clip's "
    "initial velocity, degrees (seed 000 §3.1: 60–90°).",
)
MEASURE = Choice(
    name="measure",
    default=DEFAULT_MEASURE,
    choices=("speed", "energy", "pca"),
    labels=("speed (m/s)", "kinetic energy (J/kg)", "PCA (m/s)"),
    label="measure",
    description="The momentum curve: the centre of mass's speed, the kinetic energy, or "
    "the joint velocities along their first principal axis (seed 000 §3.3).",
)
BLEND = Choice(
    name="blend",
    default=DEFAULT_BLEND,
    choices=("auto", "crossfade", "inertialize"),
    labels=("automatic (by the mismatch)", "crossfade (slerp)", "inertialization"),
    label="blend",
    description="How the transition clip joins A's cut to B's entry: chosen from the "
    "velocity and pose mismatch at the join, or the kind named.",
)
BLEND_S = Number(
    name="blend_s",
    default=0.12,
    minimum=0.0,
    maximum=2.0,
    step=0.01,
    unit="s",
    label="blend duration",
    description="A fixed duration of the blend, seconds; when not given, it is chosen from "
    "the mismatch at the join between blend_min_s and blend_max_s (seed 000 §4.2: "
    "0.1–0.15 s where momentum is continuous, longer for reversals, §6.2).",
    optional=True,
)
BLEND_MIN_S = Number(
    name="blend_min_s",
    default=0.1,
    minimum=0.0,
    maximum=2.0,
    step=0.01,
    unit="s",
    label="shortest blend",
    description="Shortest blend the automatic choice may pick, seconds.",
)
BLEND_MAX_S = Number(
    name="blend_max_s",
    default=0.5,
    minimum=0.0,
    maximum=2.0,
    step=0.01,
    unit="s",
    label="longest blend",
    description="Longest blend the automatic choice may pick, seconds (reversals and large "
    "velocity jumps reach it).",
)

# A run without ``fps`` keeps the file's rate; the default is the rate of the clips the
# app makes itself (scores, walks), for a form that needs a starting value.
FPS = Number(
    name="fps",
    default=60.0,
    minimum=1.0,
    maximum=1000.0,
    step=1.0,
    unit="Hz",
    label="frame rate",
    description="Frame rate a run resamples the clip to, frames per second (the cleaned "
    "BVH's Frame Time is its inverse, inside the 1e-5–10 s the BVH reader accepts).",
)

ANALYSIS = (ALPHA, THETA_MAX_DEG, MEASURE)
"""What an analysis of one clip takes."""
TRANSITION = (ALPHA, THETA_MAX_DEG, MEASURE, BLEND_S, BLEND, BLEND_MIN_S, BLEND_MAX_S)
"""What a transition from one clip into another takes."""

RENAMED: dict[str, str] = {"theta": "theta_max_deg", "method": "measure", "curve": "measure"}
"""Earlier name → its name now (read for one release, with a deprecation notice)."""


def as_json() -> dict[str, Any]:
    """Every parameter by name, as the browser reads them (``{"alpha": {"default": 0.6,
    "minimum": 0.05, …}, …}``; choices as lists)."""
    return {p.name: {**asdict(p), **_lists(p)} for p in TRANSITION}


def _lists(parameter: Number | Choice) -> dict[str, Any]:
    if isinstance(parameter, Choice):
        return {"choices": list(parameter.choices), "labels": list(parameter.labels)}
    return {}


def renamed(values: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``values`` with earlier names (:data:`RENAMED`) replaced by today's, and the earlier
    names that were used; a value under today's name wins over one under an earlier name."""
    today = {k: v for k, v in values.items() if k not in RENAMED}
    used = [k for k in values if k in RENAMED]
    for old in used:
        today.setdefault(RENAMED[old], values[old])
    return today, used


def resolved(values: Mapping[str, Any], which: tuple[Number | Choice, ...]) -> dict[str, Any]:
    """The value of each parameter in ``which``: from ``values`` (earlier names read too),
    else its default (``None`` for an optional number: the library chooses it)."""
    given, _ = renamed(dict(values))
    return {q.name: given.get(q.name, _absent(q)) for q in which}


def _absent(parameter: Number | Choice) -> Any:
    """What a parameter left out stands for."""
    if isinstance(parameter, Number) and parameter.optional:
        return None
    return parameter.default
