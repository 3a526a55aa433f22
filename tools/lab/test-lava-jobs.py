#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The LAVA jobs (docs/lab.md) against what our own tools run, as KTAP:

  - tools/lab/lava-jobs.py writes the jobs, and lava-common validates them;
  - the QEMU command LAVA's dispatcher would run for the qemu job (the
    qemu device type of Debian's lava-server, rendered with the job's
    context) is our topology boot's, argument for argument, but for what
    LAVA's device type adds to every job (a network card, no monitor);
  - the artifacts the job downloads are the files our boot read;
  - that command, run here on a pty as LAVA runs it, boots: the job's
    monitors, read as LAVA reads them, report exactly the statuses the
    kernel's KTAP parser finds for every suite and test case (skips as
    skips) and the workload's end, and find the same results in our own
    boot's console of the topology;
  - ci/lava/osi-checks.sh, the templates' test shell, passes on a real
    boot's dumped figures and fails each of four broken variants.

    test-lava-jobs.py --kernel DIR --out DIR --console FILE --ours FILE
                      --ours-argv FILE --initrd FILE [--machine NAME]

--ours and --ours-argv are the console and the QEMU command of make
test's boot of the job's topology (osi-1x4), --initrd the workload it
booted, --machine the machine of harness/machine.py it booted on (test;
debug for the debug kernel); --console is where LAVA's boot of the job
goes.
"""
import argparse
import filecmp
import os
import re
import shlex
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import BUILD, TOOLS, TOP, PYTHON, rel, kunit, proc  # noqa: E402
from harness import machine as qemu  # noqa: E402
from harness.ktap import Ktap  # noqa: E402

LAVA_JOBS = os.path.join(TOOLS, "lab", "lava-jobs.py")
OSI_CHECKS = os.path.join(TOP, "ci", "lava", "osi-checks.sh")
LAVA_SERVER = os.path.join(BUILD, "lava-server")
TOPOLOGY = "osi-1x4"
BOOT_TIMEOUT = 600
PLAN = 16


def run(*argv, out=None):
    """tools/lab/lava-jobs.py's exit status and output; its standard
    output also into @out."""
    r = subprocess.run([PYTHON, LAVA_JOBS] + list(argv), capture_output=True, text=True,
                       stdin=subprocess.DEVNULL)
    if out:
        with open(out, "w") as f:
            f.write(r.stdout)
    return r.returncode, r.stdout + r.stderr


def device_types():
    """LAVA's device-type templates, from Debian's lava-server package
    (downloaded, not installed: only its templates are read)."""
    types = os.path.join(LAVA_SERVER, "x", "usr", "share", "lava-server", "device-types")
    if not os.path.isfile(os.path.join(types, "qemu.jinja2")):
        shutil.rmtree(LAVA_SERVER, ignore_errors=True)
        os.makedirs(LAVA_SERVER)
        subprocess.run("apt-get download lava-server && dpkg-deb -x lava-server_*.deb x",
                       shell=True, cwd=LAVA_SERVER, capture_output=True)
    return types


def ktap_tests(text):
    """{name: (status name, [diagnostic lines])} of a KTAP output's
    results, as the kernel's parser reads them."""
    test = kunit.parse(text.splitlines())
    return {path[-1]: (t.status.name, [x.lstrip("# ") for x in t.log])
            for path, t in kunit.leaves(test)}


def fake_root(root, ours, phase):
    """A /sys and /sys/kernel/debug under @root as the workload dumped
    them at @phase of console @ours, a domain of the SoC that is not a
    CPU's and never idles, and the boot log's own lines."""
    shutil.rmtree(root, ignore_errors=True)
    rc, err = run("sysfs", ours, phase, root)
    if rc:
        raise RuntimeError(err)
    g = os.path.join(root, "sys/kernel/debug/pm_genpd/gpu-cx")
    os.makedirs(g)
    for f in ("devices", "sub_domains"):
        open(os.path.join(g, f), "w").close()
    with open(os.path.join(g, "idle_states"), "w") as f:
        f.write("State          Time Spent(ms) Usage      Rejected\nS0             0              0          0\n")
    # What 6.1's debugfs psci prints for a PSCI 1.1 firmware with OSI.
    with open(os.path.join(root, "sys/kernel/debug/psci"), "w") as f:
        f.write("PSCIv1.1\nOSI is supported\nOriginal StateID format is used\n"
                "STAT_COUNT is supported\n")
    os.makedirs(os.path.join(root, "log"))
    with open(ours, errors="replace") as f:
        log = f.read()
    with open(os.path.join(root, "log", "dmesg"), "w") as f:
        for pat in (r"Booting Linux on physical CPU.*",
                    r"CPUidle PSCI: Initialized CPU PM domain topology using OSI mode"):
            m = re.search(pat, log)
            if m:
                f.write(m.group(0).rstrip("\r") + "\n")


