"""A bounded buffer for a child's output: the first `head` and the last `tail` bytes are kept, what
falls between is counted and dropped, and the kept text says so where the gap is.

A program can print without end (`yes` standing in for nvidia-smi, a fake torch printing a GiB on
import); reading its output whole would cost the doctor that much memory.  The head holds what a
program says first (a version, a CSV header), the tail what it says last (the error that ended it,
the JSON line the torch and TensorFlow children write at the end).
"""

from __future__ import annotations

import threading


def marker(dropped: int) -> bytes:
    return f"\n[... truncated: {dropped} bytes dropped here by torch_envcheck ...]\n".encode()


class CappedBuffer:
    """write() bytes from one thread while another reads value(); memory stays under
    head + 2 * tail + one write."""

    def __init__(self, head: int, tail: int):
        self.head_cap, self.tail_cap = max(0, int(head)), max(0, int(tail))
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0
        self._lock = threading.Lock()

    def write(self, data: bytes) -> None:
        if not data:
            return
        with self._lock:
            self.total += len(data)
            room = self.head_cap - len(self._head)
            if room > 0:
                self._head += data[:room]
                data = data[room:]
            if data and self.tail_cap:
                if len(data) >= self.tail_cap:
                    self._tail[:] = data[-self.tail_cap:]
                else:
                    self._tail += data
                    if len(self._tail) > 2 * self.tail_cap:  # trimmed in steps, not on every write
                        del self._tail[:-self.tail_cap]

    @property
    def dropped(self) -> int:
        with self._lock:
            return self.total - len(self._head) - min(len(self._tail), self.tail_cap)

    def value(self, mark: bool = True) -> bytes:
        """The kept bytes; with mark=True a line saying how many were dropped stands in the gap."""
        with self._lock:
            tail = bytes(self._tail[-self.tail_cap:]) if self.tail_cap else b""
            dropped = self.total - len(self._head) - len(tail)
            head = bytes(self._head)
        return head + (marker(dropped) if dropped and mark else b"") + tail
