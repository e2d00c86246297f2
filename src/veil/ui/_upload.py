"""Uploaded files for the Redact view of ``veil ui``: checked, kept privately, removed.

An uploaded text or JSON Lines file is checked before anything is written (its name ends
in a suffix the Redact view reads, at most :data:`UPLOAD_MAX_BYTES`, no NUL byte, valid
UTF-8), then written to a private temporary folder of its own (``0700``, the file
``0600``), outside the working folder. It is removed when its redaction ends (done,
failed or cancelled), when newer uploads push it out (at most :data:`MAX_UPLOADS` are
kept), and when the app stops. Neither its name nor its content is ever logged.
"""

from __future__ import annotations

import atexit
import os
import re
import secrets
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from veil._errors import InputError

__all__ = ["MAX_UPLOADS", "UPLOAD_MAX_BYTES", "Upload", "Uploads", "check_upload"]

UPLOAD_MAX_BYTES = 10_000_000
MAX_UPLOADS = 4
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class Upload:
    """One uploaded file: ``path`` in its private folder, ``name`` its safe file name."""

    id: str
    name: str
    path: Path
    size: int
    busy: bool = field(default=False)  # a redaction reads it

    @property
    def default_out(self) -> str:
        """The redacted copy's default name in the working folder."""
        return f"{self.path.stem}.redacted{self.path.suffix}"


def _safe_name(filename: str) -> str:
    name = _UNSAFE.sub("_", Path(filename.replace("\\", "/")).name).lstrip("._")
    return name[:120] or "upload"


def check_upload(filename: str, data: bytes) -> str:
    """The upload's safe file name; :class:`InputError` when it is not a text or JSON
    Lines file the Redact view can read (suffix, size, binary, encoding)."""
    from veil.ui._redact import REDACT_SUFFIXES

    if not filename:
        raise InputError("no file was chosen", hint="choose a text or JSON Lines file to upload")
    name = _safe_name(filename)
    if not name.lower().endswith(REDACT_SUFFIXES):
        raise InputError(
            "the uploaded file is not a text or JSON Lines file",
            hint="upload a file ending in " + " or ".join(REDACT_SUFFIXES),
        )
    if len(data) > UPLOAD_MAX_BYTES:
        raise InputError(
            f"the uploaded file is larger than {UPLOAD_MAX_BYTES // 1_000_000} MB",
            hint="put it in the working folder and pick it there, or use `veil redact`",
        )
    if not data:
        raise InputError("the uploaded file is empty", hint="upload a file with some text")
    if b"\x00" in data:
        raise InputError(
            "the uploaded file is binary (it holds NUL bytes), not text",
            hint="upload a UTF-8 text or JSON Lines file",
        )
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"the uploaded file is not UTF-8 text (byte {exc.start})",
            hint="save it as UTF-8 (e.g. `iconv -f latin1 -t utf-8`), then upload it again",
        ) from None
    return name


class Uploads:
    """The uploads of one app, each in its own private temporary folder."""

    def __init__(self) -> None:
        self.items: dict[str, Upload] = {}
        self.lock = threading.Lock()
        atexit.register(self.close)

    def add(self, filename: str, data: bytes) -> Upload:
        """Check ``data`` (:func:`check_upload`) and keep it privately; the oldest idle
        uploads beyond :data:`MAX_UPLOADS` are removed."""
        name = check_upload(filename, data)
        folder = Path(tempfile.mkdtemp(prefix="veil-ui-upload-"))  # 0700
        path = folder / name
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        upload = Upload(id=secrets.token_urlsafe(12), name=name, path=path, size=len(data))
        with self.lock:
            self.items[upload.id] = upload
            idle = [u for u in self.items.values() if not u.busy and u is not upload]
            for old in idle[: max(0, len(self.items) - MAX_UPLOADS)]:
                self._remove(old.id)
        return upload

    def get(self, upload_id: str) -> Upload:
        """The upload ``upload_id``; :class:`InputError` when it is gone."""
        upload = self.items.get(upload_id)
        if upload is None or not upload.path.is_file():
            raise InputError(
                "the uploaded file is no longer here (it was redacted, replaced by newer "
                "uploads, or the app restarted)",
                hint="upload it again",
            )
        return upload

    def discard(self, upload_id: str) -> None:
        """Remove the upload and its folder (nothing if already gone)."""
        with self.lock:
            self._remove(upload_id)

    def _remove(self, upload_id: str) -> None:
        upload = self.items.pop(upload_id, None)
        if upload is not None:
            shutil.rmtree(upload.path.parent, ignore_errors=True)

    def close(self) -> None:
        """Remove every upload (the app stops)."""
        with self.lock:
            for upload_id in list(self.items):
                self._remove(upload_id)
