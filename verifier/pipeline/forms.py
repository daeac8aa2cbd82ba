"""The console upload form: pasted text and/or files (text, Markdown, HTML)."""

from __future__ import annotations

from typing import Any, Final

from django import forms
from django.conf import settings

from verifier.services.ingest_create import SourceUpload, ref_for_text
from verifier.services.ingest_input import FORMATS, format_for_filename
from verifier.untrusted_input import blank_text_problem
from verifier.upload_text import uploaded_text

MAX_FILE_BYTES: Final = 5_000_000
UNTITLED_PASTE: Final = "Pasted text"
FORMAT_LABELS: Final = {"text": "Plain text", "markdown": "Markdown", "html": "HTML"}
FILES_HELP: Final = (
    "Plain text (.txt), Markdown (.md) or HTML (.html) files, UTF-8 (or UTF-16 or UTF-32 "
    "with a byte-order mark), up to 5 MB each; each "
    "file is read by its extension. A PDF or Word document: save it as text first."
)


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault(
            "widget", MultipleFileInput(attrs={"accept": ".txt,.md,.markdown,.html,.htm"})
        )
        super().__init__(*args, **kwargs)

    def clean(self, data: Any, initial: Any = None) -> list[Any]:
        """Every chosen file, or one error per file that cannot be read, naming it (the
        plain field's "The submitted file is empty." does not say which)."""
        if not data:
            return []
        items = data if isinstance(data, list | tuple) else [data]
        cleaned, errors = [], []
        for item in items:
            try:
                cleaned.append(super().clean(item, initial))
            except forms.ValidationError as exc:
                name = getattr(item, "name", "") or "a file"
                if exc.code == "empty":
                    errors.append(forms.ValidationError(f"{name} is empty.", code="empty"))
                else:
                    errors.extend(
                        forms.ValidationError(f"{name}: {message}", code=exc.code)
                        for message in exc.messages
                    )
        if errors:
            raise forms.ValidationError(errors)
        return cleaned


class IngestUploadForm(forms.Form):
    label = forms.CharField(
        max_length=200,
        required=False,
        help_text="Optional: names the job in the list of recent jobs.",
    )
    title = forms.CharField(
        max_length=300,
        required=False,
        help_text="Title of the pasted text: the same title again adds a new version of that "
        "source. Untitled, each different text is a source of its own.",
    )
    text = forms.CharField(
        required=False, strip=False, widget=forms.Textarea(attrs={"rows": 8}), label="Paste text"
    )
    format = forms.ChoiceField(
        choices=[(f, FORMAT_LABELS.get(f, f)) for f in FORMATS],
        initial="text",
        label="Format of the pasted text",
    )
    domain_pack = forms.CharField(
        max_length=64,
        required=False,
        help_text="Blank: general for a new source; a source already stored keeps its own.",
    )
    # the metaclass takes declared fields off the class; the stubs see BaseForm.files
    files = MultipleFileField(  # type: ignore[assignment]
        required=False,
        label="Or upload files",
        help_text=FILES_HELP,
    )

    def clean_text(self) -> str:
        # A browser sends a textarea's line ends as CRLF whatever was pasted (the HTML
        # form submission rule), so the pasted text is read with LF: the same text as a
        # .txt file is then the same version (one SHA-256, the same offsets), not another.
        return str(self.cleaned_data.get("text") or "").replace("\r\n", "\n")

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        # A file the files field refused is its own error (and not in cleaned_data): a
        # file was chosen, so "choose one" would be false.
        if not (data.get("text") or "").strip() and not data.get("files"):
            if "files" not in self.errors:
                raise forms.ValidationError("Paste some text or choose at least one file.")
            return data
        pasted = data.get("text") or ""
        if len(pasted) > settings.SOURCE_TEXT_MAX_CHARS:  # what every other door allows
            self.add_error(
                "text",
                f"The pasted text is {len(pasted):,} characters long; a source holds at most "
                f"{settings.SOURCE_TEXT_MAX_CHARS:,} characters: split it into smaller texts.",
            )
            return data
        blank = blank_text_problem(pasted) if pasted.strip() else None
        if blank is not None:  # a zero-width space, say: the rule every door applies
            self.add_error("text", f"The pasted text {blank}: paste text with something to read.")
            return data
        pack = (data.get("domain_pack") or "").strip()
        uploads = []
        # An invalid format is already the field's own error (and not in cleaned_data).
        if (data.get("text") or "").strip() and "format" in data:
            title = (data.get("title") or "").strip()
            uploads.append(
                SourceUpload(
                    text=data["text"],
                    # Untitled, it is named by its text (ref_for_text): another untitled
                    # paste is another source, not a new version of this one.
                    title=title or UNTITLED_PASTE,
                    ref="" if title else ref_for_text(data["text"]),
                    format=data["format"],
                    domain_pack=pack,
                )
            )
        for upload in data.get("files") or []:
            text = uploaded_text(
                upload,
                max_bytes=MAX_FILE_BYTES,
                too_large=f"{upload.name} is larger than 5 MB: split it into smaller files.",
                not_utf8=f"{upload.name} is not UTF-8 text: upload plain text, Markdown or "
                "HTML (save a PDF or Word document as text first).",
                has_nul=f"{upload.name} contains a NUL character: it is not a text file.",
            )
            blank = blank_text_problem(text)
            if blank is not None:
                self.add_error("files", f"{upload.name}: the text {blank}.")
                continue
            fmt = format_for_filename(upload.name)
            uploads.append(SourceUpload(text=text, title=upload.name, format=fmt, domain_pack=pack))
        data["uploads"] = uploads
        return data
