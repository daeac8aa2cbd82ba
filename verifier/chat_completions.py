"""The OpenAI-compatible chat-completions protocol as the judge and the extractor both
speak it (vLLM, Ollama, llama.cpp server, hosted APIs): one POST per request, JSON mode
when the server supports it (retried without ``response_format`` when it does not), and
the JSON object read out of an answer that may wrap it in a code fence or prose.

The server is not trusted to behave: the answer's body must arrive within the timeout
(a server that keeps a connection open trickling bytes or SSE keep-alives is a timeout,
not a hang), at most ``MAX_RESPONSE_BYTES`` of it is read, redirects are not followed
(the request, claims and spans included, goes to the configured address only), and the
body is read as UTF-8 (JSON's encoding; undecodable bytes become U+FFFD)."""

from __future__ import annotations

import json
import re
import time
from types import TracebackType
from typing import Any, Self, TypedDict
from urllib.parse import urlsplit, urlunsplit

import requests
import urllib3.exceptions
from environs import Env
from requests.adapters import HTTPAdapter
from urllib3.connectionpool import ConnectionPool
from urllib3.exceptions import MaxRetryError, ResponseError
from urllib3.response import BaseHTTPResponse
from urllib3.util.retry import Retry

from verifier.untrusted_input import loads_bounded

DEFAULT_TIMEOUT_SECONDS = 60.0
# Transient answers (rate limited, overloaded, gateway trouble) are retried with
# exponential backoff, honouring ``Retry-After``; other errors are not retried.
RETRY_STATUSES = (429, 502, 503, 504)
DEFAULT_RETRIES = 3
RETRY_BACKOFF_SECONDS = 0.5
RETRY_AFTER_MAX_SECONDS = 30.0
# The most of one answer that is read: a batch of 25 judged items times 9 samples, or the
# claims of one 6,000-character chunk, is a small fraction of it.
MAX_RESPONSE_BYTES = 8 * 1024 * 1024
_READ_CHUNK_BYTES = 64 * 1024


def retrying_session(retries: int | None = None) -> requests.Session:
    """A session that retries POSTs on ``RETRY_STATUSES`` and on connection errors
    (``SPANPROOF_CHAT_RETRIES`` times, default 3), waiting as ``Retry-After`` says
    (at most ``RETRY_AFTER_MAX_SECONDS``) or 0.5 s, 1 s, 2 s …"""
    if retries is None:
        retries = Env().int("SPANPROOF_CHAT_RETRIES", DEFAULT_RETRIES)
    policy = _CappedRetry(
        total=max(0, retries),
        connect=max(0, retries),
        read=False,  # a read timeout is not retried (it may have been processed): raised as is
        status=max(0, retries),
        status_forcelist=RETRY_STATUSES,
        allowed_methods=frozenset({"POST"}),
        backoff_factor=RETRY_BACKOFF_SECONDS,
        respect_retry_after_header=True,
        raise_on_status=False,
    )
    session = requests.Session()
    adapter = HTTPAdapter(max_retries=policy)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


class _CappedRetry(Retry):
    """``Retry`` that honours ``Retry-After`` within ``RETRY_AFTER_MAX_SECONDS``: a longer
    wait asked for ends the retries at once (retrying sooner than the server said only
    earns another refusal, and waiting longer would stall the batch), and a value that is
    neither seconds nor an HTTP date is ignored (the exponential backoff applies)."""

    def get_retry_after(self, response: Any) -> float | None:
        try:
            seconds = super().get_retry_after(response)
        except urllib3.exceptions.InvalidHeader:
            return None
        return None if seconds is None else min(seconds, RETRY_AFTER_MAX_SECONDS)

    def increment(
        self,
        method: str | None = None,
        url: str | None = None,
        response: BaseHTTPResponse | None = None,
        error: Exception | None = None,
        _pool: ConnectionPool | None = None,
        _stacktrace: TracebackType | None = None,
    ) -> Self:
        if response is not None and response.status in RETRY_STATUSES:
            try:
                asked = super().get_retry_after(response)
            except urllib3.exceptions.InvalidHeader:
                asked = None
            if asked is not None and asked > RETRY_AFTER_MAX_SECONDS:
                reason = ResponseError(
                    f"Retry-After {asked:g}s is over {RETRY_AFTER_MAX_SECONDS:g}s"
                )
                raise MaxRetryError(_pool, url or "", reason)  # type: ignore[arg-type]
        return super().increment(method, url, response, error, _pool, _stacktrace)


class ChatUnavailable(RuntimeError):
    """The server could not be reached or did not answer the protocol; the message is
    the short reason (``timeout after 5s``, ``http 503``, …)."""


def family_from_model(model: str) -> str:
    """Best-effort family of a model name: 'meta-llama/Llama-3.3-70B' → 'llama'."""
    name = model.rsplit("/", 1)[-1].lower()
    match = re.match(r"[a-z]+", name)
    return match.group(0) if match else name


