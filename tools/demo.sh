#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The whole OS-initiated path at work: build the series' arm64 kernel (the
# test kernel of `make test`: same options, same build directory, so
# neither command rebuilds after the other; tools/build-kernel.sh), boot it
# in QEMU with 4 CPUs on the default topology (kunit/topologies/osi-1x4.dtsi, firmware model on, or
# DEMO_TOPOLOGY=NAME; the CPU governor's policy: DEMO_POLICY=timers, the
# default, pending or learn), with its QEMU options and
# tools/guest/idle-workload.c as init, and print the report of
# tools/idle-report.py. Exits non-zero if a check of the report fails: the
# model saw an invalid request, a domain never reached one of its states...
# Log: build/demo/boot.log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

topology=${DEMO_TOPOLOGY:-osi-1x4}
src="$top/kunit/topologies/$topology.dtsi"
[ -f "$src" ] || die "no topology kunit/topologies/$topology.dtsi"
cpus=$(sed -n 's/^ \* cpus: //p' "$src")
cpus=${cpus:-4}
# The QEMU options the topology asks for (-icount: see docs/topologies.md).
read -ra extra <<< "$(sed -n 's/^ \* qemu: //p' "$src")"
out="$build/demo"
mkdir -p "$out"

"$top/tools/build-kernel.sh"
note "building the guest's init and the device tree"
"$top/tools/build-guest.sh"
"$top/tools/graft-topology.sh" "$src" \
	"$out/$topology.dtb" -machine virt -cpu cortex-a57 -smp $cpus -m 1024
note "booting $topology with $cpus CPUs"

start=$(date +%s)
timeout 120 qemu-system-aarch64 -nodefaults -machine virt -cpu cortex-a57 \
	-smp $cpus -m 1024 -nographic -serial stdio -no-reboot \
	-kernel "$kout/arch/arm64/boot/Image.gz" -dtb "$out/$topology.dtb" \
	-initrd "$build/guest/initramfs.cpio" \
	-append "kunit.enable=0 console=ttyAMA0 rdinit=/init genpd.cpu_policy=${DEMO_POLICY:-timers}" \
	"${extra[@]}" \
	< /dev/null > "$out/boot.log" 2>&1 || true
grep -q 'idle-workload: done' "$out/boot.log" ||
	{ tail -20 "$out/boot.log" >&2; die "the boot did not finish (build/demo/boot.log)"; }
note "booted, ran the workload and powered off in $(($(date +%s) - start)) s"
echo
"$top/tools/idle-report.py" --report "$out/boot.log"
