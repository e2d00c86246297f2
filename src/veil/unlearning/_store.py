"""The SISA model directory: a keyed manifest, checksummed files, generations per shard.

Layout::

    DIR/manifest.json                 the current version: config, metrics, every file + SHA-256,
                                      and an HMAC over all of it (keyed: a manifest edited
                                      without the key is refused)
    DIR/shards/<s>/g<gen>/data.bin    shard s's training rows (encoded features, class, slice,
                                      keyed id hash); never the raw ids
    DIR/shards/<s>/g<gen>/slice_<l>.ckpt   the shard's state after slice l
    DIR/test/g<gen>.bin               held-out rows (accuracy), with their keyed id hashes

Rows and checkpoints are *array containers* (:func:`pack_arrays`): a magic line, a JSON
header (name, dtype, shape, offset of each array) and the raw bytes, read back without
parsing (``np.frombuffer``). Folders written before used ``.npz`` files (``data.npz``,
``test/g<gen>.npz``); they are still read (by their first bytes, not their names).
    DIR/erasure-log.sqlite            the default erasure log (see :mod:`veil.unlearning._log`)

A new version writes new generation folders, then replaces ``manifest.json`` atomically: that
rename is the commit. Only then are the superseded generations deleted (a crash in between
leaves unreferenced folders, removed by the next write). Files are read only after their
checksum matches the manifest and the manifest's HMAC matches the key.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import io
import json
import os
import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from veil._errors import InputError, KeyMissingError, OutputError
from veil._version import __version__
from veil.tabular._keys import Secret, derive_subkey, require_strong

__all__ = [
    "ARRAYS_MAGIC",
    "MODEL_FORMAT",
    "LazyArrays",
    "ModelStore",
    "dump_arrays",
    "folder_lock",
    "hash_ids",
    "id_keys",
    "load_arrays",
    "pack_arrays",
    "unpack_arrays",
    "write_shard_blobs",
]

MODEL_FORMAT = "veil-sisa-model/1"
MANIFEST = "manifest.json"
HASH_BYTES = 32


def _as_secret(key: Secret | bytes) -> Secret:
    secret = key if isinstance(key, Secret) else Secret(bytes(key), source="the key argument")
    if secret.nbytes < 16:
        raise KeyMissingError(
            f"the erasure key ({secret.source}) is {secret.nbytes} bytes; at least 16 are needed",
            hint="make one with 'veil keygen --out FILE'",
        )
    require_strong(secret, column="id", transform="unlearning")
    return secret


def hash_ids(key: Secret, ids: list[str]) -> np.ndarray:
    """Keyed hashes (HMAC-SHA256 under a subkey for this purpose) of ids: a ``uint8``
    array of shape ``(n, 32)``.

    The model directory and the erasure log hold only these: without the key, an id cannot be
    checked against them by hashing candidates.
    """
    sub = derive_subkey(key, "unlearning-id").reveal()
    out = np.empty((len(ids), HASH_BYTES), dtype=np.uint8)
    for i, v in enumerate(ids):
        out[i] = np.frombuffer(hmac.new(sub, v.encode("utf-8"), hashlib.sha256).digest(), np.uint8)
    return out


def id_keys(hashes: np.ndarray) -> list[bytes]:
    """The rows of a hash array as ``bytes`` (dictionary keys; ``.hex()`` for the log)."""
    arr = np.ascontiguousarray(hashes, dtype=np.uint8).reshape(-1, HASH_BYTES)
    return [row.tobytes() for row in arr]


ARRAYS_MAGIC = b"veil-arrays/1\n"
_ALIGN = 64  # every array starts at a multiple of this many bytes from the blob's start


def _packable(a: np.ndarray) -> bool:
    return not a.dtype.hasobject and a.dtype.fields is None and a.dtype.kind in "biufcV"


def pack_arrays(
    arrays: Mapping[str, np.ndarray], meta: Any = None, *, magic: bytes = ARRAYS_MAGIC
) -> bytes | None:
    """Arrays (and a JSON-able ``meta``) as one blob: ``magic``, the header's length (8 bytes,
    little-endian), a JSON header naming each array's dtype, shape and offset, then the
    arrays' raw bytes, each aligned. ``None`` when an array has a dtype this cannot hold
    (objects, structured records): the caller falls back to another format.

    Reading it back (:func:`unpack_arrays`) parses one small JSON header instead of an
    ``.npz``'s zip directory and one header per array (``ast.literal_eval``), which was
    most of the time a one-row erasure spent outside training.
    """
    entries = []
    chunks: list[bytes] = []
    offset = 0
    for name, value in arrays.items():
        a = np.ascontiguousarray(value)
        if not _packable(a):
            return None
        pad = -offset % _ALIGN
        chunks.append(b"\0" * pad)
        offset += pad
        entries.append([str(name), a.dtype.str, list(a.shape), offset, a.nbytes])
        chunks.append(a.tobytes())
        offset += a.nbytes
    header = json.dumps({"arrays": entries, "meta": meta}, separators=(",", ":")).encode()
    start = len(magic) + 8 + len(header)
    lead = magic + len(header).to_bytes(8, "little") + header + b"\0" * (-start % _ALIGN)
    return lead + b"".join(chunks)


def unpack_arrays(blob: bytes, *, magic: bytes = ARRAYS_MAGIC) -> tuple[dict[str, np.ndarray], Any]:
    """The arrays and ``meta`` of a :func:`pack_arrays` blob. The arrays are writable views
    of one copy of the blob (no per-array copy). Only called on blobs whose checksum the
    keyed manifest vouches for; a malformed one still fails cleanly."""
    try:
        size = int.from_bytes(blob[len(magic) : len(magic) + 8], "little")
        start = len(magic) + 8
        header = json.loads(blob[start : start + size])
        base = start + size + (-(start + size) % _ALIGN)
        buf = bytearray(memoryview(blob)[base:])  # writable (torch.from_numpy warns otherwise)
        out: dict[str, np.ndarray] = {}
        for name, dtype, shape, off, nbytes in header["arrays"]:
            dt = np.dtype(dtype)
            if dt.hasobject or off < 0 or off + nbytes > len(buf):
                raise ValueError(name)
            count = nbytes // dt.itemsize if dt.itemsize else 0
            out[name] = np.frombuffer(buf, dtype=dt, count=count, offset=off).reshape(shape)
        return out, header.get("meta")
    except (ValueError, TypeError, KeyError, json.JSONDecodeError):
        raise InputError(
            "a model file is not a valid array container (damaged, or from another program)",
            hint="restore the model folder from a backup, or fit again",
        ) from None


def dump_arrays(arrays: Mapping[str, np.ndarray]) -> bytes:
    """Rows as an array container (:func:`pack_arrays`), or an ``.npz`` for dtypes it
    cannot hold."""
    packed = pack_arrays(arrays)
    if packed is not None:
        return packed
    buf = io.BytesIO()
    np.savez(buf, **arrays)  # type: ignore[arg-type]
    return buf.getvalue()


def load_arrays(blob: bytes) -> Mapping[str, np.ndarray]:
    """The rows of a file :func:`dump_arrays` wrote (an array container or an ``.npz``)."""
    if blob.startswith(ARRAYS_MAGIC):
        return unpack_arrays(blob)[0]
    return LazyArrays(blob)


class LazyArrays(Mapping[str, np.ndarray]):
    """The arrays of an ``.npz`` blob (already checksummed), each parsed on first access
    (model folders written before the array container: :func:`load_arrays`)."""

    def __init__(self, blob: bytes) -> None:
        self._z = np.load(io.BytesIO(blob), allow_pickle=False)
        self._keys = tuple(self._z.files)
        self._got: dict[str, np.ndarray] = {}

    def __getitem__(self, key: str) -> np.ndarray:
        got = self._got.get(key)
        if got is None:
            if key not in self._keys:
                raise KeyError(key)
            got = self._got[key] = self._z[key]
        return got

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


def _sha256(blob: bytes) -> str:
    return hashlib.sha256(blob).hexdigest()


def _canonical(manifest: dict[str, Any]) -> bytes:
    body = {k: v for k, v in manifest.items() if k != "mac"}
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


class ModelStore:
    """Reads and writes one model directory (see the module docstring)."""

    def __init__(self, path: str | Path, key: Secret | bytes) -> None:
        self.path = Path(path)
        self.key = _as_secret(key)
        self._mac_key = derive_subkey(self.key, "unlearning-manifest").reveal()
        #: folders given new names since the last manifest: flushed before it is replaced
        self._unsynced: set[Path] = set()

    # -- manifest ---------------------------------------------------------------------------
    def mac(self, manifest: dict[str, Any]) -> str:
        return hmac.new(self._mac_key, _canonical(manifest), hashlib.sha256).hexdigest()

    def read_manifest(self) -> dict[str, Any]:
        """The manifest, after its format and keyed MAC are checked."""
        where = self.path / MANIFEST
        if not self.path.is_dir():
            raise InputError(
                f"{self.path} is not a folder",
                hint="give the folder 'veil unlearn fit --out' wrote",
            )
        try:
            manifest = json.loads(where.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InputError(
                f"{self.path} has no {MANIFEST}: not a veil unlearning model",
                hint="give the folder 'veil unlearn fit --out' wrote",
            ) from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(
                f"{where} is not readable JSON ({type(exc).__name__}); the folder was tampered "
                "with or damaged",
                hint="restore it from a backup taken after the last erasure, or fit again",
            ) from None
        if not isinstance(manifest, dict):
            raise InputError(f"{where} is not a veil unlearning manifest")
        fmt = manifest.get("format")
        if fmt != MODEL_FORMAT:
            raise InputError(
                f"{self.path} holds a model of format {str(fmt)[:40]!r}; this veil "
                f"({__version__}) reads {MODEL_FORMAT!r}",
                hint="open it with the veil version that wrote it, or fit again",
            )
        mac = manifest.get("mac")
        if not isinstance(mac, str) or not hmac.compare_digest(mac, self.mac(manifest)):
            raise InputError(
                f"{where}: its keyed checksum does not match: the manifest was edited, or "
                "this is not the key the model was written with",
                hint="use the key given to 'veil unlearn fit'; restore the folder if it was "
                "modified",
            )
        return manifest

    def write_manifest(self, manifest: dict[str, Any]) -> dict[str, Any]:
        """Replace the manifest atomically; returns what was written (with its MAC).

        The files of the new version are on the disk before the manifest names them
        (:meth:`write_file` flushes each, the folders holding their names are flushed here),
        and the manifest is flushed before and after its rename: once the superseded
        generations are deleted, a power loss cannot leave a manifest that points at empty
        files."""
        from veil.io import fsync_path, write_text_atomic

        try:
            for folder in sorted(self._unsynced, key=lambda p: len(p.parts), reverse=True):
                fsync_path(folder)
        except OSError as exc:
            raise OutputError(
                f"cannot flush {self.path} to the disk ({exc.strerror or type(exc).__name__}); "
                "the model is unchanged",
                hint="check the disk and free space",
            ) from None
        self._unsynced.clear()

        manifest = dict(manifest)
        manifest["format"] = MODEL_FORMAT
        manifest["veil_version"] = __version__
        manifest["updated"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        manifest["mac"] = self.mac(manifest)
        # compact: the encoder's category lists make it large, and it is rewritten per erasure
        write_text_atomic(
            self.path / MANIFEST, json.dumps(manifest, separators=(",", ":")), durable=True
        )
        return manifest

    def read_version(self) -> Any:
        """The version the manifest on disk records (no MAC check: for a change check only)."""
        try:
            return json.loads((self.path / MANIFEST).read_text(encoding="utf-8")).get("version")
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
            return None

    # -- files ------------------------------------------------------------------------------
    def write_file(self, rel: str, blob: bytes) -> dict[str, str]:
        """Write a file of a new generation; returns its manifest entry."""
        target = self.path / rel
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            # never through an existing name: a crashed erasure's leftover may be a hard link
            # to a file of the current version (:meth:`link_file`)
            target.unlink(missing_ok=True)
            with open(target, "wb") as fh:
                fh.write(blob)
                fh.flush()
                os.fsync(fh.fileno())
            self._note_names(target)
        except OSError as exc:
            raise OutputError(
                f"cannot write {target} ({exc.strerror or type(exc).__name__}); the model "
                "is unchanged",
                hint="check free space and permissions",
            ) from None
        return {"path": rel, "sha256": _sha256(blob)}

    def link_file(self, entry: dict[str, str], rel: str) -> dict[str, str]:
        """A file of a new generation that is byte for byte an existing one (a checkpoint
        of a slice the erasure did not reach): a hard link, not a copy, with the existing
        entry's checksum (verified whenever the file is read, as every file). Written out
        (:meth:`read_file`, then :meth:`write_file`) where links are not supported."""
        target = self.path / rel
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.unlink(missing_ok=True)
            os.link(self.path / str(entry["path"]), target)
            self._note_names(target)
        except OSError:
            return self.write_file(rel, self.read_file(entry))
        return {"path": rel, "sha256": entry["sha256"]}

    def _note_names(self, target: Path) -> None:
        """Remember the folders between ``target`` and the model folder: new names to flush."""
        folder = target.parent
        while folder != self.path and self.path in folder.parents:
            self._unsynced.add(folder)
            folder = folder.parent
        self._unsynced.add(self.path)

    def read_file(self, entry: dict[str, str]) -> bytes:
        """A file's bytes, refused unless they match the manifest's checksum."""
        rel = str(entry["path"])
        parts = PurePosixPath(rel).parts
        # a relative path below the folder (no resolve(): a stat per path component per
        # file; what is read is vouched for by its checksum either way)
        if not parts or PurePosixPath(rel).is_absolute() or ".." in parts:
            raise InputError(f"{self.path}: the manifest names a file outside the model folder")
        target = self.path / rel
        try:
            blob = target.read_bytes()
        except OSError:
            raise InputError(
                f"{self.path}: the file {rel} the manifest lists is missing or unreadable",
                hint="the folder was damaged or tampered with: restore it, or fit again",
            ) from None
        if _sha256(blob) != entry["sha256"]:
            raise InputError(
                f"{self.path}: {rel} does not match its checksum in the manifest (tampered "
                "or damaged)",
                hint="restore the folder from a backup taken after the last erasure, or fit again",
            )
        return blob

    def sweep(self, manifest: dict[str, Any]) -> None:
        """Delete every generation folder and file the manifest does not reference.

        Every shard's folder is listed (a crash between a version's commit and its sweep
        leaves the superseded generation, the erased rows in it, in a shard the next
        erasure may not touch); with ``os.scandir`` and plain strings, not ``Path.glob``,
        which cost a one-row erasure a few milliseconds on a 20-shard model."""
        used = {
            str(PurePosixPath(e["path"]).parent)
            for s in manifest["shards"]
            for e in _shard_files(s)
        }
        for shard_dir in _subdirs(self.path / "shards"):
            for gen in _subdirs(shard_dir):
                if gen.name.startswith("g") and f"shards/{shard_dir.name}/{gen.name}" not in used:
                    shutil.rmtree(gen.path, ignore_errors=True)
        test = manifest.get("test")
        keep = None if test is None else str(PurePosixPath(test["path"]).name)
        try:
            files = list(os.scandir(self.path / "test"))
        except OSError:
            files = []
        for f in files:
            if f.name.startswith("g") and f.name != keep and f.is_file():
                Path(f.path).unlink(missing_ok=True)


def _subdirs(path: str | os.PathLike[str]) -> list[os.DirEntry[str]]:
    try:
        return sorted((e for e in os.scandir(path) if e.is_dir()), key=lambda e: e.name)
    except OSError:
        return []


def _shard_files(shard: dict[str, Any]) -> list[dict[str, str]]:
    return [shard["data"], *(c for c in shard["checkpoints"] if c is not None)]


@contextmanager
def folder_lock(path: Path) -> Iterator[None]:
    """An exclusive lock on the model folder (``.lock``) for the length of an erasure."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        yield
        return
    with open(path / ".lock", "a+b") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise InputError(
                f"another erasure is running on {path}",
                hint="wait for it to finish, then submit the request again",
            ) from None
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def write_shard_blobs(
    store: ModelStore,
    s: int,
    gen: int,
    data: Mapping[str, np.ndarray],
    blobs: list[bytes | None],
    reuse: list[dict[str, str] | None] | None = None,
) -> dict[str, Any]:
    """Write shard ``s``'s rows and checkpoints as generation ``gen``; ``reuse[j]``: an
    existing file's manifest entry to link as checkpoint ``j`` instead of writing
    ``blobs[j]``."""
    base = f"shards/{s}/g{gen}"  # gen: the model version that wrote it
    reuse = reuse or []
    ckpts: list[dict[str, str] | None] = []
    for j, b in enumerate(blobs):
        old = reuse[j] if j < len(reuse) else None
        rel = f"{base}/slice_{j}.ckpt"
        if old is not None:
            ckpts.append(store.link_file(old, rel))
        else:
            ckpts.append(None if b is None else store.write_file(rel, b))
    return {
        "generation": gen,
        "rows": len(data["y"]),
        "data": store.write_file(f"{base}/data.bin", dump_arrays(data)),
        "checkpoints": ckpts,
    }
