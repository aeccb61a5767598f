"""The README is a player's guide that points into docs/, and nothing points outside the repo."""
import re
import shlex
from pathlib import Path

import pytest
import yaml

from voicehost.cli import parser
from voicehost.host.grammars import confirm_grammar, decision_grammar, spell_numbers
from voicehost.lab.phrasings import REFUSED, said, table_at

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
PLAYERS_GUIDE_LINES = 60


def lines() -> list[str]:
    return README.read_text(encoding="utf-8").splitlines()


def code_lines(page: Path) -> list[str]:
    """The lines inside the page's fenced code blocks."""
    inside, found = False, []
    text = page.read_text(encoding="utf-8").replace("\\\n", " ")  # continued lines, joined
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            inside = not inside
        elif inside:
            found.append(line.strip())
    return found


def test_the_readme_is_short() -> None:
    assert len(lines()) <= 250


def test_the_readme_opens_with_setting_up_playing_and_testing() -> None:
    text = lines()
    assert text[0].startswith("# ")
    after_title = [line for line in text[1:] if line.strip()]
    assert after_title[0].startswith("```")
    assert after_title[1].startswith(
        "bash scripts/setup.sh && .venv/bin/voicehost play secret-squad --players 4")
    assert after_title[2].startswith("bash scripts/test.sh")


def test_the_players_guide_names_every_command_and_the_roll_call() -> None:
    guide = "\n".join(lines()[:PLAYERS_GUIDE_LINES]).lower()
    commands = yaml.safe_load((ROOT / "prompts/common/intents.yaml").read_text())["commands"]
    for name, phrases in commands.items():
        first = re.sub(r"\[[^\]]*\]", "", phrases[0]).strip()
        first = re.sub(r"\(([^|)]*)[^)]*\)", r"\1", first)
        first = " ".join(first.split())
        assert first in guide, (name, first)
    assert "i'm in" in guide
    for game in ("secret-squad", "ferret-out", "secret-operation"):
        assert f"voicehost play {game}" in guide


def test_bare_voicehost_comes_after_the_virtualenv_is_activated() -> None:
    text = README.read_text(encoding="utf-8")
    first_bare = min(text.index(f"\n{line}") for line in code_lines(README)
                     if line.startswith("voicehost "))
    assert text.index("source .venv/bin/activate") < first_bare


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_example_command_is_one_voicehost_understands(page: Path) -> None:
    for line in code_lines(page):
        for command in line.split("#", 1)[0].split("&&"):
            words = shlex.split(command)
            if words and words[0] in ("voicehost", ".venv/bin/voicehost"):
                parser().parse_args(words[1:])  # a wrong subcommand or option exits


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_nothing_points_outside_the_repository(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for outside in ("../", "/work/", "shared/rules"):
        assert outside not in text, (page.name, outside)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_relative_link_finds_its_file(page: Path) -> None:
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.split("#", 1)[0]).resolve()
        assert path.is_relative_to(ROOT) and path.is_file(), (page.name, target)


def test_the_rules_travel_with_the_project() -> None:
    readme = README.read_text(encoding="utf-8")
    for game in ("secret-squad", "ferret-out", "secret-operation"):
        rules = ROOT / "docs" / f"rules-{game}.md"
        assert "](rules-notes.md" in rules.read_text(encoding="utf-8"), rules.name
    for page in DOCS:
        assert f"](docs/{page.name})" in readme, page.name


# What the players' guide tells people to say, and where: each is taken there, by default seats.
SAID = (("secret-squad", "point", "tiger"), ("secret-squad", "point", "at tiger"),
        ("secret-squad", "point", "I pointed at tiger"), ("secret-squad", "point", "player four"),
        ("secret-squad", "point", "I think it's tiger"),
        ("secret-operation", "turn", "add to module two"),
        ("secret-operation", "turn", "discard energy"), ("secret-operation", "turn", "block tiger"),
        ("secret-operation", "turn", "put it on module three"),
        ("ferret-out", "number", "four"), ("ferret-out", "number", "I pick four"),
        ("ferret-out", "number", "roll"), ("secret-squad", "answer", "yes please"))


@pytest.mark.parametrize(("game", "decision", "say"), SAID, ids=[s for _, _, s in SAID])
def test_what_the_guide_says_to_say_is_taken_at_its_decision(game: str, decision: str,
                                                            say: str) -> None:
    assert f'"{say}"' in README.read_text(encoding="utf-8")
    got = said(decision_grammar(*table_at({"game": game, "decision": decision})),
               spell_numbers(say))
    assert got != REFUSED, say


def test_the_guides_corrections_are_taken_at_a_read_back() -> None:
    table, pointing = table_at({"game": "secret-squad", "decision": "point"})
    grammar = confirm_grammar(table.grammar(pointing, []))
    for say in ("no, robin", "no, player two"):
        assert f'"{say}"' in README.read_text(encoding="utf-8")
        assert said(grammar, spell_numbers(say)) == "no:1", say
