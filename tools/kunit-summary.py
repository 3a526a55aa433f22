#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise KUnit results from kunit.py's JSON output.

Prints one line per suite, the skipped cases by name, and as the last line
"kunit: N passed, M failed". Exits non-zero when a case failed or crashed,
when no case ran, or when a suite named in the expected-suites file did not
run at all or skipped a case (those count as failed).
"""

import argparse
import json
import re
import sys


def walk(group, path, cases):
    """Collect (suite, case, status) for every leaf case below group."""
    for sub in group.get('sub_groups', []):
        walk(sub, path + [sub['name']], cases)
    for case in group.get('test_cases', []):
        cases.append((path[0] if path else '?',
                      '.'.join(path[1:] + [case['name']]), case['status']))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('json', nargs='?',
                    help='kunit.py --json output (none: only --ktap results)')
    ap.add_argument('--expect', help='file naming the suites that must run')
    ap.add_argument('--out', help='also write the summary to this file')
    ap.add_argument('--ktap', action='append', default=[],
                    help='NAME=FILE: plain KTAP results counted as suite NAME')
    ap.add_argument('--as-ktap', metavar='PREFIX',
                    help='only print the cases of the JSON as plain KTAP '
                    'lines named PREFIX: SUITE.CASE (no header, no plan)')
    ap.add_argument('--counts', nargs='+', metavar='SUITE',
                    help='only print one line with the passed/skipped/failed '
                    'counts of these suites; fail if one did not run or failed')
    args = ap.parse_args()

    expected = []
    if args.expect:
        with open(args.expect) as f:
            expected = [l.strip() for l in f
                        if l.strip() and not l.startswith('#')]

    cases = []
    try:
        if args.json:
            with open(args.json) as f:
                walk(json.load(f), [], cases)
    except (OSError, ValueError) as e:
        print(f'kunit-summary: no results in {args.json}: {e}')

    if args.counts:
        ok, parts = True, []
        for name in args.counts:
            got = [st for suite, _, st in cases if suite == name]
            if not got:
                parts.append(f'{name} did not run')
                ok = False
                continue
            bad = sum(st in ('FAIL', 'ERROR') for st in got)
            ok = ok and bad == 0
            parts.append(f'{name} {got.count("PASS")} passed, '
                         f'{got.count("SKIP")} skipped, {bad} failed')
        print('; '.join(parts))
        return 0 if ok else 1

    if args.as_ktap:
        for i, (suite, case, status) in enumerate(cases, 1):
            verdict = 'not ok' if status in ('FAIL', 'ERROR') else 'ok'
            skip = ' # SKIP' if status == 'SKIP' else ''
            print(f'{verdict} {i} {args.as_ktap}: {suite}.{case}{skip}')
        return 0 if cases else 1

    # The test kernel has every CPU and option the suites need: a case of
    # theirs that skips is a failure here, not a pass.
    must_not_skip = list(expected)
    for spec in args.ktap:
        name, _, path = spec.partition('=')
        expected.append(name)
        try:
            with open(path) as f:
                for line in f:
                    m = re.match(r'^(not )?ok \d+ (.*?)(\s+# SKIP.*)?$', line.strip())
                    if m:
                        status = 'SKIP' if m.group(3) else (
                            'FAIL' if m.group(1) else 'PASS')
                        cases.append((name, m.group(2), status))
        except OSError as e:
            print(f'kunit-summary: no results in {path}: {e}')

    lines = []
    suites = {}
    for suite, _, status in cases:
        suites.setdefault(suite, {'PASS': 0, 'FAIL': 0, 'SKIP': 0, 'ERROR': 0})
        suites[suite][status] = suites[suite].get(status, 0) + 1
    for suite, n in suites.items():
        lines.append(f'  {suite}: {n["PASS"]} passed, '
                     f'{n["FAIL"] + n["ERROR"]} failed, {n["SKIP"]} skipped')
    for suite, case, status in cases:
        if status != 'PASS':
            lines.append(f'  {status.lower()}: {suite}.{case}')

    passed = sum(1 for c in cases if c[2] == 'PASS')
    failed = sum(1 for c in cases if c[2] in ('FAIL', 'ERROR'))
    skipped = sum(1 for c in cases if c[2] == 'SKIP')
    ok = failed == 0 and passed > 0
    for suite in expected:
        if suite not in suites:
            lines.append(f'  missing: suite {suite} did not run')
            failed += 1
            ok = False
    for suite in must_not_skip:
        n = suites.get(suite, {}).get('SKIP', 0)
        if n:
            lines.append(f'  skipped where every case must run: {n} cases of {suite}')
            failed += n
            ok = False
    if passed == 0:
        lines.append('  no test case passed')
    lines.append(f'skipped: {skipped}')
    lines.append(f'kunit: {passed} passed, {failed} failed')

    text = '\n'.join(lines) + '\n'
    sys.stdout.write(text)
    if args.out:
        with open(args.out, 'w') as f:
            f.write(text)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
