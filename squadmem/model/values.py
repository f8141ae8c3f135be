"""Plain value classes: compared, hashed and shown by their slots.

Not dataclasses: the hooks import the modules that hold these values, and
``dataclasses`` costs every commit the import of ``inspect`` (about 7 ms of a
hook that must cost no more than ``check-added-large-files``). A subclass
names its fields in ``__slots__`` and sets each in ``__init__``.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing costs every commit a few milliseconds
if TYPE_CHECKING:
    from typing import Any, Self


class Value:
    """A value made of its slots: equal when its type and every slot are equal."""

    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({inner})"

    def slot_values(self) -> dict[str, Any]:
        """Each slot's name and value, in the order of ``__slots__``."""
        return {name: getattr(self, name) for name in self.__slots__}

    def replaced(self, **changes: Any) -> Self:
        """A copy with some fields changed (an unknown name is a TypeError, as in ``__init__``)."""
        return type(self)(**{**self.slot_values(), **changes})
