#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The LAVA jobs (docs/lab.md) against what our own tools run, as KTAP
# (suite lava_jobs of make test):
#  - tools/lava-jobs.sh writes the jobs, and lava-common validates them;
#  - the QEMU command LAVA's dispatcher would run for the qemu job (the
#    qemu device type of Debian's lava-server, rendered with the job's
#    context) is our topology boot's, argument for argument, but for what
#    LAVA's device type adds to every job (a network card, no monitor);
#  - the artifacts the job downloads are the files our boot read;
#  - that command, run here on a pty as LAVA runs it, boots: the job's
#    monitors, read as LAVA reads them, report exactly the statuses
#    kunit.py's parser finds for every suite and test case (skips as
#    skips) and the workload's end, and find the same results in our own
#    boot's log of the topology;
#  - ci/lava/osi-checks.sh, the templates' test shell, passes on a real
#    boot's dumped figures and fails each of four broken variants.
# Needs make test's kernel and topology boots (build/topologies/).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

name=osi-1x4
out="$build/lava-check$sfx"
types="$build/lava-server/x/usr/share/lava-server/device-types"
ktap_n=0
echo "KTAP version 1"

# 1. The jobs, validated (their KTAP as diagnostics).
LAVA_OUT=$out "$top/tools/lava-jobs.sh" "$name" > "$out.validate" 2> "$out.stderr"
ktap_check $? "tools/lava-jobs.sh writes the three jobs and lava-common validates them"
sed 's/^/# /' "$out.validate"
job="$out/qemu-$name.yaml"

# 2. LAVA's device type for qemu, from Debian's lava-server package
# (downloaded, not installed: only its templates are read).
if [ ! -f "$types/qemu.jinja2" ]; then
	rm -rf "$build/lava-server"
	mkdir -p "$build/lava-server"
	(cd "$build/lava-server" && apt-get download lava-server > /dev/null 2>&1 &&
		dpkg-deb -x lava-server_*.deb x)
fi
[ -f "$types/qemu.jinja2" ]
ktap_check $? "lava-server's device-type templates are at hand (${types#$top/})"

# 3. The dispatcher's command against ours.
arts="$out/artifacts"
"$top/tools/lava-jobs.py" command "$job" "$types" kernel="$arts/Image.gz" \
	initrd="$arts/initramfs.cpio" dtb="$arts/$name.dtb" > "$out/lava.argv"
"$top/tools/lava-jobs.py" compare "$out/qemu-$name.argv" "$out/lava.argv" > "$out/argv.diff"
ktap_check $? "LAVA's QEMU command for the job is our $name boot's (LAVA adds only -net nic, -net user, -monitor none)"
sed 's/^/# /' "$out/argv.diff"

ok=0 n=0
while read -r a; do
	case $a in
	*/Image.gz | */initramfs.cpio)
		n=$((n + 1))
		cmp -s "$a" "$arts/${a##*/}" || ok=1 ;;
	esac
done < "$out/qemu-$name.argv"
[ $n -eq 2 ] || ok=1
ktap_check $ok "the job's artifacts are the kernel and initramfs our boot ran ($n compared)"

# 4. Boot LAVA's command as LAVA's dispatcher does, on a pseudo-terminal
# (script(1)): the pty turns each of the guest's "\r\n" into "\r\r\n".
# Read its console with the job's monitors.
# QEMU must be in the pty's foreground process group, as under LAVA's
# pexpect: a plain timeout(1) puts it in a group of its own, and where
# script's shell is dash (SHELL unset, as under CI) QEMU's first tcsetattr()
# then stops it with SIGTTOU and nothing is printed until the timeout.
log="$out/lava-boot.log"
mapfile -t argv < "$out/lava.argv"
SHELL=/bin/sh script -qefc "$(printf '%q ' timeout --foreground 600 "${argv[@]}")" \
	/dev/null < /dev/null > "$log" 2>&1
rc=$?
grep -q 'idle-workload: done' "$log"
ktap_check $? "LAVA's command boots the kernel, its suites and the workload to the end"
[ $rc -eq 0 ] || echo "# script(1) and QEMU exited $rc$( [ $rc -eq 124 ] && echo ': timed out after 600 s')"
[ "$(grep -c $'\r\r$' "$log")" -gt 100 ]
ktap_check $? "the console reads as LAVA reads it: lines end in \\r\\r\\n"

"$top/tools/lava-jobs.py" monitor "$job" "$log" > "$out/lava-boot.results"
ktap_check $? "the job's two monitors find their start and end strings"
# kunit.py's own parser, on the same console, gives each suite's and each
# test case's status: the monitors must report exactly those.
/usr/bin/python3 - "$tree/tools/testing/kunit" "$log" "$out/lava-boot.results" \
	> "$out/kunit-parser.diff" <<'EOF2'
import collections, io, re, sys
sys.path.insert(0, sys.argv[1])
import kunit_parser
from kunit_parser import TestStatus
text = open(sys.argv[2], "rb").read().decode(errors="replace").replace("\r", "")
kunit_parser.stdout._output = io.StringIO()   # its progress lines
test = kunit_parser.parse_run_tests(l + "\n" for l in text.split("\n"))
word = {TestStatus.SUCCESS: "pass", TestStatus.SKIPPED: "skip"}
slug = lambda n: re.sub(r"\W+", "_", n.strip().lower())
want = collections.Counter()
for suite in test.subtests:
    want[(slug(suite.name), word.get(suite.status, "fail"))] += 1
    for case in suite.subtests:
        want[(slug(case.name), word.get(case.status, "fail"))] += 1
got = collections.Counter(tuple(l.split()[1:3]) for l in open(sys.argv[3])
                          if l.startswith("kunit ") and not l.startswith("kunit status "))
