"""The README is a player's guide that points into docs/, and nothing points outside the repo."""
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from voicehost.cli import parser
from voicehost.games.secret_operation import starting_deck
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


def at(game: str, decision: str, **more: object) -> dict[str, object]:
    """A moment for `table_at`: the game, its decision, and anything more ("seat", ...)."""
    return {"game": game, "decision": decision, **more}


NOTES = ROOT / "docs" / "rules-notes.md"
SQUAD_POINT, TURN, NUMBER = at("secret-squad", "point"), at("secret-operation", "turn"), \
    at("ferret-out", "number")
REVEAL = at("secret-operation", "reveal", seat=1)  # module one: three cards
# What a page tells people to say, quoted ("...") or in italics (*...*), and where: each is
# taken there, by default seats. `empty_hands`: seats whose hand has run out.
SAID = ((README, SQUAD_POINT, "tiger"), (README, SQUAD_POINT, "at tiger"),
        (README, SQUAD_POINT, "I pointed at tiger"), (README, SQUAD_POINT, "player four"),
        (README, SQUAD_POINT, "I think it's tiger"), (README, TURN, "add to module two"),
        (README, TURN, "discard energy"), (README, TURN, "block tiger"),
        (README, TURN, "put it on module three"), (README, NUMBER, "four"),
        (README, NUMBER, "I pick four"), (README, NUMBER, "roll"),
        (README, at("secret-squad", "answer"), "yes please"),
        (NOTES, at("secret-squad", "answer"), "undo"),
        (NOTES, at("secret-squad", "answer"), "Read the answers"),
        (NOTES, at("secret-squad", "squad"), "yellow"),
        (NOTES, at("secret-squad", "ready"), "ready"),
        (NOTES, NUMBER, "four"), (NOTES, NUMBER, "I pick four"), (NOTES, NUMBER, "roll"),
        (NOTES, at("ferret-out", "accuse"), "I named cheetah"),
        (NOTES, at("ferret-out", "accuse"), "myself"),
        (NOTES, at("ferret-out", "clue"), "help"),
        (NOTES, at("ferret-out", "study"), "ready"), (NOTES, at("ferret-out", "study"), "pause"),
        (NOTES, at("ferret-out", "guess"), "something else"),
        (NOTES, at("ferret-out", "guess"), "other"),
        (NOTES, TURN, "add to module two"), (NOTES, TURN, "add two"), (NOTES, TURN, "module two"),
        (NOTES, TURN, "discard energy"), (NOTES, TURN, "block tiger"), (NOTES, TURN, "Discard"),
        (NOTES, TURN, "add"), (NOTES, TURN, "block"), (NOTES, TURN, "undo"),
        (NOTES, at("secret-operation", "turn", seat=1, empty_hands=[0]),
         "cheetah adds to module two"),
        (NOTES, REVEAL, "mechanics, energy and mechanics"),
        (NOTES, REVEAL, "two mechanics and one energy"), (NOTES, REVEAL, "one of each"),
        (NOTES, at("secret-operation", "first_player"), "you pick"))


def told_to_say(page: Path, say: str) -> bool:
    """Whether `page` quotes `say` ("...") or sets it in italics (*...*), across lines."""
    text = " ".join(page.read_text(encoding="utf-8").split()).lower()
    return f'"{say.lower()}"' in text or f"*{say.lower()}*" in text


@pytest.mark.parametrize(("page", "moment", "say"), SAID,
                         ids=[f"{page.name}:{say}" for page, _, say in SAID])
def test_what_the_docs_say_to_say_is_taken_at_its_decision(page: Path, moment: dict[str, Any],
                                                           say: str) -> None:
    assert told_to_say(page, say)
    table, decision = table_at(moment)
    for seat in moment.get("empty_hands", ()):
        table.game.hands[seat] = 0
    assert said(decision_grammar(table, decision), spell_numbers(say)) != REFUSED, say


def test_the_guides_corrections_are_taken_at_a_read_back() -> None:
    table, pointing = table_at({"game": "secret-squad", "decision": "point"})
    grammar = confirm_grammar(table.grammar(pointing, []))
    for say in ("no, robin", "no, player two"):
        assert told_to_say(README, say)
        assert said(grammar, spell_numbers(say)) == "no:1", say


def test_the_secret_operation_setup_deals_as_the_host_does() -> None:
    setup = " ".join((ROOT / "docs" / "rules-secret-operation.md").read_text(
        encoding="utf-8").split())
    assert "give every player 3 of them" in setup and "no block cards" in setup
    assert f"the deck starts with {starting_deck(4)} cards" in setup
