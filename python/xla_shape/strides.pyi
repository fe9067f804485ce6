from typing import List, Sequence

from . import _ElementType, Layout, Shape

__all__ = [
    "element_strides",
    "byte_strides",
    "layout_from_strides",
    "layout_from_byte_strides",
]

def element_strides(shape: Shape) -> List[int]: ...
def byte_strides(shape: Shape) -> List[int]: ...
def layout_from_strides(dims: Sequence[int], strides: Sequence[int]) -> Layout: ...
def layout_from_byte_strides(element_type: _ElementType, dims: Sequence[int], byte_strides: Sequence[int]) -> Layout: ...
