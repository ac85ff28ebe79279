#!/usr/bin/env python3
"""The numbers the concept pages quote in their tables, compared with `idemsim run`.

A table of a page is tested when an HTML comment names the run it quotes (invisible on the
rendered page), on the line before the table:

  <!-- run: ARGS -->               a fenced block copied from the run's table: a header line of
                                   mode names, then rows `label  value ...` (any subset of the
                                   run's rows and modes, in any order)
  <!-- run: ARGS1 | ARGS2 | ... -->
                                   a fenced block whose column i is the one-column run ARGSi
                                   (give each a --mode); its header lines are free text
  <!-- run-rows: ARGS1 | ARGS2 -->  a markdown table whose body row i quotes run ARGSi: a
                                   column headed by a mode name holds cells `N label`
                                   ("16 double"), the run's row `label` in that mode

and for a sentence that quotes ranges over 20 seeds, on the line before its paragraph:

  <!-- seeds: ARGS; MODE METRIC LO..HI; ... -->
                                   `idemsim check ARGS --seeds 20` must report each range
                                   (an expectation of that metric), and the paragraph must
                                   quote it as "LO to HI"

and for a sentence that quotes single values of a run, on the line before its paragraph
(or list item):

  <!-- says: ARGS; MODE label=VALUE; ... -->
                                   `idemsim run ARGS` must show VALUE in row `label` of
                                   column MODE, and the paragraph must contain VALUE as a word

ARGS are what follows `idemsim run` (a scenario path from the source tree, --mode, --set,
--seed). A row label matches the run's row of the same text, or the run's row that goes on
with " (" ("executions" is "executions (handler runs)"). Every fenced block whose header
names the three modes must carry a marker, so a new table cannot escape the test.

Usage: check_doc_numbers.py IDEMSIM SOURCE_DIR [PAGE.md ...]   (default: docs/concepts/c*.md
and docs/modelling.md)
Exit 0 when every quoted number matches, 1 with one line per mismatch otherwise.
"""
import pathlib
import re
import shlex
import subprocess
import sys

MODES = ("at-most-once", "at-least-once", "idempotent")
NUMBER = re.compile(r"^[+-]?\d+(\.\d+)?$")
MARKER = re.compile(r"<!--\s*(run|run-rows|seeds|says):\s*(.*?)\s*-->", re.S)
RANGE = re.compile(r"^PASS\s+\S+\s+(\S+)\s+(\S+)\s+expected .* got (\d+)\.\.(\d+) \(20 seeds\)$")
CELL = re.compile(r"^([+-]?\d+(?:\.\d+)?)\s+(\S.*)$")


class Run:
    """One `idemsim run`: its mode columns and its rows by label."""

    def __init__(self, binary, source_dir, args):
        command = [binary, "run"] + shlex.split(args)
        done = subprocess.run(command, cwd=source_dir, capture_output=True, text=True)
        if done.returncode != 0:
            raise ValueError("`idemsim run %s` failed: %s" % (args, done.stderr.strip()))
        lines = done.stdout.splitlines()
        rule = next(i for i, line in enumerate(lines) if re.fullmatch(r"-{10,}", line.strip()))
        self.modes = lines[rule - 1].split()
        self.rows = {}
        for line in lines[rule + 1:]:
            tokens = line.split()
            if len(tokens) <= len(self.modes):
                continue
            values = tokens[-len(self.modes):]
            if all(NUMBER.match(v) for v in values):
                self.rows.setdefault(" ".join(tokens[: -len(self.modes)]), values)

    def value(self, label, mode=None):
        """The run's value for a quoted row label in a mode (the only column if None)."""
        for name, values in self.rows.items():
            if name == label or name.startswith(label + " ("):
                if mode is None:
                    return values[0]
                if mode not in self.modes:
                    raise ValueError("mode %s not in the run" % mode)
                return values[self.modes.index(mode)]
        raise ValueError("no row '%s' in the run" % label)


