"""The console's "Verify claims" form: pasted or uploaded JSONL/CSV claims."""

from __future__ import annotations

from typing import Any, cast

from django import forms

from verifier.models import Source, Workspace
from verifier.pipeline.forms import MAX_FILE_BYTES
from verifier.selectors.rules import rule_set_active
from verifier.selectors.sources import source_documents
from verifier.services.claim_lines import ClaimLinesError, parse_claim_lines
from verifier.services.claim_verification import (
    MAX_CLAIMS_PER_BATCH,
    REFUSAL_PROBLEMS_SHOWN,
    ClaimVerifyInputError,
)
from verifier.upload_text import uploaded_text
from verifier.vocabulary import label


class ClaimVerifyForm(forms.Form):
    claims = forms.CharField(
        required=False,
        strip=False,
        label="Paste claims",
        widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false"}),
        help_text=(
            'One JSON object a line ({"text": …, "source": …, "quote": …, '
            '"external_id": …}), or CSV with a header row: text,source,quote,external_id.'
        ),
    )
    file = forms.FileField(
        required=False,
        label="Or upload a file",
        widget=forms.ClearableFileInput(attrs={"accept": ".jsonl,.json,.csv,.txt"}),
    )
    source = forms.ModelChoiceField(
        queryset=Source.objects.none(),
        required=False,
        label="Cited source",
        empty_label="— each claim names its source —",
        help_text="Cited by every claim that names no source.",
    )
    policy = forms.ChoiceField(required=False, label="Rule-set policy")

    def __init__(self, *args: Any, workspace: Workspace, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = cast("forms.ModelChoiceField[Source]", self.fields["source"])
        field.queryset = source_documents(workspace=workspace)
        active = rule_set_active(workspace=workspace, domain_pack="general")
        # policies in the vocabulary's words ("Strict"), as the rule-set pages name them
        cast(forms.ChoiceField, self.fields["policy"]).choices = [
            ("", f"Active ({label('policy', active.policy)})")
        ] + [(p.name, label("policy", p.name)) for p in active.definition.policies]

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        upload = data.get("file")
        text = data.get("claims") or ""
        if upload is not None:
            text = uploaded_text(
                upload,
                max_bytes=MAX_FILE_BYTES,
                too_large=f"{upload.name} is larger than 5 MB.",
                not_utf8=f"{upload.name} is not UTF-8 text.",
                has_nul="The claims contain a NUL character.",
            )
        source = data.get("source")
        try:
            parsed = parse_claim_lines(text, default_source=source.ref if source else "")
        except ClaimLinesError as exc:
            raise forms.ValidationError(f"Line {exc.line}: {exc.message}") from exc
        if not parsed:
            raise forms.ValidationError("Paste some claims or choose a file.")
        if len(parsed) > MAX_CLAIMS_PER_BATCH:
            raise forms.ValidationError(
                f"{len(parsed)} claims; at most {MAX_CLAIMS_PER_BATCH} per batch."
            )
        data["parsed"] = parsed
        data["lines"] = [claim.line for claim in parsed]
        return data

    def refusal_message(self, exc: ClaimVerifyInputError) -> str:
        """The service's refusal in this page's words: a batch with no claim to verify
        names each problem by its line ("Line 3: …"), as the form's own errors do, where
        the API's message numbers the claims as its ``claims`` array does."""
        lines: list[int | None] = self.cleaned_data.get("lines") or []
        errors = exc.details.get("errors") if exc.code == "no_claim_accepted" else None
        if not errors or not lines:
            return exc.message
        problems = [
            f"Line {lines[e['index']]}: {str(e['message']).rstrip('.')}"
            for e in errors
            if e.get("message")
            and 0 <= e.get("index", -1) < len(lines)
            and lines[e["index"]] is not None
        ]
        if not problems:
            return exc.message
        shown = "; ".join(problems[:REFUSAL_PROBLEMS_SHOWN])
        more = len(problems) - REFUSAL_PROBLEMS_SHOWN
        return f"No claim could be verified — {shown}" + (
            f"; and {more} more." if more > 0 else "."
        )
