#!/usr/bin/env python3
"""The screen agrees with `run` (issue 22, item 1).

For every scenario of scenarios/ (the architectures too), renders the frame at the end of the
run headless with --labels-json, and holds what each column drew against `idemsim run --json`:

- the four counters (OK, DOUBLE, LOST, PHANTOM) show the run's outcomes, number for number;
- a run with a mismatch (or a stale overwrite, an order fulfilled twice, a debit written
  over, a payment with two holds on the card, a refunded or a declined payment: the first of
  these in that order) has a fifth counter in every column, showing
  that column's count, and names it, with its count, in the column's verdict line too;
- no verdict (the narration's "finished: ..." or a balance's) says "exact" or "charged once"
  when the run reports a double, a lost payment, a phantom, a mismatch or a stale overwrite;
  nor does the narration's when a card shows two holds (C35: the balance is right, the
  customer still sees the second hold);
- a column with such an outcome tells, where its diagram was, the story of its first
  operation of the worst kind (a stale overwrite, a double, a lost one, a phantom, a mismatch,
  a payment that left two holds on the card);
- the same holds in the frame drawn without --at-ms, when every column has finished there.

All modes are drawn side by side in one frame, so one render covers every mode; C8 is also
drawn one mode at a time (--focus), the wide layout. And every question, revealed
(--predict), draws a card that gives each revealed metric in the report's words, with a
figure for every mode (tests/check_view_quiz.c checks the figures themselves). Usage:
    check_view_end_frames.py IDEMSIM SOURCE_DIR [SCENARIO...]
"""
import json
import os
import subprocess
import sys
import tempfile

COUNTERS = ["ok", "double", "lost", "phantom"]
# Far past every scenario's end: the headless clock stops once every world has finished.
END_MS = "1000000000"


