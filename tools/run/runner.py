#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Run a declared list of checks on a built kernel and report them all as
one KTAP stream, parsed once by the kernel's own kunit.py.

    runner.py --list kunit/checks/test --kernel build/kunit-arm64 \\
              --out build/results/test [--suites kunit/suites] [--filter GLOB]
              [--only NAME...] [--timeout S] [--jobs N] [--machine NAME]
              [--kernel-log CONSOLE]

A list (kunit/checks/*) has one check a line, "NAME PROGRAM ARGUMENTS...",
in the order they run. The program "kunit.py" is the KUnit suites of the
kernel (kunit.py exec on --machine; --kernel-log reads a console
of an earlier run instead); its KTAP comes first in the stream, as the
kernel printed it, or, when it is cut short (the kernel crashed in a
suite), as the kernel's parser read it, each suite closed. Every other
program prints KTAP on its standard output, the plan first; the runner
nests it as subtest NAME, whose own result is the program's exit status.
In the arguments, {kernel}, {out}, {tree} and {top} stand for the
kernel's build directory, this run's results, the kernel tree and the
checkout, {jobs} for --jobs (boots a check may run at a time),
{machine} for --machine (the machine of harness/machine.py they boot);
an argument with a "*" is a glob (relative to the checkout),
which must match. A program runs in a process group of its own, for at
most --timeout seconds (default 1800), and the whole group is ended when
the runner is told to stop.

Writes into OUT: results.ktap (the stream), results.json (kunit.py parse
--json), parse.log (kunit.py's view of it), summary.txt (the policy of
harness/results.py: every suite of --suites and every check ran, nothing
skipped, no case failed, each program's exit status agrees with its
results, the stream reads without a KTAP error; the last line "kunit: N
passed, M failed"), checks/NAME.ktap (each program's output) and
consoles/ (every boot's console, which a list may give its
kernel_reports check to read; with --only, earlier runs' consoles are
kept). Exits 1 when the summary fails.
"""
import argparse
import glob
import os
import shlex
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import TOP, die, tree_of, note, rel, kunit, machine, proc, results, words  # noqa: E402
from harness.ktap import Ktap  # noqa: E402

CHECK_TIMEOUT = 1800


def read_list(path, subst):
    """[(name, argv)] of a check list."""
    checks = []
    try:
        with open(path) as f:
            text = f.read()
    except OSError as err:
        die(f"cannot read the list {path}: {err.strerror}")
    for n, line in enumerate(text.splitlines(), 1):
        words_ = shlex.split(line, comments=True)
        if not words_:
            continue
        if len(words_) < 2:
            die(f"{rel(path)}:{n}: a check needs a name and a program")
        name, argv = words_[0], []
        for word in words_[1:]:
            for key, value in subst.items():
                word = word.replace("{" + key + "}", value)
            argv.append(word)
        if any(name == c[0] for c in checks):
            die(f"{rel(path)}:{n}: a second check named {name}")
        checks.append((name, argv))
    if any(argv[0] == "kunit.py" for _, argv in checks[1:]):
        die(f"{rel(path)}: kunit.py can only be the first check")
    return checks


def expand(argv):
    """@argv with its globs expanded (relative to the checkout), or None
    and the first glob that matches nothing."""
    out = []
    for word in argv:
        if "*" not in word:
            out.append(word)
            continue
        found = sorted(glob.glob(word, root_dir=None if os.path.isabs(word) else TOP))
        if not found:
            return None, word
        out += found
    return out, None


def write_parsed(writer, test):
    """The results of kunit_parser's @test, nested as it read them: for
    a stream that was cut short, whose lines cannot be passed on."""
    ok = ("SUCCESS", "SKIPPED")
    for sub in test.subtests:
        name = sub.name or "(no result: the kernel's output stops)"
        if sub.subtests:
            with writer.subtest(name, len(sub.subtests)) as w:
                write_parsed(w, sub)
        elif sub.status.name == "SKIPPED":
            writer.skip(name, "skipped")
        else:
            writer.result(sub.status.name in ok, name)


def kernel_part(lines, tree):
    """How the kernel's KTAP in console @lines goes into the stream:
    (results it holds, lines to pass on or None, its parsed Test, what is
    wrong with it or None)."""
    kp = kunit.parser(tree)
    stream = kp.extract_tap_lines(lines)
    head = kp.Test()
    if (not stream or not kp.parse_ktap_header(stream, head, *kunit.printer(kp))
            or not kp.parse_test_plan(stream, head)):
        return 0, None, None, "the kernel printed no KTAP"
    body = []
    while stream:
        body.append(stream.pop())
    if head.expected_count == 0:
        return 0, body, None, "the kernel ran no KUnit suite (a filter that matched none?)"
    test = kunit.parse(lines, tree)
    if test.counts.errors:
        return (len(test.subtests), None, test,
                f"the kernel's KTAP is cut short or malformed ({test.counts.errors} errors "
                f"of its parser; its {len(test.subtests)} suites are passed on as parsed)")
    return head.expected_count, body, test, None


def run_check(name, argv, args):
    """Run one program; its KTAP lines and its exit status."""
    path = os.path.join(args.out, "checks", f"{name}.ktap")
    argv, unmatched = expand(argv)
    if argv is None:
        note(f"{name}: {unmatched} matches no file")
        return [], 127
    try:
        with open(path, "w") as f:
            rc = proc.run(argv, timeout=args.timeout, group=True, cwd=TOP, stdout=f,
                          stdin=subprocess.DEVNULL)
    except OSError as err:
        note(f"{name}: cannot run {argv[0]}: {err.strerror}")
        rc = 127
    if rc == 124:
        note(f"{name}: timed out after {args.timeout} s")
    with open(path, errors="replace") as f:
        return f.read().splitlines(), rc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--list", required=True, help="the checks, one a line")
    ap.add_argument("--kernel", required=True, help="the kernel's build directory")
    ap.add_argument("--out", required=True, help="where this run's results go")
    ap.add_argument("--tree", help="the kernel tree (default: the kernel's own)")
    ap.add_argument("--suites", help="the KUnit suites that must run, one a line")
    ap.add_argument("--filter", help="kunit.py's filter_glob for the suites")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="run only these checks")
    ap.add_argument("--timeout", type=int, default=CHECK_TIMEOUT,
                    help="seconds a check may take")
    ap.add_argument("--jobs", type=int, default=2,
                    help="boots a check may run at a time ({jobs} of the list; default 2)")
    ap.add_argument("--machine", default="test", choices=sorted(machine.MACHINES),
                    help="the machine the boots run on ({machine} of the list; default test)")
    ap.add_argument("--kernel-log", help="the kernel's console of an earlier KUnit run, "
                    "read instead of running kunit.py")
    args = ap.parse_args()
    args.kernel, args.out = map(os.path.abspath, (args.kernel, args.out))
    args.tree = os.path.abspath(args.tree or tree_of(args.kernel))

    checks = read_list(args.list, {"kernel": args.kernel, "out": args.out,
                                   "tree": args.tree, "top": TOP, "jobs": str(args.jobs),
                                   "machine": args.machine})
    if args.only:
        unknown = set(args.only) - {n for n, _ in checks}
        if unknown:
            die(f"no check {', '.join(sorted(unknown))} in {rel(args.list)}")
        checks = [c for c in checks if c[0] in args.only]
    # No result of an earlier run may stand in for this one's.
    for sub in ["checks"] + ([] if args.only else ["consoles"]):
        shutil.rmtree(os.path.join(args.out, sub), ignore_errors=True)
    for sub in ("checks", "consoles"):
        os.makedirs(os.path.join(args.out, sub), exist_ok=True)
    for f in ("results.ktap", "results.json", "summary.txt", "parse.log", "kunit.py.log",
              "kunit.json"):
        if os.path.exists(os.path.join(args.out, f)):
            os.unlink(os.path.join(args.out, f))
    proc.stop_on_signals()

    problems, expected, stream = [], [], open(os.path.join(args.out, "results.ktap"), "w")
    planned, body, parsed = 0, None, None
    if checks and checks[0][1][0] == "kunit.py":
        _, kargv = checks.pop(0)
        console = os.path.join(args.out, "consoles", "suites.log")
        if args.kernel_log:
            shutil.copy(args.kernel_log, console)
            with open(console, errors="replace") as f:
                lines = f.read().splitlines()
        else:
            start = time.time()
            note(f"running the KUnit suites in QEMU ({rel(args.kernel)})")
            log = os.path.join(args.out, "kunit.py.log")
            lines, rc = kunit.exec_suites(args.kernel, console, kargv[1:] + (
                [args.filter] if args.filter else []), args.tree, log, machine=args.machine)
            note(f"kunit.py exec exited {rc} after {time.time() - start:.0f} s "
                 f"(console: {rel(console)})")
        planned, body, parsed, problem = kernel_part(lines, args.tree)
        if problem:
            problems.append(problem)
    t = Ktap(planned + len(checks), stream)
    if body is not None:
        t.passthrough(body, planned)
    elif parsed is not None:
        write_parsed(t, parsed)

    statuses = {}
    for name, argv in checks:
        start = time.time()
        note(f"{name}: {' '.join(rel(a) if a.startswith(TOP) else a for a in argv)}")
        lines, rc = run_check(name, argv, args)
        statuses[name] = rc
        t.nest(name, lines, rc == 0)
        note(f"{name}: {'ok' if rc == 0 else f'exit {rc}'} after {time.time() - start:.0f} s")
    stream.close()

    # One parse of the whole stream, by kunit.py; the kernel's parser
    # in-process only to count what is malformed, which the JSON leaves
    # out.
    ktap_path = os.path.join(args.out, "results.ktap")
    json_path = os.path.join(args.out, "results.json")
    with open(os.path.join(args.out, "parse.log"), "w") as f:
        subprocess.run(kunit.command("parse", None, args.tree) + [f"--json={json_path}", ktap_path],
                       cwd=args.tree, stdout=f, stderr=subprocess.STDOUT)
    try:
        found = results.cases(json_path)
    except (OSError, ValueError) as err:
        found = []
        problems.append(f"kunit.py parse wrote no results: {err}")
    with open(ktap_path, errors="replace") as f:
        errors = kunit.parse(f.read().splitlines(), args.tree).counts.errors
    # (An empty stream's one error, no test run, is said above.)
    if errors and t.plan and not any("cut short" in p for p in problems):
        problems.append(f"the stream has {errors} KTAP errors (see parse.log)")
    for name, rc in statuses.items():
        bad = any(s == name and st in results.FAILED for s, _, st in found)
        if rc == 124:
            problems.append(f"{name} timed out after {args.timeout} s")
        elif rc != 0 and not bad:
            problems.append(f"{name} exited {rc} with no failed result")
    if args.suites:
        expected = words(args.suites)
    # Every suite and check that ran must run whole: a skip fails.
    whole = list(dict.fromkeys(expected + list(statuses) + [s for s, _, _ in found]))
    lines, ok = results.summary(found, expected + list(statuses), whole, problems)
    text = "\n".join([f"{rel(args.list)} on {rel(args.kernel)}:"] + lines) + "\n"
    with open(os.path.join(args.out, "summary.txt"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
