"""vosk models: find one in the models folder (folders.models_dir), or fetch one from the
official catalog into it, safely and atomically. Nothing here loads vosk itself.

The archive is downloaded and unpacked under hidden names (".download-*", ".extract-*") in
the models folder, checked against the size and MD5 the catalog lists, and only then renamed
into place, so an interrupted download or extraction never looks like a model.
"""

from __future__ import annotations

import difflib
import hashlib
import http.client
import json
import os
import shutil
import stat
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any

from voicehost.folders import models_dir as models_home

CATALOG_URL = "https://alphacephei.com/vosk/models/model-list.json"
DEFAULT_MODEL = "vosk-model-small-en-us-0.15"
NO_MODEL_MESSAGE = (
    "No speech model found: run `voicehost models download` to fetch one, copy an unpacked "
    "vosk model into the models folder by hand, or use the pocketsphinx engine."
)
BLOCK = 64 * 1024

Progress = Callable[[int, int | None], None]


def looks_like_model(path: Path) -> bool:
    """A vosk model directory: an acoustic model plus its configuration or graph."""
    if not path.is_dir():
        return False
    acoustic = (path / "am" / "final.mdl").is_file() or (path / "final.mdl").is_file()
    graph = any((path / name).exists() for name in ("conf", "graph", "HCLG.fst", "Gr.fst"))
    return acoustic and graph


def find_model(models_dir: Path) -> Path | None:
    """The first model under `models_dir` (by name), or None. Hidden entries are skipped:
    that is where downloads and extractions in progress live."""
    if not models_dir.is_dir():
        return None
    for child in sorted(models_dir.iterdir()):
        if not child.name.startswith(".") and looks_like_model(child):
            return child
    return None


class ModelDownloadError(Exception):
    """A model could not be fetched or installed; the message is one sentence for the user."""


@dataclass(frozen=True)
class CatalogEntry:
    """One model of the catalog (model-list.json)."""

    name: str
    url: str
    size: int | None
    md5: str | None
    lang: str = ""
    type: str = ""
    version: str = ""
    obsolete: bool = False

    @classmethod
    def from_json(cls, item: dict) -> CatalogEntry:
        return cls(
            name=str(item["name"]),
            url=str(item["url"]),
            size=int(item["size"]) if item.get("size") is not None else None,
            md5=str(item["md5"]).lower() if item.get("md5") else None,
            lang=str(item.get("lang", "")),
            type=str(item.get("type", "")),
            version=str(item.get("version", "")),
            obsolete=str(item.get("obsolete", "false")).lower() == "true",
        )


def print_progress(done: int, total: int | None, stream: IO[str] | None = None) -> None:
    """A one-line text progress bar, redrawn in place on stderr."""
    stream = stream or sys.stderr
    mb = done / 1e6
    if total:
        filled = int(30 * done / total)
        bar = "#" * filled + "." * (30 - filled)
        line = f"\r[{bar}] {mb:6.1f} / {total / 1e6:.1f} MB {100 * done // total:3d}%"
    else:
        line = f"\r{mb:6.1f} MB"
    stream.write(line + ("\n" if total and done >= total else ""))
    stream.flush()


def fetch_catalog(catalog_url: str = CATALOG_URL, timeout: float = 30) -> list[CatalogEntry]:
    """The models the catalog lists."""
    with _open_url(catalog_url, timeout) as response:
        try:
            items = json.loads(response.read().decode("utf-8"))
            return [CatalogEntry.from_json(item) for item in items]
        except (ValueError, KeyError, TypeError) as e:
            raise ModelDownloadError(
                f"The model catalog at {catalog_url} is unreadable ({e})."
            ) from e


def find_entry(catalog: list[CatalogEntry], name: str) -> CatalogEntry:
    for entry in catalog:
        if entry.name == name:
            return entry
    close = difflib.get_close_matches(name, [e.name for e in catalog], n=5, cutoff=0.5)
    hint = f"; close names: {', '.join(close)}" if close else ""
    raise ModelDownloadError(f"The catalog has no model named {name!r}{hint}.")


def download(
    name: str = DEFAULT_MODEL,
    models_dir: Path | None = None,
    catalog_url: str = CATALOG_URL,
    progress: Progress | None = print_progress,
    timeout: float = 30,
) -> Path:
    """Install model `name` as models_dir/name (None: the user's models folder) and return
    that path (kept if already there)."""
    models_dir = models_dir or models_home()
    target = models_dir / name
    if looks_like_model(target):
        return target
    if target.exists():
        raise ModelDownloadError(f"{target} exists but is not a vosk model; remove it first.")
    entry = find_entry(fetch_catalog(catalog_url, timeout), name)
    models_dir.mkdir(parents=True, exist_ok=True)
    handle, name_on_disk = tempfile.mkstemp(prefix=".download-", suffix=".zip", dir=models_dir)
    os.close(handle)
    archive = Path(name_on_disk)
    try:
        _fetch_archive(entry, archive, progress, timeout)
        _install(archive, target)
    finally:
        archive.unlink(missing_ok=True)
    return target


def _open_url(url: str, timeout: float) -> http.client.HTTPResponse:
    try:
        return urllib.request.urlopen(url, timeout=timeout)
    except urllib.error.HTTPError as e:
        raise ModelDownloadError(
            f"The model server answered {e.code} {e.reason} for {url}."
        ) from e
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise ModelDownloadError(
            f"Cannot reach {url} ({reason}): copy an unpacked vosk model into the models folder "
            "by hand, or use the pocketsphinx engine, which needs no download."
        ) from e


