#!/usr/bin/env python3
"""Mechanisms on the timeline (issue 22, item 3).

The lessons of C3, C21, C22, C23, C24 and C38 turn on something the system does, not on one
client's arrows: a dead letter, a rebalance and its offset commits, a crash and the outage
it opens, a stale overwrite, a webhook provider that sends again, a key store that crashes.
For each, the moment is found in `idemsim run --trace` (never assumed), the view renders the
stretch around it headless (--window, --labels-json), and the diagram must write the
mechanism's words; the columns' subtitles must name the scenario's path (a broker's
redelivery, a log's replay, the webhook provider), not "retries on timeout" everywhere; and a
log broker's column draws no per-message ack; a storm scenario's columns draw attempts and goodput per second. Usage: check_view_mechanisms.py IDEMSIM SOURCE_DIR
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
    # C38: only the keyed column has a key store to lose; its crash and restart are marks,
    # and what the server does meanwhile (refuses, or runs unchecked) is written too
    "38_key_store_down_fail_closed": ("crash", [("idempotent", "CRASH: redis down"),
                                                ("idempotent", "redis restarted"),
                                                ("idempotent", "refused: key store down")],
                                      None),
    "38_key_store_down_fail_open": ("crash", [("idempotent", "CRASH: redis down"),
                                              ("idempotent", "redis restarted"),
                                              ("idempotent", "unchecked")], None),
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


def rate_figures(pane):
    """The rate strip's figures in a column, as (attempts/s, goodput/s), or None."""
    for text in pane.get("keys", []):
        words = text["text"].replace("/s", "").split()
        if len(words) == 5 and words[0] == "attempts" and words[3] == "goodput":
            return float(words[1]), float(words[4])
    return None


def check_rate_strips(idemsim, source):
    """A storm scenario's columns draw attempts and goodput per second where the key store
    goes: while the scripted outage (read from the scenario) lasts, nothing succeeds, so
    every column's goodput reads 0/s while at-least-once keeps sending; after it, both
    flow again. A scenario with no storm keeps its key store."""
    complaints = []
    with tempfile.TemporaryDirectory() as directory:
        for name in ("22_retry_storm", "22_retry_storm_grpc_throttle",
                     "22_retry_storm_jitter_budget"):
            scenario = os.path.join(source, "scenarios", name + ".json")
            with open(scenario, encoding="utf-8") as stream:
                outage = json.load(stream)["server"]["outage"]
            during = (outage["from_ms"] + outage["to_ms"]) // 2
            after = outage["to_ms"] + 15000
            for at_ms, moment in ((during, "during"), (after, "after")):
                for pane in render(idemsim, scenario, directory, (0, at_ms)):
                    where = "%s %s at %d ms" % (name, pane["mode"], at_ms)
                    figures = rate_figures(pane)
                    words = [text["text"] for text in pane.get("keys", [])]
                    if figures is None or "server outage" not in words:
                        complaints.append("%s: no rate strip: %s" % (where, words))
                        continue
                    attempts, goodput = figures
                    if moment == "during" and goodput != 0:
                        complaints.append("%s: goodput %g/s while the server is down" %
                                          (where, goodput))
                    if moment == "during" and pane["mode"] == "at-least-once" and attempts == 0:
                        complaints.append("%s: no attempts while its clients retry" % where)
                    if moment == "after" and (attempts == 0 or goodput == 0):
                        complaints.append("%s: %g attempts/s, %g goodput/s after the outage" %
                                          (where, attempts, goodput))
            # at the end, on the projector's columns (a bar per 100 ms bucket), the strip's
            # scale is the run's peak
            report = os.path.join(directory, "run.json")
            subprocess.run([idemsim, "run", scenario, "--json", report, "-q"], check=True,
                           stdout=subprocess.DEVNULL)
            with open(report, encoding="utf-8") as stream:
                modes = json.load(stream)["modes"]
            for pane in render(idemsim, scenario, directory, None):
                peak = modes[pane["mode"]]["storm"]["attempts_peak_per_s"]
                words = [text["text"] for text in pane.get("keys", [])]
                if "top %.0f/s" % peak not in words:
                    complaints.append("%s %s: the strip's scale %s, run's peak %.0f/s" %
                                      (name, pane["mode"], words[-1:], peak))
        scenario = os.path.join(source, "scenarios", "01_lost_answer.json")
        for pane in render(idemsim, scenario, directory, None):
            words = [text["text"] for text in pane.get("keys", [])]
            if "KEY STORE" not in words or rate_figures(pane) is not None:
                complaints.append("01_lost_answer %s: the key store's box says %s" %
                                  (pane["mode"], words))
    print("%-32s %s" % ("rate strips", "ok" if not complaints else "MISSING"))
    return complaints


