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
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import die  # noqa: E402
from harness.reports import KMEMLEAK_SCAN, scan  # noqa: E402
from harness.ktap import Ktap  # noqa: E402

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
