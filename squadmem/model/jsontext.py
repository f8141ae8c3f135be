"""Every JSON text squadmem reads, parsed with its nesting bounded.

Python's parser recurses once per level: ``[[[…]]]`` 10,000 deep, committed in a
settings file or left in ``.git/squadmem/``, would end any command that reads it with
a RecursionError. :func:`loads` refuses such a text as malformed JSON instead
(``json.JSONDecodeError``, a ValueError: every reader already answers those), and
so does a number too long for Python's int. Standard library only: hooks read JSON.
"""

from __future__ import annotations

import itertools
import json
import re

TYPE_CHECKING = False  # the hooks read JSON: typing is not imported at run time
if TYPE_CHECKING:
    from typing import Any

MAX_DEPTH = 100  # far above any file squadmem or its hosts write (a few levels)

_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*+"', re.DOTALL)  # brackets inside strings do not nest
_OTHER = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_LONE = re.compile("[\ud800-\udfff]")
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")  # an escaped surrogate: a pair, or a lone half


def loads(text: str | bytes) -> Any:
    """``json.loads(text)``, refusing (json.JSONDecodeError) a text nested deeper than MAX_DEPTH."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    if text.count("[") + text.count("{") > MAX_DEPTH:
        _check_depth(text)
    value = loads_own(text)
    return _mended(value) if _SURROGATE.search(text) else value


def loads_own(text: str | bytes) -> Any:
    """``json.loads(text)`` for a large text squadmem wrote and checked by its digest (a cache's
    payload): not scanned first, only a RecursionError turned into json.JSONDecodeError."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    try:
        return json.loads(text)
    except RecursionError:  # a backstop: the scan above already refuses what is this deep
        raise json.JSONDecodeError(f"nested deeper than {MAX_DEPTH} levels", text, 0) from None
    except ValueError as exc:  # an integer over Python's digit limit
        if isinstance(exc, json.JSONDecodeError):
            raise
        raise json.JSONDecodeError(str(exc).split(";")[0], text, 0) from None


def _check_depth(text: str) -> None:
    """Refuse ``text`` if its brackets (outside strings) nest deeper than MAX_DEPTH; the steps run
    in the regex engine and itertools, so a large text costs milliseconds."""
    brackets = _OTHER.sub("", _STRINGS.sub("", text))
    if max(itertools.accumulate(map(_STEP.__getitem__, brackets)), default=0) > MAX_DEPTH:
        raise json.JSONDecodeError(f"nested deeper than {MAX_DEPTH} levels", text, 0)


def _mended(value: Any) -> Any:
    """``value`` with each lone surrogate (``"\\ud800"`` unpaired: no character, so no UTF-8 can
    carry it) read as U+FFFD, as invalid UTF-8 is; a pair has already become its character."""
    if isinstance(value, str):
        return _LONE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_mended(v) for v in value]
    if isinstance(value, dict):
        return {_mended(k): _mended(v) for k, v in value.items()}
    return value
