// SPDX-License-Identifier: GPL-2.0
/*
 * The init of the topology boots and of `make demo`: a short mixed workload
 * (idle, periodic timers, bursts of work on some CPUs, CPU 1 taken offline
 * and back; with idle_workload.cluster=A-B on the command line, CPUs A-B,
 * a whole cluster, offline while the others work and idle, then back; a
 * hotplug storm; suspend-to-idle for 2 s, again for longer if the
 * alarm came first), with the idle statistics dumped around each phase,
 * then power off. tools/report/idle-report.py reads the console log.
 * With ftrace events enabled on the command line (trace_event=, as
 * tools/sim/record-trace.sh boots it), the steady phase's trace is printed
 * too, between "=== idle-workload: trace ===" and
 * "=== idle-workload: trace end ===".
 * With idle_workload.short on the command line (make test-faults), only
 * 2 s of idle between the first dump and the last, then 4 s more before
 * kmemleak's scans.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void cat(const char *path)
{
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	printf("==> %s <==\n", path);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(f);
}

static void cat_dir(const char *dir, const char *file)
{
	struct dirent **names;
	char path[512];
	int i, n = scandir(dir, &names, NULL, alphasort);

	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s/%s", dir,
				 names[i]->d_name, file);
			cat(path);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

/* Every file the report needs, under one heading. */
#define MAX_CPUS 64

static void dump(const char *when)
{
	char dir[128];
	int cpu, state;

	printf("=== idle-workload: %s ===\n", when);
	cat("/sys/kernel/debug/psci_fw_model");
	cat("/sys/kernel/debug/psci");
	cat("/sys/kernel/debug/pm_genpd/pm_genpd_summary");
	cat("/sys/module/genpd/parameters/cpu_policy");
	cat_dir("/sys/kernel/debug/pm_genpd", "idle_states");
	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		for (state = 0; state < 8; state++) {
			static const char *const files[] = {
				"name", "usage", "rejected", "time", "above",
				"below", "s2idle/usage",
			};
			unsigned int i;

			snprintf(dir, sizeof(dir),
				 "/sys/devices/system/cpu/cpu%d/cpuidle/state%d",
				 cpu, state);
			if (access(dir, F_OK))
				break;
			for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
				char path[192];

				snprintf(path, sizeof(path), "%s/%s", dir,
					 files[i]);
				cat(path);
			}
		}
	printf("=== idle-workload: end of %s ===\n", when);
	/*
	 * The model once more: the CPUs kept idling while the files above
	 * were read, so the cpuidle rejections read lie between the model's
	 * denials read before them and those read now.
	 */
	printf("=== idle-workload: %s, model after ===\n", when);
	cat("/sys/kernel/debug/psci_fw_model");
	printf("=== idle-workload: end of %s, model after ===\n", when);
	fflush(stdout);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Let this process run on any CPU again. */
static void unpin(void)
{
	cpu_set_t set;
	int cpu;

	CPU_ZERO(&set);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void sleep_us(long us)
{
	struct timespec t = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&t, NULL);
}

/*
 * Let the console print what the kernel logged before our next line. The
 * kernel prints to the console from a thread of its own (7.3's pl011 is an
 * nbcon console), so messages it logged before an event returned to us (a
 * CPU brought up, a resume) can reach the console after a line we write at
 * once, or inside it: the readers of the log then see a dump's line cut in
 * two. The checks read the dumps that follow such events, not their time.
 */
static void settle_console(void)
{
	sleep_us(200000);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* On @cpu for @seconds: work @busy_us, sleep @idle_us, again. */
static pid_t spawn(int cpu, double seconds, long busy_us, long idle_us)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	pin(cpu);
	for (double end = now() + seconds; now() < end;) {
		double stop = now() + busy_us / 1e6;

		while (now() < stop)
			;
		sleep_us(idle_us);
	}
	_exit(0);
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		int err = errno;

		printf("idle-workload: cannot write to %s\n", path);
		errno = err;
		return -1;
	}
	return 0;
}

static int set_online_quietly(int cpu, int online)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	return write_file(path, online ? "1\n" : "0\n");
}

static void set_online(int cpu, int online)
{
	if (!set_online_quietly(cpu, online))
		printf("idle-workload: cpu%d online=%d\n", cpu, online);
}

