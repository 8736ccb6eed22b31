"""API fields, form fields and deprecation notices for the analysis parameters, all from
their one definition in :mod:`motioncore.parameters` (name, default, bounds, unit).

Earlier names (``theta``, ``method`` for the measure) are still read for one release:
:func:`renamed_input` maps them to today's names, and a response to a request that
used one carries :func:`deprecation_headers` (``Deprecation: true`` and a ``Warning:
299`` naming the replacement, RFC 9745 and RFC 7234 §5.5).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from rest_framework import serializers
from rest_framework.response import Response

from motioncore import parameters as p

Parameter = p.Number | p.Choice


def _help(parameter: Parameter, extra: str) -> str:
    if isinstance(parameter, p.Number) and parameter.optional:
        return f"{parameter.description} Leave it out (or null) to have it chosen{extra}."
    return f"{parameter.description} Default {parameter.default}{extra}."


def api_field(parameter: Parameter, *, required: bool = False, default_note: str = "") -> Any:
    """The DRF field for ``parameter``: its bounds or choices, its default when not
    ``required`` (``default_note`` set: no default is filled in, the note says which
    applies, e.g. "the clip's saved value")."""
    options: dict[str, Any] = {"help_text": _help(parameter, default_note)}
    optional = isinstance(parameter, p.Number) and parameter.optional
    if required:
        options["required"] = True
    elif default_note:
        options["required"] = False
    elif optional:
        options.update(required=False, allow_null=True)
    else:
        options["default"] = parameter.default
    if isinstance(parameter, p.Choice):
        return serializers.ChoiceField(choices=choices(parameter), **options)
    return serializers.FloatField(
        min_value=parameter.minimum, max_value=parameter.maximum, **options
    )


def form_field(
    parameter: Parameter, *, label: str | None = None, required: bool | None = None
) -> forms.Field:
    """The Django form field for ``parameter`` (bounds or choices, the default as initial;
    an optional number starts empty and may stay so; ``required=False`` lets a form fill
    in the default itself)."""
    name = label or parameter.label
    if isinstance(parameter, p.Choice):
        return forms.ChoiceField(choices=choices(parameter), initial=parameter.default, label=name)
    return forms.FloatField(
        min_value=parameter.minimum,
        max_value=parameter.maximum,
        initial=None if parameter.optional else parameter.default,
        required=not parameter.optional if required is None else required,
        label=name,
    )


def check_blend_bounds(attrs: Mapping[str, Any]) -> None:
    """Refuse validated input whose longest blend is shorter than its shortest (a 400 on
    ``blend_max_s``)."""
    if attrs[p.BLEND_MIN_S.name] > attrs[p.BLEND_MAX_S.name]:
        raise serializers.ValidationError(
            {p.BLEND_MAX_S.name: "The longest blend must not be shorter than the shortest."}
        )


def choices(parameter: p.Choice) -> list[tuple[str, str]]:
    """``(value, label)`` pairs of a choice parameter."""
    return list(zip(parameter.choices, parameter.labels, strict=True))


def renamed_input(data: Any) -> tuple[dict[str, Any], list[str]]:
    """A request's query or body with earlier parameter names mapped to today's, and the
    earlier names it used (see :func:`motioncore.parameters.renamed`); a body that is not
    a JSON object (``null``, a list) is a 400."""
    if not isinstance(data, Mapping):
        raise serializers.ValidationError(
            {"non_field_errors": [f"The body must be a JSON object, not {type(data).__name__}."]}
        )
    flat = {key: data[key] for key in data}  # a QueryDict: the last value of each key
    return p.renamed(flat)


def deprecation_headers(response: Response, used: list[str]) -> Response:
    """Mark ``response`` deprecated when the request used earlier parameter names."""
    if used:
        words = ", ".join(f"{old!r} is now {p.RENAMED[old]!r}" for old in used)
        response["Deprecation"] = "true"
        response["Warning"] = f'299 - "Deprecated parameter names: {words}"'
    return response