def _fetch_archive(
    entry: CatalogEntry, archive: Path, progress: Progress | None, timeout: float
) -> None:
    """Download entry's zip to `archive`, checking the length, the size and the MD5."""
    md5 = hashlib.md5()
    received = _stream(entry.url, archive, md5, entry.name, entry.size, progress, timeout)
    _check(entry, received, md5.hexdigest())


def _stream(url: str, path: Path, digest: Any, name: str, size: int | None,
            progress: Progress | None, timeout: float) -> int:
    """Download `url` to `path`, feeding `digest`; the bytes received. A body that breaks
    off, or ends short of its Content-Length, is an error naming `name`."""
    received = 0
    with _open_url(url, timeout) as response, open(path, "wb") as out:
        announced = response.headers.get("Content-Length")
        expected = int(announced) if announced else size
        try:
            while block := response.read(BLOCK):
                out.write(block)
                digest.update(block)
                received += len(block)
                if progress:
                    progress(received, expected)
        except OSError as e:
            raise _interrupted(name, received, expected) from e
    if announced and received < int(announced):
        raise _interrupted(name, received, expected)
    return received


def _interrupted(name: str, received: int, expected: int | None) -> ModelDownloadError:
    of = f" of {expected}" if expected else ""
    return ModelDownloadError(
        f"The download of {name} broke off after {received}{of} bytes; run it again."
    )


def _check(entry: CatalogEntry, size: int, md5: str) -> None:
    if entry.size is not None and size != entry.size:
        raise ModelDownloadError(
            f"{entry.name} arrived with {size} bytes but the catalog lists {entry.size}; "
            "nothing was installed."
        )
    if entry.md5 is not None and md5 != entry.md5:
        raise ModelDownloadError(
            f"{entry.name} has MD5 {md5} but the catalog lists {entry.md5}; nothing was installed."
        )


def _install(archive: Path, target: Path) -> None:
    """Unpack into a hidden directory beside `target`, then rename the model into place."""
    workdir = Path(tempfile.mkdtemp(prefix=".extract-", dir=target.parent))
    try:
        extract_safely(archive, workdir)
        os.replace(_model_root(workdir, archive), target)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _model_root(workdir: Path, archive: Path) -> Path:
    """The model inside the unpacked archive: its single top directory, or the archive root."""
    entries = list(workdir.iterdir())
    if len(entries) == 1 and looks_like_model(entries[0]):
        return entries[0]
    if looks_like_model(workdir):
        return workdir
    raise ModelDownloadError(f"{archive.name} holds no vosk model (no am/ or graph/ found).")


def extract_safely(archive: Path, dest: Path) -> None:
    """Unpack a zip into `dest`, refusing any member that would land outside it."""
    try:
        with zipfile.ZipFile(archive) as zf:
            for member in zf.infolist():
                _extract_member(zf, member, dest)
    except zipfile.BadZipFile as e:
        raise ModelDownloadError(f"The downloaded archive is not a valid zip ({e}).") from e


def _member_path(name: str, dest: Path) -> Path:
    pure = PurePosixPath(name.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts or (pure.parts and ":" in pure.parts[0]):
        raise ModelDownloadError(f"Refusing unsafe archive: member {name!r} leaves the folder.")
    path = dest.joinpath(*pure.parts)
    if not _inside(path, dest):
        raise ModelDownloadError(f"Refusing unsafe archive: member {name!r} leaves the folder.")
    return path


def _inside(path: Path, root: Path) -> bool:
    return path.resolve().is_relative_to(root.resolve())


def _extract_member(zf: zipfile.ZipFile, member: zipfile.ZipInfo, dest: Path) -> None:
    path = _member_path(member.filename, dest)
    if stat.S_ISLNK(member.external_attr >> 16):
        _make_link(zf.read(member).decode("utf-8"), path, dest, member.filename)
    elif member.is_dir():
        path.mkdir(parents=True, exist_ok=True)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        with zf.open(member) as src, open(path, "wb") as out:
            shutil.copyfileobj(src, out, BLOCK)


def _make_link(link_target: str, path: Path, dest: Path, name: str) -> None:
    if not _inside(path.parent / link_target, dest):  # an absolute target replaces the base
        raise ModelDownloadError(
            f"Refusing unsafe archive: link {name!r} points outside it, to {link_target!r}."
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(link_target, path)


# The official faster-whisper conversion of tiny.en, at the revision whose files the Whisper
# engine pins (voicehost/speech/whisper_model.py MODEL_SHA256).
WHISPER_NAME = "whisper-tiny.en"
WHISPER_URL = ("https://huggingface.co/Systran/faster-whisper-tiny.en/resolve/"
               "0d3d19a32d3338f10357c0889762bd8d64bbdeba")


def download_whisper(models_dir: Path | None = None, base_url: str = WHISPER_URL,
                     progress: Progress | None = print_progress, timeout: float = 30) -> Path:
    """Install Whisper tiny.en's four files as models_dir/whisper-tiny.en (None: the user's
    models folder), each checked against its pinned SHA-256 before anything is renamed into
    place."""
    from voicehost.speech.whisper_model import MODEL_SHA256

    models_dir = models_dir or models_home()
    target = models_dir / WHISPER_NAME
    if target.exists():
        return target
    models_dir.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix=".download-", dir=models_dir))
    try:
        for name, expected in MODEL_SHA256.items():
            _fetch_file(f"{base_url}/{name}", workdir / name, expected, progress, timeout)
        os.replace(workdir, target)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return target


def _fetch_file(url: str, path: Path, sha256: str, progress: Progress | None,
                timeout: float) -> None:
    digest = hashlib.sha256()
    _stream(url, path, digest, url, None, progress, timeout)
    if digest.hexdigest() != sha256:
        raise ModelDownloadError(f"{url} has SHA-256 {digest.hexdigest()}, not the pinned "
                                 f"{sha256}; nothing was installed.")
