#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""LAVA jobs for the series' tests (docs/lab.md).

  lava-jobs.py write --out DIR [--kernel DIR] [--initrd FILE] [--topology NAME]
                     [--machine NAME] [--base-url URL]
      Writes into DIR the three jobs and the QEMU job's artifacts:
        qemu-TOPOLOGY.yaml  LAVA's "qemu" device type boots the kernel on
                            a topology (default osi-1x4) and a machine
                            (default test) with the
                            command our own topology boot runs
                            (harness/boot.py on harness/machine.py); its
                            monitors turn the KUnit suites' KTAP and the
                            workload's end into LAVA results;
        qemu-TOPOLOGY.argv  that command, one argument a line;
        artifacts/          what the job downloads: Image.gz (without
                            --kernel, as make check writes it: none, and
                            the job has no checksum for it), the
                            topology's DTB, initramfs.cpio (--initrd, or
                            the idle workload built into DIR/guest);
        board-sdm845-db845c.yaml, fvp-tfa-osi.yaml
                            templates for real OSI firmware
                            (ci/lava/osi-checks.sh as their test shell).
  lava-jobs.py validate JOB.yaml...
      KTAP: each job passes lava_common.schemas.validate (Debian's
      lava-common), strict.
  lava-jobs.py command JOB.yaml DEVICE_TYPES_DIR KEY=FILE...
      The QEMU command LAVA's dispatcher runs for the job: the device type's
      template (qemu.jinja2 of Debian's lava-server) rendered with the job's
      context, then the images' arguments with KEY ({kernel}, {initrd},
      {dtb}) replaced by FILE; one argument a line.
  lava-jobs.py compare OURS.argv LAVA.argv
      Our QEMU command against the one LAVA's dispatcher runs (one argument
      a line each): the same options and values, files compared by name,
      but for what LAVA's qemu device type adds to every job (-net nic,
      -net user, -monitor none). Prints the differences; exits 1 on any.
  lava-jobs.py sysfs CONSOLE.log PHASE DIR
      A sysfs and debugfs under DIR as the idle workload dumped them in a
      console log at PHASE ("=== idle-workload: PHASE ===" up to its end):
      pm_genpd's idle_states, cpuidle's state files, and each domain's
      devices and sub_domains from pm_genpd_summary. For the test of
      ci/lava/osi-checks.sh on a real boot's figures.
  lava-jobs.py monitor JOB.yaml CONSOLE.log
      The results the job's monitors find in a console log, as LAVA's
      dispatcher finds them (pexpect: the earliest of the end string and
      the pattern, in turn); lines "<monitor> <case> <result>", and
      "<monitor> status <passed|failed>".
  lava-jobs.py statuses CONSOLE.log MONITOR.results
      The kunit monitor's results against the statuses the kernel's KTAP
      parser (kunit_parser) gives every suite and test case of the same
      console: prints the differences and the counts; exits 1 on any.
"""

import argparse
import collections
import hashlib
import os
import re
import shlex
import shutil
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import TOOLS, TOP, die, kernel_base, rel, boot, kunit, topology, workload  # noqa: E402
from harness import machine as qemu  # noqa: E402

OSI_CHECKS = os.path.join(TOP, "ci", "lava", "osi-checks.sh")
KTAP_SH = os.path.join(TOOLS, "lib", "ktap.sh")

# A KTAP result line of a suite or of a test case (no indentation, or
# four spaces), as one pattern with the "result" group LAVA reads: "ok"
# (pass), "not ok" (fail), or, for a line with a SKIP directive, the empty
# string (skip), so that a skipped case is never counted a pass. The lines
# of a parameterised case's parameters (eight spaces) are left out: 6.1
# prints them "ok" with no directive when the case is skipped as a whole,
# and the case's own line gives its result. Anchored to the start of a
# line; the whole line must have arrived (up to its newline, after the
# carriage returns a pty adds: "\r\r\n" under LAVA) before it matches.
KTAP_PATTERN = (r"(?<![^\n])(?:    )?"
                r"(?P<result>not ok|ok(?! [0-9]+ [^\r\n#]*# SKIP)|(?=ok [0-9]+ [^\r\n#]*# SKIP))"
                r"(?:ok)? [0-9]+ (?P<test_case_id>[^\r\n#]+?) ?(?:# [^\r\n]*)?\r*\n")
KTAP_FIXUP = {"ok": "pass", "not ok": "fail", "": "skip"}

WORKLOAD_START = "idle-workload: start"
WORKLOAD_DONE = "idle-workload: done"

# Options LAVA's qemu device type adds to every command (qemu.jinja2): a
# network card and no monitor (and -nographic, which is also ours).
LAVA_ADDS = [("-monitor", "none"), ("-net", "user")]


def timeouts(job_minutes):
    # A monitor waits up to the connection timeout for its next match; the
    # workload's monitor has one match, at its end.
    return {"job": {"minutes": job_minutes}, "action": {"minutes": 15},
            "connection": {"minutes": 10}}


def option_pairs(argv):
    """QEMU's argv (program first) as [(option, value or None)]."""
    pairs, i = [], 1
    while i < len(argv):
        if i + 1 < len(argv) and not argv[i + 1].startswith("-"):
            pairs.append((argv[i], argv[i + 1]))
            i += 2
        else:
            pairs.append((argv[i], None))
            i += 1
    return pairs


