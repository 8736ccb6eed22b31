"""The project page's member forms (owners add members and change roles)."""

from __future__ import annotations

from django import forms

from webapp.projects.models import Role


class MemberAddForm(forms.Form):
    username = forms.CharField(max_length=150, strip=True, label="Username")
    role = forms.ChoiceField(choices=Role.choices, initial=Role.VIEWER, label="Role")


class MemberRoleForm(forms.Form):
    username = forms.CharField(max_length=150, widget=forms.HiddenInput)
    role = forms.ChoiceField(choices=Role.choices, label="Role")


class MemberRemoveForm(forms.Form):
    username = forms.CharField(max_length=150, widget=forms.HiddenInput)
