"""A real HTTP server on loopback speaking the OpenAI chat-completions
protocol, for tests and benchmarks (stdlib only; threads; keep-alive).

Replies are deterministic: a prompt that asks for a boxed number gets the
first option value boxed; reasoning prompts get a short text; answer turns get
the letter named by `answer_letter` with top-20 log-probs that mix "B" and
" B" style tokens. Faults are scripted: `faults` is consumed one per request
("429" with Retry-After, "500", "malformed" JSON, "slow" beyond the client's
timeout, "400", or any of `FAULTS` below), and `sticky` maps a text found in
the last user message to a fault served every time that question is asked.
Every request is logged (path, last user message, Authorization header,
status) so tests can count what was asked and paid.

Run as a script (`python openai_server.py --delay 0.05`) it prints its port on
stdout and serves until killed; GET /stats returns the log.
"""

from __future__ import annotations

import argparse
import contextlib
import email.utils
import json
import math
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _logprob_entries(text: str, letter: str) -> list[dict[str, Any]]:
    entries = []
    for token in re.findall(r"\s*\S+", text) or [text]:
        if token.strip() == letter:
            tops = [
                {"token": letter, "logprob": math.log(0.6)},
                {"token": " " + letter, "logprob": math.log(0.1)},
                {"token": "A" if letter != "A" else "C", "logprob": math.log(0.2)},
                {"token": "The", "logprob": math.log(0.05)},
            ]
        else:
            tops = [{"token": token, "logprob": -0.01}]
        entries.append({"token": token, "logprob": tops[0]["logprob"], "top_logprobs": tops})
    return entries


# Replies a real server (or the proxy in front of it) has been seen to send.
FAULTS = {
    "429-forever": "429 with Retry-After: 1000000000 (about 32 years)",
    "429-date": "429 with Retry-After as an HTTP date one second ahead",
    "429-garbage": "429 with an unparsable Retry-After",
    "html": "200 with an HTML error page",
    "choices-empty": "200 with choices: []",
    "choices-null": "200 with choices: null",
    "message-null": "200 with message: null",
    "no-content": "200 with a message that has no content",
    "deep": "200 with JSON nested 10,000 levels deep",
    "truncated": "200 whose body stops mid-JSON",
    "short": "200 that promises more bytes than it sends, then hangs up",
    "silent": "accepts the request and never answers",
}