def s1_entries(root):
    path = os.path.join(root, "sys/kernel/debug/pm_genpd/power-domain-cluster/idle_states")
    with open(path) as f:
        return next(int(line.split()[2]) for line in f if line.split()[:1] == ["S1"])


def osi_checks(fake, dmesg_edit=None):
    """ci/lava/osi-checks.sh on @fake, its idle period turning the
    "before" figures into those of @fake.after; its status and results."""
    dmesg = os.path.join(fake, "log", "dmesg")
    if dmesg_edit:
        with open(dmesg) as f:
            text = dmesg_edit(f.read())
        with open(dmesg, "w") as f:
            f.write(text)
    idle = f"cp -r {shlex.quote(fake + '.after/sys')} {shlex.quote(fake + '/')}"
    r = subprocess.run(["sh", OSI_CHECKS, "--root", fake, "--dmesg", dmesg, "--idle", idle],
                       capture_output=True, text=True)
    return r.returncode, ktap_tests(r.stdout), r.stdout + r.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel", required=True, help="the kernel's build directory")
    ap.add_argument("--out", required=True, help="where the jobs and this check's files go")
    ap.add_argument("--console", required=True, help="where LAVA's boot's console goes")
    ap.add_argument("--ours", required=True, help="our own boot's console of the topology")
    ap.add_argument("--ours-argv", required=True, help="our own boot's QEMU command")
    ap.add_argument("--initrd", required=True, help="the workload our own boot ran")
    ap.add_argument("--machine", default="test", choices=sorted(qemu.MACHINES),
                    help="the machine our own boot ran on (harness/machine.py)")
    args = ap.parse_args()
    out = args.out
    os.makedirs(out, exist_ok=True)
    proc.stop_on_signals()
    t = Ktap(PLAN)

    # 1. The jobs, validated (their KTAP as diagnostics).
    rc, text = run("write", "--out", out, "--kernel", args.kernel, "--initrd", args.initrd,
                   "--topology", TOPOLOGY, "--machine", args.machine)
    jobs = sorted(os.path.join(out, f) for f in os.listdir(out) if f.endswith(".yaml"))
    if rc == 0:
        rc, text = run("validate", *jobs)
    t.result(rc == 0 and len(jobs) == 3,
             "tools/lab/lava-jobs.py writes the three jobs and lava-common validates them",
             text.splitlines())
    job = os.path.join(out, f"qemu-{TOPOLOGY}.yaml")
    arts = os.path.join(out, "artifacts")

    # 2. LAVA's device type for qemu.
    types = device_types()
    t.result(os.path.isfile(os.path.join(types, "qemu.jinja2")),
             f"lava-server's device-type templates are at hand ({rel(types)})")

    # 3. The dispatcher's command against ours.
    lava_argv = os.path.join(out, "lava.argv")
    run("command", job, types, f"kernel={arts}/Image.gz", f"initrd={arts}/initramfs.cpio",
        f"dtb={arts}/{TOPOLOGY}.dtb", out=lava_argv)
    # Against the command lava-jobs.py wrote beside the job, and against
    # the one our own boot of the topology ran (--ours-argv).
    rc, diff = run("compare", os.path.join(out, f"qemu-{TOPOLOGY}.argv"), lava_argv)
    rc_ours, diff_ours = run("compare", args.ours_argv, lava_argv)
    rc, diff = rc or rc_ours, diff + diff_ours
    t.result(rc == 0, f"LAVA's QEMU command for the job is our {TOPOLOGY} boot's "
             "(LAVA adds only -net nic, -net user, -monitor none)", diff.splitlines())
    with open(lava_argv) as f:
        argv = f.read().splitlines()
    # The files make test's own boot of the topology ran, by its command.
    with open(args.ours_argv) as f:
        booted = f.read().splitlines()
    pairs = [(booted[i + 1], os.path.join(arts, name)) for i, opt in enumerate(booted[:-1])
             for o, name in (("-kernel", "Image.gz"), ("-initrd", "initramfs.cpio"))
             if opt == o]
    same = [os.path.exists(a) and os.path.exists(b) and filecmp.cmp(a, b, shallow=False)
            for a, b in pairs]
    t.result(len(same) == 2 and all(same),
             f"the job's artifacts are the kernel and initramfs our boot ran ({len(same)} compared)",
             [f"{rel(a)} and {rel(b)} differ" for (a, b), ok in zip(pairs, same) if not ok])

    # 4. LAVA's command booted as LAVA's dispatcher does, on a pty
    # (script(1)), which turns each of the guest's "\r\n" into "\r\r\n".
    # QEMU must be in the pty's foreground process group, as under LAVA's
    # pexpect: a plain timeout(1) puts it in a group of its own, and where
    # script's shell is dash QEMU's first tcsetattr() then stops it with
    # SIGTTOU.
    cmd = " ".join(shlex.quote(a) for a in
                   ["timeout", "--foreground", str(BOOT_TIMEOUT)] + argv)
    with open(args.console, "wb") as f:
        rc = proc.run(["script", "-qefc", cmd, "/dev/null"], group=True,
                      stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                      env=dict(os.environ, SHELL="/bin/sh"))
    with open(args.console, "rb") as f:
        raw = f.read().decode(errors="replace")
    t.result("idle-workload: done" in raw,
             "LAVA's command boots the kernel, its suites and the workload to the end",
             [] if rc == 0 else [f"script(1) and QEMU exited {rc}" + (
                 f": timed out after {BOOT_TIMEOUT} s" if rc == 124 else "")])
    t.result(raw.count("\r\r\n") > 100,
             "the console reads as LAVA reads it: lines end in \\r\\r\\n")

    results = os.path.join(out, "lava-boot.results")
    rc, _ = run("monitor", job, args.console, out=results)
    t.result(rc == 0, "the job's two monitors find their start and end strings")
    rc, diff = run("statuses", args.console, results)
    last = diff.strip().splitlines()[-1] if diff.strip() else "no output"
    t.result(rc == 0, "the kunit monitor's results are kunit.py's statuses of every suite and "
             f"test case, skips as skips ({last})", diff.splitlines()[:20])
    with open(results) as f:
        got = f.read().splitlines()
    fails = sum(1 for line in got if line.startswith("kunit ") and line.endswith(" fail"))
    t.result(fails == 0, f"no KUnit result of LAVA's boot is a failure ({fails})")
    t.result("idle-workload idle_workload pass" in got,
             "the idle-workload monitor reports the workload's end as a pass")
    own = os.path.join(out, "own-boot.results")
    rc, _ = run("monitor", job, args.ours, out=own)
    with open(own) as f:
        own_got = f.read().splitlines()
    t.result(rc == 0 and own_got == got,
             f"the monitors find the same results in our own {TOPOLOGY} boot ({rel(args.ours)})",
             [f"ours: {a} / LAVA's: {b}" for a, b in zip(own_got, got) if a != b][:20])

    # 5. The templates' test shell on the figures of a real boot: the
    # files the workload dumped in our own boot before and after its first
    # idle phase, then four broken cases.
    fake = os.path.join(out, "fake-sysfs")
    try:
        fake_root(fake + ".after", args.ours, "before hotplug")
        fake_root(fake, args.ours, "start")
        entries = s1_entries(fake + ".after") - s1_entries(fake)
        rc, res, text = osi_checks(fake)
        entered = res.get("genpd.power-domain-cluster.S1.entered", ("", []))
        found = res.get("genpd-cpu-domains-found", ("", []))
        ok = (rc == 0 and entries > 0 and entered[0] == "SUCCESS"
              and f"{entries} entries" in entered[1] and found[0] == "SUCCESS"
              and "5 domains" in found[1] and not any("gpu-cx" in n for n in res))
    except (OSError, RuntimeError, StopIteration) as err:
        ok, entries, text = False, 0, str(err)
    t.result(ok, "ci/lava/osi-checks.sh passes on a real boot's figures, counts the cluster's "
             f"{entries} entries into S1, judges its 5 CPU domains and not the GPU's",
             text.splitlines()[:12])

    def broken(name, edit=None, unentered=False, after_phase="before hotplug"):
        try:
            fake_root(fake + ".after", args.ours, after_phase)
            fake_root(fake, args.ours, "start")
            if unentered:
                for root in (fake, fake + ".after"):
                    p = os.path.join(root, "sys/kernel/debug/pm_genpd/"
                                     "power-domain-cluster/idle_states")
                    with open(p) as f:
                        text = re.sub(r"^(S1 +[0-9]+ +)[0-9]+", r"\g<1>0", f.read(),
                                      flags=re.M)
                    with open(p, "w") as f:
                        f.write(text)
            rc, res, _ = osi_checks(fake, edit)
            return rc != 0 and res.get(name, ("",))[0] == "FAILURE"
        except (OSError, RuntimeError):
            return False

    t.result(broken("genpd.power-domain-cluster.S1.entered", unentered=True),
             "ci/lava/osi-checks.sh fails a domain state not entered in the idle period")
    t.result(broken("osi-mode", lambda d: re.sub(r".*OSI mode.*\n", "", d)),
             "ci/lava/osi-checks.sh fails a boot not in OSI mode")
    t.result(broken("firmware-model-not-in-charge",
                    lambda d: d + "psci: firmware model: in charge: it answers for the "
                    "firmware (psci_fw_model=on)\n"
                    "psci: firmware model: OS-initiated mode\n"),
             "ci/lava/osi-checks.sh fails a kernel whose firmware model answers for the "
             "firmware")
    t.result(broken("boot-log-complete", lambda d: re.sub(r".*Booting Linux.*\n", "", d)),
             "ci/lava/osi-checks.sh fails a boot log that lost its start")
    return t.status()


if __name__ == "__main__":
    sys.exit(main())
