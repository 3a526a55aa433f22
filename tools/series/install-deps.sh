#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install, with apt-get, the Debian packages that building and testing the
# series need. Idempotent: installs only what is missing, and runs
# "apt-get update" only when something is.
set -euo pipefail

pkgs=(
	linux-source-6.1	# the kernel tree the series applies to
	qemu-system-arm		# qemu-system-aarch64 runs every kernel we build
	qemu-system-x86		# make x86 boots the x86-64 build for its suite
	gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu
	libc6-dev-arm64-cross	# static arm64 libc for the guests' init (only a Recommends of the compiler)
	gcc make flex bison bc libssl-dev libelf-dev
	python3 python3-ply python3-git perl git xz-utils	# checkpatch runs spdxcheck.py, which imports both
	python3-libfdt		# the board extractor reads DTBs with pylibfdt
	device-tree-compiler	# dtc, for the topologies
	dt-schema yamllint	# make dt_binding_check
	ccache			# fast rebuilds from a fresh clone
	sparse			# make check: no new sparse warning in the files the series touches
	debootstrap		# make fresh-check: a bare Debian 12 root
	gdb-multiarch		# tools/boot/hang-timers.sh reads a hung boot's vCPU timers
	lava-common python3-yaml python3-jinja2	# the LAVA jobs: validated with lava-common, qemu device type rendered (docs/lab.md)
)

missing=()
for p in "${pkgs[@]}"; do
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
