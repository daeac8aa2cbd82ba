"""The OpenAI-compatible chat-completions protocol as the judge and the extractor both
speak it (vLLM, Ollama, llama.cpp server, hosted APIs): one POST per request, JSON mode
when the server supports it (retried without ``response_format`` when it does not), and
the JSON object read out of an answer that may wrap it in a code fence or prose."""

from __future__ import annotations

import json
import re
from typing import Any, TypedDict

import requests
from environs import Env
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from verifier.untrusted_input import loads_bounded

DEFAULT_TIMEOUT_SECONDS = 60.0
# Transient answers (rate limited, overloaded, gateway trouble) are retried with
# exponential backoff, honouring ``Retry-After``; other errors are not retried.
RETRY_STATUSES = (429, 502, 503, 504)
DEFAULT_RETRIES = 3
RETRY_BACKOFF_SECONDS = 0.5
RETRY_AFTER_MAX_SECONDS = 30.0


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
    """``Retry`` whose ``Retry-After`` wait is capped, so a server cannot stall a batch."""

    def get_retry_after(self, response: Any) -> float | None:
        seconds = super().get_retry_after(response)
        return None if seconds is None else min(seconds, RETRY_AFTER_MAX_SECONDS)


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
                self.url, json=body, headers=headers, timeout=self.timeout
            )
        except requests.Timeout as exc:
            raise ChatUnavailable(f"timeout after {self.timeout:g}s") from exc
        except requests.RequestException as exc:
            raise ChatUnavailable(f"request failed: {type(exc).__name__}") from exc
        if response.status_code == 400 and self.json_mode and "response_format" in response.text:
            self.json_mode = False  # server does not support JSON mode: ask without it
            return self.complete(system=system, user=user, temperature=temperature, n=n)
        if response.status_code >= 400:
            raise ChatUnavailable(f"http {response.status_code}")
        try:
            contents = [c["message"]["content"] for c in response.json()["choices"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise ChatUnavailable("response is not a chat completion") from exc
        if not contents:  # a completion has at least one choice
            raise ChatUnavailable("response is not a chat completion")
        if not all(isinstance(c, str) for c in contents):
            raise ChatUnavailable("response has no message content")
        return contents


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
