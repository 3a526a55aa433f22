#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Find the reports of the kernel's checkers in console logs.

    kernel-reports.py [--kernel DIR --kmemleak-scan PREFIX...] CONSOLE...

A CONSOLE is a log file, LABEL=FILE, or a directory whose *.log files are
read, each labelled with its name (a run's consoles/, where every boot of
the run leaves its console). Prints KTAP, one result per log: "ok" when
the log holds no report, "not ok" with the first report and what was
running when it came: the KUnit suite and case whose output holds it, as
the kernel's KTAP parser reads the console, or the last line the guest's
programs printed before it (the workload's phases). Each report follows
as a diagnostic with its first lines.

A report is what a checker prints when it found something: lockdep and
RCU ("WARNING: possible circular locking dependency", "suspicious RCU
usage"), any "BUG:" (KASAN, KFENCE, scheduling while atomic, sleeping
function called from invalid context), any "WARNING:" (WARN_ON), UBSAN,
ODEBUG, kmemleak's "unreferenced object", lockdep switching itself off,
RCU stalls, hung tasks, kmemleak switching itself off, and oopses and
panics. A log that is missing or empty fails too: a boot that printed
nothing checked nothing. When the kernel of DIR has kmemleak
(CONFIG_DEBUG_KMEMLEAK), the logs whose label starts with a PREFIX of
--kmemleak-scan (the workload's boots) must show the workload's scan.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import die, kunit  # noqa: E402
from harness.ktap import Ktap  # noqa: E402

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
    more = f' (and {len(reports) - 1} more)' if len(reports) > 1 else ''
    return False, f'{label}: "{first_report}" {ctx}{more}'.replace('#', 'no.'), reports


def consoles(args):
    """[(label, path)] of the arguments."""
    out = []
    for arg in args:
        if os.path.isdir(arg):
            out += [(f[:-len('.log')], os.path.join(arg, f))
                    for f in sorted(os.listdir(arg)) if f.endswith('.log')]
        elif '=' in arg:
            out.append(tuple(arg.split('=', 1)))
        else:
            out.append((os.path.basename(arg).rsplit('.', 1)[0], arg))
    return out


def has_kmemleak(kernel):
    try:
        with open(os.path.join(kernel, '.config')) as f:
            return 'CONFIG_DEBUG_KMEMLEAK=y\n' in f.read()
    except OSError:
        die(f'no .config in {kernel}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--kernel', help="the kernel's build directory (its .config)")
    ap.add_argument('--kmemleak-scan', action='append', default=[], metavar='PREFIX',
                    help="labels of the workload's boots, which must show its kmemleak scan")
    ap.add_argument('logs', nargs='+', metavar='CONSOLE')
    args = ap.parse_args()
    if args.kmemleak_scan and not args.kernel:
        die('--kmemleak-scan needs --kernel, whose .config says whether it has kmemleak')
    scans = args.kmemleak_scan if args.kernel and has_kmemleak(args.kernel) else []
    found = consoles(args.logs)
    t = Ktap(len(found))
    for label, path in found:
        need = [KMEMLEAK_SCAN] if any(label.startswith(p) for p in scans) else []
        ok, name, reports = scan(label, path, need)
        diag = []
        for text, ctx, block in reports:
            diag.append(f'{ctx}:')
            diag += [f'  {b}' for b in block]
        t.result(ok, name, diag)
    return t.status()


if __name__ == '__main__':
    sys.exit(main())