def check_keyless_crash(idemsim, source):
    """A crash after the charge, told in each column the moment it happens: a column without
    keys has no key "stuck in processing" (C37's at-most-once consumers once said so), the
    keyed one has."""
    name = "37_kafka_no_transactions"
    scenario = os.path.join(source, "scenarios", name + ".json")
    complaints = []
    with tempfile.TemporaryDirectory() as directory:
        trace = os.path.join(directory, "trace.jsonl")
        subprocess.run([idemsim, "run", scenario, "--trace", trace, "-q"], check=True,
                       stdout=subprocess.DEVNULL)
        with open(trace, encoding="utf-8") as stream:
            crashes = [json.loads(line) for line in stream if '"crash"' in line]
        after = [r["t_us"] for r in crashes if r["event"] == "crash" and
                 r.get("detail") == "after-effect"]
        if not after:
            return ["%s: the run has no crash after the charge" % name]
        at_ms = min(after) // 1000 + 1
        for pane in render(idemsim, scenario, directory, (0, at_ms)):
            line = " ".join(text["text"] for text in pane["narration"])
            keyed = pane["mode"] == "idempotent"
            if "crashed after charging" not in line or ("key" in line) != keyed:
                complaints.append("%s %s at %d ms: the crash reads %r" %
                                  (name, pane["mode"], at_ms, line))
    print("%-32s %s" % ("crash in a keyless column", "ok" if not complaints else "WRONG"))
    return complaints


# C35-C37's events: at the moment of each one's first occurrence, no column's line may print
# the trace's id for it ("the consumers: handler_failed for payment 161").
LESSON_EVENTS = {
    "35_auth_capture_void": ["authorised", "voided"],
    "36_consumer_fails_after_effect": ["handler_failed", "nacked"],
    "36_consumer_fails_recovery_point": ["dead_letter_reviewed"],
    "37_kafka_transactions_read_uncommitted": ["txn_aborted"],
    "architectures/kafka_retry_topics": ["retry_topic"],
}


def check_lesson_words(idemsim, source):
    complaints = []
    with tempfile.TemporaryDirectory() as directory:
        for name, events in LESSON_EVENTS.items():
            scenario = os.path.join(source, "scenarios", name + ".json")
            trace = os.path.join(directory, "trace.jsonl")
            subprocess.run([idemsim, "run", scenario, "--trace", trace, "-q"], check=True,
                           stdout=subprocess.DEVNULL)
            firsts = {}
            with open(trace, encoding="utf-8") as stream:
                for line in stream:
                    record = json.loads(line)
                    if record["event"] in events:
                        firsts.setdefault(record["event"], record["t_us"])
            for event in events:
                if event not in firsts:
                    complaints.append("%s: the run has no %s" % (name, event))
                    continue
                at_ms = firsts[event] // 1000 + 1
                for pane in render(idemsim, scenario, directory, (0, at_ms)):
                    line = " ".join(text["text"] for text in pane["narration"])
                    if any(": %s for " % e in line for e in events):
                        complaints.append("%s %s at %d ms: the line prints an id: %r" %
                                          (name, pane["mode"], at_ms, line))
    print("%-32s %s" % ("C35-C37 events in words", "ok" if not complaints else "WRONG"))
    return complaints


def main():
    idemsim, source = sys.argv[1], sys.argv[2]
    complaints = check_rate_strips(idemsim, source)
    for name, (event, words, subtitle) in CASES.items():
        found = check(idemsim, source, name, event, words, subtitle)
        print("%-32s %s" % (name, "ok" if not found else "MISSING"))
        complaints += found
    complaints += check_moments(idemsim, source)
    complaints += check_keyless_crash(idemsim, source)
    complaints += check_lesson_words(idemsim, source)
    for complaint in complaints:
        print(complaint)
    return 1 if complaints else 0


if __name__ == "__main__":
    sys.exit(main())
