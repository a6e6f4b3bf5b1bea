"""Reading the YAML files people give arena (tournament files, rosters): within bounds.

They are read only as regular files of at most ``MAX_FILE`` bytes (``read_file``: a FIFO or a
device would hang or flood arena) and parsed within bounds of nesting and of size after
expanding aliases (``load_yaml``: a few hundred bytes of nested aliases would otherwise expand
to gigabytes). Whatever is wrong is a ``ConfigError`` naming the file and, for YAML syntax, the
line and column.
"""

from __future__ import annotations

import os
import stat
from typing import Any

import yaml

from arena.errors import ConfigError

#: the largest tournament file or roster read, in bytes
MAX_FILE = 1 << 20
#: the deepest a YAML document may nest sequences and mappings (aliases expanded)
MAX_YAML_DEPTH = 32
#: the most values (scalars, sequences, mappings) a YAML document may hold once its aliases are
#: expanded, and the most characters its scalars may add up to: a few hundred bytes of nested
#: aliases ("billion laughs") would otherwise expand to gigabytes
MAX_YAML_NODES = 100_000
MAX_YAML_TEXT = 4 << 20


def read_file(path: str | os.PathLike[str], what: str) -> str:
    """The text of ``path``, a regular UTF-8 file of at most ``MAX_FILE`` bytes; ``ConfigError``
    otherwise. Opened without blocking, so that a FIFO or a device cannot hang or flood arena."""
    name = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise ConfigError(f"no {what} {name!r}") from None
    except OSError as error:
        raise ConfigError(f"cannot read the {what} {name!r}: {error.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
            raise ConfigError(f"the {what} {name!r} is {kind}; give a YAML file")
        chunks, size = [], 0
        while size <= MAX_FILE:
            chunk = os.read(fd, MAX_FILE + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        raise ConfigError(f"cannot read the {what} {name!r}: {error.strerror}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > MAX_FILE:
        raise ConfigError(
            f"the {what} {name!r} is larger than {MAX_FILE // 1024} KiB; a tournament file is a few lines of YAML"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ConfigError(
            f"the {what} {name!r} is not UTF-8 text (byte {error.start + 1}, line {line}); save it as UTF-8"
        ) from None


class _TooDeep(Exception):
    """A YAML document nested deeper than ``MAX_YAML_DEPTH`` (at ``mark``)."""

    def __init__(self, mark: Any) -> None:
        super().__init__()
        self.mark = mark


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing to compose deeper than ``MAX_YAML_DEPTH``: its composer
    recurses, and a document of a million ``[`` would exhaust the stack."""

    depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self.depth += 1
        try:
            if self.depth > MAX_YAML_DEPTH:
                raise _TooDeep(self.peek_event().start_mark)  # type: ignore[no-untyped-call]
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _expanded_problem(root: yaml.Node) -> str | None:
    """What makes the document ``root`` too large once its aliases are expanded (``None``:
    nothing). Each node is measured once (an alias shares its anchor's node), so this takes
    time linear in the document as written, however much it expands."""
    sizes: dict[int, tuple[int, int, int]] = {}  # id(node) -> (nodes, characters, depth)
    open_nodes: set[int] = set()  # the nodes being measured: the path from the root
    stack = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        key = id(node)
        if not leaving:
            if key in sizes:
                continue
            if key in open_nodes:
                return "an alias refers to a node that contains it"
            open_nodes.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
            continue
        open_nodes.discard(key)
        measured = [sizes[id(child)] for child in _children(node)]
        nodes = 1 + sum(m[0] for m in measured)
        characters = (len(node.value) if isinstance(node, yaml.ScalarNode) else 0) + sum(m[1] for m in measured)
        depth = 1 + max((m[2] for m in measured), default=0)
        if nodes > MAX_YAML_NODES:
            return f"it holds more than {MAX_YAML_NODES:,} values once its aliases are expanded"
        if characters > MAX_YAML_TEXT:
            return f"its text adds up to more than {MAX_YAML_TEXT >> 20} MiB once its aliases are expanded"
        if depth > MAX_YAML_DEPTH:
            return f"it nests deeper than {MAX_YAML_DEPTH} levels once its aliases are expanded"
        sizes[key] = (nodes, characters, depth)
    return None


def load_yaml(text: str, source: str) -> Any:
    """The YAML document ``text`` as Python data, within the bounds above (``MAX_YAML_DEPTH``,
    ``MAX_YAML_NODES``, ``MAX_YAML_TEXT``); ``ConfigError`` naming ``source`` otherwise."""
    loader = None
    try:
        loader = _BoundedLoader(text)  # its reader refuses control characters at once
        node = loader.get_single_node()
        if node is None:
            return None
        problem = _expanded_problem(node)
        if problem:
            raise ConfigError(f"{source} is refused: {problem}")
        return loader.construct_document(node)
    except yaml.reader.ReaderError as error:
        line = text.count("\n", 0, error.position) + 1
        raise ConfigError(
            f"{source}: not valid YAML at line {line}: the character {error.character:#06x} (a control "
            "or other special character) is not allowed in YAML"
        ) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error)
        raise ConfigError(f"{source}: not valid YAML{where}: {problem}") from None
    except (_TooDeep, RecursionError) as error:
        mark = getattr(error, "mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(f"{source} is refused: it nests deeper than {MAX_YAML_DEPTH} levels{where}") from None
    except ValueError as error:  # a value YAML recognises but Python cannot make (a date of month 13)
        raise ConfigError(f"{source}: a value cannot be read: {error}") from None
    finally:
        if loader is not None:
            loader.dispose()