class FakeOpenAI:
    """State shared by the handler threads."""

    def __init__(self, *, delay_s: float = 0.0, answer_letter: str = "B") -> None:
        self.delay_s = delay_s
        self.answer_letter = answer_letter
        self.faults: list[str] = []
        self.sticky: dict[str, str] = {}
        # Set to release handlers stuck in "silent" (at shutdown).
        self.release = threading.Event()
        # When set to an Event, chat replies wait for it (a test holds a run mid-way).
        self.hold: threading.Event | None = None
        self.arrived = 0  # chat requests received (logged ones are answered)
        self.log: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.reply: Callable[[list[dict[str, str]]], str] | None = None

    def next_fault(self, last: str | None = None) -> str | None:
        with self.lock:
            for marker, fault in self.sticky.items():
                if last is not None and marker in last:
                    return fault
            return self.faults.pop(0) if self.faults else None

    def chat_requests(self) -> int:
        with self.lock:
            return sum(1 for e in self.log if e["path"] == "/v1/chat/completions")

    def content_for(self, messages: list[dict[str, str]]) -> str:
        if self.reply is not None:
            return self.reply(messages)
        last = messages[-1]["content"]
        if "boxed" in last:
            options = re.findall(r"\((q\d+)\)", last)
            return f"Working it out... the answer is \\boxed{{{len(options) + 42}}}"
        if "step by step" in last or "Explain" in last:
            return "Reasoning: compare the options by their value. ANSWER: " + self.answer_letter
        return self.answer_letter

    def completion(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        text = self.content_for(messages)
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": text},
            "finish_reason": "stop",
        }
        if body.get("logprobs"):
            choice["logprobs"] = {"content": _logprob_entries(text, self.answer_letter)}
        prompt_tokens = sum(len(m["content"]) for m in messages) // 4
        return {
            "id": "chatcmpl-" + uuid.uuid4().hex[:12],
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body["model"],
            "choices": [choice],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": max(1, len(text) // 4),
                "total_tokens": prompt_tokens + max(1, len(text) // 4),
            },
        }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state: FakeOpenAI

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        headers = {"Content-Type": "application/json", **(headers or {})}
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(body)  # the client may have given up (a timeout test)

    def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(obj).encode(), headers)

    def _record(self, path: str, status: int, last: str | None) -> None:
        with self.state.lock:
            self.state.log.append(
                {
                    "path": path,
                    "status": status,
                    "last_user": last,
                    "auth": self.headers.get("Authorization", ""),
                    "t": time.monotonic(),
                }
            )

    def do_GET(self) -> None:
        s = self.state
        if self.path == "/stats":
            with s.lock:
                self._json(200, {"log": s.log})
            return
        m = re.fullmatch(r"/v1/batches/([\w-]+)", self.path)
        if m and m.group(1) in s.batches:
            self._record(self.path, 200, None)
            self._json(200, s.batches[m.group(1)])
            return
        m = re.fullmatch(r"/v1/files/([\w-]+)/content", self.path)
        if m and m.group(1) in s.files:
            self._record(self.path, 200, None)
            data = s.files[m.group(1)]
            self._send(200, data, {"Content-Type": "application/octet-stream"})
            return
        self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        s = self.state
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        if self.path == "/v1/chat/completions":
            self._chat(raw)
        elif self.path == "/v1/files":
            self._upload(raw)
        elif self.path == "/v1/batches":
            self._batch(json.loads(raw))
        else:
            self._json(404, {"error": {"message": f"no route {self.path}"}})
        _ = s

    def _chat(self, raw: bytes) -> None:
        s = self.state
        try:
            body = json.loads(raw)
        except ValueError:  # a client killed while sending
            self._json(400, {"error": {"message": "invalid JSON body"}})
            return
        last = next((m["content"] for m in reversed(body["messages"]) if m["role"] == "user"), None)
        fault = s.next_fault(last)
        with s.lock:
            s.arrived += 1
        if s.hold is not None:
            s.hold.wait(60)
        if s.delay_s:
            time.sleep(s.delay_s)
        if fault in FAULTS:
            self._fault(fault, body, last)
            return
        if fault == "429":
            self._record(self.path, 429, last)
            err = {"error": {"message": "Rate limit reached", "type": "rate_limit"}}
            self._json(429, err, {"Retry-After": "0.2"})
            return
        if fault == "500":
            self._record(self.path, 500, last)
            self._json(500, {"error": {"message": "boom", "type": "server_error"}})
            return
        if fault == "401":
            self._record(self.path, 401, last)
            key = self.headers.get("Authorization", "").removeprefix("Bearer ")
            err = {"error": {"message": f"Incorrect API key provided: {key[:6]}***{key[-4:]}. "
                             f"(full: {key})", "type": "invalid_request_error"}}  # fmt: skip
            self._json(401, err)
            return
        if fault == "400-echo":  # a proxy that quotes the request's key back
            self._record(self.path, 400, last)
            key = self.headers.get("Authorization", "").removeprefix("Bearer ")
            self._json(400, {"error": {"message": f"bad request from key {key}"}})
            return
        if fault == "400":
            self._record(self.path, 400, last)
            self._json(400, {"error": {"message": "bad request", "type": "invalid_request"}})
            return
        if fault == "slow":
            self._record(self.path, 0, last)  # logged now: the client gives up first
            time.sleep(1.5)
            return
        if fault == "malformed":
            self._record(self.path, 200, last)
            self._send(200, b'{"id": "x", "choices": [{"index": 0, "mess')
            return
        self._record(self.path, 200, last)
        self._json(200, s.completion(body))

    def _fault(self, fault: str, body: dict[str, Any], last: str | None) -> None:
        s = self.state
        if fault == "silent":
            self._record(self.path, 0, last)
            s.release.wait(60)
            return
        if fault.startswith("429"):
            self._record(self.path, 429, last)
            retry_after = {
                "429-forever": "1000000000",
                "429-date": email.utils.formatdate(time.time() + 1, usegmt=True),
                "429-garbage": "soon-ish",
            }[fault]
            err = {"error": {"message": "Rate limit reached", "type": "rate_limit"}}
            self._json(429, err, {"Retry-After": retry_after})
            return
        self._record(self.path, 200, last)
        good = s.completion(body)
        if fault == "html":
            page = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
            self._send(200, page, {"Content-Type": "text/html"})
        elif fault == "deep":
            self._send(200, b"[" * 10000 + b"]" * 10000)
        elif fault == "truncated":
            self._send(200, json.dumps(good).encode()[:40])
        elif fault == "short":
            data = json.dumps(good).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data) + 100))
            self.end_headers()
            self.wfile.write(data[:30])
            self.close_connection = True
        else:
            if fault == "choices-empty":
                good["choices"] = []
            elif fault == "choices-null":
                good["choices"] = None
            elif fault == "message-null":
                good["choices"][0]["message"] = None
            elif fault == "no-content":
                del good["choices"][0]["message"]["content"]
            self._json(200, good)

    def _upload(self, raw: bytes) -> None:
        # multipart/form-data: take the part that carries a filename.
        ctype = self.headers.get("Content-Type", "")
        boundary = ctype.split("boundary=")[-1].strip('"').encode()
        data = b""
        for part in raw.split(b"--" + boundary):
            head, _, body = part.partition(b"\r\n\r\n")
            if b"filename=" in head:
                data = body.rsplit(b"\r\n", 1)[0]
        file_id = "file-" + uuid.uuid4().hex[:12]
        self.state.files[file_id] = data
        self._record(self.path, 200, None)
        self._json(
            200,
            {
                "id": file_id,
                "object": "file",
                "bytes": len(data),
                "created_at": int(time.time()),
                "filename": "batch.jsonl",
                "purpose": "batch",
                "status": "processed",
            },
        )

    def _batch(self, body: dict[str, Any]) -> None:
        s = self.state
        lines = s.files[body["input_file_id"]].decode().splitlines()
        out = []
        for line in lines:
            request = json.loads(line)
            reply = s.completion(request["body"])
            out.append(
                {
                    "id": "batch_req_" + uuid.uuid4().hex[:8],
                    "custom_id": request["custom_id"],
                    "response": {"status_code": 200, "request_id": "r", "body": reply},
                    "error": None,
                }
            )
            self._record("/v1/batches#request", 200, request["body"]["messages"][-1]["content"])
        output_id = "file-" + uuid.uuid4().hex[:12]
        s.files[output_id] = ("\n".join(json.dumps(o) for o in out) + "\n").encode()
        batch_id = "batch_" + uuid.uuid4().hex[:12]
        now = int(time.time())
        batch = {
            "id": batch_id,
            "object": "batch",
            "endpoint": body["endpoint"],
            "input_file_id": body["input_file_id"],
            "completion_window": body["completion_window"],
            "status": "completed",
            "output_file_id": output_id,
            "created_at": now,
            "request_counts": {"total": len(out), "completed": len(out), "failed": 0},
        }
        s.batches[batch_id] = batch
        self._record(self.path, 200, None)
        self._json(200, batch)


def serve(state: FakeOpenAI, port: int = 0) -> ThreadingHTTPServer:
    """Start serving in a daemon thread; the caller shuts it down."""
    handler = type("BoundHandler", (Handler,), {"state": state})
    server_class = type("Server", (ThreadingHTTPServer,), {"request_queue_size": 256})
    server = server_class(("127.0.0.1", port), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@contextlib.contextmanager
def serving(state: FakeOpenAI) -> Iterator[str]:
    """Serve `state` on loopback for the block; yields the /v1 base URL."""
    httpd = serve(state)
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args()
    server = serve(FakeOpenAI(delay_s=args.delay))
    print(server.server_address[1], flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
