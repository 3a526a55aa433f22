#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every configuration a user can pick builds: compile what the series
# touches (the objects of its directories, with W=1 off as in a normal
# build) for
#   kunit-off        the test kernel's config with KUNIT=n, model on
#                    (full vmlinux, with DEBUG_SECTION_MISMATCH, so modpost
#                    reports any call from normal code into __init code)
#   kunit-module     the test kernel's config with KUNIT=m: vmlinux and the
#                    modules (the model's suite), so that modpost checks
#                    what the suite uses is exported
#   defconfig        arm64 defconfig, scaled CPU time off, model off
#   defconfig-scaled arm64 defconfig with scaled CPU time and its suite
#   alltests         arm64 defconfig with KUNIT_ALL_TESTS and what our
#                    suites depend on, configured only: the suites that
#                    borrow live CPUs or system state stay off; the
#                    model's suite (which owns all it touches) and
#                    psci_osi_composite (which touches nothing) come on
# Build directories: build/configs/NAME; logs: build/configs/NAME.log.
#
#   check-configs.sh [NAME...]
set -uo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

out="$build/configs"
dirs=(drivers/base/power/ drivers/cpuidle/ drivers/firmware/psci/ kernel/sched/
	kernel/taskstats.o kernel/fork.o arch/arm64/kernel/)
mkdir -p "$out"
use_ccache
# The test kernel's config as kunit.py makes it now (not a .config left by
# an earlier build, which may predate a kunitconfig change).
note "configuring the test kernel (build/configs/test)"
"$top/tools/kernel/build-kernel.py" --tree "$tree" --config-only --kernel "$out/test" ||
	die "kunit.py config failed (build/configs/test/config.log)"

# <.config> <SYMBOL=y|m|n...>: the options of <.config> that are not as
# given, one "SYMBOL=value" a line (n: not set).
options_not_as() {
	local config=$1 opt sym val
	shift
	for opt in "$@"; do
		sym=${opt%=*} val=${opt#*=}
		if [ "$val" = n ]; then
			! grep -q "^CONFIG_$sym=" "$config"
		else
			grep -qx "CONFIG_$sym=$val" "$config"
		fi || echo "$opt"
	done
}

# <name> <base: test|defconfig> <SYMBOL=y|m|n...>: configure
# build/configs/NAME, and check that every option stayed as asked.
configure() {
	local name=$1 base=$2 o="$out/$1" opt sym val args=()
	shift 2
	mkdir -p "$o"
	if [ "$base" = test ]; then
		cp "$out/test/.config" "$o/.config"
	else
		kmake "$o" defconfig >/dev/null || return 1
	fi
	for opt in "$@"; do
		sym=${opt%=*} val=${opt#*=}
		case "$val" in
		y) args+=(--enable "$sym") ;;
		m) args+=(--module "$sym") ;;
		n) args+=(--disable "$sym") ;;
		esac
	done
	"$tree/scripts/config" --file "$o/.config" "${args[@]}"
	kmake "$o" olddefconfig >/dev/null || return 1
	for opt in $(options_not_as "$o/.config" "$@"); do
		note "$name: CONFIG_$opt did not stay in the .config"
		return 1
	done
}

# <name> <what to build: objects|vmlinux|modules> <base> <options...>
check() {
	local name=$1 what=$2 start rc=0
	shift 2
	start=$(date +%s)
	note "$name: configuring and building ($what)"
	{
		configure "$name" "$@" &&
		if [ "$what" = vmlinux ]; then
			kmake "$out/$name" vmlinux
		elif [ "$what" = modules ]; then
			kmake "$out/$name" vmlinux modules
		else
			kmake "$out/$name" prepare && kmake "$out/$name" "${dirs[@]}"
		fi
	} > "$out/$name.log" 2>&1 || rc=1
	grep -F 'did not stay' "$out/$name.log" >&2
	# Warnings the series' files add: any "warning:" or modpost WARNING.
	if grep -E 'warning:|WARNING:|section mismatch' "$out/$name.log" |
		grep -vE '^scripts/|^/usr/' > "$out/$name.warnings"; then
		rc=1
	fi
	if [ $rc -eq 0 ]; then
		echo "check-configs: ok: $name ($(minsec $(($(date +%s) - start))))"
	else
		echo "check-configs: FAILED: $name (build/configs/$name.log):"
		{ grep -E 'error|Error' "$out/$name.log"; cat "$out/$name.warnings"; } | head -20 | sed 's/^/  /'
	fi
	return $rc
}

# KUNIT_ALL_TESTS: which of our suites it enables, against <SYMBOL=y|n...>.
alltests() {
	local o="$out/alltests" opt rc=0
	note "alltests: configuring"
	configure alltests defconfig KUNIT=y KUNIT_ALL_TESTS=y PM=y \
		PM_GENERIC_DOMAINS_KUNIT_BUILD=y CPU_IDLE=y ARM_PSCI_CPUIDLE=y \
		HOTPLUG_CPU=y FREQ_SCALED_CPUTIME=y DEBUG_KERNEL=y \
		ARM_PSCI_FW_MODEL=y > "$out/alltests.log" 2>&1 || rc=1
	for opt in $(options_not_as "$o/.config" "$@"); do
		echo "check-configs: alltests: CONFIG_${opt%=*} should be ${opt#*=}"
		rc=1
	done
	echo "check-configs: $([ $rc -eq 0 ] && echo ok || echo FAILED): alltests (configured only)"
	return $rc
}

want=("$@")
[ ${#want[@]} -gt 0 ] || want=(kunit-off kunit-module defconfig defconfig-scaled alltests)
bad=0
for name in "${want[@]}"; do
	case "$name" in
	kunit-off) check kunit-off vmlinux test KUNIT=n ARM_PSCI_FW_MODEL=y \
		DEBUG_SECTION_MISMATCH=y ;;
	kunit-module) check kunit-module modules test MODULES=y KUNIT=m \
		ARM_PSCI_FW_MODEL=y ARM_PSCI_FW_MODEL_KUNIT_TEST=m ;;
	defconfig) check defconfig objects defconfig FREQ_SCALED_CPUTIME=n \
		ARM_PSCI_FW_MODEL=n ;;
	defconfig-scaled) check defconfig-scaled objects defconfig FREQ_SCALED_CPUTIME=y \
		KUNIT=y FREQ_SCALED_CPUTIME_KUNIT_TEST=y ARM_PSCI_FW_MODEL=n ;;
	alltests) alltests PM_GENPD_CPUS_KUNIT_TEST=n PM_GENPD_GOVERNOR_KUNIT_TEST=n \
		ARM_PSCI_CPUIDLE_SEQ_KUNIT_TEST=n FREQ_SCALED_CPUTIME_KUNIT_TEST=n \
		ARM_PSCI_CPUIDLE_KUNIT_TEST=y ARM_PSCI_FW_MODEL_KUNIT_TEST=y \
		PM_QOS_KUNIT_TEST=y ;;
	*) die "no configuration $name" ;;
	esac || bad=$((bad + 1))
done
[ $bad -eq 0 ]