class Checker:
    def __init__(self, binary, source_dir):
        self.binary = binary
        self.source_dir = source_dir
        self.runs = {}
        self.checks = {}
        self.errors = []
        self.checked = 0

    def run(self, args):
        if args not in self.runs:
            self.runs[args] = Run(self.binary, self.source_dir, args)
        return self.runs[args]

    def seeds(self, where, spec, paragraph):
        """A paragraph's ranges over 20 seeds against `check --seeds 20`."""
        args, *claims = [part.strip() for part in spec.split(";")]
        if args not in self.checks:
            command = [self.binary, "check"] + shlex.split(args) + ["--seeds", "20"]
            done = subprocess.run(command, cwd=self.source_dir, capture_output=True, text=True)
            ranges = {}
            for line in done.stdout.splitlines():
                match = RANGE.match(line.strip())
                if match:
                    ranges[(match.group(1), match.group(2))] = (match.group(3), match.group(4))
            self.checks[args] = ranges
        text = " ".join(paragraph)
        for claim in claims:
            mode, metric, quoted = claim.split()
            low, high = quoted.split("..")
            actual = self.checks[args].get((mode, metric))
            self.checked += 2
            if actual != (low, high):
                self.errors.append("%s: %s %s quotes %s, `check %s --seeds 20` gives %s"
                                   % (where, mode, metric, quoted, args,
                                      "..".join(actual) if actual else "no range"))
            if "%s to %s" % (low, high) not in text:
                self.errors.append("%s: the paragraph does not say '%s to %s'"
                                   % (where, low, high))

    def says(self, where, spec, paragraph):
        """A paragraph's single values against one run."""
        args, *claims = [part.strip() for part in spec.split(";")]
        text = " ".join(paragraph)
        for claim in claims:
            mode, rest = claim.split(None, 1)
            label, quoted = (part.strip() for part in rest.rsplit("=", 1))
            self.compare(where, label, quoted, args, mode)
            if not re.search(r"(?<![\w.])%s(?![\w]|\.\d)" % re.escape(quoted), text):
                self.errors.append("%s: the paragraph does not say %s (%s, %s)"
                                   % (where, quoted, mode, label))

    def compare(self, where, label, quoted, args, mode):
        try:
            actual = self.run(args).value(label, mode)
        except ValueError as error:
            self.errors.append("%s: %s: %s" % (where, label, error))
            return
        self.checked += 1
        if float(actual) != float(quoted):
            self.errors.append("%s: '%s'%s quotes %s, `idemsim run %s` gives %s"
                               % (where, label, " (%s)" % mode if mode else "", quoted,
                                  args, actual))

    def fenced(self, where, args_list, block):
        rows = [line.split() for line in block if line.strip()]
        text_lines = [t for t in rows if not NUMBER.match(t[-1])]
        if len(args_list) == 1:
            header = next((t for t in text_lines if all(w in MODES for w in t)), None)
            if header is None:
                self.errors.append("%s: a `run:` block needs a header of mode names" % where)
                return
            columns = [(args_list[0], mode) for mode in header]
        else:
            columns = [(args, None) for args in args_list]
        for tokens in rows:
            if not NUMBER.match(tokens[-1]):
                continue
            if len(tokens) <= len(columns):
                self.errors.append("%s: row '%s' has fewer values than columns"
                                   % (where, " ".join(tokens)))
                continue
            label = " ".join(tokens[: -len(columns)])
            for (args, mode), quoted in zip(columns, tokens[-len(columns):]):
                self.compare(where, label, quoted, args, mode)

    def table(self, where, args_list, lines):
        cells = [[c.strip().strip("`") for c in line.strip().strip("|").split("|")]
                 for line in lines]
        header, body = cells[0], cells[2:]
        if len(body) != len(args_list):
            self.errors.append("%s: %d rows, %d runs in the marker"
                               % (where, len(body), len(args_list)))
            return
        for args, row in zip(args_list, body):
            for column, name in enumerate(header):
                if name not in MODES or column >= len(row):
                    continue
                match = CELL.match(row[column])
                if not match:
                    self.errors.append("%s: cell '%s' is not `N label`" % (where, row[column]))
                    continue
                self.compare(where, match.group(2), match.group(1), args, name)

    def page(self, path):
        lines = path.read_text().splitlines()
        marked = set()
        pending = []  # markers waiting for their table (several may quote one table)
        i = 0
        while i < len(lines):
            start = i
            text = lines[i]
            if "<!--" in text and "-->" not in text:
                while i + 1 < len(lines) and "-->" not in lines[i]:
                    i += 1
                    text += " " + lines[i]
            i += 1
            match = MARKER.search(text)
            if match and match.group(1) in ("seeds", "says"):  # several may precede one paragraph
                first = next((j for j in range(i, len(lines)) if not MARKER.search(lines[j])),
                             len(lines))
                end = next((j for j in range(first, len(lines))
                            if not lines[j].strip() or (j > first and lines[j].startswith("- "))),
                           len(lines))
                check = self.seeds if match.group(1) == "seeds" else self.says
                check("%s:%d" % (path.name, start + 1), match.group(2), lines[first:end])
                continue
            if match:
                args_list = [a.strip() for a in match.group(2).split("|")]
                pending.append(("%s:%d" % (path.name, start + 1), match.group(1), args_list))
                continue
            if not pending:
                continue
            if text.startswith("```"):
                end = next(j for j in range(i, len(lines)) if lines[j].startswith("```"))
                marked.add(start)
                for where, kind, args_list in pending:
                    if kind != "run":
                        self.errors.append("%s: a fenced block takes `run:`" % where)
                    else:
                        self.fenced(where, args_list, lines[i:end])
                i = end + 1
            elif text.startswith("|"):
                end = start
                while end < len(lines) and lines[end].startswith("|"):
                    end += 1
                for where, kind, args_list in pending:
                    if kind != "run-rows":
                        self.errors.append("%s: a markdown table takes `run-rows:`" % where)
                    else:
                        self.table(where, args_list, lines[start:end])
                i = end
            else:
                for where, _, _ in pending:
                    self.errors.append("%s: the marker is not followed by a table" % where)
            pending = []
        # a table of the three modes without a marker is a number nobody checks
        for j, line in enumerate(lines):
            if line.startswith("```") and j not in marked and j + 1 < len(lines):
                if all(mode in lines[j + 1].split() for mode in MODES):
                    self.errors.append("%s:%d: a table of the modes without a `run:` marker"
                                       % (path.name, j + 1))


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    binary, source_dir = sys.argv[1], pathlib.Path(sys.argv[2])
    pages = [pathlib.Path(p) for p in sys.argv[3:]] or sorted(
        (source_dir / "docs" / "concepts").glob("c*.md")) + [source_dir / "docs" / "modelling.md"]
    checker = Checker(binary, source_dir)
    for page in pages:
        checker.page(page)
    for error in checker.errors:
        print(error)
    print("%d quoted numbers checked, %d runs, %d mismatches"
          % (checker.checked, len(checker.runs), len(checker.errors)))
    return 1 if checker.errors else 0


if __name__ == "__main__":
    sys.exit(main())
