"""Where islands meet: a key -> bytes store on a local/NFS folder or any fsspec URL.

Keys are posix relative paths ("global/round-000003.safetensors"). A reader sees a key whole
or not at all: a local put writes a temp file beside the target and renames it over; other
filesystems (sftp, memory) write `<key>.tmp-<uuid>` and move it; object stores (S3, GCS,
Azure) publish an object only when its upload completes, so they are written directly.

The store moves bytes only, without torch (an island's heartbeat process imports it and must
beat within a second of its start); what the bytes hold is `codec`'s.
"""

from __future__ import annotations

import json
import posixpath
import re
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jupiter.atomic import write_bytes
from jupiter.errors import JupiterError

# puts on these are atomic already, and their "move" is a copy + delete of the whole object
OBJECT_STORES = frozenset({"s3", "s3a", "gs", "gcs", "az", "abfs", "abfss", "adl", "oss"})
TMP_MARK = ".tmp-"


def shown(url: str) -> str:
    """The URL with any password masked, for messages."""
    return re.sub(r"(://[^/:@]*):[^/@]*@", r"\1:***@", url)


def check_key(key: str, prefix: bool = False) -> str:
    """A posix relative path without '.', '..' or hidden parts (those are temp files)."""
    parts = key.split("/") if isinstance(key, str) else [""]
    if prefix and parts[-1] == "":
        parts = parts[:-1]
    bad = (
        not isinstance(key, str)
        or (not key and not prefix)
        or key.startswith("/")
        or "\\" in key
        or TMP_MARK in key
        or any(p in ("", ".", "..") or p.startswith(".") for p in parts)
    )
    if bad:
        raise JupiterError(
            f"sync store key {key!r} is not a plain relative path; use names like "
            "'global/round-000003.safetensors' (no leading '/', '..', or parts starting with '.')"
        )
    return key


def _is_temp(key: str) -> bool:
    return TMP_MARK in key or any(p.startswith(".") for p in key.split("/"))


class SyncStore:
    """A key -> bytes store at `url`: a path (absolute or relative), file://..., or any fsspec
    URL (s3://bucket/run, sftp://user@host/path, memory://name for tests). `options` go to
    the fsspec filesystem (key_filename for sftp, endpoint_url for S3-compatible stores);
    fsspec's own FSSPEC_<PROTOCOL>_<OPTION> variables work too.
    Counts the bytes it moves in `bytes_put` and `bytes_got`."""

    def __init__(self, url: str, options: Mapping[str, Any] | None = None) -> None:
        if not url:
            raise JupiterError("sync store URL is empty; set sync.store to a folder or URL")
        self._url = url
        self.bytes_put = 0
        self.bytes_got = 0
        self._fs: Any = None
        if "://" not in url or url.startswith("file://"):
            self._local: Path | None = Path(url.removeprefix("file://")).expanduser().absolute()
            self._root = str(self._local)
            try:
                self._local.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise JupiterError(
                    f"sync store {url}: cannot create the folder ({e.strerror}); "
                    "pick a writable path for sync.store"
                ) from e
        else:
            self._local = None
            self._fs, self._root = _open_fs(url, dict(options or {}))
            self._root = self._root.rstrip("/")

    @property
    def url(self) -> str:
        return self._url

    def __repr__(self) -> str:
        return f"SyncStore({shown(self._url)!r})"

    # ----------------------------------------------------------------------------- paths
    def _path(self, key: str) -> str:
        return f"{self._root}/{check_key(key)}"

    @contextmanager
    def _io(self, what: str, key: str) -> Iterator[None]:
        """Turn a backend's exception (OSError, botocore, paramiko...) into one clear line."""
        try:
            yield
        except JupiterError:
            raise
        except FileNotFoundError as e:
            raise JupiterError(
                f"sync store {shown(self._url)} has no key {key!r}; it was never published "
                "or was deleted (check exists() before get, or wait for the round)"
            ) from e
        except Exception as e:
            raise JupiterError(
                f"sync store {shown(self._url)}: {what} {key!r} failed "
                f"({type(e).__name__}: {e}); check that the store is reachable and writable"
            ) from e

    # ----------------------------------------------------------------------------- bytes
    def put(self, key: str, data: bytes) -> None:
        """Write `data` under `key` atomically, replacing any older value."""
        path = self._path(key)
        with self._io("put", key):
            if self._local is not None:
                write_bytes(Path(path), data)  # temp file + fsync + os.replace
            elif _protocol(self._fs) in OBJECT_STORES:
                self._fs.pipe_file(path, data)
            else:
                self._put_by_move(path, data)
        self.bytes_put += len(data)

    def _put_by_move(self, path: str, data: bytes) -> None:
        tmp = f"{path}{TMP_MARK}{uuid.uuid4().hex}"
        self._fs.makedirs(posixpath.dirname(path), exist_ok=True)
        try:
            self._fs.pipe_file(tmp, data)
            self._fs.mv(tmp, path)
        except BaseException:
            try:
                self._fs.rm_file(tmp)
            except Exception:
                pass  # best effort: list() hides temp names anyway
            raise

    def get(self, key: str) -> bytes:
        path = self._path(key)
        with self._io("get", key):
            data = Path(path).read_bytes() if self._local is not None else self._fs.cat_file(path)
        self.bytes_got += len(data)
        return bytes(data)

    def exists(self, key: str) -> bool:
        path = self._path(key)
        with self._io("exists", key):
            if self._local is not None:
                return Path(path).is_file()
            return bool(self._fs.isfile(path))

    def delete(self, key: str) -> None:
        """Remove `key`; a missing key is not an error (deleting twice is fine)."""
        path = self._path(key)
        with self._io("delete", key):
            if self._local is not None:
                Path(path).unlink(missing_ok=True)
            else:
                try:
                    self._fs.rm_file(path)
                except FileNotFoundError:
                    pass

    def list(self, prefix: str = "") -> list[str]:
        """Every key starting with `prefix` (a plain string prefix, e.g. 'pseudo/round-0003/'
        or 'global/round-'), sorted; temp files of puts in flight are never listed."""
        if prefix:
            check_key(prefix, prefix=True)
        folder = prefix if prefix.endswith("/") or not prefix else posixpath.dirname(prefix)
        base = f"{self._root}/{folder}".rstrip("/")
        with self._io("list", prefix):
            if self._local is not None:
                found = [str(p) for p in Path(base).rglob("*") if p.is_file()]
            else:
                found = list(self._fs.find(base)) if self._fs.isdir(base) else []
        root = self._root if self._local is not None else self._fs._strip_protocol(self._root)
        keys = [Path(p).as_posix()[len(root) + 1 :] for p in found]
        return sorted(k for k in keys if k.startswith(prefix) and not _is_temp(k))

    # ----------------------------------------------------------------------------- json
    def put_json(self, key: str, obj: Any) -> None:
        self.put(key, json.dumps(obj, sort_keys=True, indent=1).encode("utf-8"))

    def get_json(self, key: str) -> Any:
        data = self.get(key)
        try:
            return json.loads(data)
        except ValueError as e:
            raise JupiterError(
                f"sync store {shown(self._url)}: {key!r} is not valid JSON ({e}); "
                "delete it so that its writer publishes it again"
            ) from e


