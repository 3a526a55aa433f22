#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Run a declared list of checks on a built kernel and report them all as
one KTAP stream, parsed once by the kernel's own kunit.py.

    runner.py --list kunit/checks/test --kernel build/kunit-arm64 \\
              --out build/results/test [--suites kunit/suites] [--filter GLOB]

A list (kunit/checks/*) has one check a line, "NAME PROGRAM ARGUMENTS...",
in the order they run. The program "kunit.py" is the KUnit suites of the
kernel (kunit.py exec on the test machine); its KTAP comes first in the
stream, as the kernel printed it. Every other program prints KTAP on its
standard output, the plan first; the runner nests it as subtest NAME,
whose own result is the program's exit status. In the arguments,
{kernel}, {out}, {tree} and {top} stand for the kernel's build directory,
this run's results, the kernel tree and the checkout; an argument with a
"*" is a glob (relative to the checkout), which must match.

Writes into OUT: results.ktap (the stream), results.json (kunit.py parse
--json), parse.log (kunit.py's view of it), summary.txt (the policy of
harness/results.py: the suites of --suites ran and skipped nothing, no
case failed, and each program's exit status agrees with its results; the
last line "kunit: N passed, M failed"), checks/NAME.ktap (each program's
output) and consoles/ (every boot's console, which a list may give its
kernel_reports check to read). Exits 1 when the summary fails.
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
from harness import TOP, TREE, die, note, rel, kunit, results  # noqa: E402
from harness.ktap import Ktap  # noqa: E402


def read_list(path, subst):
    """[(name, argv)] of a check list."""
    checks = []
    try:
        with open(path) as f:
            text = f.read()
    except OSError as err:
        die(f"cannot read the list {path}: {err.strerror}")
    for n, line in enumerate(text.splitlines(), 1):
        words = shlex.split(line, comments=True)
        if not words:
            continue
        if len(words) < 2:
            die(f"{rel(path)}:{n}: a check needs a name and a program")
        name, argv = words[0], []
        for word in words[1:]:
            for key, value in subst.items():
                word = word.replace("{" + key + "}", value)
            argv.append(word)
        if any(name == c[0] for c in checks):
            die(f"{rel(path)}:{n}: a second check named {name}")
        checks.append((name, argv))
    if any(argv[0] == "kunit.py" for _, argv in checks[1:]):
        die(f"{rel(path)}: kunit.py can only be the first check")
    return checks


def run_kunit(args, extra):
    """kunit.py exec of the kernel: its console's KTAP, its exit status."""
    argv = kunit.command("exec", args.kernel, args.tree) + [
        "--timeout=600", f"--json={args.out}/kunit.json"] + extra
    if args.filter:
        argv.append(args.filter)
    log = os.path.join(args.out, "kunit.py.log")
    console = os.path.join(args.kernel, "test.log")
    if os.path.exists(console):
        os.unlink(console)
    with open(log, "w") as f:
        rc = subprocess.run(argv, cwd=args.tree, stdout=f, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL).returncode
    lines = []
    if os.path.exists(console):
        shutil.copy(console, os.path.join(args.out, "consoles", "suites.log"))
        with open(console, errors="replace") as f:
            lines = f.read().splitlines()
    return lines, rc, log


def kernel_ktap(lines, tree):
    """The number of top-level tests the kernel planned, and the lines
    after its version and plan lines, read by the kernel's parser."""
    kp = kunit.parser(tree)
    stream = kp.extract_tap_lines(lines)
    test = kp.Test()
    if not stream or not kp.parse_ktap_header(stream, test) or not kp.parse_test_plan(stream, test):
        return None, []
    body = []
    while stream:
        body.append(stream.pop())
    return test.expected_count, body


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


def run_check(name, argv, args):
    """Run one program; its KTAP lines and its exit status."""
    path = os.path.join(args.out, "checks", f"{name}.ktap")
    argv, unmatched = expand(argv)
    if argv is None:
        note(f"{name}: {unmatched} matches no file")
        return [], 127
    try:
        with open(path, "w") as f:
            rc = subprocess.run(argv, cwd=TOP, stdout=f, stdin=subprocess.DEVNULL).returncode
    except OSError as err:
        note(f"{name}: cannot run {argv[0]}: {err.strerror}")
        rc = 127
    with open(path, errors="replace") as f:
        return f.read().splitlines(), rc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--list", required=True, help="the checks, one a line")
    ap.add_argument("--kernel", required=True, help="the kernel's build directory")
    ap.add_argument("--out", required=True, help="where this run's results go")
    ap.add_argument("--tree", default=TREE, help="the kernel tree (default build/linux)")
    ap.add_argument("--suites", help="the KUnit suites that must run, one a line")
    ap.add_argument("--filter", help="kunit.py's filter_glob for the suites")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="run only these checks")
    args = ap.parse_args()
    args.kernel, args.out, args.tree = map(os.path.abspath, (args.kernel, args.out, args.tree))

    checks = read_list(args.list, {"kernel": args.kernel, "out": args.out,
                                   "tree": args.tree, "top": TOP})
    if args.only:
        unknown = set(args.only) - {n for n, _ in checks}
        if unknown:
            die(f"no check {', '.join(sorted(unknown))} in {rel(args.list)}")
        checks = [c for c in checks if c[0] in args.only]
    # No result of an earlier run may stand in for this one's.
    for sub in ("checks", "consoles"):
        shutil.rmtree(os.path.join(args.out, sub), ignore_errors=True)
        os.makedirs(os.path.join(args.out, sub))
    for f in ("results.ktap", "results.json", "summary.txt", "parse.log", "kunit.json"):
        if os.path.exists(os.path.join(args.out, f)):
            os.unlink(os.path.join(args.out, f))

    problems, expected, stream = [], [], open(os.path.join(args.out, "results.ktap"), "w")
    suites_planned, body = 0, []
    if checks and checks[0][1][0] == "kunit.py":
        _, kargv = checks.pop(0)
        start = time.time()
        note(f"running the KUnit suites in QEMU ({rel(args.kernel)})")
        lines, rc, log = run_kunit(args, kargv[1:])
        suites_planned, body = kernel_ktap(lines, args.tree)
        note(f"kunit.py exec exited {rc} after {time.time() - start:.0f} s (log: {rel(log)})")
        if suites_planned is None:
            problems.append(f"the kernel printed no KTAP ({rel(log)})")
            suites_planned, body = 0, []
    t = Ktap(suites_planned + len(checks), stream)
    t.passthrough(body, suites_planned)

    statuses = {}
    for name, argv in checks:
        start = time.time()
        note(f"{name}: {' '.join(rel(a) if a.startswith(TOP) else a for a in argv)}")
        lines, rc = run_check(name, argv, args)
        statuses[name] = rc
        t.nest(name, lines, rc == 0)
        note(f"{name}: {'ok' if rc == 0 else f'exit {rc}'} after {time.time() - start:.0f} s")
    stream.close()

    json_path = os.path.join(args.out, "results.json")
    with open(os.path.join(args.out, "parse.log"), "w") as f:
        subprocess.run(kunit.command("parse", None, args.tree) +
                       [f"--json={json_path}", os.path.join(args.out, "results.ktap")],
                       cwd=args.tree, stdout=f, stderr=subprocess.STDOUT)
    try:
        found = results.cases(json_path)
    except (OSError, ValueError) as err:
        found = []
        problems.append(f"kunit.py parse wrote no results: {err}")
    for name, rc in statuses.items():
        bad = any(s == name and st in results.FAILED for s, _, st in found)
        if rc != 0 and not bad:
            problems.append(f"{name} exited {rc} with no failed result")
    if args.suites:
        with open(args.suites) as f:
            expected = [w for w in (line.split("#")[0].strip() for line in f) if w]
    lines, ok = results.summary(found, expected + list(statuses), expected, problems)
    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, "summary.txt"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
