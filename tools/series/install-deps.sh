#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install, with apt-get, the Debian packages that building and testing the
# series need. Idempotent: installs only what is missing, and runs
# "apt-get update" only when something is.
#
#   install-deps.sh [--base 7.3]
#
# A base newer than Debian 12's comes from a suite the machine's sources may
# not name (7.3: trixie-backports; its linux-source is arch-all and needs
# only binutils and xz-utils): apt-get fetches it through a source list and
# package lists of its own in a scratch directory, then installs the .deb,
# leaving the machine's sources as they are.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

declare -A suite=([7.3]=trixie-backports)

pkgs=(
	"$pkg"			# the kernel tree the series applies to
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
	dpkg-dev		# make tfa, test-tfa: dpkg-source unpacks Debian's arm-trusted-firmware
)

installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]; }

missing=()
for p in "${pkgs[@]}"; do
	installed "$p" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
debs=()
if [ -n "${suite[$base]:-}" ] && ! installed "$pkg"; then
	missing=("${missing[@]/$pkg/}")
	apt=$(mktemp -d)
	trap '$sudo rm -rf "$apt"' EXIT
	apt_scratch "$apt" deb "${suite[$base]}"
	echo "install-deps: fetching $pkg from Debian's ${suite[$base]}"
	$sudo apt-get "${apt_opts[@]}" update -q
	(cd "$apt/archives" && $sudo apt-get "${apt_opts[@]}" download "$pkg") ||
		die "cannot fetch $pkg from ${suite[$base]}"
	debs=("$apt/archives/${pkg}"_*.deb)
fi
read -ra missing <<< "${missing[*]}"
echo "install-deps: installing ${missing[*]} ${debs[*]##*/}"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends \
	"${missing[@]}" "${debs[@]}"
