"""Durable, tidy writes (issue 20): a killed writer leaves no temporary file after the next save; saved files
keep the umask's mode; bad targets raise one-line certirank errors."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from certirank._io import atomic_path, atomic_write_text, remove_stale_temporaries
from certirank.errors import CertirankError

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _temporaries(folder: Path, name: str) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(f".{name}.") and p.name.endswith(".tmp"))


def test_kill_9_during_save_leaves_nothing_after_next_save(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    atomic_write_text(target, "old\n")
    # A writer that creates its temporary file and then hangs before the rename; killed with SIGKILL.
    code = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {SRC!r})
        from certirank._io import atomic_path
        with atomic_path({str(target)!r}) as tmp:
            open(tmp, "w").write("half")
            print("ready", flush=True)
            time.sleep(60)
    """)
    for _ in range(3):
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        assert proc.stdout.readline().strip() == "ready"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    # each new writer already removed the previous victim's file; the last one is still there
    assert len(_temporaries(tmp_path, "state.json")) == 1
    assert target.read_text() == "old\n"  # and never touched the saved file
    atomic_write_text(target, "new\n")
    assert _temporaries(tmp_path, "state.json") == []
    assert target.read_text() == "new\n"


def test_live_writer_temporary_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "x.json"
    with atomic_path(target) as tmp:
        Path(tmp).write_text("partial")
        assert remove_stale_temporaries(target) == []
        assert Path(tmp).exists()
    # A foreign file that merely looks similar is not ours to delete.
    foreign = tmp_path / ".x.json.abc.tmp"
    foreign.write_text("someone else's")
    atomic_write_text(target, "{}")
    assert foreign.exists()


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_saved_file_keeps_umask_mode(tmp_path: Path, mask: int) -> None:
    old = os.umask(mask)
    try:
        target = tmp_path / f"m{mask:o}.json"
        atomic_write_text(target, "{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask


def test_replacing_keeps_existing_mode(tmp_path: Path) -> None:
    target = tmp_path / "secret.json"
    target.write_text("{}")
    os.chmod(target, 0o600)
    atomic_write_text(target, "[]")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert target.read_text() == "[]"


def test_bad_targets_are_one_line_errors(tmp_path: Path) -> None:
    for bad in (tmp_path, tmp_path / "missing" / "x.json"):
        with pytest.raises(CertirankError) as info:
            atomic_write_text(bad, "{}")
        assert "\n" not in str(info.value) and str(bad) in str(info.value)


def test_failed_write_leaves_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "keep.json"
    atomic_write_text(target, "old")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            Path(tmp).write_text("new")
            raise RuntimeError("crash")
    assert target.read_text() == "old" and _temporaries(tmp_path, "keep.json") == []
