// SPDX-License-Identifier: GPL-2.0
/*
 * An init that makes every CPU go idle and wake up as often as it can:
 * one thread per online CPU, bound to it, sleeping random periods of 50 us
 * to 5 ms, so that all CPUs are idle at once many times a second, while
 * another takes a random CPU but CPU 0 offline and back every 20 ms (CPU
 * hotplug makes the firmware turn CPUs off and on, and the CPUs' timers
 * stop and start). Thread 0
 * prints "idle-storm: N s" each second of the guest's clock; after
 * storm_seconds (an environment variable from the kernel's command line,
 * 20 by default) it prints "idle-storm: done" and powers off.
 *
 * It needs no driver of the series: it is meant to reproduce, on any arm64
 * kernel, a QEMU that leaves every vCPU halted with a guest timer armed
 * (it has not yet: docs/reliability.md). A storm thread whose CPU goes
 * offline is moved by the kernel and stays unbound.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <time.h>
#include <unistd.h>

static int seconds = 20;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *storm(void *arg)
{
	long cpu = (long)arg;
	unsigned int seed = cpu * 7919 + 1;
	double start = now(), last = 0;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (now() - start < seconds) {
		struct timespec ts = { 0, 50000 + rand_r(&seed) % 4950000 };

		nanosleep(&ts, NULL);
		if (cpu == 0 && now() - start >= last + 1) {
			last += 1;
			printf("idle-storm: %.0f s\n", last);
			fflush(stdout);
		}
	}
	return NULL;
}

/* The entries of each cpuidle state of @cpu: what the storm idled in. */
static void print_idle(long cpu)
{
	char path[96], name[32];
	int state;

	for (state = 0; state < 8; state++) {
		unsigned long usage = 0;
		FILE *f;

		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%ld/cpuidle/state%d/name", cpu, state);
		f = fopen(path, "r");
		if (!f)
			return;
		if (fscanf(f, "%31s", name) != 1)
			name[0] = 0;
		fclose(f);
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%ld/cpuidle/state%d/usage", cpu, state);
		f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%lu", &usage) != 1)
				usage = 0;
			fclose(f);
		}
		printf("idle-storm: cpu%ld %s entered %lu times\n", cpu, name, usage);
	}
}

static int set_online(long cpu, int online)
{
	char path[64];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/online", cpu);
	f = fopen(path, "w");
	if (!f)
		return -1;
	err = fputs(online ? "1\n" : "0\n", f) < 0;
	return fclose(f) || err ? -1 : 0;
}

static volatile int storming = 1;

/* CPU hotplug of CPUs 1 to @ncpus - 1, every 20 ms. */
static void *hotplug(void *arg)
{
	long ncpus = (long)arg, changes = 0;
	unsigned int seed = 12345;

	while (storming && ncpus > 1) {
		long cpu = 1 + rand_r(&seed) % (ncpus - 1);
		struct timespec ts = { 0, 20000000 };

		if (!set_online(cpu, 0) && !set_online(cpu, 1))
			changes += 2;
		nanosleep(&ts, NULL);
	}
	printf("idle-storm: %ld hotplug changes\n", changes);
	return NULL;
}

int main(void)
{
	const char *env = getenv("storm_seconds");
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN), cpu;
	pthread_t threads[512], plug;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	if (env)
		seconds = atoi(env);
	if (ncpus > 512)
		ncpus = 512;
	printf("idle-storm: %ld CPUs, %d s\n", ncpus, seconds);
	fflush(stdout);
	for (cpu = 0; cpu < ncpus; cpu++)
		pthread_create(&threads[cpu], NULL, storm, (void *)cpu);
	pthread_create(&plug, NULL, hotplug, (void *)ncpus);
	for (cpu = 0; cpu < ncpus; cpu++)
		pthread_join(threads[cpu], NULL);
	storming = 0;
	pthread_join(plug, NULL);
	for (cpu = 0; cpu < ncpus; cpu++)
		print_idle(cpu);
	printf("idle-storm: done\n");
	fflush(stdout);
	reboot(RB_POWER_OFF);
	return 0;
}