def run_report(idemsim, scenario, directory):
    path = os.path.join(directory, "run.json")
    subprocess.run([idemsim, "run", scenario, "--json", path], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(path, encoding="utf-8") as stream:
        return json.load(stream)["modes"]


def render(idemsim, scenario, directory, extra, at_ms=END_MS):
    """at_ms None: the frame a user gets without --at-ms, at the scenario's own end."""
    png = os.path.join(directory, "end.png")
    labels = os.path.join(directory, "labels.json")
    environment = dict(os.environ, SDL_VIDEODRIVER="dummy")
    when = ["--at-ms", at_ms] if at_ms is not None else []
    subprocess.run([idemsim, "view", scenario, "--headless", "--png", png, "--labels-json",
                    labels] + when + extra, check=True, env=environment,
                   stdout=subprocess.DEVNULL)
    with open(labels, encoding="utf-8") as stream:
        frame = json.load(stream)
    return frame["panes"], frame["clock_stopped"]


def words(texts):
    return " ".join(text["text"] for text in texts)


def check_pane(name, pane, report):
    """Returns the complaints about one column."""
    complaints = []
    where = "%s %s" % (name, pane["mode"])
    if not pane["done"]:
        return ["%s: not finished in the end frame" % where]
    outcomes = report["outcomes"]
    for counter, texts in zip(COUNTERS, pane["counters"]):
        drawn = [text["text"] for text in texts]
        if len(drawn) < 2 or drawn[1] != str(outcomes[counter]):
            complaints.append("%s: counter %s drew %s, run says %d" %
                              (where, counter, drawn, outcomes[counter]))
    stale = report.get("ordering", {}).get("stale_overwrites", 0)
    fifth = pane.get("fifth_counter")
    # One fifth counter, for the first of these a column has (harm before told ends).
    twice = report.get("orders", {}).get("fulfilled_twice", 0)
    written_over = report.get("balance_updates", {}).get("lost_updates", 0)
    two_holds = report.get("card", {}).get("double_holds", 0)
    extras = (("mismatch", outcomes["mismatch"]), ("stale_overwrites", stale),
              ("orders_fulfilled_twice", twice), ("lost_updates", written_over),
              ("double_holds", two_holds),
              ("refunded", outcomes.get("refunded", 0)), ("declined", outcomes.get("declined", 0)))
    names = [metric for metric, _ in extras]
    for rank, (metric, count) in enumerate(extras):
        if count > 0 and fifth not in names[:rank + 1]:
            complaints.append("%s: run has %d %s, the fifth counter is %r" %
                              (where, count, metric, fifth))
    if fifth is not None:
        count = dict(extras)[fifth]
        drawn = [text["text"] for text in pane["counters"][4]] \
            if len(pane["counters"]) == 5 else []
        if len(drawn) < 2 or drawn[1] != str(count):
            complaints.append("%s: fifth counter (%s) drew %s, run says %d" %
                              (where, fifth, drawn, count))
    verdict = words(pane["narration"])
    if not verdict.startswith("finished:"):
        complaints.append("%s: no verdict in the end frame, got %r" % (where, verdict))
    unnamed = {"mismatch": (outcomes["mismatch"], "(mismatch)"),
               "stale overwrites": (stale, "stale overwrites"),
               "lost updates": (written_over, "lost updates"),
               "payments with two holds": (two_holds, "left two holds on the card")}
    for what, (count, phrase) in unnamed.items():
        if count > 0 and ("%d " % count not in verdict or phrase not in verdict):
            complaints.append("%s: run has %d %s, the verdict says %r" %
                              (where, count, what, verdict))
    bad = sum(outcomes[o] for o in ("double", "lost", "phantom", "mismatch")) + stale + \
        written_over
    balances = [text["text"] for text in pane["balances"]]
    claims = [verdict] + balances
    if two_holds > 0 and "exact" in verdict:
        complaints.append("%s: %d payments with two holds in run, yet the verdict says %r" %
                          (where, two_holds, verdict))
    if bad > 0:
        for claim in claims:
            if "exact" in claim or "charged once" in claim:
                complaints.append("%s: %d bad outcomes in run, yet the screen says %r" %
                                  (where, bad, claim))
    complaints += check_story(where, pane, report, stale)
    return complaints


# The end frame's story (issue 22, item 4): the most telling operation, in this order.
STORY_HEADLINES = [("stale", "overwritten by a stale one"),
                   ("written_over", "written over another (a lost update)"),
                   ("double", "applied twice"),
                   ("lost", "never applied"), ("phantom", "its client was not told"),
                   ("mismatch", "another request's answer"),
                   ("two_holds", "left two holds on the card")]


def check_story(where, pane, report, stale):
    """A column whose run has a bad outcome tells, in place of its diagram, the story of the
    first operation of its worst kind; the story names the outcome explain gives it."""
    counts = dict(report["outcomes"], stale=stale,
                  written_over=report.get("balance_updates", {}).get("lost_updates", 0),
                  two_holds=report.get("card", {}).get("double_holds", 0))
    expected = next((headline for outcome, headline in STORY_HEADLINES if counts[outcome]), None)
    if expected is None:
        return []
    texts = words(pane["texts"])
    if "THE STORY OF OPERATION" not in texts or expected not in texts:
        return ["%s: the end frame tells no story of %r: %s" % (where, expected, texts[:200])]
    if "outcome: " not in texts:
        return ["%s: the end frame's story has no outcome line: %s" % (where, texts[:200])]
    return []


def check_scenario(idemsim, scenario, focus):
    name = os.path.basename(scenario)
    with tempfile.TemporaryDirectory() as directory:
        report = run_report(idemsim, scenario, directory)
        renders = [[]]
        if focus:
            renders += [["--focus", str(m + 1)] for m in range(len(report))]
        complaints = []
        for extra in renders:
            for pane in render(idemsim, scenario, directory, extra)[0]:
                complaints += check_pane(name + (" " + " ".join(extra) if extra else ""), pane,
                                         report[pane["mode"]])
        # Once every world has finished, the clock stops with the last: each column gives
        # its verdict and story at once, however fresh its last event (else a run ending
        # just after an event kept the event's line, and its diagram, for ever). Once every
        # operation has settled while a world still has timers due (a log broker's
        # commits), the headless end frame runs its clock past the last line: the same.
        panes, clock_stopped = render(idemsim, scenario, directory, [], at_ms=None)
        if clock_stopped or all(pane["done"] for pane in panes):
            for pane in panes:
                complaints += check_pane(name + " (its own end)", pane, report[pane["mode"]])
        return complaints


def check_cards(idemsim, scenario):
    """Every question of the scenario, revealed: the card speaks words, not metric ids, and
    gives every mode a figure. Returns the complaints."""
    name = os.path.basename(scenario)
    with open(scenario, encoding="utf-8") as stream:
        questions = json.load(stream).get("questions", [])
    complaints = []
    with tempfile.TemporaryDirectory() as directory:
        labels = os.path.join(directory, "labels.json")
        environment = dict(os.environ, SDL_VIDEODRIVER="dummy")
        for q, question in enumerate(questions):
            subprocess.run([idemsim, "view", scenario, "--headless", "--predict", "--presses",
                            str(2 * q + 1), "--png", os.path.join(directory, "q.png"),
                            "--labels-json", labels, "--at-ms", END_MS], check=True,
                           env=environment, stdout=subprocess.DEVNULL)
            with open(labels, encoding="utf-8") as stream:
                card = json.load(stream)["card"]
            if card is None:
                complaints.append("%s: question %d revealed draws no card" % (name, q + 1))
                continue
            lines = [text["text"] for text in card]
            for metric in question["reveal"]:
                if "_" in metric and any(metric in line for line in lines):
                    complaints.append("%s: question %d's card prints the id %s" %
                                      (name, q + 1, metric))
            figures = [line for line in lines if ":  " in line]
            if len(figures) != len(question["reveal"]):
                complaints.append("%s: question %d reveals %d metrics, the card lists %r" %
                                  (name, q + 1, len(question["reveal"]), figures))
            # money reads as money: C8's balance error is the 165.00 never charged
            if "08_key_reuse_no_fingerprint" in name and not any(
                    line.startswith("balance error:") and line.endswith("idempotent +165.00")
                    for line in figures):
                complaints.append("%s: the card does not say +165.00: %r" % (name, figures))
            for line in figures:
                if "\u2013" in line:
                    complaints.append("%s: question %d: a figure is missing: %r" %
                                      (name, q + 1, line))
    return complaints


def main():
    idemsim, source = sys.argv[1], sys.argv[2]
    scenarios = sys.argv[3:]
    if not scenarios:
        root = os.path.join(source, "scenarios")
        for folder in (root, os.path.join(root, "architectures")):
            scenarios += sorted(os.path.join(folder, f) for f in os.listdir(folder)
                                if f.endswith(".json"))
    complaints = []
    for scenario in scenarios:
        found = check_scenario(idemsim, scenario, "08_key_reuse" in scenario)
        found += check_cards(idemsim, scenario)
        print("%-45s %s" % (os.path.basename(scenario), "ok" if not found else "MISMATCH"))
        complaints += found
    for complaint in complaints:
        print(complaint)
    print("%d scenarios, %d mismatches" % (len(scenarios), len(complaints)))
    return 1 if complaints else 0


if __name__ == "__main__":
    sys.exit(main())
