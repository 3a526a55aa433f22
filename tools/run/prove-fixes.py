#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Show that each fix of a base's fixes series has a check that fails
without it: take the fix back out of the generated tree (git revert, not
committed), build the result as the test kernel into BUILD/kunit-prove,
run the base's checks on it (tools/run/runner.py with kunit/.../checks/test)
and report which checks failed. A fix whose removal no check notices is
not proven, and the script then exits non-zero. The tree is put back
after each fix, even on error or interrupt; it must have nothing
uncommitted to start with.

A fix that cannot be reverted alone (a later fix changes the same lines)
is reverted together with the later fixes it needs, newest first, and the
line says so.

The checks run first on the tree as it is: a check that fails there too
(a report no fix is about) proves nothing, and only the checks that fail
without the fix and not with it count. Checks are compared by name with
their numbers left out (a CPU, a count of reports), so a check that
fails with and without a fix for different reasons is not told apart.

--variant debug builds the debug kernel instead (KASAN, kmemleak...) and
boots it on the debug machine, for a fix that only a checker sees;
--checks faults runs the base's checks/faults list instead of checks/test.

    prove-fixes.py [--base 7.3] [--variant debug] [--checks faults] [NAME-SUBSTRING ...]
"""

import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), '..'))
from harness import BUILD, TOOLS, TOP, die, proc, rel  # noqa: E402


def git(tree, *args, check=True):
    return subprocess.run(['git', '-C', tree] + list(args), capture_output=True, text=True,
                          check=check)


def fixes_of(base):
    """[(subject, commit)] of the base's fixes series in its tree, oldest first."""
    top = os.path.join(TOP, 'patches', *([] if base == '6.1' else [base]))
    tree = os.path.join(BUILD, *([] if base == '6.1' else [base]), 'linux')
    series = os.path.join(top, 'fixes', 'series')
    subjects = []
    for name in open(series).read().split():
        if name.startswith('#') or name.startswith('0000-'):
            continue
        with open(os.path.join(top, 'fixes', name)) as f:
            lines = f.read().split('\n\n', 1)[0].splitlines()
        i = next(i for i, l in enumerate(lines) if l.startswith('Subject:'))
        subject = ' '.join([lines[i]] + [l.strip() for l in lines[i + 1:]
                                         if l.startswith((' ', '\t'))][:2])
        subjects.append(subject.split('] ', 1)[1].strip())
    log = git(tree, 'log', '--format=%H %s').stdout.splitlines()
    commits = {line.split(' ', 1)[1]: line.split(' ', 1)[0] for line in log}
    missing = [s for s in subjects if s not in commits]
    if missing:
        die(f'not in {rel(tree)}: {"; ".join(missing)} (make tree BASE={base})')
    return tree, [(s, commits[s]) for s in subjects]


def revert(tree, fixes, i):
    """Revert fix @i, with the later fixes it needs; the subjects reverted."""
    for j in range(i, len(fixes)):
        picked = [fixes[k] for k in [i] + list(range(i + 1, j + 1))]
        order = sorted(picked, key=lambda f: -fixes.index(f))
        ok = True
        for _, commit in order:
            if git(tree, 'revert', '--no-commit', commit, check=False).returncode:
                ok = False
                break
        if ok:
            return [s for s, _ in picked]
        restore(tree)
    return None


def restore(tree):
    git(tree, 'revert', '--quit', check=False)
    if git(tree, 'reset', '-q', '--hard', 'HEAD', check=False).returncode:
        die(f'could not put {rel(tree)} back: git reset --hard HEAD there by hand')


def failures(stdout):
    """The runner's failed checks, or None if it printed no summary."""
    lines = stdout.splitlines()
    if not any(line.startswith('kunit: ') for line in lines):
        return None
    return [line.split(': ', 1)[1] for line in lines
            if line.strip().startswith(('fail:', 'error:', 'missing:'))]


def key(name):
    """A check's name without its numbers."""
    return re.sub(r'[0-9]+', '#', name)


