"""A wall-clock bound on pure computation in a worker thread (compiling a source).

A transaction's budget is enforced by the interpreter's step checks (ledger/watchdog.py); the
compiler has no such checkpoints, and a Python thread cannot be stopped from outside. So a
timer asks CPython to raise an exception in the compiling thread at its next bytecode
(``PyThreadState_SetAsyncExc``): the compile stops and its core is free again. Only for code
that holds no lock and writes no shared state while it runs, and never on the event loop.
"""

from __future__ import annotations

import asyncio
import ctypes
import threading
from collections.abc import Callable
from typing import TypeVar

from .solidvm.errors import SolidVMError

R = TypeVar("R")


class TimeLimitError(SolidVMError):
    """A compile ran past its bound (``--compile-time-limit``); the request gets a 400."""

    kind = "compile time limit"


class _Expired(BaseException):
    """Raised asynchronously in the bounded thread: a BaseException, so that no
    ``except Exception`` on its way swallows it."""


REFIRE_SECONDS = 0.05  # how soon an undelivered expiry is raised again


def _raise_in(thread_id: int, exc: type[BaseException] | None) -> None:
    """Make ``thread_id`` raise ``exc`` at its next bytecode (None: forget a pending one)."""
    obj = ctypes.py_object(exc) if exc is not None else None
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), obj)


def call_bounded(seconds: float, what: str, fn: Callable[[], R]) -> R:
    """``fn()``, stopped with :class:`TimeLimitError` once it has run ``seconds`` (0: no bound).

    On the event loop's thread it runs unbounded (an exception there could land anywhere):
    callers move the work to a worker thread first.
    """
    if seconds <= 0 or _on_loop():
        return fn()
    tid = threading.get_ident()
    lock = threading.Lock()
    state = {"done": False, "fired": False}
    finished = threading.Event()

    def fire() -> None:
        # Raised again until the thread has ended the call: an asynchronous exception that
        # lands in code which swallows what it raises (a __del__, a gc callback) is lost.
        while not finished.wait(0 if not state["fired"] else REFIRE_SECONDS):
            with lock:
                if state["done"]:
                    return
                state["fired"] = True
                _raise_in(tid, _Expired)

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    expired = False
    try:
        try:
            timer.start()
            result = fn()
        finally:
            # this clean-up may itself be hit by an exception fired meanwhile: it runs until
            # it is through, and then nothing is pending for the thread any more
            while True:
                try:
                    timer.cancel()
                    with lock:
                        state["done"] = True
                        finished.set()
                        if state["fired"]:
                            _raise_in(tid, None)  # fired but not delivered: nothing leaks out
                            expired = True
                    break
                except _Expired:
                    expired = True
    except _Expired:
        expired = True
    if expired:
        raise TimeLimitError(
            f"compile time limit exceeded: {what} took longer than {seconds:g} s to compile "
            "(the node's --compile-time-limit)"
        )
    return result


def _on_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
