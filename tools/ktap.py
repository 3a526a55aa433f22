# SPDX-License-Identifier: GPL-2.0
"""KTAP for the project's Python checks (governor-sim.py --check,
ftrace-idle-trace.py --check): a list of results, each a pass/fail, a
description and the diagnostic lines to print before it."""


def emit(results):
    """Print @results [(ok, description, [diagnostic...])] as KTAP and
    return how many failed."""
    print("KTAP version 1")
    print(f"1..{len(results)}")
    for n, (ok, desc, diags) in enumerate(results, 1):
        for d in diags:
            print(f"# {d}")
        print(f"{'ok' if ok else 'not ok'} {n} {desc}")
    return sum(1 for ok, _, _ in results if not ok)
