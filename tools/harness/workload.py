# SPDX-License-Identifier: GPL-2.0
"""The console of a boot with tools/guest/idle-workload.c as init: the
files the workload dumped at each phase (sections, files), the firmware
model's counters (model), genpd's and cpuidle's statistics (domains,
cpuidle), and the end-to-end checks of the boot (checks), by which the
topology boots, the boards, make check-dt, make demo and the repeated
boots are all judged.

The checks, for a boot in OS-initiated mode:
  - the kernel and the firmware model are in OSI mode;
  - every PM domain entered each of its idle states, and the model saw each
    node (cluster, system) enter as many distinct states;
  - every cpuidle rejection is a denial of the model (powerdown states resume
    successfully), and the model found no invalid request;
  - denials stay under DENIED_BOUND of the suspend requests while the
    workload runs without CPU hotplug;
  - no request was denied over a core that had stayed outside its idle
    path (cpu_pm_enter() to cpu_pm_exit(), as the model follows it through
    CPU PM notifications) since the requester entered its own: the OS
    releases a CPU's domains only within that path, so such a denial means
    the OS counted a running core as idle. Any other denial is the race
    OSI allows: the core had released its domains, or was taking them
    back, and the firmware saw the other request first. Likewise for a
    request denied over a child node's state (a cluster in retention under
    a system powerdown, or running while its cores sleep): explained only
    if that node changed state since the requester entered its idle path,
    as when a core of it woke and went back to a shallower state. An idle
    path that released no domain also explains: the check can miss an
    error of the OS, never blame a race. The denials while a core was
    booting (turned on, no CPU_SUSPEND yet) are shown with the number of
    boots that caused them, not checked;
  - after CPU 1 went offline and back, every node still powered down;
  - suspend-to-idle: the system woke up, every CPU entered its deepest
    state's s2idle path and every node powered down meanwhile (the
    workload tries again when the RTC's alarm came first: a wake-up event
    before the suspend, a refused suspend, or, as the kernel's trace
    shows, an exit after the noirq phase before suspend-to-idle's wait;
    only the last try is checked, and the name counts the others);
  - upstream's PSCI checker passed;
  - every CPU the device tree gives idle states has a cpuidle state beyond
    WFI (when the caller counted them with fdt.idle_cpus()): the checker
    above passes with no cpuidle state at all.
In platform-coordinated mode (a topology refused, or no model) only the
invalid requests, the rejections, the CPUs' idle states and the checker
are checked.

A boot whose model ran in shadow mode beside a real firmware (Trusted
Firmware-A, psci_fw_model=shadow) is judged by the firmware's answers:
  - the firmware answered SET_SUSPEND_MODE(OSI) with SUCCESS;
  - it found no CPU_SUSPEND invalid (INVALID_PARAMETERS) but those the
    model found invalid over a child node's newer state (a race, judged
    by the model) and, on a negative tree, those of the states its table
    lacks (the topology's firmware-invalid line);
  - each state above the core level, by the firmware's own count
    (PSCI_STAT_COUNT), was entered;
  - the model agreed with it on every INVALID_PARAMETERS, and on every
    other answer but where the firmware took the calls in another order
    than the model: another core called meanwhile, or a core of the node,
    suspended before a request the firmware denied, was resuming (the
    firmware counts it running from its warm boot, the model from its
    CPU_PM_EXIT);
  - cpuidle's rejections are at most the firmware's refusals and the
    powerdowns it returned from, which the OS counts as failures (TF-A
    returns SUCCESS without powering down when an interrupt is pending);
  - upstream's PSCI checker passed its hotplug test, and its suspend
    test's errors are at most the powerdowns the firmware returned from
    before the workload started.
"""
import re
from collections import Counter

DENIED_BOUND = 1 / 3
# The kernel's messages as a CPU comes up or is killed. The console
# prints them when printk gets to them, which for a CPU not yet online is
# later (7.3 often prints them inside a line the workload is writing,
# before its line end).
HOTPLUG_TAIL = re.compile(r"(Detected \S+ I-cache on CPU\d+|CPU\d+: Booted secondary processor |"
                          r"GICv3: CPU\d+: |psci: CPU\d+ killed ).*$")