def _protocol(fs: Any) -> str:
    proto = fs.protocol
    return str(proto[0] if isinstance(proto, (tuple, list)) else proto)


def _open_fs(url: str, options: dict[str, Any]) -> tuple[Any, str]:
    """fsspec's filesystem for `url`, probed once, with one clear line when it cannot be."""
    import fsspec
    from fsspec.registry import known_implementations, registry

    proto = fsspec.utils.get_protocol(url)
    if proto not in known_implementations and proto not in registry:
        raise JupiterError(
            f"sync store {shown(url)}: unknown protocol {proto!r}; use a folder, file://, "
            "s3://, gs://, sftp://user@host/path or another fsspec URL"
        )
    try:
        fs, root = fsspec.core.url_to_fs(url, **options)
    except ImportError as e:
        pkg = _package_for(proto)
        raise JupiterError(
            f"sync store {shown(url)}: the {proto}:// protocol needs {pkg}, which is not "
            f"installed; pip install {pkg}"
        ) from e
    except Exception as e:
        raise JupiterError(
            f"sync store {shown(url)} is unreachable ({type(e).__name__}: {e}); "
            "check the host, credentials and network"
        ) from e
    try:
        fs.exists(root)  # S3/GCS connect lazily: fail here, not mid-round
    except Exception as e:
        raise JupiterError(
            f"sync store {shown(url)} is unreachable ({type(e).__name__}: {e}); "
            "check the host, credentials and network"
        ) from e
    return fs, str(root)


def _package_for(proto: str) -> str:
    """The pip package(s) a protocol needs: the implementation's own package (s3fs, gcsfs),
    or what fsspec's message quotes for its built-in ones (paramiko for sftp)."""
    from fsspec.registry import known_implementations

    spec = known_implementations.get(proto, {})
    top = spec.get("class", "").split(".")[0]
    if top and top != "fsspec":
        return top
    quoted = re.findall(r'"([^"]+)"', spec.get("err", ""))
    return " ".join(quoted) or f"the package for {proto}://"
