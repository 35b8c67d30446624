"""The transport of a language-model player: one chat request to an OpenAI-compatible
endpoint, its faults kept apart from the model's replies.

:meth:`Transport.complete` sends the messages and returns a :class:`Completion` (the
model's text, its reasoning, why it stopped, tokens, seconds). The endpoint's faults never
become a reply of the model:

- *transport faults* (a timeout, a lost connection, HTTP 5xx, 408, 409, 429, a body that
  is not the API's JSON, a completion with ``null`` content and no reasoning) are retried
  here: the same request is sent again up to ``transport_retries`` times (default 2),
  with back-off (``backoff * 2**k`` seconds, at most 30, or the server's ``Retry-After``
  when shorter than 60 s);
- a request whose retries all met faults is a *failed request*, the endpoint's: it is
  sent again, and after ``max_failures`` failed requests in a row (default 5; counted
  over every thread that shares the transport), :class:`EndpointError` is raised;
- at once, on an answer no later request would change, :class:`EndpointError` is raised:
  HTTP 400 with the server's reason, 401 and 403 (the key), 402 and a 429 that says the
  quota is spent (``insufficient_quota``), 404 (a model that does not exist, or a wrong
  address), 422. Every later request raises it too: the run stops, since no move could be
  the model's own.

A 30%-faulty endpoint fails a request (three tries) 2.7% of the time, and five in a row
about once in 70 million requests: it finishes. A dead one stops after 15 tries.

Sent with each request: ``model`` and ``messages``; ``temperature``, ``max_tokens``,
``max_completion_tokens``, ``reasoning_effort`` only when set (OpenAI's reasoning models
refuse ``temperature`` and ``max_tokens``); ``extra_body`` and ``extra_headers`` as given
(a provider's own options: ``{"top_k": 20}``, ``{"chat_template_kwargs": ...}``).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gin_env.optional import require

__all__ = [
    "EndpointError",
    "Completion",
    "Transport",
    "RETRY_STATUS",
    "STOP_STATUS",
    "REASONING_EFFORTS",
]

#: HTTP answers that a later try may fix: a timeout, a conflict, rate limits, server errors.
RETRY_STATUS = frozenset((408, 409, 429, 500, 502, 503, 504))
#: HTTP answers that stop the run: the request is refused (400: the server says why), the
#: key (401, 403), the bill (402), the model or the address (404).
STOP_STATUS = frozenset((400, 401, 402, 403, 404, 422))
#: The values of ``reasoning_effort`` OpenAI's API takes.
REASONING_EFFORTS = ("minimal", "low", "medium", "high")
_MAX_WAIT = 30.0


class EndpointError(RuntimeError):
    """The endpoint cannot be used (down, or it refuses the request, the key or the bill):
    the run must stop; nothing this player did after it is its own."""


@dataclass
class Completion:
    """One model reply: ``text`` (the message content; ``""`` when the model said
    nothing), ``reasoning`` (a ``reasoning_content`` or ``reasoning`` field, if any),
    ``finish_reason`` (``"length"``: cut at the token limit), the tokens (``None`` when
    the server gave no usage), ``latency_s`` (the whole call, retries included), the HTTP
    ``requests`` sent for it, the transport ``faults`` met on the way (each retried) and
    the ``failed_requests`` among them (a request whose retries all met faults)."""

    text: str
    reasoning: str | None = None
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    cached_tokens: int | None = None
    latency_s: float = 0.0
    requests: int = 1
    faults: list[str] = field(default_factory=list)
    timeouts: int = 0
    failed_requests: int = 0

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


class _Fault(Exception):
    """A transport fault, retried: ``kind`` is ``timeout``, ``http``, ``connection``,
    ``body`` or ``null``."""

    def __init__(self, kind: str, detail: str, wait: float | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.wait = wait


def _check_number(name: str, value: Any, low: float, high: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if value < low or (high is not None and value > high):
        span = f"in {low:g}..{high:g}" if high is not None else f">= {low:g}"
        raise ValueError(f"{name} must be a number {span}, got {value!r}")
    return float(value)


def _check_count(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an int in {low}..{high}, got {value!r}")
    return value


class Transport:
    """Chat requests to one endpoint (see the module docstring); thread-safe."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 30.0,
        backoff: float = 1.0,
        max_failures: int = 5,
        temperature: float | None = None,
        max_tokens: int | None = None,
        max_completion_tokens: int | None = None,
        reasoning_effort: str | None = None,
        extra_body: Mapping[str, Any] | None = None,
        extra_headers: Mapping[str, str] | None = None,
        transport_retries: int = 2,
    ) -> None:
        if not isinstance(model, str) or not model:
            raise ValueError(f"model must be a non-empty string, got {model!r}")
        if base_url is not None and not isinstance(base_url, str):
            raise ValueError(f"base_url must be a URL string, got {base_url!r}")
        if not isinstance(api_key_env, str) or not api_key_env:
            raise ValueError(f"api_key_env must name an environment variable, got {api_key_env!r}")
        self.timeout = _check_number("timeout", timeout, 0.001)
        self.backoff = _check_number("backoff", backoff, 0.0, 60.0)
        self.max_failures = _check_count("max_failures", max_failures, 1, 1000)
        self.transport_retries = _check_count("transport_retries", transport_retries, 0, 100)
        if temperature is not None:
            temperature = _check_number("temperature", temperature, 0.0, 2.0)
        for name, value in (
            ("max_tokens", max_tokens),
            ("max_completion_tokens", max_completion_tokens),
        ):
            if value is not None:
                _check_count(name, value, 1, 10_000_000)
        if max_tokens is not None and max_completion_tokens is not None:
            raise ValueError("give max_tokens or max_completion_tokens, not both")
        if reasoning_effort is not None and reasoning_effort not in REASONING_EFFORTS:
            raise ValueError(
                f"reasoning_effort must be one of {', '.join(REASONING_EFFORTS)}; "
                f"got {reasoning_effort!r}"
            )
        for name, given in (("extra_body", extra_body), ("extra_headers", extra_headers)):
            if given is not None and not isinstance(given, Mapping):
                raise ValueError(f"{name} must be a mapping (a JSON object), got {given!r}")
        if extra_headers is not None and not all(
            isinstance(k, str) and isinstance(v, str) for k, v in extra_headers.items()
        ):
            raise ValueError(f"extra_headers must map strings to strings, got {extra_headers!r}")
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.max_completion_tokens = max_completion_tokens
        self.reasoning_effort = reasoning_effort
        self.extra_body = dict(extra_body) if extra_body is not None else None
        self.extra_headers = dict(extra_headers) if extra_headers is not None else None
        self._client: Any = None
        self._openai: Any = None
        self._lock = threading.Lock()
        self._in_row = 0  # failed requests in a row, every thread together
        self.dead: str | None = None  # why the endpoint was given up

    # -- the request ---------------------------------------------------------------------------
    @property
    def token_limit(self) -> int | None:
        return self.max_completion_tokens or self.max_tokens

    def request_options(self, token_limit: int | None = None) -> dict[str, Any]:
        """What each request sends besides the model and the messages (only what is set);
        ``token_limit`` replaces the limit set (a re-ask with more room)."""
        opts: dict[str, Any] = {}
        if self.temperature is not None:
            opts["temperature"] = self.temperature
        if self.max_tokens is not None:
            opts["max_tokens"] = token_limit or self.max_tokens
        if self.max_completion_tokens is not None:
            opts["max_completion_tokens"] = token_limit or self.max_completion_tokens
        if self.reasoning_effort is not None:
            opts["reasoning_effort"] = self.reasoning_effort
        if self.extra_body:
            opts["extra_body"] = self.extra_body
        if self.extra_headers:
            opts["extra_headers"] = self.extra_headers
        return opts

    def client(self) -> Any:
        """The ``openai.OpenAI`` client, made on first use (its own retries off: the
        transport counts and logs each)."""
        with self._lock:
            if self._client is None:
                self._openai = require("openai", needed_for="language-model agents")
                key = os.environ.get(self.api_key_env) or "no-key"
                self._client = self._openai.OpenAI(
                    base_url=self.base_url, api_key=key, timeout=self.timeout, max_retries=0
                )
        return self._client

    def complete(
        self, messages: Sequence[Mapping[str, str]], token_limit: int | None = None
    ) -> Completion:
        """The model's reply to ``messages``, transport faults retried (see the module
        docstring); :class:`EndpointError` when the endpoint is given up."""
        client = self.client()
        options = self.request_options(token_limit)
        faults: list[str] = []
        timeouts = 0
        failed = 0
        start = time.perf_counter()
        sent = 0
        k = 0  # the tries of this request that met a fault
        while True:
            if self.dead is not None:
                raise EndpointError(self.dead)
            met: _Fault | None = None
            try:
                answer = client.chat.completions.create(
                    model=self.model, messages=list(messages), timeout=self.timeout, **options
                )
                done = self._completion(answer)
            except _Fault as fault:
                met = fault
            except Exception as err:  # noqa: BLE001 - sorted into faults and stops
                met = self._sort(err)
            sent += 1
            if met is not None:
                faults.append(f"{met.kind}: {met.detail}")
                timeouts += met.kind == "timeout"
                wait = self._wait(met, k)
                k += 1
                if k > self.transport_retries:  # the request failed, retries and all
                    failed += 1
                    k = 0
                    self._failed(met)
                time.sleep(wait)
                continue
            with self._lock:
                self._in_row = 0
            done.latency_s = time.perf_counter() - start
            done.requests = sent
            done.faults = faults
            done.timeouts = timeouts
            done.failed_requests = failed
            return done

    # -- faults -------------------------------------------------------------------------------
    def _sort(self, err: Exception) -> _Fault:
        """A transport fault to retry, or :class:`EndpointError` for an answer that stops."""
        openai = self._openai
        if isinstance(err, openai.APITimeoutError):
            return _Fault("timeout", f"no reply within {self.timeout:g} s")
        if isinstance(err, openai.APIStatusError):
            status = int(err.status_code)
            detail = _server_says(err)
            quota = status == 429 and ("quota" in detail.lower() or _code(err) in _QUOTA_CODES)
            if status in STOP_STATUS or quota or status not in RETRY_STATUS and status < 500:
                why = {
                    400: "the server refused the request",
                    401: "the key was refused",
                    402: "payment is required",
                    403: "the key was refused",
                    404: "the model does not exist"
                    if _code(err) == "model_not_found"
                    else "the model or the address is unknown",
                    422: "the server refused the request",
                }.get(status, "the quota is spent" if quota else "the server refused the request")
                self._stop(
                    f"{self.model} at {self.base_url or 'OpenAI'}: {why} (HTTP {status}: "
                    f"{detail}); check model, base_url, the options sent and {self.api_key_env}"
                )
            return _Fault("http", f"HTTP {status}", _retry_after(err))
        if isinstance(err, openai.APIConnectionError):
            return _Fault("connection", f"connection error: {err}")
        if isinstance(err, ValueError | TypeError | AttributeError | KeyError):
            return _Fault("body", f"the body is not the API's JSON ({type(err).__name__})")
        raise err

    def _completion(self, answer: Any) -> Completion:
        """The reply in ``answer``, or a :class:`_Fault` for a body that is none."""
        if isinstance(answer, str | bytes):
            head = answer[:60].decode(errors="replace") if isinstance(answer, bytes) else answer
            raise _Fault("body", f"the body is not the API's JSON: {head[:60]!r}")
        choices = getattr(answer, "choices", None)
        if not choices:
            raise _Fault("body", "the body has no choices")
        choice = choices[0]
        message = getattr(choice, "message", None)
        content = getattr(message, "content", None)
        finish = getattr(choice, "finish_reason", None)
        reasoning = _reasoning_of(message)
        if content is not None and not isinstance(content, str):
            raise _Fault("body", f"the content is not text ({type(content).__name__})")
        if content is None and finish != "length" and not reasoning:
            raise _Fault("null", "the reply's content is null")
        done = Completion(text=content or "", reasoning=reasoning, finish_reason=finish)
        usage = getattr(answer, "usage", None)
        if usage is not None:
            done.prompt_tokens = _int(getattr(usage, "prompt_tokens", None))
            done.completion_tokens = _int(getattr(usage, "completion_tokens", None))
            details = getattr(usage, "completion_tokens_details", None)
            done.reasoning_tokens = _int(getattr(details, "reasoning_tokens", None))
            cached = getattr(usage, "prompt_tokens_details", None)
            done.cached_tokens = _int(getattr(cached, "cached_tokens", None))
        return done

    def _failed(self, fault: _Fault) -> None:
        """A request failed (its retries too): the endpoint is given up after
        ``max_failures`` in a row."""
        with self._lock:
            self._in_row += 1
            in_row = self._in_row
        if in_row >= self.max_failures:
            tries = self.transport_retries + 1
            self._stop(
                f"{self.model} at {self.base_url or 'OpenAI'}: {in_row} failed requests in a "
                f"row (each tried {tries} time{'s' if tries > 1 else ''}), the last "
                f"{fault.detail}"
            )

    def _stop(self, why: str) -> None:
        with self._lock:
            if self.dead is None:
                self.dead = why
            why = self.dead
        raise EndpointError(why)

    def _wait(self, fault: _Fault, k: int) -> float:
        wait = min(_MAX_WAIT, self.backoff * 2**k)
        told = fault.wait
        return told if told is not None and 0 <= told < 60 else wait


