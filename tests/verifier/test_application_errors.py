"""One application error type: the input errors of every area are ``ApplicationError``s,
and the API's exception handler answers any of them with the JSON error body."""

from __future__ import annotations

import pytest

from review.services import ReviewError
from verifier.api.errors import ApiError, api_exception_handler
from verifier.binding import BindingInputError
from verifier.errors import ApplicationError
from verifier.memory import TranscriptInputError
from verifier.rag import RagInputError
from verifier.relations.calibration import CalibrationRefused
from verifier.scoring.rulesets import InvalidRuleSet
from verifier.services.binding import BindingRejected
from verifier.services.claim_lines import ClaimLinesError
from verifier.services.claim_verification import ClaimVerifyInputError
from verifier.services.claim_worker_request import WorkerInputError
from verifier.services.ingest_create import IngestInputError
from verifier.services.relation_verify import RelationReviewError
from verifier.services.retrieval import RetrievalInputError
from verifier.services.sources import SourceInputError
from verifier.services.validator_benchmark import FixtureError
from verifier.services.webhook_transport import WebhookTargetRefused
from verifier.services.webhooks import WebhookInputError

CODE_MESSAGE_ERRORS = [
    ClaimVerifyInputError,
    IngestInputError,
    RetrievalInputError,
    RagInputError,
    TranscriptInputError,
    WorkerInputError,
    SourceInputError,
    WebhookInputError,
    WebhookTargetRefused,
    BindingRejected,
]


@pytest.mark.parametrize("cls", CODE_MESSAGE_ERRORS)
def test_input_errors_are_application_errors_and_still_value_errors(cls):
    exc = cls("bad_thing", "That is bad.")
    assert isinstance(exc, ApplicationError) and isinstance(exc, ValueError)
    assert (exc.code, exc.message, exc.details, str(exc)) == (
        "bad_thing",
        "That is bad.",
        {},
        "That is bad.",
    )


def test_the_other_signatures_are_kept():
    binding = BindingInputError("Not UTF-8.", code="invalid_unicode")
    assert (binding.code, binding.message, str(binding)) == (
        "invalid_unicode",
        "Not UTF-8.",
        "Not UTF-8.",
    )
    review = ReviewError("An exclusion needs a reason.")
    assert isinstance(review, ValueError) and str(review) == "An exclusion needs a reason."
    assert review.code == "review_refused"
    relation = RelationReviewError("this relation is not waiting for review")
    assert not isinstance(relation, ValueError) and relation.code == "not_in_review"
    assert isinstance(ApiError("x", "y"), ApplicationError)


@pytest.mark.parametrize("cls", CODE_MESSAGE_ERRORS)
def test_the_handler_answers_any_of_them_with_the_json_error_body(cls):
    response = api_exception_handler(cls("bad_thing", "That is bad.", {"line": 3}), {})
    assert response is not None and response.status_code == 400
    assert response.data == {
        "error": {"code": "bad_thing", "message": "That is bad.", "details": {"line": 3}}
    }


def test_an_api_error_keeps_its_own_status():
    response = api_exception_handler(ApiError("gone", "Gone.", status_code=410), {})
    assert response is not None and response.status_code == 410
    assert response.data == {"error": {"code": "gone", "message": "Gone.", "details": {}}}


def test_the_file_and_rule_errors_are_application_errors_with_their_own_codes():
    lines = ClaimLinesError(4, "needs a text")
    assert (lines.code, lines.message, lines.details, str(lines)) == (
        "invalid_claim_lines",
        "needs a text",
        {"line": 4},
        "line 4: needs a text",
    )
    rules = InvalidRuleSet(["unknown dimension 'x'", "overridden weights sum to 0"])
    assert (rules.code, rules.details["errors"], str(rules)) == (
        "invalid_rule_set",
        ["unknown dimension 'x'", "overridden weights sum to 0"],
        "unknown dimension 'x'; overridden weights sum to 0",
    )
    fixture, refused = FixtureError("no claims"), CalibrationRefused("3 decisions")
    assert (fixture.code, refused.code) == ("invalid_fixture", "calibration_refused")
    for exc in (lines, rules, fixture, refused):
        assert isinstance(exc, ApplicationError) and isinstance(exc, ValueError)
        response = api_exception_handler(exc, {})
        assert response is not None and response.status_code == 400
        assert response.data["error"]["code"] == exc.code