/* The kernel's command line, or "". */
static const char *cmdline(void)
{
	static char line[2048];
	FILE *f = fopen("/proc/cmdline", "r");

	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = 0;
		fclose(f);
	}
	return line;
}

/* idle_workload.cluster=A-B of the topology's command line, or 0. */
static int cluster_cpus(int *first, int *last)
{
	const char *p = strstr(cmdline(), "idle_workload.cluster=");

	return p && sscanf(p, "idle_workload.cluster=%d-%d", first, last) == 2 &&
	       *first > 0 && *first <= *last;
}

#define TRACEFS "/sys/kernel/tracing"

/* Whether ftrace events were enabled at boot: then trace from now on. */
static int trace_start(int ncpus)
{
	int cpu;

	if (!strstr(cmdline(), "trace_event="))
		return 0;
	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL)) {
		printf("idle-workload: trace_event= given, but no tracefs\n");
		return 0;
	}
	/* Drop the boot's events: opening "trace" for writing clears it. */
	if (write_file(TRACEFS "/trace", ""))
		return 0;
	/*
	 * Then wake every CPU once, so that the trace shows each one going
	 * idle again, with its next timer armed: one idle since before the
	 * trace would show neither.
	 */
	for (cpu = 0; cpu < ncpus; cpu++) {
		pid_t pid = fork();

		if (pid == 0) {
			pin(cpu);
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	return 1;
}

static void trace_stop(void)
{
	write_file(TRACEFS "/tracing_on", "0\n");
	printf("=== idle-workload: trace ===\n");
	fflush(stdout);
	cat(TRACEFS "/trace");
	fflush(stdout);
	printf("=== idle-workload: trace end ===\n");
}

/*
 * All CPUs of one cluster offline (never CPU 0) while CPU 0 works in
 * bursts and the rest idle, then back online.
 */
static void cluster_offline(int first, int last)
{
	int cpu;

	dump("before cluster offline");
	for (cpu = first; cpu <= last; cpu++)
		set_online(cpu, 0);
	spawn(0, 1.0, 20000, 80000);
	while (wait(NULL) > 0)
		;
	sleep_us(500000);
	dump("cluster offline");
	for (cpu = first; cpu <= last; cpu++)
		set_online(cpu, 1);
	/*
	 * 3 s for the cluster's CPUs, just back, to idle together: on a
	 * loaded host (multi-threaded TCG, the guest's time the host's) 1 s
	 * once passed before they did.
	 */
	sleep_us(3000000);
	dump("after cluster offline");
}

/*
 * CPUs 1 to @ncpus - 1 taken offline and online at random for @seconds,
 * 10-100 ms apart, from a fixed seed: the same storm on every boot of a
 * topology. CPU 0 stays online, so never all of them are off.
 */
static void hotplug_storm(int ncpus, double seconds)
{
	unsigned int seed = 20261203;
	char online[64];
	int cpu, changes = 0, failed = 0;

	if (ncpus < 2 || ncpus > 64)
		return;
	memset(online, 1, sizeof(online));
	for (double end = now() + seconds; now() < end;) {
		cpu = 1 + rand_r(&seed) % (ncpus - 1);
		if (set_online_quietly(cpu, !online[cpu]))
			failed++;
		else
			online[cpu] = !online[cpu];
		changes++;
		sleep_us(10000 + rand_r(&seed) % 90000);
	}
	for (cpu = 1; cpu < ncpus; cpu++)
		if (!online[cpu] && set_online_quietly(cpu, 1))
			failed++;
	settle_console();
	printf("idle-workload: hotplug storm: %d changes, %d failed\n",
	       changes, failed);
	dump("after storm");
}

/* A number read from @path, or -1. */
static long read_long(const char *path)
{
	long value = -1;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%ld", &value) != 1)
			value = -1;
		fclose(f);
	}
	return value;
}

/*
 * Each CPU's entries into suspend-to-idle, over its cpuidle states, in
 * @entries; -1 for a CPU without cpuidle. Returns the number of CPUs with
 * cpuidle.
 */
static int s2idle_entries(long entries[MAX_CPUS])
{
	char path[96];
	int cpu, state, cpus = 0;
	long n;

	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		entries[cpu] = -1;
		for (state = 0; state < 8; state++) {
			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/s2idle/usage",
				 cpu, state);
			n = read_long(path);
			if (n < 0)
				continue;
			if (entries[cpu] < 0) {
				entries[cpu] = 0;
				cpus++;
			}
			entries[cpu] += n;
		}
	}
	return cpus;
}

