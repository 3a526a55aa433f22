// SPDX-License-Identifier: GPL-2.0
/*
 * The init of the benchmark boot: show the CPU governor's policy (the
 * series only) and the PM domain debugfs files the benchmark filled, then
 * power off.
 */
#include <stdio.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <unistd.h>

static void show(const char *path)
{
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "r");

	printf("# cat %s\n", path);
	if (!f) {
		perror(path);
		return;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(f);
}

int main(void)
{
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	show("/sys/module/genpd/parameters/cpu_policy");
	show("/sys/kernel/debug/pm_genpd/pm_genpd_summary");
	show("/sys/kernel/debug/pm_genpd/bench-domain/idle_states");
	show("/sys/kernel/debug/pm_genpd/bench-domain/total_idle_time");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