class ChatCompletionsClient:
    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str = "",
        timeout: float | None = None,
        json_mode: bool = True,
        session: requests.Session | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout = timeout or DEFAULT_TIMEOUT_SECONDS
        self.json_mode = json_mode
        self._session = session or retrying_session()

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    @property
    def shown_url(self) -> str:
        """``url`` as an error message may show it: without a ``user:password@`` (a
        credential some gateways take in the URL), a query or a fragment."""
        parts = urlsplit(self.url)
        host = parts.netloc.rpartition("@")[2]
        return urlunsplit((parts.scheme, host, parts.path, "", ""))

    def complete(self, *, system: str, user: str, temperature: float, n: int = 1) -> list[str]:
        """The message contents of the completion's choices (at least one)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "temperature": temperature,
        }
        if n > 1:
            body["n"] = n
        if self.json_mode:
            body["response_format"] = {"type": "json_object"}
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        try:
            response = self._session.post(
                self.url,
                json=body,
                headers=headers,
                timeout=self.timeout,
                stream=True,
                allow_redirects=False,
            )
        except requests.Timeout as exc:
            raise ChatUnavailable(f"timeout after {self.timeout:g}s") from exc
        except requests.RequestException as exc:
            raise ChatUnavailable(f"request failed: {type(exc).__name__}") from exc
        with response:
            status = response.status_code
            if 300 <= status < 400:
                raise ChatUnavailable(
                    f"http {status}: redirected (redirects are not followed; "
                    "set the base URL to the address that answers)"
                )
            if status > 400:
                raise ChatUnavailable(f"http {status}" + _retry_after_note(response))
            data = self._read_body(response)
        if status == 400:
            if self.json_mode and b"response_format" in data:
                self.json_mode = False  # server does not support JSON mode: ask without it
                return self.complete(system=system, user=user, temperature=temperature, n=n)
            raise ChatUnavailable("http 400")
        try:
            document = json.loads(data.decode("utf-8", errors="replace"))
            contents = [c["message"]["content"] for c in document["choices"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise ChatUnavailable("response is not a chat completion") from exc
        if not contents:  # a completion has at least one choice
            raise ChatUnavailable("response is not a chat completion")
        if not all(isinstance(c, str) for c in contents):
            raise ChatUnavailable("response has no message content")
        return contents

    def _read_body(self, response: requests.Response) -> bytes:
        """The whole body, read by hand: within ``timeout`` seconds of the answer's
        headers and at most ``MAX_RESPONSE_BYTES``. (A read timeout alone bounds only
        the gap between two bytes, so a server trickling bytes would hold a job for
        ever.)"""
        deadline = time.monotonic() + self.timeout
        body = bytearray()
        try:
            while chunk := response.raw.read1(_READ_CHUNK_BYTES, decode_content=True):
                body += chunk
                if len(body) > MAX_RESPONSE_BYTES:
                    raise ChatUnavailable(
                        f"response larger than {MAX_RESPONSE_BYTES // (1024 * 1024)} MiB"
                    )
                if time.monotonic() > deadline:
                    raise ChatUnavailable(
                        f"timeout after {self.timeout:g}s (the answer was still arriving)"
                    )
        except urllib3.exceptions.ReadTimeoutError as exc:
            raise ChatUnavailable(f"timeout after {self.timeout:g}s") from exc
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise ChatUnavailable(
                f"request failed: connection broken mid-answer ({type(exc).__name__})"
            ) from exc
        return bytes(body)


def _retry_after_note(response: requests.Response) -> str:
    """`` (retry after 3600s)`` when a refusal says how long to wait, else ``""``."""
    value = (response.headers.get("Retry-After") or "").strip()
    if value.isascii() and value.isdigit() and len(value) <= 9:
        return f" (retry after {int(value)}s)"
    return ""


_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


def load_json_answer(content: str) -> Any:
    """The JSON value of one answer: the whole text, the inside of a code fence, or the
    outermost ``{...}`` in surrounding prose. Raises ``ValueError`` if none parses."""
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        return loads_bounded(text)
    except json.JSONDecodeError:
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start:
            raise ValueError("answer is not JSON") from None
        try:
            return loads_bounded(text[start : end + 1])
        except json.JSONDecodeError as exc:
            raise ValueError(f"answer is not JSON: {exc.msg}") from None


class ChatModelOptions(TypedDict, total=False):
    """The options of a chat-completions model besides its ``base_url`` and ``model``;
    the judge and the extractor pass them through unchanged."""

    api_key: str
    family: str
    timeout: float | None
    json_mode: bool
    session: requests.Session | None


class ChatCompletionsModel:
    """A model served behind a chat-completions endpoint (the judge, the extractor): its
    client and the identity both protocols expose (``model_id``, ``family``)."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str = "",
        family: str = "",
        timeout: float | None = None,
        json_mode: bool = True,
        session: requests.Session | None = None,
    ) -> None:
        self._client = ChatCompletionsClient(
            base_url=base_url,
            model=model,
            api_key=api_key,
            timeout=timeout,
            json_mode=json_mode,
            session=session,
        )
        self.base_url = self._client.base_url
        self.model = model
        self.model_id = model
        self.family = family or family_from_model(model)
        self.timeout = self._client.timeout
