#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise results from kunit.py's JSON output (kunit.py run, exec or
parse --json), by the policy of harness/results.py.

    summary.py RESULTS.json [--suites FILE]     the summary; the last line
                                                "kunit: N passed, M failed"
    summary.py RESULTS.json --counts SUITE...   one line with these suites'
                                                passed/skipped/failed counts
    summary.py RESULTS.json --skipped           the skipped cases, a line each
    summary.py RESULTS.json --absent SUITE...   whether none of these ran

Exits 1 when the summary fails: a case failed, none passed, a suite of
--suites (or --counts) did not run or (--suites) skipped a case, or a
suite of --absent ran.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import results, words  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", help="kunit.py's --json output")
    how = ap.add_mutually_exclusive_group()
    how.add_argument("--suites", help="the suites that must run and skip nothing, one a line")
    how.add_argument("--counts", nargs="+", metavar="SUITE", help="only these suites' counts")
    how.add_argument("--skipped", action="store_true", help="only the skipped cases")
    how.add_argument("--absent", nargs="+", metavar="SUITE", help="these suites must not have run")
    args = ap.parse_args()
    try:
        found = results.cases(args.json)
    except (OSError, ValueError) as err:
        print(f"summary.py: no results in {args.json}: {err}")
        found = []
    if args.counts:
        line, ok = results.counts(found, args.counts)
        print(line)
        return 0 if ok else 1
    if args.absent:
        # A run that produced no case proves nothing absent.
        if not found:
            return 1
        line, ok = results.absent(found, args.absent)
        print(line)
        return 0 if ok else 1
    if args.skipped:
        for suite, case, status in found:
            if status == "SKIP":
                print(f"{suite}.{case}")
        return 0
    expected = []
    if args.suites:
        expected = words(args.suites)
    lines, ok = results.summary(found, expected, expected)
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