/* The CPUs whose entries into suspend-to-idle grew since @before. */
static int s2idle_entered(const long before[MAX_CPUS])
{
	long after[MAX_CPUS];
	int cpu, entered = 0;

	s2idle_entries(after);
	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		if (before[cpu] >= 0 && after[cpu] > before[cpu])
			entered++;
	return entered;
}

#define S2IDLE_TRACE TRACEFS "/instances/s2idle"

/*
 * A trace instance of its own with the power:suspend_resume event, to see
 * how far a suspend went: 1 when it is set up, 0 on a kernel without
 * event tracing.
 */
static int s2idle_trace_setup(void)
{
	if (access(TRACEFS "/instances", F_OK))
		mount("tracefs", TRACEFS, "tracefs", 0, NULL);
	if (access(S2IDLE_TRACE, F_OK) && mkdir(S2IDLE_TRACE, 0755))
		return 0;
	return !write_file(S2IDLE_TRACE "/events/power/suspend_resume/enable",
			   "1\n");
}

/*
 * What the instance's trace shows of the last suspend: 1 when
 * suspend-to-idle's wait began, 0 when the devices' noirq phase ended and
 * the wait did not begin (a wake-up pending at the top of s2idle_loop()),
 * -1 when it shows neither.
 */
static int s2idle_trace_verdict(void)
{
	FILE *f = fopen(S2IDLE_TRACE "/trace", "r");
	int noirq = 0, waited = 0;
	char line[256];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, ": suspend_resume: dpm_suspend_noirq[2] end"))
			noirq = 1;
		if (strstr(line, ": suspend_resume: machine_suspend[1] begin"))
			waited = 1;
	}
	fclose(f);
	return waited ? 1 : noirq ? 0 : -1;
}

/*
 * The first half of the wakeup_count handshake of
 * Documentation/ABI/testing/sysfs-power: read the count into @count (to
 * be written back just before the suspend), set the RTC's alarm @seconds
 * ahead and choose @mode in mem_sleep. Return 0, or -1 if any step failed.
 */
static int suspend_setup(const char *mode, int seconds, char *count,
			 size_t size)
{
	long events = read_long("/sys/power/wakeup_count");
	char alarm[16], state[16];

	snprintf(alarm, sizeof(alarm), "+%d\n", seconds);
	snprintf(state, sizeof(state), "%s\n", mode);
	snprintf(count, size, "%ld\n", events);
	if (events < 0 ||
	    write_file("/sys/class/rtc/rtc0/wakealarm", "0\n") ||
	    write_file("/sys/class/rtc/rtc0/wakealarm", alarm) ||
	    write_file("/sys/power/mem_sleep", state))
		return -1;
	return 0;
}

/*
 * Suspend to idle, woken by the RTC's alarm @seconds later, with the
 * wakeup_count handshake of Documentation/ABI/testing/sysfs-power: the
 * count is read before the alarm is set and written back before the
 * suspend, so that an alarm that fires before the kernel's last check in
 * the late phase makes the kernel refuse the suspend; without it the
 * kernel takes the alarm as an ordinary interrupt and sleeps with nothing
 * left to wake it. An alarm that fires after that check, up to the end of
 * the devices' noirq phase, makes s2idle_loop() leave at once, with
 * success and no CPU idled: on a kernel with event tracing that shows as
 * the noirq phase's end with no suspend-to-idle "machine_suspend" after it.
 *
 * The alarm runs on the RTC's clock and the suspend on the guest's CPUs,
 * so a slow host can let the alarm come first. When it did (the RTC's
 * wake-up source active during the try, and a refusal or the noirq exit),
 * that is printed and tried again with twice the time, three tries in
 * all, each after a dump "before s2idle again" that the check then starts
 * from. A return with a CPU left out that the trace does not explain is
 * printed with where the RTC stood and not tried again.
 */
