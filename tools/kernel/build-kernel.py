#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Build the test kernel: kunit.py build of the tree for the test machine
(kunit/qemu_configs/arm64_smp8.py), configured with the series' own
.kunitconfig files and the harness' fragment (kunitconfig), plus
kunit/VARIANT.kunitconfig for a variant (debug: make test-debug; trace:
make trace). Says how far along it is every 15 s: elapsed time, objects
compiled and, for a build from scratch, their share of the last full
build's. On a terminal the line is rewritten; in a log (CI) each update
is a line of its own. kunit.py's output goes to KERNEL/build.log.

    build-kernel.py [--variant debug|trace] [--kernel DIR] [--tree DIR] [--config-only]

KERNEL is kunit-arm64 (kunit-arm64-VARIANT) beside the tree by default:
build/kunit-arm64 for build/linux, build/7.3/kunit-arm64 for build/7.3/linux.
--config-only writes the .config (kunit.py config) and builds nothing.
"""
import argparse
import hashlib
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import TOOLS, TOP, TREE, die, note, rel, kunit  # noqa: E402

# Objects of a full build of the test kernel when none was recorded in the
# build directory yet.
OBJECTS_ESTIMATE = 750


def kernel_dir(tree, variant):
    return os.path.join(os.path.dirname(tree), "kunit-arm64" + (f"-{variant}" if variant else ""))


def inputs_digest(tree, configs):
    """What kunit.py's configuration depends on besides the tree's Kconfig
    files: the kunitconfig fragments, the QEMU config and the machine it
    is built from."""
    h = hashlib.sha1()
    for path in list(configs) + [kunit.QEMU_CONFIG, os.path.join(TOOLS, "harness", "machine.py")]:
        path = os.path.join(tree, path)
        if os.path.isdir(path):
            path = os.path.join(path, ".kunitconfig")
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def minsec(s):
    return f"{int(s) // 60} min {int(s) % 60:02d} s"


def objects_newer(kernel, stamp):
    since = os.path.getmtime(stamp)
    n = 0
    for root, _, files in os.walk(kernel):
        for f in files:
            if f.endswith(".o"):
                try:
                    n += os.path.getmtime(os.path.join(root, f)) >= since
                except OSError:
                    pass
    return n


def newer_kconfig(tree, stamp):
    """Whether a Kconfig file of @tree changed since @stamp."""
    r = subprocess.run(["find", tree, "-name", "Kconfig*", "-newer", stamp, "-print", "-quit"],
                       capture_output=True, text=True)
    return bool(r.stdout.strip())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", choices=("debug", "trace"), help="the kernel's variant")
    ap.add_argument("--kernel", help="the build directory")
    ap.add_argument("--tree", default=TREE, help="the kernel tree (default build/linux)")
    ap.add_argument("--config-only", action="store_true", help="write the .config only")
    ap.add_argument("--progress", type=int, default=15, metavar="SECONDS",
                    help="how often to say how far along it is")
    args = ap.parse_args()
    tree = os.path.abspath(args.tree)
    kernel = os.path.abspath(args.kernel or kernel_dir(tree, args.variant))
    if not os.path.isfile(os.path.join(tree, "Makefile")):
        die(f"no {rel(tree)}: run make tree first")
    os.makedirs(kernel, exist_ok=True)
    configs = kunit.kunitconfigs(tree, args.variant)
    if os.path.isdir("/usr/lib/ccache"):
        os.environ["PATH"] = "/usr/lib/ccache:" + os.environ["PATH"]
        # Paths hashed relative to the checkout: a fresh clone elsewhere
        # (as CI's) hits the cache of an earlier build.
        os.environ.update(CCACHE_BASEDIR=TOP, CCACHE_NOHASHDIR="true")

    if args.config_only:
        log = os.path.join(kernel, "config.log")
        with open(log, "w") as f:
            r = subprocess.run(kunit.command("config", kernel, tree, configs), cwd=tree,
                               stdout=f, stderr=subprocess.STDOUT)
        if r.returncode:
            die(f"kunit.py config failed ({rel(log)})")
        return 0

    log = os.path.join(kernel, "build.log")
    stamp_inputs = os.path.join(kernel, ".kunit-inputs")
    digest = inputs_digest(tree, configs)
    # kunit.py build configures (olddefconfig, about 5 s) and checks that
    # every option of the kunitconfig stayed, before every build. When
    # neither its inputs nor a Kconfig file changed since the last build,
    # make alone does the same work.
    fast = (os.path.isfile(os.path.join(kernel, ".config")) and os.path.isfile(stamp_inputs)
            and open(stamp_inputs).read().strip() == digest
            and not newer_kconfig(tree, stamp_inputs))
    if fast:
        cmd = ["make", "-C", tree, "ARCH=arm64", "CROSS_COMPILE=aarch64-linux-gnu-",
               f"O={kernel}", f"-j{os.cpu_count()}"]
    else:
        if os.path.exists(stamp_inputs):
            os.unlink(stamp_inputs)
        cmd = kunit.command("build", kernel, tree, configs) + [f"--jobs={os.cpu_count()}"]
    total = None
    if not os.path.isfile(os.path.join(kernel, "vmlinux")):
        try:
            total = int(open(os.path.join(kernel, ".nr-objects")).read())
        except (OSError, ValueError):
            total = OBJECTS_ESTIMATE
    stamp = os.path.join(kernel, ".build-start")
    open(stamp, "w").close()
    start = time.time()
    tty = sys.stderr.isatty()
    what = f"the {args.variant} kernel" if args.variant else "the test kernel"
    note(f"building {what} in {rel(kernel)} ({'from scratch, ' if total else ''}log: {rel(log)})")

    def progress(final):
        n = objects_newer(kernel, stamp)
        done = f"{n} objects compiled"
        if total:
            done = f"{n} of about {total} objects compiled ({min(99, n * 100 // total)} %)"
        line = f"building {what}: {minsec(time.time() - start)}, {done}"
        if tty:
            sys.stderr.write(f"\r\033[Kbuild-kernel.py: {line}" + ("\n" if final else ""))
            sys.stderr.flush()
        elif not final:
            note(line)

    with open(log, "w") as f:
        proc = subprocess.Popen(cmd, cwd=tree, stdout=f, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        try:
            while True:
                try:
                    proc.wait(timeout=args.progress)
                    break
                except subprocess.TimeoutExpired:
                    progress(False)
        except BaseException:
            proc.kill()
            raise
    if tty:
        progress(True)
    if proc.returncode:
        with open(log, errors="replace") as f:
            lines = f.read().splitlines()
        errors = [x for x in lines if any(k in x for k in ("error:", "Error ", "ERROR", "Missing:"))]
        sys.stderr.write("\n".join((errors or lines[-20:])[:20]) + "\n")
        die(f"the build failed after {minsec(time.time() - start)} ({rel(log)})")
    if total:
        n = sum(f.endswith(".o") for _, _, fs in os.walk(kernel) for f in fs)
        open(os.path.join(kernel, ".nr-objects"), "w").write(f"{n}\n")
    open(stamp_inputs, "w").write(digest + "\n")
    note(f"built in {minsec(time.time() - start)} ({objects_newer(kernel, stamp)} objects compiled)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