def qemu_job(args, run):
    """The LAVA qemu job of Boot @run: the machine's context, the images
    with their arguments."""
    try:
        context = run.machine.lava_context()
    except qemu.MachineError as err:
        die(str(err))
    images = {"kernel": run.kernel, "initrd": run.initrd, "dtb": run.dtb}
    append = run.cmdline
    base = args.base_url.rstrip("/")
    image = {
        "kernel": {"image_arg": "-kernel {kernel} -append " + shlex.quote(append)},
        "initrd": {"image_arg": "-initrd {initrd}"},
        "dtb": {"image_arg": "-dtb {dtb}"},
    }
    for label, path in images.items():
        image[label]["url"] = f"{base}/{os.path.basename(path)}"
        if os.path.exists(path):
            with open(path, "rb") as f:
                image[label]["sha256sum"] = hashlib.sha256(f.read()).hexdigest()
    return {
        "device_type": "qemu",
        "job_name": f"hierarchical CPU idle: KUnit suites and idle workload on {args.topology} (QEMU, PSCI firmware model)",
        "timeouts": timeouts(30),
        "priority": "medium",
        "visibility": "public",
        "metadata": {"topology": args.topology,
                     "source": "tools/lab/lava-jobs.py (docs/lab.md)"},
        "context": context,
        "actions": [
            {"deploy": {"to": "tmpfs", "timeout": {"minutes": 5}, "images": image}},
            {"boot": {"method": "qemu", "media": "tmpfs", "timeout": {"minutes": 2}}},
            {"test": {"timeout": {"minutes": 20}, "monitors": [
                {"name": "kunit", "start": "KTAP version 1",
                 "end": WORKLOAD_START, "pattern": KTAP_PATTERN,
                 "fixupdict": KTAP_FIXUP},
                {"name": "idle-workload", "start": WORKLOAD_START,
                 "end": "reboot: Power down",
                 "pattern": r"(?P<test_case_id>idle-workload): (?P<result>done)\r*\n",
                 "fixupdict": {"done": "pass"}},
            ]}},
        ],
    }


def osi_checks_definition(name, description):
    """An inline test definition that runs ci/lava/osi-checks.sh."""
    with open(OSI_CHECKS) as f:
        script = f.read()
    with open(KTAP_SH) as f:
        writer = f.read()
    return {
        "from": "inline", "name": name, "path": f"inline/{name}.yaml",
        "repository": {
            "metadata": {"format": "Lava-Test Test Definition 1.0",
                         "name": name, "description": description},
            "run": {"steps": [
                "cat > /tmp/ktap.sh << 'KTAP_SH_EOF'\n" + writer + "KTAP_SH_EOF",
                "cat > /tmp/osi-checks.sh << 'OSI_CHECKS_EOF'\n" + script + "OSI_CHECKS_EOF",
                "sh /tmp/osi-checks.sh",
            ]},
        },
    }


def board_job(args):
    """A Qualcomm board with real OSI firmware: db845c (sdm845), fastboot."""
    checks = osi_checks_definition(
        "osi-checks", "genpd, cpuidle and PSCI statistics after an idle period")
    return {
        "device_type": "dragonboard-845c",
        "job_name": "hierarchical CPU idle on real OSI firmware: sdm845-db845c (template)",
        "timeouts": timeouts(45),
        "priority": "medium",
        "visibility": "public",
        "metadata": {"template": "fill in the URLs (docs/lab.md)",
                     "kernel": "the series, CONFIG_ARM_PSCI_FW_MODEL=n",
                     "boot.img": "mkbootimg with the kernel, qcom/sdm845-db845c.dtb appended, kernel command line: console=ttyMSM0,115200n8, root= the partition the lab flashes rootfs to, log_buf_len=4M (the checks read the boot log from its start)",
                     "rootfs": "an ext4 image with a shell, awk and dmesg (the LAVA overlay is applied to it)"},
        "actions": [
            {"deploy": {"to": "fastboot", "timeout": {"minutes": 15},
                        "images": {
                            "boot": {"url": "{{BOOT_IMG_URL}}"},
                            "rootfs": {"url": "{{ROOTFS_URL}}", "apply-overlay": True,
                                       "compression": "gz"}}}},
            {"boot": {"method": "fastboot", "timeout": {"minutes": 10},
                      "prompts": ["root@(.*):[/~]#", "/ #"]}},
            {"test": {"timeout": {"minutes": 15}, "definitions": [checks]}},
        ],
    }


