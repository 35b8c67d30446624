"""A local OpenAI-compatible chat server whose replies come from a script, not a model.

It listens on 127.0.0.1 (a real socket: the real ``openai`` client talks to it over HTTP)
and answers ``POST /v1/chat/completions``. Each request takes the next step of the script,
or, once the script is used up, the default: a scripted player that reads the legal moves
out of the prompt and picks the discard that leaves the least deadwood (knocking when it
can), or the first move listed. Every reply says it is scripted in the response's
``model`` field (``scripted:...``); token counts are word counts, not a tokenizer's.

Script steps: ``("reply", text)``, ``("slow", seconds, text)``, ``("status", code)``
(an error answer; 429 carries ``Retry-After: 0``; ``("status", code, error)``: with that
``error`` object, e.g. ``{"message": ..., "code": "insufficient_quota"}``),
``("html",)`` (a 200 whose body is an HTML page, as a proxy in front of a dead server
sends), ``("null",)`` (a completion whose content is ``null``), ``("length", text)`` (a
reply cut at the token limit: ``finish_reason="length"``), ``("reasoning", thought,
text)`` (the thought in ``reasoning_content``, as DeepSeek and vLLM send it).
``default`` (a function of the request body returning a step, or None for the scripted
player) plays once the script is used up; ``reasoning_model=True`` answers a request that
sends ``max_tokens`` or ``temperature`` with a 400, as OpenAI's reasoning models do.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_LEGAL = re.compile(
    r"^(?:Legal moves|Suggest one of the captain's moves \(or no advice\)): (.*)\.$", re.M
)
_LEAVES = re.compile(r"^(.*?) \(leaves (\d+) deadwood\)$")


def scripted_move(prompt: str) -> str:
    """The scripted player's reply: a knock if one is listed (the least deadwood), else the
    discard leaving the least deadwood, else the first move listed; an adviser says why."""
    move = _scripted(prompt)
    if "You are the adviser" in prompt and move != "I do not know.":
        why = "it leaves the least deadwood" if move.startswith(("discard", "knock")) else "why not"
        return f"{move[0].upper()}{move[1:]}: {why}."
    return move


def _scripted(prompt: str) -> str:
    found = _LEGAL.findall(prompt)
    if not found:
        return "I do not know."
    moves = [m.strip() for m in found[-1].split(", ")]
    scored = []
    for m in moves:
        hit = _LEAVES.match(m)
        if hit:
            scored.append(
                (0 if hit.group(1).startswith("knock") else 1, int(hit.group(2)), hit.group(1))
            )
    if scored:
        return min(scored)[2]
    first = moves[0]
    return "draw" if "draw" in moves else first


class ScriptedServer:
    """``with ScriptedServer(script) as server: ... server.base_url``."""

    def __init__(
        self,
        script: list[tuple[Any, ...]] | None = None,
        default: Callable[[dict[str, Any]], tuple[Any, ...] | None] | None = None,
        reasoning_model: bool = False,
    ) -> None:
        self.script: deque[tuple[Any, ...]] = deque(script or [])
        self.steps: list[tuple[Any, ...] | None] = []  # what each request was answered
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                size = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(size) or b"{}")
                with outer._lock:
                    outer.requests.append(body)
                    step = outer.script.popleft() if outer.script else None
                if step is None and default is not None:
                    step = default(body)
                with outer._lock:
                    outer.steps.append(step)
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                if reasoning_model and ("max_tokens" in body or "temperature" in body):
                    bad = "max_tokens" if "max_tokens" in body else "temperature"
                    self._send(400, {"error": {"message": f"Unsupported parameter: '{bad}' is "
                               "not supported with this model.", "param": bad,
                               "code": "unsupported_parameter"}})  # fmt: skip
                    return
                prompt = body["messages"][-1]["content"]
                if step is None:
                    self._answer(body, scripted_move(prompt))
                elif step[0] == "html":
                    page = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
                    self._send_raw(200, page, "text/html")
                elif step[0] == "null":
                    self._answer(body, None)
                elif step[0] == "length":
                    self._answer(body, step[1], finish="length")
                elif step[0] == "reasoning":
                    self._answer(body, step[2], reasoning=step[1])
                elif step[0] == "reply":
                    self._answer(body, step[1])
                elif step[0] == "slow":
                    time.sleep(step[1])
                    self._answer(body, step[2])
                elif step[0] == "status":
                    headers = {"retry-after": "0"} if step[1] == 429 else {}
                    error = step[2] if len(step) > 2 else {"message": f"scripted {step[1]}"}
                    self._send(step[1], {"error": error}, headers)

            def _answer(
                self,
                body: dict[str, Any],
                text: str | None,
                finish: str = "stop",
                reasoning: str | None = None,
            ) -> None:
                words = sum(len(m["content"].split()) for m in body["messages"])
                message: dict[str, Any] = {"role": "assistant", "content": text}
                if reasoning is not None:
                    message["reasoning_content"] = reasoning
                said = len((text or "").split()) + len((reasoning or "").split())
                self._send(
                    200,
                    {
                        "id": "chatcmpl-scripted",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": f"scripted:{body.get('model')}",
                        "choices": [
                            {
                                "index": 0,
                                "message": message,
                                "finish_reason": finish,
                            }
                        ],
                        "usage": {
                            "prompt_tokens": words,
                            "completion_tokens": said,
                            "total_tokens": words + said,
                        },
                    },
                )

            def _send(
                self, code: int, payload: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                self._send_raw(code, json.dumps(payload).encode(), "application/json", headers)

            def _send_raw(
                self, code: int, data: bytes, kind: str, headers: dict[str, str] | None = None
            ) -> None:
                try:
                    self.send_response(code)
                    self.send_header("content-type", kind)
                    self.send_header("content-length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a timeout test)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