def _retry_after(err: Any) -> float | None:
    response = getattr(err, "response", None)
    header = response.headers.get("retry-after") if response is not None else None
    try:
        return float(header) if header is not None else None
    except ValueError:
        return None


#: The error codes of a spent quota (OpenAI's ``insufficient_quota``).
_QUOTA_CODES = frozenset(("insufficient_quota", "quota_exceeded", "billing_hard_limit_reached"))


def _code(err: Any) -> str | None:
    """The error's ``code`` (or ``type``) as the server gave it in its body, if any."""
    code = getattr(err, "code", None)
    if isinstance(code, str):
        return code
    body = getattr(err, "body", None)
    inner = body.get("error", body) if isinstance(body, Mapping) else None
    if isinstance(inner, Mapping):
        for key in ("code", "type"):
            if isinstance(inner.get(key), str):
                return str(inner[key])
    return None


def _server_says(err: Any) -> str:
    body = getattr(err, "body", None)
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            return str(inner["message"])[:300]
        if isinstance(inner, str):
            return inner[:300]
    return str(getattr(err, "message", err))[:300]


def _reasoning_of(message: Any) -> str | None:
    """The reasoning a server returns beside the content (``reasoning_content``: DeepSeek,
    vLLM, llama.cpp; ``reasoning``: OpenRouter, Ollama)."""
    if message is None:
        return None
    extra = getattr(message, "model_extra", None) or {}
    for key in ("reasoning_content", "reasoning"):
        value = getattr(message, key, None) if key not in extra else extra[key]
        if isinstance(value, str) and value:
            return value
    return None


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