def fvp_job(args):
    """Arm FVP Base RevC, TF-A with PSCI_OS_INIT_MODE=1, the model off."""
    checks = osi_checks_definition(
        "osi-checks", "genpd, cpuidle and PSCI statistics after an idle period")
    model = "/opt/model/Base_RevC_AEMvA_pkg/models/Linux64_GCC-9.3/FVP_Base_RevC-2xAEMvA"
    return {
        "device_type": "fvp",
        "job_name": "hierarchical CPU idle on TF-A in OS-initiated mode: FVP Base RevC (template)",
        "timeouts": timeouts(60),
        "priority": "medium",
        "visibility": "public",
        "metadata": {"template": "fill in the URLs and the model's image (docs/lab.md)",
                     "tf-a": "make PLAT=fvp PSCI_OS_INIT_MODE=1 ENABLE_PSCI_STAT=1 ENABLE_PMF=1 ARM_LINUX_KERNEL_AS_BL33=1 PRELOADED_BL33_BASE=0x80080000 ARM_PRELOADED_DTB_BASE=0x82000000 all fip",
                     "kernel": "the series, CONFIG_ARM_PSCI_FW_MODEL=n"},
        "actions": [
            {"deploy": {"to": "fvp", "timeout": {"minutes": 5}, "images": {
                "bl1": {"url": "{{TFA_BL1_URL}}"},
                "fip": {"url": "{{TFA_FIP_URL}}"},
                "kernel": {"url": "{{KERNEL_IMAGE_URL}}"},
                "dtb": {"url": "{{FVP_DTB_URL}}"},
                "ramdisk": {"url": "{{RAMDISK_URL}}", "format": "cpio.newc",
                            "overlays": {"lava": True}}}}},
            {"boot": {
                "method": "fvp", "timeout": {"minutes": 20},
                "docker": {"name": "fvp:base-revc", "local": True},
                "image": model,
                "license_variable": "ARMLMD_LICENSE_FILE={{LICENSE}}",
                "console_string": r"terminal_0: Listening for serial connection on port (?P<PORT>\d+)",
                "arguments": [
                    "-C cluster0.NUM_CORES=4", "-C cluster1.NUM_CORES=4",
                    "-C pctl.startup=0.0.0.0", "-C bp.secure_memory=1",
                    "-C bp.secureflashloader.fname={BL1}",
                    "-C bp.flashloader0.fname={FIP}",
                    "--data cluster0.cpu0={KERNEL}@0x80080000",
                    "--data cluster0.cpu0={DTB}@0x82000000",
                    "--data cluster0.cpu0={RAMDISK}@0x84000000",
                    "-C bp.ve_sysregs.exit_on_shutdown=1",
                    "-C cache_state_modelled=0",
                ],
                "prompts": ["/ #", "root@(.*):[/~]#"]}},
            {"test": {"timeout": {"minutes": 20}, "definitions": [checks]}},
        ],
    }


def validate(paths):
    from lava_common.schemas import validate as lava_validate
    from voluptuous import Invalid
    from harness.ktap import Ktap
    t = Ktap(len(paths))
    for path in paths:
        with open(path) as f:
            job = yaml.safe_load(f)
        try:
            lava_validate(job, strict=True)
            diag, ok = [], True
        except Invalid as exc:
            diag, ok = [str(exc)], False
        t.result(ok, f"{os.path.basename(path)}: valid for lava-common's schema (strict)", diag)
    return t.status()


def compare(ours_path, lava_path):
    """Print how LAVA's QEMU command differs from ours; 1 if it does."""
    def pairs(path):
        with open(path) as f:
            argv = f.read().splitlines()
        files = ("-kernel", "-initrd", "-dtb")
        return (os.path.basename(argv[0]),
                sorted((o, os.path.basename(v) if o in files else v)
                       for o, v in option_pairs(argv)))
    prog, ours = pairs(ours_path)
    lprog, lava = pairs(lava_path)
    missing = [p for p in ours if p not in lava]
    extra = [p for p in lava if p not in ours and p not in LAVA_ADDS
             and not (p[0] == "-net" and (p[1] or "").startswith("nic,"))]
    if prog != lprog:
        print(f"program: ours {prog}, LAVA's {lprog}")
    for p in missing:
        print("only ours:", *filter(None, p))
    for p in extra:
        print("only LAVA's:", *filter(None, p))
    return 1 if missing or extra or prog != lprog else 0


