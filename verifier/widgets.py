"""Form widgets that write their HTML in Python instead of through the template engine.

Django renders every widget from templates (``select.html`` includes ``attrs.html``
and, per option, ``select_option.html``): a filter bar of a dozen fields costs several
milliseconds of template rendering on every list page. These subclasses take the same
context (``get_context``: attributes, formatted value, option groups) and write the
same markup as Django's templates, character for character
(``tests/verifier/test_widgets.py`` compares them); everything else, from validation to
``id_for_label``, is the parent class's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe


def flat_attrs(attrs: Mapping[str, Any]) -> str:
    """``attrs.html``: `` name="value"`` per attribute in order, `` name`` for True, none
    for False; values as ``str`` (``stringformat:'s'``), escaped."""
    parts = []
    for name, value in attrs.items():
        if value is False:
            continue
        if value is True:
            parts.append(" " + conditional_escape(name))
        else:
            parts.append(format_html(' {}="{}"', name, str(value)))
    return "".join(parts)


class _Direct:
    """Renders ``get_context``'s widget through :meth:`html` (no renderer)."""

    def html(self, widget: dict[str, Any]) -> str:
        raise NotImplementedError

    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: Any = None
    ) -> SafeString:
        context = self.get_context(name, value, attrs)  # type: ignore[attr-defined]
        return mark_safe(self.html(context["widget"]))


class _DirectInput(_Direct):
    def html(self, widget: dict[str, Any]) -> str:
        value = widget["value"]
        shown = "" if value is None else format_html(' value="{}"', str(value))
        return format_html(
            '<input type="{}" name="{}"{}{}>',
            widget["type"],
            widget["name"],
            shown,
            mark_safe(flat_attrs(widget["attrs"])),
        )


class TextInput(_DirectInput, forms.TextInput):
    pass


class NumberInput(_DirectInput, forms.NumberInput):
    pass


class Select(_Direct, forms.Select):
    def html(self, widget: dict[str, Any]) -> str:
        parts = [
            format_html(
                '<select name="{}"{}>', widget["name"], mark_safe(flat_attrs(widget["attrs"]))
            )
        ]
        for group_name, options, _index in widget["optgroups"]:
            if group_name:
                parts.append(format_html('\n  <optgroup label="{}">', group_name))
            for option in options:
                parts.append(
                    format_html(
                        '\n  <option value="{}"{}>{}</option>\n',
                        str(option["value"]),
                        mark_safe(flat_attrs(option["attrs"])),
                        option["label"],
                    )
                )
            if group_name:
                parts.append("\n  </optgroup>")
        parts.append("\n</select>")
        return "".join(parts)
