"""A scripted Debug Adapter Protocol client for the tests and the benchmark: it starts
``python -m app debug-adapter`` and talks to it over stdio, Content-Length framed."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from typing import IO, Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class DapClient:
    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "app", "debug-adapter"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=ROOT,
            env={**os.environ, **(env or {})},
        )
        self.seq = 0
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        assert self.proc.stdout is not None
        threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True).start()

    def _read(self, out: IO[bytes]) -> None:
        while True:
            length = -1
            while True:
                line = out.readline()
                if not line:
                    return
                text = line.decode().strip()
                if not text and length >= 0:
                    break
                if text.lower().startswith("content-length:"):
                    length = int(text.split(":")[1])
            self.messages.put(json.loads(out.read(length)))

    def send(self, command: str, **arguments: Any) -> int:
        self.seq += 1
        data = json.dumps(
            {"seq": self.seq, "type": "request", "command": command, "arguments": arguments}
        ).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.proc.stdin.flush()
        return self.seq

    def next_message(self, timeout: float = 30.0) -> dict[str, Any]:
        m = self.messages.get(timeout=timeout)
        self.seen.append(m)
        return m

    def response(self, seq: int, timeout: float = 30.0) -> dict[str, Any]:
        while True:
            m = self.next_message(timeout)
            if m["type"] == "response" and m["request_seq"] == seq:
                return m

    def request(self, command: str, **arguments: Any) -> dict[str, Any]:
        return self.response(self.send(command, **arguments))

    def event(self, name: str, timeout: float = 30.0) -> dict[str, Any]:
        while True:
            m = self.next_message(timeout)
            if m["type"] == "event" and m["event"] == name:
                return m

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send("disconnect")
                self.proc.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait(5)
        for f in (self.proc.stdin, self.proc.stdout):
            if f is not None:
                f.close()
