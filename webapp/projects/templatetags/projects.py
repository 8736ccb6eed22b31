"""The project page's members card: the roles a member can be given."""

from __future__ import annotations

from django import template

from webapp.projects.models import Role

register = template.Library()


@register.simple_tag
def role_choices() -> list[tuple[str, str]]:
    """``{% role_choices as roles %}``: ``(value, label)`` of each role, highest first."""
    return [(role.value, role.label) for role in Role]
