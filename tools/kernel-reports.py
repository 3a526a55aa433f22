#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Find the reports of the kernel's checkers in console logs.

    kernel-reports.py [--require PREFIX:TEXT ...] LABEL=LOG [LABEL=LOG ...]

Prints KTAP, one line per log: "ok" when the log holds no report, "not ok"
with the first report and what was running when it came: the KUnit suite
and case (the case is the next result line of the suite), or the last
line the guest's programs printed before it (the workload's phases).
Each report follows as a diagnostic ("# ...") with its first lines.

A report is what a checker prints when it found something: lockdep and
RCU ("WARNING: possible circular locking dependency", "suspicious RCU
usage"), any "BUG:" (KASAN, KFENCE, scheduling while atomic, sleeping
function called from invalid context), any "WARNING:" (WARN_ON), UBSAN,
ODEBUG, kmemleak's "unreferenced object", lockdep switching itself off,
RCU stalls, hung tasks, kmemleak switching itself off, and oopses and
panics. A log that is missing or empty fails too: a boot that printed
nothing checked nothing. --require PREFIX:TEXT fails the logs whose label
starts with PREFIX unless a line holds TEXT (the debug kernel's workload
boots must show their kmemleak scan).
"""
import re
import sys

REPORT = re.compile(
    r'(WARNING:|BUG:|UBSAN:|ODEBUG:|suspicious RCU usage|'
    r'sleeping function called from invalid context|'
    r'unreferenced object 0x|DEBUG_LOCKS_WARN_ON|'
    r'turning off the locking correctness validator|'
    r'INFO: trying to register non-static key|'
    r'detected stalls on CPUs/tasks|detected expedited stalls|'
    r'INFO: task .* blocked for more than|'
    r'kmemleak: .*(disabled|Memory pool empty)|'
    r'Internal error: Oops|Unable to handle kernel|Kernel panic)')
TIME = re.compile(r'^\[[ \d.]+\] ')
SUITE = re.compile(r'^(\s*)# Subtest: (\S+)')
RESULT = re.compile(r'^(\s*)(?:not )?ok \d+ (\S+)')
# What the guest's programs print: the workload and the taskstats check.
GUEST = re.compile(r'(=== idle-workload: .* ===|idle-workload: .*|'
                   r'taskstats-check: .*)')
# Lines of a report after its first, for the diagnostic.
CONTEXT = 6


def strip_time(line):
    return TIME.sub('', line.rstrip('\n'))


def where(lines, i, stack, state):
    """What ran when line i came: a KUnit case, or the guest's last line.

    stack: the open KTAP subtests, (indent, name), outermost first.
    state: the guest's last line, or 'before' / 'after' the suites.
    """
    if len(stack) > 1:                      # a parameterised case
        return f'KUnit {stack[0][1]}.{stack[1][1]}'
    if stack:
        indent, suite = stack[0]
        for line in lines[i + 1:]:
            m = RESULT.match(strip_time(line))
            if not m:
                continue
            if len(m.group(1)) < indent:
                return f'KUnit suite {suite} (init or exit)'
            if len(m.group(1)) == indent:
                return f'KUnit {suite}.{m.group(2)}'
        return f'KUnit suite {suite} (no result followed)'
    if state == 'before':
        return 'at boot, before the first suite'
    if state == 'after':
        return 'after the KUnit suites, before the guest printed anything'
    return f'after the guest printed "{state}"'


def scan(label, path, require):
    try:
        with open(path, errors='replace') as f:
            lines = f.readlines()
    except OSError as e:
        return False, f'{label}: cannot read {path}: {e.strerror}', []
    if not lines:
        return False, f'{label}: {path} is empty', []
    reports, stack, state = [], [], 'before'
    for i, line in enumerate(lines):
        text = strip_time(line)
        m = SUITE.match(text)
        if m:
            indent = len(m.group(1))
            stack = [s for s in stack if s[0] < indent] + [(indent, m.group(2))]
            continue
        m = RESULT.match(text)
        if m and stack:
            stack = [s for s in stack if s[0] <= len(m.group(1))]
            if not stack:
                state = 'after'
            continue
        if REPORT.search(text):
            block = [strip_time(x) for x in lines[i:i + CONTEXT]]
            reports.append((text.strip(), where(lines, i, stack, state),
                            block))
            continue
        m = GUEST.search(text)
        if m:
            state = m.group(1)
            stack = []
    missing = [r for r in require if not any(r in x for x in lines)]
    if missing:
        return False, f'{label}: no line "{missing[0]}" in {path}', reports
    if not reports:
        return True, f'{label}: no report in {len(lines)} lines', []
    first, ctx, _ = reports[0]
    more = f' (and {len(reports) - 1} more)' if len(reports) > 1 else ''
    return False, f'{label}: "{first}" {ctx}{more}', reports


def main():
    args = sys.argv[1:]
    require = {}        # label prefix -> lines its logs must hold
    while len(args) >= 2 and args[0] == '--require':
        prefix, _, text = args[1].partition(':')
        require.setdefault(prefix, []).append(text)
        args = args[2:]
    if not args:
        sys.exit(__doc__)
    print('KTAP version 1')
    print(f'1..{len(args)}')
    bad = 0
    for n, arg in enumerate(args, 1):
        label, _, path = arg.partition('=')
        need = [t for p, ts in require.items() if label.startswith(p)
                for t in ts]
        ok, line, reports = scan(label, path, need)
        bad += not ok
        print(f'{"ok" if ok else "not ok"} {n} {line}')
        for text, ctx, block in reports:
            print(f'# {ctx}:')
            for b in block:
                print(f'#   {b}')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