# Upstream's PSCI checker's count of suspend test errors.
CHECKER_ERRORS = re.compile(r"psci_checker: (\d+) error\(s\) encountered in suspend tests")
# The workload's line after its hotplug storm.
STORM = re.compile(r"idle-workload: hotplug storm: (\d+ changes, (?P<failed>\d+) failed)")
# The boot log line of the test provider (PM_GENERIC_DOMAINS_TEST_PROVIDER)
# for each domain it registers.
TEST_PROVIDER = re.compile(r"pm-domain-test-provider \S+: PM domain (\S+) registered$")


def sections(log):
    """{when: [lines]} for every dump of the workload."""
    out, when = {}, None
    for line in log:
        m = re.match(r"=== idle-workload: (.*) ===$", line)
        if m and not m.group(1).startswith("end of "):
            when = m.group(1)
            out[when] = []
        elif m:
            when = None
        elif when:
            out[when].append(line)
    return out


def files(lines):
    """{path: [lines]} of one dump."""
    out, path = {}, None
    for line in lines:
        m = re.match(r"==> (.*) <==$", line)
        if m:
            path = m.group(1)
            out[path] = []
        elif path:
            out[path].append(line)
    return out


def model(dump):
    """The firmware model's counters, or None without a model."""
    lines = dump.get("/sys/kernel/debug/psci_fw_model")
    if lines is None:
        return None
    m = {"nodes": {}, "states": {}, "requests": [], "last denied": "none",
         "last invalid": "none"}
    table = None
    for line in lines:
        if line.startswith("role: "):
            m["role"] = line.split(": ", 1)[1]
        elif line.startswith("mode: "):
            m["mode"] = line.split()[1]
        elif line.startswith("format: "):
            m["format"] = line.split()[1]
        elif line.startswith("mode changes: "):
            m["mode_refused"] = int(line.split()[4])
        elif line.startswith("suspend requests: "):
            f = line.split()
            m["suspends"], m["denied"], m["invalid"] = int(f[2]), int(f[4]), int(f[6])
        elif line.startswith("longest run of a core behind another denial: "):
            m["window_us"] = int(line.split()[-2])
        elif line.startswith("cores turned on: "):
            m["cpu_ons"] = int(line.split()[-1])
        elif line.startswith("system suspends: "):
            f = line.split()
            m["system_suspends"], m["system_suspends_denied"] = int(f[2]), int(f[4])
        elif line.startswith("denied while a core was booting: "):
            m["denied_booting"] = int(line.split()[-1])
        elif line.startswith("booting cores that caused a denial: "):
            m["booting_blockers"] = int(line.split()[-1])
        elif line.startswith("denied over a child node's state: "):
            m["denied_child_state"] = int(line.split()[-1])
        elif line.startswith("denied with no race to explain it: "):
            m["denied_unexplained"] = int(line.split()[-1])
        elif line.startswith("invalid over a child node's state: "):
            m["invalid_child_state"] = int(line.split()[-1])
        elif line.startswith("invalid over a child node's state with no race to explain it: "):
            m["invalid_unexplained"] = int(line.split()[-1])
        elif line.startswith(("last denied: ", "last invalid: ")):
            key, value = line.split(": ", 1)
            m[key] = value
        elif line.startswith("stateids: "):
            m["stateids"] = line.split()[1]
        elif line.startswith("undeclared requests: "):
            f = line.split()
            m["undeclared"], m["undeclared_accepted"] = int(f[2]), int(f[4])
        elif line.startswith("level "):
            table = "nodes" if "denied" in line else "states"
        elif line.startswith("request "):
            table = "requests"
        elif line.startswith("call "):
            table = "agreement"
        elif line.startswith("firmware "):
            table = "firmware"
        elif line.startswith("powerdowns the firmware returned from: "):
            m["powerdowns_returned"] = int(line.split()[-1])
        elif line.startswith("disagreements: "):
            d = re.match(r"disagreements: (\d+) with another core's call meanwhile: (\d+) "
                         r"with a core of the node resuming: (\d+)$", line)
            if d:
                (m["disagreements"], m["disagreements_concurrent"],
                 m["disagreements_resuming"]) = map(int, d.groups())
        elif line.startswith("calls begun over a pending one: "):
            m["shadow_lost"] = int(line.split()[-1])
        elif line.startswith("longest wait for a resuming core: "):
            m["resuming_max_us"] = int(line.split()[-2])
        elif line.startswith("disagreement: "):
            m.setdefault("disagreement", []).append(line.split(": ", 1)[1])
        else:
            f = line.split()
            if table == "nodes" and len(f) >= 4 and f[0].isdigit():
                m["nodes"][f[1]] = {"level": int(f[0]), "denied": int(f[2]),
                                    "invalid": int(f[3]),
                                    "now": f[4] if len(f) > 4 else "?"}
            elif table == "states" and len(f) == 5 and f[0].isdigit():
                m["states"][(f[1], int(f[2]))] = (int(f[3]), int(f[4]))
            elif table == "agreement" and len(f) == 4 and f[3].isdigit():
                m.setdefault("agreement", []).append((f[0], f[1], f[2], int(f[3])))
            elif table == "firmware" and len(f) == 9 and f[0].startswith("0x"):
                m.setdefault("firmware", []).append({
                    "value": f[0], "node": f[1], "success": int(f[2]), "denied": int(f[3]),
                    "invalid": int(f[4]), "disagreed": int(f[5]), "unexplained": int(f[6]),
                    "entries": None if f[7] == "-" else int(f[7]),
                    "residency_us": None if f[8] == "-" else int(f[8])})
            elif table == "requests" and len(f) == 7 and f[0].startswith("0x"):
                level = int(f[2])
                m["requests"].append({
                    "value": f[0], "level": level, "node": f[3],
                    "state": (int(f[1], 16) >> (4 * level)) & 0xf,
                    "accepted": int(f[4]), "denied": int(f[5]), "invalid": int(f[6])})
    return m