def command(job_path, types_dir, files):
    """The dispatcher's QEMU argv for the job (lava_dispatcher's
    CallQemuAction: the device's command, options and extra, then the
    images' arguments with their files)."""
    import jinja2
    with open(job_path) as f:
        job = yaml.safe_load(f)
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(types_dir),
                             trim_blocks=True, autoescape=False)
    device = yaml.safe_load(env.get_template(job["device_type"] + ".jinja2")
                            .render(**job.get("context", {})))
    qemu = device["actions"]["boot"]["methods"]["qemu"]["parameters"]
    words = [qemu["command"]] + qemu.get("options", []) + [str(e) for e in qemu.get("extra", [])]
    images = next(a["deploy"] for a in job["actions"] if "deploy" in a)["images"]
    subst = dict(kv.split("=", 1) for kv in files)
    for label, image in images.items():
        if label not in subst:
            sys.exit(f"lava-jobs.py: no file for image {label}")
        arg = image["image_arg"]
        for key, path in subst.items():
            arg = arg.replace("{%s}" % key, path)
        words.append(arg)
    # The dispatcher runs the words joined by spaces, split as a shell would.
    for word in shlex.split(" ".join(words)):
        print(word)


def monitor(job_path, log_path):
    """LAVA's monitors over a console log (TestMonitorAction)."""
    with open(job_path) as f:
        job = yaml.safe_load(f)
    # newline="": the carriage returns stay, as LAVA sees them.
    with open(log_path, errors="replace", newline="") as f:
        text = f.read()
    monitors = next(a["test"] for a in job["actions"]
                    if "test" in a and "monitors" in a["test"])["monitors"]
    pos, rc = 0, 0
    for mon in monitors:
        name, fix = mon["name"], mon.get("fixupdict", {})
        start = re.compile(mon["start"], re.DOTALL).search(text, pos)
        if not start:
            print(f"{name} status failed")
            return 1
        pos = start.end()
        end_re = re.compile(mon["end"], re.DOTALL)
        pat_re = re.compile(mon["pattern"], re.DOTALL)
        while True:
            e, p = end_re.search(text, pos), pat_re.search(text, pos)
            if e and (not p or e.start() <= p.start()):
                pos = e.end()
                print(f"{name} status passed")
                break
            if not p:
                print(f"{name} status failed")
                return 1
            pos = p.end()
            groups = p.groupdict()
            result = fix.get(groups["result"], groups["result"])
            case = re.sub(r"\W+", "_", groups["test_case_id"].strip().lower())
            print(f"{name} {case} {result}")
    return rc


def sysfs(log_path, phase, root):
    """Write the files a console log's PHASE dumped under ROOT."""
    dumps = workload.sections(workload.read(log_path))
    if phase not in dumps:
        die(f"no phase '{phase}' in {log_path}")
    files = workload.files(dumps[phase])
    summary = files.pop("/sys/kernel/debug/pm_genpd/pm_genpd_summary", [])
    dom, devices, subs = None, {}, {}
    for line in summary[3:]:
        if line and not line[0].isspace():
            dom = line.split()[0]
            devices.setdefault(dom, [])
            subs.setdefault(dom, [])
        elif dom and re.match(r"    \S", line):
            # A device: "/devices/genpd:0:cpu0" (6.1), "genpd:0:cpu0" (7.3).
            devices[dom].append(line.split()[0])
        elif dom and line.strip():
            subs[dom] += [c.strip() for c in line.split(",") if c.strip()]
    for d in devices:
        base = f"/sys/kernel/debug/pm_genpd/{d}"
        files[f"{base}/devices"] = devices[d]
        files[f"{base}/sub_domains"] = subs[d]
    for path, body in files.items():
        out = os.path.join(root, path.lstrip("/"))
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "w") as f:
            f.write("".join(l + "\n" for l in body))
    return 0


