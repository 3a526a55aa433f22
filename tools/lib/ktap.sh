# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The shell KTAP writer of the harness (Documentation/dev-tools/ktap.rst),
# POSIX sh, so that the lab's test shell (ci/lava/osi-checks.sh) uses it
# too. Source it; results are kept until ktap_end, which writes the
# version line and the plan first, then each result after its
# diagnostic lines:
#
#   ktap_start
#   ktap_result $? "the guest's check runs to its end"
#   ktap_diag "what it printed last"       (before the next result)
#   ktap_skip "firmware has PSCI_STAT" "not supported"
#   ktap_end 12       # the plan: how many results there must be,
#                     # counted from what the script checks
#
# A script that dies before ktap_end prints nothing, and a plan larger
# than the results written leaves the missing ones for the parser to
# report. ktap_end returns 0 when every planned result came and passed.
# Text at which the kernel's KTAP parser stops reading ("reboot: System
# halted"...) loses its colon in diagnostics.

ktap_start() {
	ktap_buf=$(mktemp)
	ktap_n=0
	ktap_failed=0
}

# One result: "ok" when <status> is 0, else "not ok". A name with "#"
# (KTAP's directive) is written up to it, and said on stderr.
ktap_result() { # <status> <name>
	ktap_n=$((ktap_n + 1))
	ktap_name=${2%%#*}
	[ "$ktap_name" = "$2" ] || echo "ktap.sh: '#' cut from a test name: $2" >&2
	if [ "$1" = 0 ]; then
		echo "ok $ktap_n $ktap_name" >> "$ktap_buf"
	else
		ktap_failed=$((ktap_failed + 1))
		echo "not ok $ktap_n $ktap_name" >> "$ktap_buf"
	fi
}

ktap_skip() { # <name> <reason>
	ktap_n=$((ktap_n + 1))
	echo "ok $ktap_n $1 # SKIP $2" >> "$ktap_buf"
}

# Diagnostic lines: the arguments, or standard input when there are none.
ktap_diag() {
	if [ $# -gt 0 ]; then
		printf '%s\n' "$@"
	else
		cat
	fi | sed -e 's/^/# /; s/ *$//' -e 's/List of all partitions:/List of all partitions/g' \
		-e 's/Kernel panic - not syncing: VFS:/Kernel panic - not syncing VFS/g' \
		-e 's/reboot: System halted/reboot System halted/g' >> "$ktap_buf"
}

ktap_end() { # <plan>
	[ $# -eq 1 ] || { echo "ktap.sh: ktap_end needs the plan" >&2; return 2; }
	ktap_plan=$1
	echo "KTAP version 1"
	# More results than planned: all are written, under a plan that
	# counts them, and the script fails.
	if [ "$ktap_n" -gt "$ktap_plan" ]; then
		echo "1..$ktap_n"
		echo "# ktap.sh: $ktap_n results for a plan of $ktap_plan"
	else
		echo "1..$ktap_plan"
	fi
	cat "$ktap_buf"
	rm -f "$ktap_buf"
	[ "$ktap_failed" -eq 0 ] && [ "$ktap_n" -eq "$ktap_plan" ]
}
