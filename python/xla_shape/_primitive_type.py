"""``PrimitiveType``: XLA's element types as an ``enum.IntEnum``, as
jaxlib's ``xla_client.PrimitiveType`` is one.

The names and numbers are those of ``enum PrimitiveType`` in XLA's
``xla/xla_data.proto`` (the copy in this repository's ``proto/``;
``python/tests/test_compat.py`` reads it to check every member). jaxlib
0.10.2 has the same names with the same numbers, less ``S1``, ``S2``,
``U1``, ``U2``, ``F6E3M2FN``, ``F6E2M3FN`` and ``BUFFER``.

This module imports nothing of the extension at import time: the
extension hands out members of this class (``Shape.xla_element_type()``),
and imports it when it first does.
"""

import enum
from typing import Optional


class PrimitiveType(enum.IntEnum):
    """An XLA element type (``xla.PrimitiveType`` of xla_data.proto), an
    ``int`` as in jaxlib: ``PrimitiveType.F32 == 11``, and equal to
    jaxlib's ``xla_client.PrimitiveType.F32``.

    ``PrimitiveType(value)`` takes the number, and also the proto name
    (``"F32"``), the lowercase HLO name (``"f32"``) or a NumPy dtype, which
    jaxlib's enum refuses.
    """

    __module__ = "xla_shape"

    # xla/xla_data.proto, enum PrimitiveType, in the order it lists them.
    PRIMITIVE_TYPE_INVALID = 0
    PRED = 1
    S1 = 30
    S2 = 26
    S4 = 21
    S8 = 2
    S16 = 3
    S32 = 4
    S64 = 5
    U1 = 31
    U2 = 27
    U4 = 22
    U8 = 6
    U16 = 7
    U32 = 8
    U64 = 9
    F16 = 10
    F32 = 11
    BF16 = 16
    F64 = 12
    F8E5M2 = 19
    F8E4M3 = 28
    F8E4M3FN = 20
    F8E4M3B11FNUZ = 23
    F8E3M4 = 29
    F8E5M2FNUZ = 24
    F8E4M3FNUZ = 25
    F4E2M1FN = 32
    F8E8M0FNU = 33
    F6E3M2FN = 35
    F6E2M3FN = 36
    C64 = 15
    C128 = 18
    TUPLE = 13
    OPAQUE_TYPE = 14
    TOKEN = 17
    BUFFER = 34

    @classmethod
    def _missing_(cls, value: object) -> Optional["PrimitiveType"]:
        # A name or a NumPy dtype: the extension's one reading of element
        # types (the numbers are this class's own).
        if isinstance(value, int):
            return None
        from ._xla_shape import _element_type_number  # type: ignore[import-not-found]

        try:
            return cls(_element_type_number(value))
        except (TypeError, ValueError):
            return None

    def lowercase_name(self) -> str:
        """The lowercase name HLO text uses: ``"f32"``, ``"bf16"``,
        ``"token"`` (XLA's ``LowercasePrimitiveTypeName``)."""
        from ._xla_shape import _lowercase_name  # type: ignore[import-not-found]

        name: str = _lowercase_name(int(self))
        return name

    # jaxlib's str() and repr(): "PrimitiveType.F32" (also what format()
    # and f-strings give, on every Python version).
    def __str__(self) -> str:
        return f"PrimitiveType.{self.name}"

    __repr__ = __str__