def run_checks(tree, kernel, base, variant, checks, results):
    """Build @tree into @kernel and run the base's checks: (status, stdout, stderr)."""
    kdir = os.path.join(TOP, 'kunit', *([] if base == '6.1' else [base]))
    debug = ['--variant', variant] if variant else []
    out = []
    for argv in ([os.path.join(TOOLS, 'kernel', 'build-kernel.py'), '--tree', tree,
                  '--kernel', kernel] + debug,
                 [os.path.join(TOOLS, 'run', 'runner.py'), '--list',
                  os.path.join(kdir, 'checks', checks), '--kernel', kernel, '--out', results,
                  '--suites', os.path.join(kdir, 'suites')]
                 + (['--machine', variant] if variant else [])):
        with open(results + '.out', 'w+') as o, open(results + '.err', 'w+') as e:
            rc = proc.run(argv, group=True, stdout=o, stderr=e, stdin=subprocess.DEVNULL)
            o.seek(0)
            e.seek(0)
            out = (rc, o.read(), e.read())
        if rc and argv[0].endswith('build-kernel.py'):
            break
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--base', default='6.1', help='the base whose fixes to prove (default 6.1)')
    ap.add_argument('--variant', choices=('debug',), help='build and boot the debug kernel')
    ap.add_argument('--checks', default='test', help="the base's list of checks (default test)")
    ap.add_argument('names', nargs='*', metavar='NAME-SUBSTRING',
                    help='only the fixes whose subject holds one of these')
    args = ap.parse_args()
    tree, fixes = fixes_of(args.base)
    if git(tree, 'status', '--porcelain', '--untracked-files=no').stdout.strip():
        die(f'{rel(tree)} has uncommitted changes: commit or stash them first')
    b = os.path.dirname(tree)
    suffix = f'-{args.variant}' if args.variant else ''
    kernel = os.path.join(b, 'kunit-prove' + suffix)
    results = os.path.join(b, 'results', 'prove' + suffix)
    os.makedirs(os.path.dirname(results), exist_ok=True)
    proc.stop_on_signals()
    rc, stdout, stderr = run_checks(tree, kernel, args.base, args.variant, args.checks, results)
    baseline = failures(stdout)
    if baseline is None:
        die(f'the checks did not run on {rel(tree)} as it is: '
            + (stderr.strip().splitlines() or ['no output'])[-1])
    print(f'with every fix: {stdout.splitlines()[-1]}', flush=True)
    for name in baseline:
        print(f'    failing already: {name}', flush=True)
    known = {key(name) for name in baseline}
    proven = unproven = not_run = 0
    for i, (subject, _) in enumerate(fixes):
        if args.names and not any(n in subject for n in args.names):
            continue
        try:
            gone = revert(tree, fixes, i)
            if gone is None:
                print(f'{subject}: NOT RUN (it does not revert)', flush=True)
                not_run += 1
                continue
            rc, stdout, stderr = run_checks(tree, kernel, args.base, args.variant, args.checks,
                                            results)
        finally:
            restore(tree)
        also = f' (reverted with: {"; ".join(gone[1:])})' if gone[1:] else ''
        failed = failures(stdout)
        if failed is None:
            tail = (stderr.strip().splitlines() or ['no output'])[-1]
            print(f'{subject}{also}: NOT RUN (no "kunit:" summary; {tail})', flush=True)
            not_run += 1
            continue
        new = [name for name in failed if key(name) not in known]
        print(f'{subject}{also}: {stdout.splitlines()[-1]}; '
              + ('proven, these fail without it only:' if new else 'NOT PROVEN: nothing new fails'),
              flush=True)
        for name in new:
            print(f'    FAIL {name}', flush=True)
        if new:
            proven += 1
        else:
            unproven += 1
    print(f'prove-fixes: {proven} proven, {unproven} not proven, {not_run} not run '
          f'(the last run\'s results: {rel(results)}/)')
    return 1 if unproven or not_run else 0


if __name__ == '__main__':
    sys.exit(main())
