#!/usr/bin/env python3
"""Mechanisms on the timeline (issue 22, item 3).

The lessons of C3, C21, C22, C23 and C24 turn on something the system does, not on one
client's arrows: a dead letter, a rebalance and its offset commits, a crash and the outage
it opens, a stale overwrite, a webhook provider that sends again. For each, the moment is
found in `idemsim run --trace` (never assumed), the view renders the stretch around it
headless (--window, --labels-json), and the diagram must write the mechanism's words; the
columns' subtitles must name the scenario's path (a broker's redelivery, a log's replay, the
webhook provider), not "retries on timeout" everywhere; and a log broker's column draws no
per-message ack. Usage: check_view_mechanisms.py IDEMSIM SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

# scenario: (trace event whose first moment is looked at, words the diagram must write,
#            words every column's subtitle must hold); a word given as (mode, word) is
#            looked for in that mode's column only (C24: the unkeyed receiver charges the
#            redelivery again, the keyed one replays it)
CASES = {
    "03_broker_slow_consumers": ("dead_letter", ["to the DLQ"], None),
    "21_kafka_rebalance_replay": ("rebalance", ["rebalance:", "CRASH: consumers down",
                                                "offset commit"], "commit"),
    "22_retry_storm": ("crash", ["server outage"], None),
    "23_ordering_stale_overwrite": ("stale_overwrite", ["stale overwrite"], None),
    "24_webhooks": ("retry", ["timeout", "retry #2", ("at-least-once", "charge x2"),
                              ("idempotent", "replay")], "provider"),
}
SUBTITLE_OF_BROKER = {"03_broker_slow_consumers": "redeliver"}


def first_moment(idemsim, scenario, event, directory):
    trace = os.path.join(directory, "trace.jsonl")
    subprocess.run([idemsim, "run", scenario, "--trace", trace, "-q"], check=True,
                   stdout=subprocess.DEVNULL)
    firsts = {}
    with open(trace, encoding="utf-8") as stream:
        for line in stream:
            record = json.loads(line)
            if record["event"] == event:
                firsts.setdefault(record["mode"], record["t_us"])
    return firsts


def render(idemsim, scenario, directory, window):
    labels = os.path.join(directory, "labels.json")
    environment = dict(os.environ, SDL_VIDEODRIVER="dummy")
    arguments = [idemsim, "view", scenario, "--headless", "--projector", "--png",
                 os.path.join(directory, "frame.png"), "--labels-json", labels]
    if window is not None:
        arguments += ["--window", "%d:%d" % window, "--at-ms", str(window[1])]
    subprocess.run(arguments, check=True, env=environment, stdout=subprocess.DEVNULL)
    with open(labels, encoding="utf-8") as stream:
        return json.load(stream)["panes"]


def check(idemsim, source, name, event, words, subtitle):
    scenario = os.path.join(source, "scenarios", name + ".json")
    complaints = []
    with tempfile.TemporaryDirectory() as directory:
        window, firsts = None, {}
        if event is not None:
            firsts = first_moment(idemsim, scenario, event, directory)
            if not firsts:
                return ["%s: the run has no %s to show" % (name, event)]
            at_ms = min(firsts.values()) // 1000
            window = (max(0, at_ms - 1000), at_ms + 5000)
        panes = render(idemsim, scenario, directory, window)
        for pane in panes:
            where = "%s %s" % (name, pane["mode"])
            texts = " | ".join(text["text"] for text in pane["texts"])
            for word in words:
                if pane["mode"] not in firsts and event not in ("crash",):
                    continue  # that mode never has it (at-most-once keeps no stale write)
                if isinstance(word, tuple):
                    if word[0] != pane["mode"]:
                        continue
                    word = word[1]
                if word not in texts:
                    complaints.append("%s: no %r in the diagram around %s ms: %s" %
                                      (where, word, window, texts[:300]))
            header = " ".join(text["text"] for text in pane["header"])
            if "retries on timeout" in header and name in SUBTITLE_OF_BROKER:
                complaints.append("%s: a broker column says %r" % (where, header))
            expected = subtitle or SUBTITLE_OF_BROKER.get(name)
            if expected and pane["mode"] != "at-most-once" and expected not in header:
                complaints.append("%s: subtitle %r does not say %r" % (where, header, expected))
    return complaints


def check_moments(idemsim, source):
    """--moment double and crash on C21, against the trace: the first execution of an
    operation that had already executed in that mode, and the first crash."""
    scenario = os.path.join(source, "scenarios", "21_kafka_rebalance_replay.json")
    complaints = []
    with tempfile.TemporaryDirectory() as directory:
        trace = os.path.join(directory, "trace.jsonl")
        subprocess.run([idemsim, "run", scenario, "--trace", trace, "-q"], check=True,
                       stdout=subprocess.DEVNULL)
        executed, expected = {}, {}
        with open(trace, encoding="utf-8") as stream:
            for line in stream:
                record = json.loads(line)
                event, t_us = record["event"], record["t_us"]
                if event == "execute":
                    key = (record["mode"], record["op"])
                    executed[key] = executed.get(key, 0) + 1
                    if executed[key] == 2:
                        expected["double"] = min(expected.get("double", t_us), t_us)
                if event == "crash":
                    expected["crash"] = min(expected.get("crash", t_us), t_us)
        environment = dict(os.environ, SDL_VIDEODRIVER="dummy")
        for moment, t_us in sorted(expected.items()):
            said = subprocess.run([idemsim, "view", scenario, "--headless", "--moment", moment,
                                   "--png", os.path.join(directory, "m.png")], check=True,
                                  env=environment, capture_output=True, text=True).stdout
            if "t %.3f s" % (t_us / 1e6) not in said:
                complaints.append("--moment %s: says %r, the trace has it at %d us" %
                                  (moment, said, t_us))
        absent = subprocess.run([idemsim, "view", scenario, "--headless", "--moment",
                                 "stale-overwrite", "--png", os.path.join(directory, "n.png")],
                                env=environment, capture_output=True, text=True)
        if absent.returncode != 2 or os.path.exists(os.path.join(directory, "n.png")):
            complaints.append("--moment stale-overwrite on C21 (none happens) exited %d" %
                              absent.returncode)
    print("%-32s %s" % ("--moment", "ok" if not complaints else "WRONG"))
    return complaints


def main():
    idemsim, source = sys.argv[1], sys.argv[2]
    complaints = []
    for name, (event, words, subtitle) in CASES.items():
        found = check(idemsim, source, name, event, words, subtitle)
        print("%-32s %s" % (name, "ok" if not found else "MISSING"))
        complaints += found
    complaints += check_moments(idemsim, source)
    for complaint in complaints:
        print(complaint)
    return 1 if complaints else 0


if __name__ == "__main__":
    sys.exit(main())
