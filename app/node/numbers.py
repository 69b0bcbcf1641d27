"""ASCII-only number parsing for request input.

``str.isdigit()`` is true for superscripts (``¹``) that ``int()`` refuses, and ``int()`` reads
other scripts' digits (``٣`` is 3): request numbers are ASCII digits only, as on the platform.
"""

from __future__ import annotations


def is_ascii_digits(text: str) -> bool:
    """True when ``text`` is one or more of the characters 0-9 and nothing else."""
    return text.isascii() and text.isdigit()