static void suspend_to_idle(int seconds)
{
	const char *rtc = "/sys/class/rtc/rtc0/since_epoch";
	const char *woken = "/sys/class/rtc/rtc0/device/power/wakeup_active_count";
	int traced = s2idle_trace_setup();
	char count[24], why[256], early[160];
	long before[MAX_CPUS];
	int try;

	for (try = 1; try <= 3; try++, seconds *= 2) {
		int cpus = s2idle_entries(before), entered;
		long due, now, active = read_long(woken);
		const char *first = NULL;

		if (try > 1)
			dump("before s2idle again");
		if (traced)
			write_file(S2IDLE_TRACE "/trace", "");
		if (suspend_setup("s2idle", seconds, count, sizeof(count))) {
			printf("idle-workload: suspend-to-idle: cannot set up the suspend\n");
			return;
		}
		due = read_long("/sys/class/rtc/rtc0/wakealarm");
		if (write_file("/sys/power/wakeup_count", count)) {
			first = "count: a wake-up event since the count was read";
		} else if (write_file("/sys/power/state", "mem\n")) {
			first = "refused: the kernel refused the suspend";
		} else {
			settle_console();
			printf("idle-workload: back from suspend-to-idle\n");
			entered = s2idle_entered(before);
			if (entered == cpus)
				return;
			switch (traced ? s2idle_trace_verdict() : -2) {
			case -2:
				snprintf(why, sizeof(why),
					 "%d of %d CPUs entered it, and no event tracing here to tell an early alarm",
					 entered, cpus);
				break;
			case 0:
				snprintf(early, sizeof(early),
					 "noirq: the kernel left after the noirq phase, before suspend-to-idle's wait, %d of %d CPUs entered it",
					 entered, cpus);
				first = early;
				break;
			case 1:
				snprintf(why, sizeof(why),
					 "%d of %d CPUs entered it, though the kernel waited in suspend-to-idle",
					 entered, cpus);
				break;
			default:
				snprintf(why, sizeof(why),
					 "%d of %d CPUs entered it, and the trace shows neither the noirq phase nor the wait",
					 entered, cpus);
			}
		}
		now = read_long(rtc);
		if (first && (active < 0 || read_long(woken) <= active)) {
			snprintf(why, sizeof(why), "%s, but the RTC's wake-up source was not active",
				 first);
			first = NULL;
		}
		if (!first) {
			printf("idle-workload: suspend-to-idle: %s (RTC %ld s %s the alarm)\n",
			       why, due - now > 0 ? due - now : now - due,
			       now < due ? "before" : "at or after");
			return;
		}
		printf("idle-workload: suspend-to-idle: the alarm (%d s) came first, %s (try %d of 3)\n",
		       seconds, first, try);
	}
	printf("idle-workload: suspend-to-idle: gave up after 3 tries\n");
}

/*
 * The PM domain device of offline CPU @cpu, held on from user space
 * (power/control "on") while the other CPUs of its cluster go idle, then
 * let go ("auto"): genpd powers its domain off from a workqueue, outside
 * any idle entry, as after a resume from suspend-to-RAM. The dumps
 * "offline device released", at once, and "offline device idle", 1 s
 * later, show whether its cluster powers down then, although its CPUs
 * sleep. The caller has @cpu offline and runs on CPU 0.
 */
static void release_offline_device(int cpu)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/genpd:0:cpu%d/power/control",
		 cpu);
	if (write_file(path, "on\n"))
		return;
	sleep_us(500000);
	if (write_file(path, "auto\n"))
		return;
	dump("offline device released");
	sleep_us(1000000);
	dump("offline device idle");
}

/*
 * Suspend to RAM (PSCI SYSTEM_SUSPEND) with CPU @cpu taken offline first
 * (and its PM domain device cycled, release_offline_device()), from CPU 0,
 * woken by the RTC's alarm @seconds later, with the wakeup_count handshake
 * of suspend_to_idle(). The dumps "after s2ram resume", at once, and
 * "after s2ram idle", 3 s later, let the check see which domains power
 * down again while @cpu stays offline; it comes back online after them.
 * Only with idle_workload.s2ram on the command line (docs/firmware-model.md,
 * "Suspend-to-RAM"). A firmware that does not offer it ("deep" missing
 * from mem_sleep) is said so. An alarm that
 * came before the suspend made the kernel refuse it: tried again with
 * twice the time, three tries in all.
 */