def declared(m, node):
    """The local states the device tree declares for @node (the model's
    requests table), or None when the model does not show the table."""
    if "stateids" not in m:
        return None
    return {r["state"] for r in m["requests"] if r["node"] == node}


def domains(dump):
    """{domain: [(state, time_ms, usage, rejected, above, below)]}: the
    first six columns of each domain's idle_states, the same on both bases
    (7.3 adds S2idle after them)."""
    out = {}
    for path, lines in dump.items():
        m = re.match(r"/sys/kernel/debug/pm_genpd/(.*)/idle_states$", path)
        if not m:
            continue
        rows = []
        for line in lines[1:]:
            f = line.split()
            if len(f) >= 4 and f[0].startswith("S"):
                rows.append((f[0],) + tuple(int(x) for x in f[1:6]))
        out[m.group(1)] = rows
    return out


def cpuidle(dump):
    """{(cpu, state): {name, usage, rejected, time, above, below}}"""
    out = {}
    for path, lines in dump.items():
        m = re.match(r"/sys/devices/system/cpu/cpu(\d+)/cpuidle/state(\d+)/([\w/]+)$", path)
        if m and lines:
            key = (int(m.group(1)), int(m.group(2)))
            v = lines[0].strip()
            out.setdefault(key, {})[m.group(3)] = v if m.group(3) == "name" else int(v)
    return out


def node_entries(m, node):
    return sum(e for (n, s), (e, r) in m["states"].items() if n == node)


def node_residency(m, node):
    return sum(r for (n, s), (e, r) in m["states"].items() if n == node)


def node_down(before_dump, after_dump, node, after_event=False):
    """(ok, entries, why): @node of the firmware model entered a state
    between the dumps @before_dump and @after_dump (files()), or was down
    all along: the model shows it down at both dumps (its "now" column: a
    local state, or "off" after CPU_OFF of all its cores), genpd shows its
    domain off at both, and no stay in a state ended in between (its
    entries and residency did not move); why is "down all along" then. With @after_event, where the first dump comes
    after the event the window checks (CPUs back online, a resume), being
    down at the first dump is enough: a local state for the model (not
    "off", which CPU_OFF of all its cores gives) and off for genpd. The
    node may then wake just before the second dump and enter no state in
    between; it powered down after the event all the same. why is then
    "down at the first dump"."""
    before, after = model(before_dump), model(after_dump)
    a, b = node_entries(before, node), node_entries(after, node)
    name = node.rsplit("/", 1)[-1]

    def now(m):
        return m["nodes"].get(node, {}).get("now", "run")

    if b > a:
        return True, b - a, ""
    if (now(before) not in ("run", "?") and now(after) not in ("run", "?")
            and genpd_off(before_dump, name) and genpd_off(after_dump, name)
            and node_residency(before, node) == node_residency(after, node)):
        return True, 0, "down all along"
    if after_event and now(before) not in ("run", "off", "?") and genpd_off(before_dump, name):
        return True, 0, "down at the first dump"
    return False, b - a, ""


