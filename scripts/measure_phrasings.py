"""Run the phrasing corpus in text mode and print, per kind of decision and half, how many
phrasings the host took right, refused, and took wrongly.

    .venv/bin/python scripts/measure_phrasings.py [--misses] [--corpus PATH]

`--spoken` hears them aloud instead: each phrasing of one half (`--half`, held-out by default)
read by held-out synthetic voices (voicehost/lab/voices.py, as the hearing corpus holds them
out) with 0.4 s of silence each side, heard by the default engine (`make_recognizer("auto")`)
limited to the moment's phrases as the host offers them, then read by the host's matcher
(`grammar.match(spell_numbers(text))`, as `Listening.hear`). Free speech (a clue, a guess of any
word) goes the host's free way: a command heard whole is the command, else the words of the
engine's free transcript (`said_from`), else the recording is kept ("recorded": the default
engine has no free transcript, so the host plays the clue back rather than read it).

    .venv/bin/python scripts/measure_phrasings.py --spoken [--half tune] [--voices 1]
        [--kinds yes_no,point] [--json out.json]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from voicehost.lab.phrasings import HALVES, REFUSED, load, measure, tally
from voicehost.lab.spoken_phrasings import add_spoken_arguments, run_spoken

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "phrasings.yaml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--misses", action="store_true",
                        help="list every phrasing not taken right (tune half only)")
    add_spoken_arguments(parser)
    args = parser.parse_args()
    if args.spoken:
        run_spoken(load(args.corpus), args)
        return
    results = list(measure(load(args.corpus)))
    counts = tally(results)
    kinds = sorted({kind for kind, _ in counts})
    print("| kind | " + " | ".join(f"{half}: right / refused / wrong" for half in HALVES) + " |")
    print("|---|" + "---|" * len(HALVES))
    totals = {half: [0, 0, 0, 0, 0] for half in HALVES}
    for kind in kinds:
        cells = []
        for half in HALVES:
            count = counts.get((kind, half))
            if count is None:
                cells.append("-")
                continue
            cells.append(f"{count.right} / {count.refused} / {count.wrong} of {count.total}")
            for i, n in enumerate((count.right, count.refused, count.wrong, count.answers,
                                   count.answers_right)):
                totals[half][i] += n
        print(f"| {kind} | " + " | ".join(cells) + " |")
    cells = []
    for half in HALVES:
        right, refused, wrong, answers, answers_right = totals[half]
        all_ = right + refused + wrong
        cells.append(f"{right} / {refused} / {wrong} of {all_} ({100 * right / all_:.1f} % "
                     f"right; answers taken {answers_right} of {answers}, "
                     f"{100 * answers_right / answers:.1f} %)")
    print("| all | " + " | ".join(cells) + " |")
    if args.misses:
        for phrasing, got in results:
            if phrasing.half == "tune" and got != phrasing.want:
                kind = "wrong" if got != REFUSED else "refused"
                print(f"{kind}: {phrasing.kind} {phrasing.moment['decision']} "
                      f"{phrasing.say!r} want {phrasing.want} got {got}")


if __name__ == "__main__":
    main()
