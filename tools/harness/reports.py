# SPDX-License-Identifier: GPL-2.0
"""The reports of the kernel's checkers in a console log: scan() finds
them and says what was running when each came (tools/report/kernel-reports.py,
tools/boot/faults.py)."""
import re
from collections import Counter

from harness import kunit

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
# What the guest's programs print: the workload and the taskstats check.
GUEST = re.compile(r'(=== idle-workload: .* ===|idle-workload: .*|taskstats-check: .*)')
KMEMLEAK_SCAN = "=== idle-workload: kmemleak ==="
# Lines of a report after its first, for the diagnostic.
CONTEXT = 6


def strip_time(line):
    return TIME.sub('', line.rstrip('\n'))


def test_logs(lines):
    """[(what ran, [its output lines, stripped])] in the console's
    order, as the kernel's KTAP parser splits it: a KUnit case's output,
    a suite's outside its cases; and the line where the KTAP starts."""
    kp = kunit.parser()
    start = kp.extract_tap_lines(lines)
    first = start.line_number() if start else len(lines) + 1
    out = []

    def walk(test, suite):
        for sub in test.subtests:
            if suite is None:
                walk(sub, sub.name)
                out.append((f"KUnit suite {sub.name} (init or exit)",
                            [x.strip() for x in sub.log]))
            elif sub.subtests:
                out.append((f"KUnit {suite}.{sub.name}", [x.strip() for x in sub.log]))
                for case in sub.subtests:
                    out.append((f"KUnit {suite}.{sub.name}", [x.strip() for x in case.log]))
            else:
                out.append((f"KUnit {suite}.{sub.name}", [x.strip() for x in sub.log]))
    if first <= len(lines):
        walk(kunit.parse(lines), None)
    return out, first


def scan(label, path, require):
    """Whether the log is clean, the result's name, and its reports."""
    try:
        with open(path, errors='replace') as f:
            lines = f.read().splitlines()
    except OSError as e:
        return False, f'{label}: cannot read {path}: {e.strerror}', []
    if not lines:
        return False, f'{label}: {path} is empty', []
    logs, first = test_logs(lines)
    reports, guest = [], None
    for i, line in enumerate(lines, 1):
        text = strip_time(line)
        if REPORT.search(text):
            key = text.strip()
            where = next((n for n, (what, log) in enumerate(logs) if key in log), None)
            if where is not None:
                ctx = logs[where][0]
                logs[where][1].remove(key)
            elif i < first:
                ctx = 'at boot, before the first suite'
            elif guest is None:
                ctx = 'after the KUnit suites, before the guest printed anything'
            else:
                ctx = f'after the guest printed "{guest}"'
            reports.append((key, ctx, [strip_time(x) for x in lines[i - 1:i - 1 + CONTEXT]]))
            continue
        m = GUEST.search(text)
        if m:
            guest = m.group(1)
    missing = [r for r in require if not any(r in x for x in lines)]
    if missing:
        return False, f'{label}: no line "{missing[0]}" in {path}', reports
    if not reports:
        return True, f'{label}: no report in {len(lines)} lines', []
    first_report, ctx, _ = reports[0]
    # The others by kind ("WARNING", "unreferenced object"), so that
    # runs with different reports have different names.
    kinds = Counter(k.split(':')[0].split(' 0x')[0].strip() for k, _, _ in reports[1:])
    more = (f' (and {len(reports) - 1} more: '
            + ', '.join(f'{k} {n}' for k, n in sorted(kinds.items())) + ')'
            if len(reports) > 1 else '')
    return False, f'{label}: "{first_report}" {ctx}{more}'.replace('#', 'no.'), reports
