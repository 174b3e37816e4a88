"""Reader for the IDX format of the MNIST files.

An IDX file is a 4-byte magic number ``00 00 TT DD`` (two zero bytes, a type
code ``TT``, the number of dimensions ``DD``), then ``DD`` big-endian unsigned
32-bit sizes, then the array in C order, big-endian. MNIST and Fashion-MNIST
use type ``0x08`` (unsigned byte): images are ``(n, 28, 28)``, labels ``(n,)``.
"""
import struct

import numpy as np

from .errors import DataFormatError
from .files import read_bytes

IDX_DTYPES = {
    0x08: np.dtype(np.uint8),
    0x09: np.dtype(np.int8),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}


def parse_idx(buf, name="<bytes>"):
    """The array held by the IDX content ``buf`` (native byte order).

    ``name`` (the file) is quoted in the errors: a wrong magic number, a
    truncated file, or bytes after the announced array.
    """
    if len(buf) < 4:
        raise DataFormatError(
            f"{name}: not an IDX file: {len(buf)} bytes, too short for the "
            "4-byte magic number")
    zero1, zero2, code, ndim = buf[:4]
    if zero1 != 0 or zero2 != 0 or code not in IDX_DTYPES or ndim == 0:
        codes = ", ".join(f"0x{c:02X}" for c in IDX_DTYPES)
        raise DataFormatError(
            f"{name}: not an IDX file: bad magic number 0x{buf[:4].hex()} "
            f"(expected 00 00, a type code in {codes}, then the number of "
            "dimensions > 0)")
    header = 4 + 4 * ndim
    if len(buf) < header:
        raise DataFormatError(
            f"{name}: truncated IDX file: the header announces {ndim} "
            f"dimensions ({header} header bytes) but the file holds "
            f"{len(buf)} bytes")
    shape = struct.unpack(f">{ndim}I", buf[4:header])
    dtype = IDX_DTYPES[code]
    count = int(np.prod(shape, dtype=np.int64))
    expected = count * dtype.itemsize
    got = len(buf) - header
    if got < expected:
        raise DataFormatError(
            f"{name}: truncated IDX file: the header announces an array of "
            f"shape {shape} ({expected} data bytes) but only {got} follow")
    if got > expected:
        raise DataFormatError(
            f"{name}: malformed IDX file: {got - expected} unexpected bytes "
            f"after the array of shape {shape} announced by the header")
    arr = np.frombuffer(buf, dtype=dtype, count=count, offset=header)
    return arr.reshape(shape).astype(dtype.newbyteorder("="))


def read_idx(path):
    """The array stored in the IDX file ``path`` (plain, ``.gz`` or
    ``.bz2``)."""
    return parse_idx(read_bytes(path), name=str(path))
