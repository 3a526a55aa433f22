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
#  - that command, run here, boots: the job's monitors, read as LAVA reads
#    them, find the run's KUnit results (as many, and as many skipped, as
#    the console has KTAP result lines) and the workload's end, and find
#    the same results in our own boot's log of the topology;
#  - ci/lava/osi-checks.sh, the templates' test shell, passes on a
#    well-formed sysfs and fails each of three broken ones.
# Needs make test's kernel and topology boots (build/topologies/).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

name=osi-1x4
out="$build/lava$sfx"
types="$build/lava-server/x/usr/share/lava-server/device-types"
ktap_n=0
echo "KTAP version 1"

# 1. The jobs, validated (their KTAP as diagnostics).
"$top/tools/lava-jobs.sh" "$name" > "$out.validate" 2> "$out.stderr"
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
/usr/bin/python3 - "$out/qemu-$name.argv" "$out/lava.argv" > "$out/argv.diff" <<'EOF'
import os, sys
def pairs(path):
    argv = open(path).read().splitlines()
    out, i = [], 1
    while i < len(argv):
        if i + 1 < len(argv) and not argv[i + 1].startswith("-"):
            out.append((argv[i], argv[i + 1])); i += 2
        else:
            out.append((argv[i], None)); i += 1
    # Files compare by name: the job downloads copies (checked below).
    return sorted((o, os.path.basename(v) if o in ("-kernel", "-initrd", "-dtb") else v)
                  for o, v in out), os.path.basename(argv[0])
ours, prog = pairs(sys.argv[1])
lava, lprog = pairs(sys.argv[2])
lava_adds = [("-monitor", "none"), ("-net", "user")]
extra = [p for p in lava if p not in ours]
bad = [p for p in extra if p not in lava_adds and not (p[0] == "-net" and p[1].startswith("nic,"))]
missing = [p for p in ours if p not in lava]
if prog != lprog: print(f"program: ours {prog}, LAVA's {lprog}")
for p in missing: print("only ours:", *filter(None, p))
for p in bad: print("only LAVA's:", *filter(None, p))
sys.exit(1 if missing or bad or prog != lprog else 0)
EOF
ktap_check $? "LAVA's QEMU command for the job is our $name boot's (LAVA adds only -net nic, -net user, -monitor none)"
sed 's/^/# /' "$out/argv.diff"

ok=0
while read -r a; do
	case $a in
	*/Image.gz | */initramfs.cpio) cmp -s "$a" "$arts/${a##*/}" || ok=1 ;;
	esac
done < "$out/qemu-$name.argv"
ktap_check $ok "the job's artifacts are the kernel and initramfs our boot ran"

# 4. Boot LAVA's command; read its console with the job's monitors.
log="$out/lava-boot.log"
mapfile -t argv < "$out/lava.argv"
timeout 600 "${argv[@]}" < /dev/null > "$log" 2>&1
grep -q 'idle-workload: done' "$log"
ktap_check $? "LAVA's command boots the kernel, its suites and the workload to the end"

"$top/tools/lava-jobs.py" monitor "$job" "$log" > "$out/lava-boot.results"
ktap_check $? "the job's two monitors find their start and end strings"
results=$(grep -c '^kunit [^ ]* \(pass\|fail\|skip\)$' "$out/lava-boot.results")
lines=$(grep -cE '^[[:space:]]*(not )?ok [0-9]+ ' "$log")
skips=$(grep -c '^kunit [^ ]* skip$' "$out/lava-boot.results")
skip_lines=$(grep -cE '^[[:space:]]*(not )?ok [0-9]+ .*# SKIP' "$log")
fails=$(grep -c '^kunit [^ ]* fail$' "$out/lava-boot.results")
[ "$results" -eq "$lines" ] && [ "$skips" -eq "$skip_lines" ] && [ "$results" -gt 0 ]
ktap_check $? "the kunit monitor reports every KTAP result line as a LAVA result, skips as skips ($results results, $skips skipped; the console has $lines and $skip_lines)"
[ "$fails" -eq 0 ]
ktap_check $? "no KUnit result of LAVA's boot is a failure ($fails)"
grep -qx 'idle-workload idle_workload pass' "$out/lava-boot.results"
ktap_check $? "the idle-workload monitor reports the workload's end as a pass"

ours="$build/topologies$sfx/$name.log"
"$top/tools/lava-jobs.py" monitor "$job" "$ours" > "$out/own-boot.results" &&
	diff -u "$out/own-boot.results" "$out/lava-boot.results" > "$out/results.diff"