def genpd_summary(dump):
    """pm_genpd_summary in @dump, or None if the dump has no such file:
    (domains, devices), each a list of (name, status) in the order listed.
    A domain's line is unindented (status "on", or "off" with the state's
    index on 7.3); a device's is indented and starts with its sysfs path
    (status its runtime PM status), named here by the path's last part."""
    lines = dump.get("/sys/kernel/debug/pm_genpd/pm_genpd_summary")
    if lines is None:
        return None
    rule = next((i for i, line in enumerate(lines) if line.startswith("---")), -1)
    domains, devices = [], []
    for line in lines[rule + 1:]:
        f = line.split()
        if len(f) < 2:
            continue
        if line[:1].strip():
            domains.append((f[0], f[1]))
        elif f[0].startswith("/"):
            devices.append((f[0].rsplit("/", 1)[-1], f[1]))
    return domains, devices


def genpd_domains(dump):
    """The domains pm_genpd_summary in @dump lists, None if it has no such
    file."""
    summary = genpd_summary(dump)
    return None if summary is None else [name for name, _ in summary[0]]


def cores_under(m, node):
    """The cores below @node in the model's node table, which lists each
    node before the nodes below it."""
    names, level, inside = [], None, False
    for name, info in m["nodes"].items():
        if name == node:
            level, inside = info["level"], True
        elif inside and info["level"] >= level:
            break
        elif inside and info["level"] == 0:
            names.append(name)
    return names


def active_devices(dump):
    """The devices pm_genpd_summary in @dump shows runtime active."""
    devices = (genpd_summary(dump) or ([], []))[1]
    return [name for name, status in devices if status == "active"]


def why_up(before_dump, after_dump, node):
    """What the dumps show of a node that did not power down between them:
    each core's entries below it and its "now" at the second dump, and
    the CPU devices genpd shows active there."""
    before, after = model(before_dump), model(after_dump)
    cores = ", ".join(
        f"{c.rsplit('/', 1)[-1]} {node_entries(after, c) - node_entries(before, c)}"
        f" ({after['nodes'][c]['now']})" for c in cores_under(after, node))
    return (f"cores' entries (now): {cores}; active devices: "
            + (" ".join(active_devices(after_dump)) or "none"))


def genpd_off(dump, name):
    """Whether pm_genpd_summary in @dump shows domain @name powered off."""
    domains = (genpd_summary(dump) or ([], []))[0]
    return any(d == name and status.startswith("off") for d, status in domains)


def s2ram(log, dumps, check, nodes_grew):
    """Suspend-to-RAM with a CPU offline, under the firmware model in OSI
    mode, when the command line asks for it (idle_workload.s2ram): the
    firmware suspended the system (its own count of SYSTEM_SUSPEND), and
    every domain powers down again after the resume, the offline CPU's
    cluster too. Before the suspend, the offline CPU's cluster powers down
    once the CPU's PM domain device, held on from user space, is let go."""
    asked = any("Kernel command line:" in line and "idle_workload.s2ram" in line
                for line in log)
    if not asked:
        return
    said = [line.split(": ", 1)[1] for line in log
            if line.startswith("idle-workload: suspend-to-RAM: ")]
    if "after s2ram resume" not in dumps:
        check(False, "the system suspended to RAM and woke up ("
              + ("; ".join(said) or "the workload did not try") + ")")
        return
    before = model(files(dumps.get("after s2idle", []))) or {}
    after = model(files(dumps["after s2ram resume"])) or {}
    n = after.get("system_suspends", 0) - before.get("system_suspends", 0)
    denied = (after.get("system_suspends_denied", 0)
              - before.get("system_suspends_denied", 0))
    offline = [line.rsplit(", ", 1)[1] for line in log
               if line.startswith("idle-workload: back from suspend-to-RAM, ")]
    check(n == 1 and denied == 0,
          f"the firmware model suspended the system once, denying none "
          f"({n} SYSTEM_SUSPEND, {denied} denied"
          + (f"; {'; '.join(said)}" if said else "") + ")")
    released = files(dumps.get("offline device released", []))
    m = model(released)
    if not released:
        check(False, "the workload held the offline CPU's PM domain device on "
              "and let it go (no \"offline device released\" dump)")
    elif m:
        # The offline CPU's cluster: the node right above the core that
        # CPU_OFF left "off".
        only = [n for n, info in m["nodes"].items() if info["level"] == 1
                and any(m["nodes"][c]["now"] == "off" for c in cores_under(m, n))]
        check(only, "the firmware model shows the offline CPU off in a cluster "
              "when its PM domain device is let go")
        nodes_grew("offline device released",
                   "once the offline CPU's PM domain device is let go",
                   until="offline device idle", only=only, after_event=True)
    nodes_grew("after s2ram resume",
               f"again after suspend-to-RAM, {' '.join(offline) or 'a CPU offline'}",
               until="after s2ram idle", after_event=True)


