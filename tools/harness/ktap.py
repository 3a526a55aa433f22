# SPDX-License-Identifier: GPL-2.0
"""The Python KTAP writer of the harness (Documentation/dev-tools/ktap.rst):
the version line and the plan first, then one result line per test, each
after its diagnostic lines; subtests nested four spaces deeper.

    t = Ktap(3)
    t.result(ok, "the kernel boots", diag=["what it printed last"])
    t.skip("no cluster to take offline", "1 cluster")
    with t.subtest("osi-2x2", 2) as s:
        s.result(...)
    return t.status()

A test name is one line without "#" (after " # " KTAP has a directive);
a writer refuses a result beyond its plan, and status() fails when fewer
came than planned, as the parser does.
"""
import re
import sys

VERSION = "KTAP version 1"
# Text at which the kernel's KTAP parser stops reading a console
# (kunit_parser's KTAP_END), anywhere in a line: in a diagnostic, it
# would cut the rest of the stream off.
_KTAP_END = re.compile(r"List of all partitions:|Kernel panic - not syncing: VFS:|"
                       r"reboot: System halted")


def defuse(text):
    """@text with the phrases that end kunit_parser's reading taken
    apart (their colon dropped)."""
    return _KTAP_END.sub(lambda m: m.group(0).replace(":", ""), text)


class Ktap:
    """KTAP lines, written to @out as they come, the plan first."""

    def __init__(self, plan, out=None, indent="", name=None):
        self.out = out or sys.stdout
        self.indent = indent
        self.plan = plan
        self.count = 0
        self.failed = 0
        self._line(VERSION)
        if name is not None:
            self._line(f"# Subtest: {name}")
        self._line(f"1..{plan}")

    def _line(self, text):
        self.out.write(f"{self.indent}{text}\n")
        self.out.flush()

    def diag(self, *lines):
        """Diagnostic lines ("# ..."), before the result they explain."""
        for text in lines:
            for line in str(text).splitlines() or [""]:
                self._line(defuse(f"# {line}".rstrip()))

    def _number(self, name):
        self.count += 1
        if self.count > self.plan:
            raise ValueError(f"KTAP: result {self.count} ({name}) beyond the plan of {self.plan}")
        if "#" in name or "\n" in name or defuse(name) != name:
            raise ValueError(f"KTAP: a test name may not hold '#', a newline or text "
                             f"that ends kunit_parser's reading: {name!r}")
        return self.count

    def result(self, ok, name, diag=()):
        """One result; returns @ok as a bool."""
        self.diag(*diag)
        n = self._number(name)
        if not ok:
            self.failed += 1
        self._line(f"{'ok' if ok else 'not ok'} {n} {name}")
        return bool(ok)

    def skip(self, name, reason, diag=()):
        self.diag(*diag)
        self._line(f"ok {self._number(name)} {name} # SKIP {reason}")

    def passthrough(self, lines, count):
        """Lines another writer wrote at this level, holding @count
        results (the kernel's suites, which the runner's stream begins
        with); results written here are numbered after them."""
        for line in lines:
            self.out.write(f"{self.indent}{line}\n" if line else "\n")
        self.count += count

    def nest(self, name, lines, ok):
        """Another program's KTAP @lines (written by a writer of the
        harness: this one, tools/lib/ktap.sh) as subtest @name, whose own
        result is @ok (the runner's view: the program's exit status). The
        subtest's header goes between its version line and its plan, as
        the kernel writes it; text that would stop kunit_parser's reading
        is taken apart."""
        sub = self.indent + "    "
        lines = list(lines)
        # What a program printed before its version line (it should not)
        # becomes diagnostics, so that it cannot be read as results.
        if VERSION in lines:
            i = lines.index(VERSION)
            before, body = lines[:i], lines[i + 1:]
        else:
            before, body = lines, []
        self.out.write(f"{sub}{VERSION}\n{sub}# Subtest: {name}\n")
        for line in before:
            self.out.write(f"{sub}{defuse('# ' + line)}\n")
        for line in body:
            self.out.write(f"{sub}{defuse(line)}\n" if line else "\n")
        return self.result(ok, name)

    def subtest(self, name, plan):
        """A nested writer for subtest @name with @plan results; leaving
        the `with` block writes its result here: ok when all of them came
        and passed."""
        return _Subtest(self, name, plan)

    def status(self):
        """The program's exit status: 0 when every planned result came
        and passed, else 1."""
        return 0 if self.failed == 0 and self.count == self.plan else 1


class _Subtest:
    def __init__(self, parent, name, plan):
        self.parent, self.name, self.plan = parent, name, plan

    def __enter__(self):
        self.writer = Ktap(self.plan, self.parent.out, self.parent.indent + "    ", self.name)
        return self.writer

    def __exit__(self, kind, value, tb):
        if kind is None:
            self.parent.result(self.writer.status() == 0, self.name)
        return False


def buffered(results, out=None):
    """Write @results [(ok, name, [diagnostic...])] as one KTAP list;
    returns the exit status. For results computed in one go from
    declared inputs (a trace's expectations, a log's checks), so that a
    program that dies before writing prints nothing."""
    t = Ktap(len(results), out)
    for ok, name, diag in results:
        t.result(ok, name, diag)
    return t.status()
