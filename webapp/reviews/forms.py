"""The review pages' forms (the API's input serializers check the same fields for
:mod:`webapp.reviews.api`). Choices that depend on the project (reviewers, transitions)
are given when the form is made; everything else is checked by the services."""

from __future__ import annotations

from typing import Any

from django import forms

from webapp.reviews.models import MAX_APPROVALS_REQUIRED, CutMethod, Verdict

TITLE_MAX = 200
TEXT_MAX = 10000


def _choose(field: forms.Field, choices: list[tuple[Any, str]]) -> None:
    """Give a choice field its choices (known once the project is)."""
    assert isinstance(field, forms.ChoiceField)
    field.choices = choices


class ProposeForm(forms.Form):
    """The transition page's "Propose this cut for review" form."""

    method = forms.ChoiceField(choices=CutMethod.choices, initial=CutMethod.MTP, label="Cut")
    title = forms.CharField(max_length=TITLE_MAX, required=False)
    summary = forms.CharField(max_length=TEXT_MAX, required=False, widget=forms.Textarea)
    reviewers = forms.MultipleChoiceField(choices=(), required=False)

    def __init__(self, *args: Any, reviewers: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _choose(self.fields["reviewers"], [(name, name) for name in reviewers])


class ReviseForm(forms.Form):
    """A new version from another run between the same clips, or another cut method."""

    transition = forms.TypedChoiceField(coerce=int, choices=(), label="Transition run")
    method = forms.ChoiceField(choices=CutMethod.choices, label="Cut")
    title = forms.CharField(max_length=TITLE_MAX, required=False)
    summary = forms.CharField(max_length=TEXT_MAX, required=False, widget=forms.Textarea)

    def __init__(self, *args: Any, transitions: list[int], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _choose(self.fields["transition"], [(pk, str(pk)) for pk in transitions])


class ReviseJoinForm(forms.Form):
    """A new version of a sequence join's proposal from a join between the same clips."""

    source = forms.ChoiceField(choices=(), label="Sequence join")
    title = forms.CharField(max_length=TITLE_MAX, required=False)
    summary = forms.CharField(max_length=TEXT_MAX, required=False, widget=forms.Textarea)

    def __init__(self, *args: Any, joins: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _choose(self.fields["source"], joins)

    def clean_source(self) -> tuple[int, int]:
        """``"<sequence>:<join>"`` → (sequence id, join number)."""
        sequence, join = str(self.cleaned_data["source"]).split(":")
        return int(sequence), int(join)


class ProposeJoinForm(forms.Form):
    """The sequence page's "Propose this join for review" form."""

    title = forms.CharField(max_length=TITLE_MAX, required=False)
    summary = forms.CharField(max_length=TEXT_MAX, required=False, widget=forms.Textarea)
    reviewers = forms.MultipleChoiceField(choices=(), required=False)

    def __init__(self, *args: Any, reviewers: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _choose(self.fields["reviewers"], [(name, name) for name in reviewers])


class ReviewersForm(forms.Form):
    """The whole set of reviewers (none selected: no reviewers)."""

    reviewers = forms.MultipleChoiceField(choices=(), required=False)

    def __init__(self, *args: Any, reviewers: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _choose(self.fields["reviewers"], [(name, name) for name in reviewers])


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=Verdict.choices)
    note = forms.CharField(max_length=TEXT_MAX, required=False, widget=forms.Textarea)


class ReviewRuleForm(forms.Form):
    """The project's N: approvals a version needs (owners)."""

    approvals_required = forms.IntegerField(
        min_value=1, max_value=MAX_APPROVALS_REQUIRED, label="Approvals needed"
    )


class CompareForm(forms.Form):
    """``?a=&b=``: two different proposals."""

    a = forms.IntegerField(min_value=1)
    b = forms.IntegerField(min_value=1)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("a") is not None and data.get("a") == data.get("b"):
            raise forms.ValidationError("Choose two different proposals to compare.")
        return data


class MarkReadForm(forms.Form):
    """One notification (``id``) or, without it, all of them."""

    id = forms.IntegerField(min_value=1, required=False)


def errors_text(form: forms.Form) -> str:
    """The form's errors as one sentence per field (``"Cut: Select a valid choice."``)."""
    parts = []
    for name, errors in form.errors.items():
        field = form.fields.get(name)
        label = (field.label or name.capitalize()) if field is not None else ""
        text = " ".join(str(e) for e in errors)
        parts.append(f"{label}: {text}" if label else text)
    return " ".join(parts)