def statuses(log_path, results_path):
    """The kunit monitor's results against kunit_parser's statuses of the
    same console's suites and cases."""
    with open(log_path, "rb") as f:
        text = f.read().decode(errors="replace").replace("\r", "")
    test = kunit.parse(text.split("\n"))
    word = {"SUCCESS": "pass", "SKIPPED": "skip"}

    def slug(name):
        return re.sub(r"\W+", "_", name.strip().lower())
    want = collections.Counter()
    for suite in test.subtests:
        want[(slug(suite.name), word.get(suite.status.name, "fail"))] += 1
        for case in suite.subtests:
            want[(slug(case.name), word.get(case.status.name, "fail"))] += 1
    with open(results_path) as f:
        got = collections.Counter(tuple(line.split()[1:3]) for line in f
                                  if line.startswith("kunit ")
                                  and not line.startswith("kunit status "))
    for k in sorted((want - got) + (got - want)):
        print("kunit.py:" if k in want - got else "monitor:", *k)
    print(f"{sum(got.values())} results, "
          f"{sum(v for k, v in got.items() if k[1] == 'skip')} skipped")
    return 0 if want == got and got else 1


def write_jobs(args):
    """The three jobs, the QEMU job's command and its artifacts."""
    arts = os.path.join(args.out, "artifacts")
    os.makedirs(arts, exist_ok=True)
    for f in os.listdir(args.out):
        if f.endswith((".yaml", ".argv")):
            os.unlink(os.path.join(args.out, f))
    for f in os.listdir(arts):
        os.unlink(os.path.join(arts, f))
    try:
        topo = topology.find(args.topology, kernel_base(args.kernel) if args.kernel else None)
        kernel = os.path.join(arts, "Image.gz")
        if args.kernel:
            shutil.copy(boot.kernel_image(args.kernel), kernel)
        shutil.copy(args.initrd or boot.build_guest(os.path.join(args.out, "guest")),
                    os.path.join(arts, "initramfs.cpio"))
        run = boot.topology_boot(topo, kernel, os.path.join(arts, f"{topo.name}.dtb"),
                                 os.path.join(arts, "initramfs.cpio"),
                                 base=qemu.MACHINES[args.machine],
                                 must_exist=bool(args.kernel))
    except (topology.TopologyError, boot.BootError) as err:
        die(str(err))
    with open(os.path.join(args.out, f"qemu-{topo.name}.argv"), "w") as f:
        f.write("\n".join(run.argv) + "\n")
    args.topology = topo.name
    write(qemu_job(args, run), os.path.join(args.out, f"qemu-{topo.name}.yaml"))
    write(board_job(args), os.path.join(args.out, "board-sdm845-db845c.yaml"))
    write(fvp_job(args), os.path.join(args.out, "fvp-tfa-osi.yaml"))
    sys.stderr.write(f"lava-jobs.py: wrote {rel(args.out)}: qemu-{topo.name}.yaml (its command "
                     f"in qemu-{topo.name}.argv, its artifacts in artifacts/), "
                     "board-sdm845-db845c.yaml, fvp-tfa-osi.yaml\n")
    return 0


def write(job, path):
    with open(path, "w") as f:
        f.write("# Generated by tools/lab/lava-jobs.py; docs/lab.md says how to run it.\n")
        yaml.safe_dump(job, f, sort_keys=False, width=1000)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write")
    w.add_argument("--out", required=True)
    w.add_argument("--kernel", help="the test kernel's build directory")
    w.add_argument("--initrd", help="the initramfs (default: the idle workload, built)")
    w.add_argument("--topology", default="osi-1x4")
    w.add_argument("--machine", default="test", choices=sorted(qemu.MACHINES),
                   help="the machine (harness/machine.py; default test)")
    w.add_argument("--base-url", default="https://lab.example.org/artifacts/hierarchical-idle")
    v = sub.add_parser("validate")
    v.add_argument("jobs", nargs="+")
    c = sub.add_parser("command")
    c.add_argument("job")
    c.add_argument("types_dir")
    c.add_argument("files", nargs="*")
    k = sub.add_parser("compare")
    k.add_argument("ours")
    k.add_argument("lava")
    f = sub.add_parser("sysfs")
    f.add_argument("log")
    f.add_argument("phase")
    f.add_argument("root")
    m = sub.add_parser("monitor")
    m.add_argument("job")
    m.add_argument("log")
    st = sub.add_parser("statuses")
    st.add_argument("log")
    st.add_argument("results")
    args = ap.parse_args()

    if args.cmd == "write":
        return write_jobs(args)
    if args.cmd == "validate":
        return validate(args.jobs)
    if args.cmd == "command":
        return command(args.job, args.types_dir, args.files)
    if args.cmd == "compare":
        return compare(args.ours, args.lava)
    if args.cmd == "sysfs":
        return sysfs(args.log, args.phase, args.root)
    if args.cmd == "monitor":
        return monitor(args.job, args.log)
    return statuses(args.log, args.results)


if __name__ == "__main__":
    sys.exit(main())