for k in sorted((want - got) + (got - want)):
    print("kunit.py:" if k in want - got else "monitor:", *k)
print(f"{sum(got.values())} results, {sum(v for k, v in got.items() if k[1] == 'skip')} skipped")
sys.exit(0 if want == got and got else 1)
EOF2
ktap_check $? "the kunit monitor's results are kunit.py's statuses of every suite and test case, skips as skips ($(tail -1 "$out/kunit-parser.diff"))"
head -20 "$out/kunit-parser.diff" | sed 's/^/# /'
fails=$(grep -c '^kunit [^ ]* fail$' "$out/lava-boot.results")
[ "$fails" -eq 0 ]
ktap_check $? "no KUnit result of LAVA's boot is a failure ($fails)"
grep -qx 'idle-workload idle_workload pass' "$out/lava-boot.results"
ktap_check $? "the idle-workload monitor reports the workload's end as a pass"

ours="$build/topologies$sfx/$name.log"
"$top/tools/lava-jobs.py" monitor "$job" "$ours" > "$out/own-boot.results" &&
	diff -u "$out/own-boot.results" "$out/lava-boot.results" > "$out/results.diff"
ktap_check $? "the monitors find the same results in our own $name boot (${ours#$top/})"
head -20 "$out/results.diff" | sed 's/^/# /'

# 5. The templates' test shell on the figures of a real boot: the sysfs
# and debugfs files the workload dumped in our own osi-1x4 boot before and
# after its first idle phase (lava-jobs.py sysfs), a domain of the SoC that
# is not a CPU's and never idles, the boot log's own lines; then three
# broken cases (the cluster's deepest state not entered, no OSI mode, the
# model on).
fake="$out/fake-sysfs"
fake_root() { # <dir> <phase>
	local g=$1/sys/kernel/debug/pm_genpd
	rm -rf "$1"
	"$top/tools/lava-jobs.py" sysfs "$ours" "$2" "$1" || return 1
	mkdir -p "$g/gpu-cx" "$1/log"
	: > "$g/gpu-cx/devices"
	: > "$g/gpu-cx/sub_domains"
	printf 'State          Time Spent(ms) Usage      Rejected\nS0             0              0          0\n' > "$g/gpu-cx/idle_states"
	# What 6.1's debugfs psci prints for a PSCI 1.1 firmware with OSI.
	printf 'PSCIv1.1\nOSI is supported\nOriginal StateID format is used\nSTAT_COUNT is supported\n' \
		> "$1/sys/kernel/debug/psci"
	grep -m1 -o 'Booting Linux on physical CPU.*' "$ours" > "$1/log/dmesg"
	grep -m1 -o 'CPUidle PSCI: Initialized CPU PM domain topology using OSI mode' "$ours" >> "$1/log/dmesg"
}
osi_checks() { # <case name> <dmesg edit: sed script>
	sed -i "$2" "$fake/log/dmesg"
	OSI_ROOT=$fake OSI_DMESG=$fake/log/dmesg OSI_IDLE="cp -r $fake.after/sys $fake/" \
		sh "$top/ci/lava/osi-checks.sh" > "$fake.$1" 2>&1
}
fake_root "$fake.after" "before hotplug"
fake_root "$fake" start
# The cluster's entries into S1 in that phase, from the dumped files.
s1() { awk '$1 == "S1" { print $3 }' "$1/sys/kernel/debug/pm_genpd/power-domain-cluster/idle_states"; }
entries=$(( $(s1 "$fake.after") - $(s1 "$fake") ))
osi_checks good ''
ok=$?
[ $ok -eq 0 ] && [ "$entries" -gt 0 ] &&
	grep -q "^ok [0-9]* genpd.power-domain-cluster.S1.entered # $entries entries" "$fake.good" &&
	grep -q '^ok [0-9]* genpd-cpu-domains-found # 5 domains' "$fake.good" && ! grep -q gpu-cx "$fake.good"
ktap_check $? "ci/lava/osi-checks.sh passes on a real boot's figures, counts the cluster's $entries entries into S1, judges its 5 CPU domains and not the GPU's"
sed 's/^/# /' "$fake.good" | head -12
fake_root "$fake" start
sed -i 's/^\(S1 *[0-9]* *\)[0-9]*/\10/' "$fake.after/sys/kernel/debug/pm_genpd/power-domain-cluster/idle_states"
sed -i 's/^\(S1 *[0-9]* *\)[0-9]*/\10/' "$fake/sys/kernel/debug/pm_genpd/power-domain-cluster/idle_states"
osi_checks deep ''
[ $? -ne 0 ] && grep -q '^not ok [0-9]* genpd.power-domain-cluster.S1.entered' "$fake.deep"
ktap_check $? "ci/lava/osi-checks.sh fails a domain state not entered in the idle period"
fake_root "$fake.after" "before hotplug"
fake_root "$fake" start
osi_checks no-osi '/OSI mode/d'
[ $? -ne 0 ] && grep -q '^not ok [0-9]* osi-mode' "$fake.no-osi"
ktap_check $? "ci/lava/osi-checks.sh fails a boot not in OSI mode"
fake_root "$fake" start
osi_checks model '$a psci: firmware model: OS-initiated mode'
[ $? -ne 0 ] && grep -q '^not ok [0-9]* firmware-model-off' "$fake.model"
ktap_check $? "ci/lava/osi-checks.sh fails a kernel with the firmware model on"
fake_root "$fake" start
osi_checks wrapped '/Booting Linux/d'
[ $? -ne 0 ] && grep -q '^not ok [0-9]* boot-log-complete' "$fake.wrapped"
ktap_check $? "ci/lava/osi-checks.sh fails a boot log that lost its start"
echo "1..$ktap_n"
