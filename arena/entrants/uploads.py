"""Uploaded bot files, unpacked safely: a season's teams send a ``.py`` file or a ``.zip`` of a
multi-file bot, and nothing in one may write outside its own folder or fill the disk.

Refused, each with a message that says why: a file larger than ``MAX_UPLOAD``; a name that is not
a plain ``name.py`` or ``name.zip``; a zip with more than ``MAX_FILES`` entries, an entry whose
path is absolute, climbs out (``..``), is longer than ``MAX_PATH``, holds a backslash or a
control character, is a link or another special file, is packed other than stored or deflated
(bzip2 and lzma entries unpack without a bound on their output), or two entries of one path;
more than ``MAX_UNPACKED`` bytes unpacked in all (counted as the bytes come, not taken from the
zip's header), or an entry that unpacks to more than ``MAX_RATIO`` times the packed size the zip
declares for it (a zip bomb); a zip without its entry point, ``bot.py`` at its top, or with an
``__init__.py`` there. Whatever the file system refuses (a file where a folder must go) is an
``UploadError`` too.
"""

from __future__ import annotations

import re
import stat
import zipfile
import zlib
from io import BytesIO
from pathlib import Path, PurePosixPath

from arena.errors import ArenaError

#: the largest upload, in bytes
MAX_UPLOAD = 1024 * 1024
#: a zip's most entries, bytes unpacked in all, and unpacked size over packed size of an entry
MAX_FILES = 200
MAX_UNPACKED = 16 * 1024 * 1024
MAX_RATIO = 200
#: the longest path of a zip's entry, in characters
MAX_PATH = 400
#: the file a zipped bot is started from
ENTRY = "bot.py"
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}\.(py|zip)")
_PART = re.compile(r"[A-Za-z0-9_.@+=-]{1,200}")
_CHUNK = 64 * 1024


class UploadError(ArenaError):
    """An upload that is refused; the message says why."""


#: what a zipped bot's package runs: its bot.py, with the modules beside it importable
_PACKAGE_INIT = '''"""A zipped bot: its bot.py, the modules beside it importable (written by arena)."""
import os as _os
import sys as _sys

_sys.path.insert(0, _os.path.dirname(__file__))
import bot as _bot  # noqa: E402
from bot import *  # noqa: E402,F401,F403

__doc__ = _bot.__doc__
'''


def unpack(filename: str, data: bytes, folder: Path, package: str, as_package: bool = True) -> tuple[str, Path]:
    """Write the upload ``filename`` with ``data`` into the new, empty ``folder``: (the bot's
    target, the folder it is resolved in). A zip, and a ``.py`` unless ``as_package`` is false
    (a course bot's file), become the package ``package`` (the zip's files or the ``.py`` as its
    ``bot.py``, and an ``__init__.py`` that runs that ``bot.py`` with the modules beside it
    importable): a module of a folder, whose files all go with it into the sandbox, into its hash
    and to a cluster's nodes. A ``.py`` that is not is the target itself."""
    if len(data) > MAX_UPLOAD:
        raise UploadError(f"the file has {len(data)} bytes; an upload has at most {MAX_UPLOAD}")
    if not _NAME.fullmatch(filename):
        raise UploadError(
            f"the file name {filename[:120]!r} will not do: a plain name ending in .py or .zip "
            "(letters, digits, '_', '-' and '.')"
        )
    try:
        folder.mkdir(parents=True)
        if filename.endswith(".py") and not as_package:
            target = folder / filename
            target.write_bytes(data)
            return str(target), folder
        if filename.endswith(".py"):
            (folder / package).mkdir()
            (folder / package / ENTRY).write_bytes(data)
        else:
            _unzip(data, folder / package)
        if not (folder / package / ENTRY).is_file():
            raise UploadError(f"the zip has no {ENTRY} at its top: the file the bot is started from")
        if (folder / package / "__init__.py").exists():
            raise UploadError("the zip has an __init__.py at its top; arena writes that one (bot.py is the bot)")
        (folder / package / "__init__.py").write_text(_PACKAGE_INIT, encoding="utf-8")
    except OSError as error:
        raise UploadError(f"the files cannot be written: {error.strerror or error}") from None
    return package, folder


def _unzip(data: bytes, folder: Path) -> None:
    try:
        archive = zipfile.ZipFile(BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as error:
        raise UploadError(f"the file is not a zip: {error}") from None
    folder.mkdir()
    with archive:
        entries = archive.infolist()
        if len(entries) > MAX_FILES:
            raise UploadError(f"the zip has {len(entries)} entries; at most {MAX_FILES}")
        seen: set[PurePosixPath] = set()
        total = 0
        for info in entries:
            path = _entry_path(info)
            if path is None:
                continue
            if path in seen:
                raise UploadError(f"the zip holds {str(path)!r} twice")
            seen.add(path)
            target = folder.joinpath(*path.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            total = _extract(archive, info, target, total)


def _entry_path(info: zipfile.ZipInfo) -> PurePosixPath | None:
    """The relative path an entry is written to (``None``: a folder); ``UploadError`` if unsafe."""
    name = info.filename
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise UploadError(f"the zip entry {name[:120]!r} is packed in a way arena does not unpack; use deflate")
    if len(name) > MAX_PATH:
        raise UploadError(f"the zip entry {name[:120]!r}... has a path longer than {MAX_PATH} characters")
    kind = stat.S_IFMT(info.external_attr >> 16)  # 0: the zip says nothing (made elsewhere than Unix)
    if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
        raise UploadError(f"the zip entry {name[:120]!r} is a link or a special file; only files and folders")
    if "\\" in name or name.startswith("/") or re.match(r"[A-Za-z]:", name):
        raise UploadError(f"the zip entry {name[:120]!r} has an absolute path or a backslash")
    path = PurePosixPath(name)
    if any(part in ("", ".", "..") or not _PART.fullmatch(part) for part in path.parts):
        raise UploadError(
            f"the zip entry {name[:120]!r} will not do: each part of a path is letters, digits and '_.@+=-', never '..'"
        )
    return None if info.is_dir() else path


def _extract(archive: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path, total: int) -> int:
    """Write one entry, counting the bytes as they come; the new total."""
    limit = max(info.compress_size, 1) * MAX_RATIO
    written = 0
    try:
        with archive.open(info) as source, target.open("xb") as out:
            while chunk := source.read(_CHUNK):
                written += len(chunk)
                total += len(chunk)
                if written > limit:
                    raise UploadError(
                        f"the zip entry {info.filename[:120]!r} unpacks to more than {MAX_RATIO} times its "
                        "packed size (a zip bomb?)"
                    )
                if total > MAX_UNPACKED:
                    raise UploadError(f"the zip unpacks to more than {MAX_UNPACKED} bytes")
                out.write(chunk)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError, zlib.error) as error:
        raise UploadError(f"the zip entry {info.filename[:120]!r} cannot be read: {error}") from None
    return total
