"""Form widgets that write their HTML in Python instead of through the template engine.

Django renders every widget from templates (``select.html`` includes ``attrs.html``
and, per option, ``select_option.html``): a filter bar of a dozen fields costs several
milliseconds of template rendering on every list page. These subclasses take the same
context (``get_context``: attributes, formatted value, option groups) and write the
same markup as Django's templates, character for character
(``tests/verifier/test_widgets.py`` compares them); everything else, from validation to
``id_for_label``, is the parent class's.

Every piece is built by ``format_html`` / ``format_html_join``, which escape each value
(a value that is already safe markup, such as a lazily translated label marked safe by
its form, is kept as Django's templates keep it); nothing here marks text safe itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString


def flat_attrs(attrs: Mapping[str, Any]) -> SafeString:
    """``attrs.html``: `` name="value"`` per attribute in order, `` name`` for True, none
    for False; values as ``str`` (``stringformat:'s'``), escaped."""
    return format_html_join(
        "",
        "{}",
        (
            (
                format_html(" {}", name)
                if value is True
                else format_html(' {}="{}"', name, str(value)),
            )
            for name, value in attrs.items()
            if value is not False
        ),
    )


class _Direct:
    """Renders ``get_context``'s widget through :meth:`html` (no renderer)."""

    def html(self, widget: dict[str, Any]) -> SafeString:
        raise NotImplementedError

    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: Any = None
    ) -> SafeString:
        context = self.get_context(name, value, attrs)  # type: ignore[attr-defined]
        return self.html(context["widget"])


class _DirectInput(_Direct):
    def html(self, widget: dict[str, Any]) -> SafeString:
        value = widget["value"]
        shown = "" if value is None else format_html(' value="{}"', str(value))
        return format_html(
            '<input type="{}" name="{}"{}{}>',
            widget["type"],
            widget["name"],
            shown,
            flat_attrs(widget["attrs"]),
        )


class TextInput(_DirectInput, forms.TextInput):
    pass


class NumberInput(_DirectInput, forms.NumberInput):
    pass


class Select(_Direct, forms.Select):
    def html(self, widget: dict[str, Any]) -> SafeString:
        groups = format_html_join(
            "", "{}", ((self._group(name, options),) for name, options, _ in widget["optgroups"])
        )
        return format_html(
            '<select name="{}"{}>{}\n</select>', widget["name"], flat_attrs(widget["attrs"]), groups
        )

    @staticmethod
    def _group(name: Any, options: list[dict[str, Any]]) -> SafeString:
        listed = format_html_join(
            "",
            '\n  <option value="{}"{}>{}</option>\n',
            ((str(o["value"]), flat_attrs(o["attrs"]), o["label"]) for o in options),
        )
        if not name:
            return listed
        return format_html('\n  <optgroup label="{}">{}\n  </optgroup>', name, listed)
