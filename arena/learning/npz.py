"""Compressed numpy archives (``.npz``) written byte for byte the same from the same arrays, and
read without ever unpickling.

``numpy.savez_compressed`` stamps each member with the time it was written, so two files of
the same arrays differ; here every member carries one fixed timestamp, and the file appears
whole or not at all (it is written beside its place, then renamed). Reading refuses pickled
objects: a file from someone else is data, never code.
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.learning.numeric import np

#: the timestamp of every member: the earliest a zip file can hold
_STAMP = (1980, 1, 1, 0, 0, 0)


def write_npz(path: Path, arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> None:
    """Write ``arrays`` and ``meta`` (JSON data, stored as the text member ``meta``) to ``path``."""
    path = Path(path)
    folder = path.parent
    if folder.exists() and not folder.is_dir():  # mkdir would say "File exists"
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(folder))
    folder.mkdir(parents=True, exist_ok=True)
    members = {"meta": np.array(json.dumps(meta, sort_keys=True)), **arrays}
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
    try:
        with os.fdopen(handle, "wb") as raw, zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, array in members.items():
                info = zipfile.ZipInfo(f"{name}.npy", date_time=_STAMP)
                info.compress_type = zipfile.ZIP_DEFLATED
                with archive.open(info, "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, np.ascontiguousarray(array), allow_pickle=False)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_npz(path: Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and the ``meta`` data of a file ``write_npz`` wrote. ``OSError`` if it cannot
    be read; ``ValueError`` if it is not such a file."""
    with open(path, "rb") as file:  # OSError when it is missing or unreadable
        if not zipfile.is_zipfile(file):
            raise ValueError("it is not a .npz archive")
        file.seek(0)
        try:
            with np.load(file, allow_pickle=False) as archive:
                arrays = {name: archive[name] for name in archive.files}
        except (ValueError, zipfile.BadZipFile, EOFError, zlib.error) as error:
            raise ValueError(f"it is damaged, or holds something else than plain arrays ({error})") from None
    if "meta" not in arrays:
        raise ValueError("not an archive written by arena (it has no meta member)")
    text = arrays.pop("meta")
    try:
        meta = json.loads(str(text.item()))
    except (ValueError, json.JSONDecodeError) as error:
        raise ValueError(f"its meta member is not JSON ({error})") from None
    if not isinstance(meta, dict):
        raise ValueError("its meta member is not a JSON object")
    return arrays, meta