ktap_check $? "the monitors find the same results in our own $name boot (${ours#$top/})"
head -20 "$out/results.diff" | sed 's/^/# /'

# 5. The templates' test shell on a made-up sysfs: a good one, then three
# broken ones (a cluster state never entered, no OSI mode, the model on).
fake_root() { # <dir>: two CPUs, a CPU domain each, a cluster, a non-CPU domain
	local r=$1 g=$1/sys/kernel/debug/pm_genpd c d
	rm -rf "$r"
	mkdir -p "$g" "$r/log"
	for c in 0 1; do
		d=$g/cpu-pd$c
		mkdir -p "$d" "$r/sys/devices/system/cpu/cpu$c/cpuidle/state0"
		echo "/devices/system/cpu/cpu$c" > "$d/devices"
		: > "$d/sub_domains"
		printf 'State          Time Spent(ms) Usage      Rejected\nS0             10             5          0\n' > "$d/idle_states"
		echo WFI > "$r/sys/devices/system/cpu/cpu$c/cpuidle/state0/name"
		echo 100 > "$r/sys/devices/system/cpu/cpu$c/cpuidle/state0/usage"
		echo 5000 > "$r/sys/devices/system/cpu/cpu$c/cpuidle/state0/time"
	done
	mkdir -p "$g/cluster-pd" "$g/gpu-cx"
	: > "$g/cluster-pd/devices"
	printf 'cpu-pd0\ncpu-pd1\n' > "$g/cluster-pd/sub_domains"
	printf 'State          Time Spent(ms) Usage      Rejected\nS0             10             5          0\nS1             20             3          1\n' > "$g/cluster-pd/idle_states"
	: > "$g/gpu-cx/devices"
	: > "$g/gpu-cx/sub_domains"
	printf 'State          Time Spent(ms) Usage      Rejected\nS0             0              0          0\n' > "$g/gpu-cx/idle_states"
	printf 'PSCIv1.1\nOSI is supported\nPSCI_STAT_COUNT is supported\n' > "$r/sys/kernel/debug/psci"
	echo 'CPUidle PSCI: Initialized CPU PM domain topology using OSI mode' > "$r/log/dmesg"
}
# The idle period: every usage and time counter moves, but <skip>'s.
idle_cmd='for f in $(find "$OSI_ROOT/sys" -name idle_states); do
	case $f in *gpu-cx*) continue ;; esac
	awk "NR == 1 { print; next } \$1 == \"$OSI_SKIP\" { print; next } { printf \"%s %d %d %d\\n\", \$1, \$2 + 7, \$3 + 2, \$4 }" "$f" > "$f.new" && mv "$f.new" "$f"
done
for f in $(find "$OSI_ROOT/sys/devices" -name usage -o -name time); do echo $(($(cat $f) + 9)) > $f; done'
osi_checks() { # <dir> <state not entered or -> [dmesg line to add]
	[ -z "${3:-}" ] || echo "$3" >> "$1/log/dmesg"
	[ -z "${4:-}" ] || : > "$1/log/dmesg"
	OSI_ROOT=$1 OSI_DMESG=$1/log/dmesg OSI_SKIP=$2 OSI_IDLE=$idle_cmd \
		sh "$top/ci/lava/osi-checks.sh" > "$1.out" 2>&1
}
fake="$out/fake-sysfs"
fake_root "$fake"
osi_checks "$fake" -
ok=$?
[ $ok -eq 0 ] && grep -q '^ok [0-9]* genpd.cluster-pd.S1.entered # 2 entries' "$fake.out" &&
	! grep -q gpu-cx "$fake.out"
ktap_check $? "ci/lava/osi-checks.sh passes on a good sysfs, counts the cluster's entries, ignores the GPU's domain"
sed 's/^/# /' "$fake.out" | head -40
fake_root "$fake"
osi_checks "$fake" S1
[ $? -ne 0 ] && grep -q '^not ok [0-9]* genpd.cluster-pd.S1.entered' "$fake.out"
ktap_check $? "ci/lava/osi-checks.sh fails a domain state not entered in the idle period"
fake_root "$fake"
osi_checks "$fake" - "" clear
[ $? -ne 0 ] && grep -q '^not ok [0-9]* osi-mode' "$fake.out"
ktap_check $? "ci/lava/osi-checks.sh fails a boot not in OSI mode"
fake_root "$fake"
osi_checks "$fake" - "psci: firmware model: OS-initiated mode"
[ $? -ne 0 ] && grep -q '^not ok [0-9]* firmware-model-off' "$fake.out"
ktap_check $? "ci/lava/osi-checks.sh fails a kernel with the firmware model on"
echo "1..$ktap_n"
