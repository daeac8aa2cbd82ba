"""The direct-rendering widgets write what Django's widget templates write, to the
character, for the values, attributes and choices the console's forms use (and the
awkward ones: markup in values and labels, option groups, booleans, None)."""

from __future__ import annotations

import pytest
from django import forms

from verifier import widgets

HOSTILE = "<b>\"x\" & 'y'</b>"
ATTRS = [
    None,
    {"id": "id_q", "required": True},
    {"id": "id_q", "disabled": False, "aria-invalid": "true", "data-n": 3, "title": HOSTILE},
    {"placeholder": None},
]
INPUT_VALUES = [None, "", "plain", HOSTILE, 0, 0.25, "12.5"]
CHOICES = [
    [("queue", "Queue (unverified + contradicted)"), ("unverified", "Unverified")],
    [("", "Any reason"), ("abstained", "abstained"), (HOSTILE, HOSTILE)],
    [("", "Anyone"), ("true", "Me")],
    [("Group <1>", [("a", "A & B"), ("b", "B")]), ("c", "C"), (None, "None value")],
    [(1, "one"), (2, "two")],
    [],
]
SELECT_VALUES = [None, "", "unverified", "abstained", HOSTILE, "b", "c", 2, "2", "missing"]


@pytest.mark.parametrize(
    ("direct", "django_class"),
    [(widgets.TextInput, forms.TextInput), (widgets.NumberInput, forms.NumberInput)],
)
@pytest.mark.parametrize("attrs", ATTRS)
@pytest.mark.parametrize("value", INPUT_VALUES)
def test_inputs_render_as_django_does(direct, django_class, attrs, value):
    for own in (None, {"step": "any", "class": "wide"}):
        expected = django_class(attrs=own).render("q", value, attrs=attrs)
        assert direct(attrs=own).render("q", value, attrs=attrs) == expected


@pytest.mark.parametrize("choices", CHOICES)
@pytest.mark.parametrize("attrs", ATTRS)
@pytest.mark.parametrize("value", SELECT_VALUES)
def test_selects_render_as_django_does(choices, attrs, value):
    expected = forms.Select(choices=choices).render("state", value, attrs=attrs)
    assert widgets.Select(choices=choices).render("state", value, attrs=attrs) == expected


def test_a_bound_field_renders_as_django_does():
    """Through a form: the bound field adds id, required and aria-invalid on errors."""

    def form_class(select, text, number):
        class F(forms.Form):
            state = forms.ChoiceField(choices=CHOICES[1], widget=select)
            q = forms.CharField(required=False, max_length=20, widget=text)
            n = forms.DecimalField(required=True, widget=number)

        return F

    ours = form_class(widgets.Select, widgets.TextInput, widgets.NumberInput)
    django = form_class(forms.Select, forms.TextInput, forms.NumberInput)
    for data in ({}, {"state": "abstained", "q": HOSTILE, "n": "x"}, {"state": "nope", "n": "1"}):
        mine, theirs = ours(data), django(data)
        mine.is_valid(), theirs.is_valid()
        for name in ("state", "q", "n"):
            assert str(mine[name]) == str(theirs[name])
    invalid = ours({"n": "x"})
    assert not invalid.is_valid()
    assert 'aria-invalid="true"' in str(invalid["n"])
