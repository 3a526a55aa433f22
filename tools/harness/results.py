# SPDX-License-Identifier: GPL-2.0
"""Policy over a run's results, as `kunit.py parse --json` writes them:
which suites had to run, which may not skip, and the summary whose last
line is "kunit: N passed, M failed"."""
import json

FAILED = ("FAIL", "ERROR")


def cases(path):
    """(suite, case, status) of every result without subtests in
    kunit.py's JSON at @path: suite is the top-level test (a KUnit suite,
    a check of the runner), case the names below it joined by dots."""
    with open(path) as f:
        root = json.load(f)
    out = []

    def walk(group, names):
        for sub in group.get("sub_groups", []):
            walk(sub, names + [sub["name"]])
        for case in group.get("test_cases", []):
            if names:
                out.append((names[0], ".".join(names[1:] + [case["name"]]), case["status"]))
            else:
                # A result the stream's plan counts but that never came
                # has no name.
                out.append((case["name"] or "(missing)", "", case["status"]))
    walk(root, [])
    return out


def counts(found, suites):
    """One line with the passed/skipped/failed counts of @suites in
    @found, and whether each ran and none failed."""
    ok, parts = True, []
    for name in suites:
        got = [st for suite, _, st in found if suite == name]
        if not got:
            parts.append(f"{name} did not run")
            ok = False
            continue
        bad = sum(st in FAILED for st in got)
        ok = ok and bad == 0
        parts.append(f"{name} {got.count('PASS')} passed, {got.count('SKIP')} skipped, {bad} failed")
    return "; ".join(parts), ok


def absent(found, suites):
    """One line naming which of @suites ran in @found, and whether none
    did."""
    ran = sorted({suite for suite, _, _ in found} & set(suites))
    if ran:
        return "ran, and must not: " + ", ".join(ran), False
    return "none of " + ", ".join(suites) + " ran", True


def summary(found, expected=(), no_skips=(), problems=()):
    """The summary's lines and whether the run passed: every suite of
    @expected ran, none of @no_skips skipped a case (the test kernel has
    every CPU and option they need: a skip there is a failure), no case
    failed, one at least passed. The last line's failures count the
    failed cases, each suite that did not run, each case skipped where
    none may be, and each of @problems (what the runner found wrong
    outside the results: a check that exited non-zero with no failed
    case, a malformed stream)."""
    lines, per_suite = [], {}
    for suite, _, status in found:
        n = per_suite.setdefault(suite, {"PASS": 0, "FAIL": 0, "SKIP": 0, "ERROR": 0})
        n[status] = n.get(status, 0) + 1
    for suite, n in per_suite.items():
        lines.append(f"  {suite}: {n['PASS']} passed, {n['FAIL'] + n['ERROR']} failed, "
                     f"{n['SKIP']} skipped")
    for suite, case, status in found:
        if status != "PASS":
            what = (f"{suite}.{case}" if case and not case.endswith(".") else
                    f"{suite}: a result of its plan is missing" if status == "ERROR" else suite)
            lines.append(f"  {status.lower()}: {what}")
    passed = sum(st == "PASS" for _, _, st in found)
    failed = sum(st in FAILED for _, _, st in found)
    skipped = sum(st == "SKIP" for _, _, st in found)
    for suite in expected:
        if suite not in per_suite:
            lines.append(f"  missing: suite {suite} did not run")
            failed += 1
    for suite in no_skips:
        n = per_suite.get(suite, {}).get("SKIP", 0)
        if n:
            lines.append(f"  skipped where every case must run: {n} cases of {suite}")
            failed += n
    for p in problems:
        lines.append(f"  error: {p}")
        failed += 1
    if passed == 0:
        lines.append("  no test case passed")
    lines.append(f"skipped: {skipped}")
    lines.append(f"kunit: {passed} passed, {failed} failed")
    return lines, failed == 0 and passed > 0