def checks(log, dumps, idle_cpus=None, firmware_invalid=()):
    res = []

    def check(ok, what):
        res.append((bool(ok), what))

    def nodes_grew(when, what, until="end", only=None, after_event=False):
        """Every node above the cores (or of @only) entered a state between
        the dumps @when and @until, or was down (node_down())."""
        before_dump = files(dumps.get(when, []))
        after_dump = files(dumps.get(until, []))
        after = model(after_dump)
        if not model(before_dump) or not after:
            check(False, f"the workload dumped its counters {when} and {until}")
            return
        for node, info in sorted(after["nodes"].items()):
            # A node the tree gives no enabled state is never asked to
            # power down (checked once, with the states the model saw).
            if info["level"] and declared(after, node) == set():
                continue
            if info["level"] and (only is None or node in only):
                ok, entries, why = node_down(before_dump, after_dump, node, after_event)
                why = why if ok else why_up(before_dump, after_dump, node)
                check(ok, f"{node} powers down {what} ({entries} entries"
                      + (f", {why})" if why else ")"))

    end = files(dumps.get("end", []))
    if not end:
        check(False, "the workload ran to its end")
        return res
    mod = model(end)
    osi = any("topology using OSI mode" in line for line in log)
    # A PSCI domain probe that failed for good (not one that deferred and
    # then succeeded) removes every domain it created. Nothing else
    # provides PM domains on these machines but the test provider
    # (PM_GENERIC_DOMAINS_TEST_PROVIDER), whose domains stay.
    if any("failed to create CPU PM domains" in line for line in log) and \
            not any("Initialized CPU PM domain topology" in line for line in log):
        tests = {m.group(1) for m in map(TEST_PROVIDER.search, log) if m}
        left = genpd_domains(end)
        left = left if left is None else [d for d in left if d not in tests]
        check(left == [], "the failed PSCI domain probe left no PM domain registered"
              + (" (no pm_genpd_summary in the dump)" if left is None
                 else f" (left: {' '.join(left)})" if left else ""))
    idle = cpuidle(end)
    rejected = sum(s.get("rejected", 0) for s in idle.values())
    if idle_cpus:
        have = len({cpu for cpu, state in idle if state > 0})
        check(have >= idle_cpus,
              f"the CPUs have the idle states the tree gives them "
              f"({have} of {idle_cpus} CPUs have a cpuidle state beyond WFI)")
    shadow = bool(mod) and mod.get("role") == "shadow"
    if shadow:
        shadow_checks(log, mod, check, firmware_invalid)
    if mod and mod.get("mode") == "OSI" and not shadow:
        check(osi and mod["mode_refused"] == 0,
              "the kernel and the firmware model are in OSI mode")
    if mod and mod.get("mode") == "OSI":
        doms = domains(end)
        for dom, rows in sorted(doms.items()):
            unused = [r[0] for r in rows if r[2] == 0]
            # A state the firmware's table lacks is never entered: genpd
            # chose it, and counts the firmware's refusals as rejected
            # (7.3) or as entries (6.1).
            refused = [r[0] for r in rows if r[2] == 0 and r[3]] if firmware_invalid else []
            check(len(unused) == len(refused),
                  f"domain {dom} entered each of its {len(rows)} states"
                  + (f" (never: {' '.join(unused)})" if unused else "")
                  + (f", chosen and refused by the firmware: {' '.join(refused)}"
                     if refused else ""))
        for node, info in sorted(mod["nodes"].items()):
            if info["level"] == 0:
                continue
            name = node.rsplit("/", 1)[-1]
            got = sum(1 for (n, s) in mod["states"] if n == node)
            tree = declared(mod, node)
            if tree is None:
                want = len(doms.get(name, []))
                check(want and got == want,
                      f"the model saw {node} in {got} distinct states, genpd has {want}")
            else:
                # A node whose states are all disabled in the tree: genpd
                # powers it off with its default state, which asks the
                # firmware for nothing.
                check(got == len(tree) and (tree or len(doms.get(name, [])) == 1),
                      f"the model saw {node} in {got} distinct states, the tree "
                      f"declares {len(tree)} (genpd has {len(doms.get(name, []))})"
                      + ("" if tree else ": no enabled state, never powered down"))
        start = model(files(dumps.get("start", [])))
        steady = model(files(dumps.get("before hotplug", [])))
        if start and steady:
            denied = steady["denied"] - start["denied"]
            suspends = steady["suspends"] - start["suspends"]
            check(suspends and denied <= DENIED_BOUND * suspends,
                  f"denials {denied} of {suspends} requests during the workload, "
                  f"at most one in three (whole boot: {mod['denied']} of "
                  f"{mod['suspends']})")
        else:
            check(False, "the workload dumped its start and its steady phase")
        nodes_grew("after hotplug", "after the CPU 1 offline/online cycle",
                   until="before cluster offline" if "cluster offline" in dumps
                   else "after storm", after_event=True)
        if "cluster offline" in dumps:
            off = model(files(dumps["cluster offline"]))
            gone = [n for n, i in off["nodes"].items() if i["level"] and i["now"] == "off"]
            check(len(gone) == 1,
                  f"the model counts the offline cluster off ({' '.join(gone) or 'none'})")
            others = [n for n, i in off["nodes"].items() if i["level"] == 1 and n not in gone]
            nodes_grew("before cluster offline", "while another cluster is offline",
                       until="cluster offline", only=others)
            nodes_grew("cluster offline", "after the cluster is back",
                       until="after cluster offline")
        # A kernel message may follow on the same console line.
        storm = [m for m in map(STORM.search, log) if m]
        check(storm and storm[-1]["failed"] == "0",
              "the hotplug storm ran (" + (storm[-1][1] if storm else "no") + ")")
        nodes_grew("after storm", "after the hotplug storm", until="before s2idle",
                   after_event=True)
        # The last try's dump: the workload dumps "before s2idle again"
        # before each try after the first, and only the last try counts.
        base = "before s2idle again" if "before s2idle again" in dumps else "before s2idle"
        s2 = files(dumps.get(base, []))
        check(any("idle-workload: back from suspend-to-idle" in line for line in log),
              "the system suspended to idle and woke up")
        before_idle = cpuidle(s2)
        deepest = {}
        for (cpu, st), s in idle.items():
            deepest[cpu] = max(deepest.get(cpu, (-1, None)), (st, s))
        grown = [cpu for cpu, (st, s) in deepest.items()
                 if s.get("s2idle/usage", 0) >
                 before_idle.get((cpu, st), {}).get("s2idle/usage", 0)]
        # The tries on which the RTC's alarm came first (a slow host), by
        # kind: "count", "refused" or "noirq" (see the docstring).
        first = "idle-workload: suspend-to-idle: the alarm ("
        kinds = Counter(line.split("came first, ", 1)[1].split(":", 1)[0]
                        for line in log
                        if line.startswith(first) and "came first, " in line)
        early = (f", the alarm first in {sum(kinds.values())} "
                 f"({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))})"
                 if kinds else "")
        check(deepest and len(grown) == len(deepest),
              f"every CPU entered its deepest state in suspend-to-idle "
              f"({len(grown)} of {len(deepest)}{early})")
        nodes_grew(base, "across suspend-to-idle",
                   until="after s2idle" if "after s2idle" in dumps else "end")
        s2ram(log, dumps, check, nodes_grew)
    elif mod:
        check(not osi, "the kernel and the firmware model agree on PC mode")
    if mod:
        # A powerdown over a child node in retention is INVALID_PARAMETERS
        # (DEN0022D.b section 5.4, TF-A): made stale by the child's newer
        # state, it is judged as a race, as denials are; any other invalid
        # request is the OS's error.
        stale = mod.get("invalid_child_state", 0)
        unexplained = mod.get("invalid_unexplained", 0)
        check(mod["invalid"] == stale and unexplained == 0,
              f"the firmware model found {mod['invalid'] - stale} malformed requests, and "
              f"{stale} invalid over a child node's newer state, {unexplained} of them "
              f"with no race to explain it"
              + (f" (last: {mod['last invalid']})" if mod["invalid"] else ""))
        # The OS releases a CPU's domains only within its idle path: a
        # denial over a core that stayed outside it, or over a child node
        # that kept its state, all through the requester's, is its error.
        if osi:
            unexplained = mod.get("denied_unexplained")
            check(unexplained == 0,
                  f"every denial has a race to explain it: since the "
                  f"requester entered its idle path, the running core was in "
                  f"its own or the child node changed state "
                  f"({unexplained if unexplained is not None else 'no count from the model'}"
                  f" without; {mod.get('denied', 0)} denied, "
                  f"{mod.get('denied_child_state')} over a child node's state, "
                  f"{mod.get('denied_booting')} over a booting core, "
                  f"from {mod.get('booting_blockers')} of "
                  f"{mod.get('cpu_ons')} cores turned on)")
        # Suspend-to-idle does not count rejections: compare before it.
        # The dump is not a snapshot: CPUs idle while its files are read,
        # the model first, then each CPU's cpuidle files, then the model
        # again. Each rejection follows its denial, so the rejections read
        # lie between the denials read before and after them (equal when
        # nothing was denied meanwhile).
        when = "before s2idle" if "before s2idle" in dumps else "end"
        pre = files(dumps.get(when, []))
        pre_mod = model(pre) or mod
        post_mod = model(files(dumps.get(when + ", model after", []))) or pre_mod
        pre_rejected = sum(s.get("rejected", 0) for s in cpuidle(pre).values())
        if shadow:
            refused = firmware_refusals(post_mod) + post_mod.get("powerdowns_returned", 0)
            check(pre_rejected <= refused,
                  f"cpuidle rejections ({pre_rejected}) are at most the firmware's refusals "
                  f"and the powerdowns it returned from ({firmware_refusals(post_mod)} and "
                  f"{post_mod.get('powerdowns_returned', 0)}) up to suspend-to-idle")
        else:
            check(pre_mod["denied"] <= pre_rejected <= post_mod["denied"],
                  f"cpuidle rejections ({pre_rejected}) are the model's denials "
                  f"({pre_mod['denied']} before reading them, "
                  f"{post_mod['denied']} after) up to suspend-to-idle")
    else:
        check(rejected == 0, f"cpuidle rejections: {rejected}")
    hotplug = any("psci_checker: Hotplug tests passed OK" in line for line in log)
    errors = [int(m.group(1)) for m in map(CHECKER_ERRORS.search, log) if m]
    start = model(files(dumps.get("start", [])))
    if idle and shadow and errors and start:
        returned = start.get("powerdowns_returned", 0)
        check(hotplug and errors[-1] <= returned,
              f"upstream's PSCI checker passed hotplug, and its {errors[-1]} suspend "
              f"errors are at most the powerdowns the firmware returned from before "
              f"the workload ({returned})")
    elif idle:
        check(hotplug and any("psci_checker: Suspend tests passed OK" in line
                              for line in log),
              "upstream's PSCI checker passed (hotplug and suspend)")
    else:
        check(hotplug and any("psci_checker: Could not start suspend tests on any CPU"
                              in line for line in log),
              "upstream's PSCI checker passed hotplug (no CPU has a cpuidle state "
              "to suspend to)")
    return res


