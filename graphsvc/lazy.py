"""One shared instance per process, made on first use (a connection, a store)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Lazy(Generic[T]):
    """`get()` makes the instance on first use and then returns it; `reset()` closes it, and the
    next `get()` makes a new one (tests point the settings elsewhere in between)."""

    def __init__(self, make: Callable[[], T], close: Callable[[T], None]):
        self._make = make
        self._close = close
        self._value: T | None = None
        self._lock = threading.Lock()

    def get(self) -> T:
        with self._lock:
            if self._value is None:
                self._value = self._make()
            return self._value

    def reset(self) -> None:
        with self._lock:
            value, self._value = self._value, None
            if value is not None:
                self._close(value)