static void suspend_to_ram(int cpu, int seconds)
{
	char count[24], modes[128] = "";
	FILE *f = fopen("/sys/power/mem_sleep", "r");
	int try;

	if (f) {
		if (!fgets(modes, sizeof(modes), f))
			modes[0] = 0;
		fclose(f);
	}
	if (!strstr(modes, "deep")) {
		printf("idle-workload: suspend-to-RAM: not offered (mem_sleep: %s)\n",
		       modes[0] ? strtok(modes, "\n") : "unreadable");
		return;
	}
	if (cpu < 1 || set_online_quietly(cpu, 0)) {
		printf("idle-workload: suspend-to-RAM: cannot take cpu%d offline\n",
		       cpu);
		return;
	}
	printf("idle-workload: cpu%d online=0\n", cpu);
	pin(0);
	release_offline_device(cpu);
	sleep_us(500000);
	for (try = 1; try <= 3; try++, seconds *= 2) {
		if (suspend_setup("deep", seconds, count, sizeof(count))) {
			printf("idle-workload: suspend-to-RAM: cannot set up the suspend\n");
			break;
		}
		if (write_file("/sys/power/wakeup_count", count)) {
			printf("idle-workload: suspend-to-RAM: a wake-up event since the count was read (%d s, try %d of 3)\n",
			       seconds, try);
			continue;
		}
		if (write_file("/sys/power/state", "mem\n")) {
			printf("idle-workload: suspend-to-RAM: the kernel refused the suspend: %s (%d s, try %d of 3)\n",
			       strerror(errno), seconds, try);
			continue;
		}
		settle_console();
		printf("idle-workload: back from suspend-to-RAM, cpu%d offline\n",
		       cpu);
		dump("after s2ram resume");
		sleep_us(3000000);
		dump("after s2ram idle");
		break;
	}
	if (try > 3)
		printf("idle-workload: suspend-to-RAM: gave up after 3 tries\n");
	set_online(cpu, 1);
	unpin();
}

/*
 * A kernel with kmemleak: scan and print what it found, then power off.
 * Twice: the first scan of an object only records its checksum, and
 * kmemleak reports an object only when a scan finds it unreferenced and
 * unchanged since the one before (one scan reported 16 leaks planted in a
 * probe: none).
 */
static void finish(void)
{
	if (!access("/sys/kernel/debug/kmemleak", F_OK) &&
	    !write_file("/sys/kernel/debug/kmemleak", "scan\n") &&
	    !write_file("/sys/kernel/debug/kmemleak", "scan\n")) {
		printf("=== idle-workload: kmemleak ===\n");
		cat("/sys/kernel/debug/kmemleak");
		printf("=== idle-workload: end of kmemleak ===\n");
	}
	printf("idle-workload: done\n");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
}

int main(void)
{
	int ncpus, first, last, tracing;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	printf("idle-workload: start, %d CPUs online\n", ncpus);
	dump("start");
	if (strstr(cmdline(), "idle_workload.short")) {
		sleep_us(2000000);
		dump("end");
		/*
		 * kmemleak reports only objects older than 5 s: the
		 * initcalls all ran before this init started.
		 */
		sleep_us(4000000);
		finish();
		return 0;
	}
	tracing = trace_start(ncpus);

	/* Idle. */
	sleep_us(1500000);
	/* Periodic timers on CPU 1 (1 ms) and the last CPU (10 ms). */
	spawn(1, 1.0, 0, 1000);
	spawn(ncpus - 1, 1.0, 0, 10000);
	while (wait(NULL) > 0)
		;
	/* Bursts of work on CPUs 0 and 2, idle between them. */
	spawn(0, 1.0, 50000, 150000);
	spawn(2 % ncpus, 1.0, 20000, 80000);
	while (wait(NULL) > 0)
		;
	sleep_us(500000);
	if (tracing)
		trace_stop();

	dump("before hotplug");
	set_online(1, 0);
	sleep_us(1000000);
	set_online(1, 1);
	settle_console();
	dump("after hotplug");
	sleep_us(1500000);
	if (cluster_cpus(&first, &last) && last < ncpus)
		cluster_offline(first, last);
	hotplug_storm(ncpus, 10.0);
	sleep_us(1500000);
	dump("before s2idle");
	suspend_to_idle(2);
	sleep_us(500000);
	dump("after s2idle");
	if (strstr(cmdline(), "idle_workload.s2ram"))
		suspend_to_ram(ncpus - 1, 2);
	sleep_us(500000);
	dump("end");

	finish();
	return 0;
}
