"""Atomic, durable file writes: nothing a user recorded is ever lost to a crash half-way through a save.

Every save goes to a temporary file beside the target, is flushed and fsynced, renamed over the target in one
`os.replace`, and the folder is fsynced so the rename itself survives a power cut. The temporary name carries
the writer's process id (``.<name>.certirank-<pid>-<random>.tmp``), so the next save can tell a leftover of a
killed writer (its process is gone) from a file another live writer is still filling, and removes only the
former. Saved files get the mode a plain ``open(path, "w")`` would give them (``0o666`` minus the umask), or
keep the mode of the file they replace.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import ParameterError

_TMP_TAG = "certirank-"
_active: set[str] = set()  # temporary files this process is writing right now (never "stale")
_active_lock = threading.Lock()


def _umask() -> int:
    # os.umask can only be read by setting it; set it straight back (no file is created in between).
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    except OSError:
        return True  # cannot tell: keep the file
    return True


def remove_stale_temporaries(target: str | os.PathLike[str]) -> list[Path]:
    """Delete temporary files of our own naming left beside `target` by writers that no longer run.

    Only names of the form ``.<target name>.certirank-<pid>-<random>.tmp`` are considered, and only when process
    `pid` is gone (or is this process but the file is not one it is writing now). Returns the removed paths.
    """
    t = Path(target)
    folder = t.parent if str(t.parent) else Path(".")
    pattern = re.compile(r"^\." + re.escape(t.name) + r"\." + _TMP_TAG + r"(\d+)-[^/]*\.tmp$")
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    with _active_lock:
        active = set(_active)
    for entry in entries:
        m = pattern.match(entry.name)
        if not m:
            continue
        path = os.path.join(folder, entry.name)
        pid = int(m.group(1))
        if (pid == os.getpid() and path not in active) or not _pid_alive(pid):
            try:
                os.unlink(path)
                removed.append(Path(path))
            except OSError:
                pass
    return removed


def _fsync_folder(folder: Path) -> None:
    if os.name != "posix":  # Windows cannot open a folder for fsync; its rename is already durable
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def as_path(path: object, what: str = "path") -> Path:
    """`path` as a Path, or a one-line ParameterError: it must be a str or os.PathLike without NUL characters
    (``Path(None)`` is a TypeError and ``open("a\\0b")`` a ValueError; neither may reach the user)."""
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterError(f"{what} must be a file path (str or os.PathLike), got {type(path).__name__}")
    text = os.fspath(path)
    if isinstance(text, bytes) or "\0" in text:
        raise ParameterError(f"{what} {text!r} is not a usable file path" + (" (it holds a NUL character)"
                                                                            if "\0" in str(text) else ""))
    return Path(text)


def check_target(path: object, what: str = "path") -> Path:
    """The Path to write `path` to, refused in one line before any work if it cannot be: not a path, a folder,
    or in a folder that does not exist."""
    target = as_path(path, what)
    _check_target(target)
    return target


def _check_target(target: Path) -> Path:
    folder = target.parent if str(target.parent) else Path(".")
    if str(target) == "" or target.name in ("", ".", ".."):
        raise ParameterError(f"cannot save to {str(target)!r}: expected a file name")
    if target.is_dir():
        raise ParameterError(f"cannot save to {str(target)!r}: it is a folder (expected a file name)")
    if not folder.is_dir():
        raise ParameterError(f"cannot save to {str(target)!r}: folder {str(folder)!r} does not exist")
    return folder


@contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[str]:
    """Yield a temporary file name beside `path`; on success it replaces `path` in one rename.

    The temporary file lives in the target's folder so that `os.replace` is a same-filesystem rename (atomic on
    POSIX and Windows); on any failure it is removed and the previous file is left untouched. After the caller
    has written it, the file is fsynced, given its final mode, renamed, and the folder is fsynced.
    """
    target = as_path(path)
    folder = _check_target(target)
    remove_stale_temporaries(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.{_TMP_TAG}{os.getpid()}-", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise ParameterError(f"cannot save to {str(target)!r}: {exc.strerror or exc}") from None
    os.close(fd)
    with _active_lock:
        _active.add(tmp)
    try:
        yield tmp
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except OSError:
            mode = 0o666 & ~_umask()
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        try:
            os.replace(tmp, target)
        except OSError as exc:
            if exc.errno in (errno.EISDIR, errno.ENOTDIR, errno.EACCES, errno.EPERM, errno.EROFS, errno.EEXIST):
                raise ParameterError(f"cannot save to {str(target)!r}: {exc.strerror or exc}") from None
            raise
        _fsync_folder(folder)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    finally:
        with _active_lock:
            _active.discard(tmp)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write `text` to `path` atomically and durably (see :func:`atomic_path`)."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()


def read_saved_text(path: str | os.PathLike[str], what: str, error: type[Exception] = ParameterError) -> str:
    """The UTF-8 text of a saved state file; every way it cannot be read is one line as ``error``."""
    try:
        return as_path(path, what).read_text(encoding="utf-8")
    except ParameterError as exc:
        raise error(str(exc)) from None
    except OSError as exc:
        raise error(f"cannot read {what} {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise error(f"cannot read {what} {str(path)!r}: not a text (UTF-8 JSON) file") from None
    except (TypeError, ValueError):
        raise error(f"cannot read {what} {path!r}: expected a file path") from None