def firmware_refusals(m):
    """The firmware's answers to CPU_SUSPEND other than SUCCESS (shadow
    mode)."""
    return sum(n for call, _, fw, n in m.get("agreement", [])
               if call == "CPU_SUSPEND" and fw != "SUCCESS")


def shadow_checks(log, m, check, firmware_invalid=()):
    """The checks of a boot whose model ran beside a real firmware;
    @firmware_invalid: the requests the firmware's table lacks, which it
    must find invalid and the model, knowing only the tree, accepts."""
    rows = m.get("agreement", [])
    fw_mode = sum(n for call, _, fw, n in rows if call == "SET_SUSPEND_MODE" and fw == "SUCCESS")
    failed = any("psci: failed to set OSI mode" in line for line in log)
    osi = any("topology using OSI mode" in line for line in log)
    if osi:
        check(m.get("mode") == "OSI" and fw_mode and not failed,
              f"the kernel and the firmware are in OSI mode (the firmware answered "
              f"SET_SUSPEND_MODE with SUCCESS {fw_mode} times)")
    else:
        # The model's mode follows the firmware's answers.
        check(m.get("mode") == "PC",
              f"the kernel and the firmware are in PC mode (the firmware's mode, as the "
              f"model follows it: {m.get('mode')})")
    fw = m.get("firmware", [])
    invalid = sum(n for call, _, ans, n in rows
                  if call == "CPU_SUSPEND" and ans == "INVALID_PARAMETERS")
    # Invalid by the firmware's table, or stale as the model also judged
    # it (a powerdown over a child in retention: a race, which the model
    # explains or not; see checks()).
    lacking = [r for r in fw if r["value"] in firmware_invalid]
    expected = sum(r["invalid"] for r in lacking)
    stale = sum(n for call, model_ret, ans, n in rows if call == "CPU_SUSPEND"
                and model_ret == ans == "INVALID_PARAMETERS")
    check(invalid == expected + stale,
          f"the firmware found {invalid} CPU_SUSPEND requests invalid"
          + (f", {expected} of them of {' '.join(sorted(firmware_invalid))}, which its "
             f"table lacks" if firmware_invalid else "")
          + f", {stale} over a child node's newer state as the model found them, "
          f"{invalid - expected - stale} else")
    for value in sorted(firmware_invalid):
        of = [r for r in lacking if r["value"] == value]
        # PSCI_STAT_COUNT reads 0 for a power_state the firmware does
        # not know: its answers tell, not its count.
        check(of and all(r["invalid"] and not r["success"] for r in of),
              f"the firmware answered every request of {value} with INVALID_PARAMETERS ("
              + (", ".join(f"{r['invalid']} invalid, {r['success']} SUCCESS at {r['node']}"
                           for r in of) or "never requested") + ")")
    for r in fw:
        level = next((q["level"] for q in m["requests"]
                      if q["value"] == r["value"] and q["node"] == r["node"]), 0)
        if level == 0 or r["value"] in firmware_invalid or not osi:
            continue
        check(r["entries"], f"the firmware entered {r['value']}'s kind of state at {r['node']} "
              f"{r['entries'] if r['entries'] is not None else 'an unknown number of'} times "
              f"by its own count (PSCI_STAT_COUNT, CPU_OFF's included), "
              f"{r['residency_us'] or 0} us, for {r['success']} SUCCESS answers")
        check(r["unexplained"] == 0,
              f"the model and the firmware agreed on each answer to {r['value']} at "
              f"{r['node']} but where the firmware took the calls in another order "
              f"({r['disagreed']} disagreements, {r['unexplained']} unexplained)")
    # The model knows the tree, not the firmware's table: it disagrees on
    # each request of a state the table lacks.
    table_lacks = sum(r["unexplained"] for r in lacking)
    mine = sum(n for call, model_ret, ans, n in rows
               if "INVALID_PARAMETERS" in (model_ret, ans) and model_ret != ans)
    check(mine == sum(r["disagreed"] for r in lacking),
          f"the model and the firmware agreed on every INVALID_PARAMETERS "
          f"({mine} disagreements" + (f", all over the states the firmware's table "
                                      f"lacks" if firmware_invalid else "") + ")")
    table = ", ".join(f"{call} {model_ret}/{ans} {n}" for call, model_ret, ans, n in rows)
    alone = (m.get("disagreements", 0) - m.get("disagreements_concurrent", 0)
             - m.get("disagreements_resuming", 0) - table_lacks)
    check(alone == 0 and m.get("shadow_lost") == 0,
          f"every disagreement of the model with the firmware is explained: another "
          f"core's call meanwhile ({m.get('disagreements_concurrent', 0)}), a core of the "
          f"node resuming ({m.get('disagreements_resuming', 0)}, the longest wait "
          f"{m.get('resuming_max_us')} us) or a state the firmware's table lacks "
          f"({table_lacks}); {alone} of {m.get('disagreements', 0)} without, "
          f"{m.get('shadow_lost')} calls begun over a pending one (model/firmware: "
          f"{table or 'no calls'})"
          + "".join(f"; {d}" for d in m.get("disagreement", [])[-3:] if alone))


def read(path):
    """A console log's lines, without their line ends, with the kernel's
    CPU bring-up and kill messages that ran into a line of the workload
    split off onto lines of their own."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            m = HOTPLUG_TAIL.search(line)
            if m and m.start():
                out += [line[:m.start()], line[m.start():]]
            else:
                out.append(line)
    return out


def judge(log, idle_cpus=None, firmware_invalid=()):
    """The workload's dumps of console @log and the boot's checks:
    [(ok, what)]. @idle_cpus, when known, is how many CPUs the device tree
    gives idle states (fdt.idle_cpus()); @firmware_invalid, the requests
    a real firmware's table lacks ("0x01000011", the topology's
    firmware-invalid line)."""
    dumps = sections(log)
    return dumps, checks(log, dumps, idle_cpus, firmware_invalid)
