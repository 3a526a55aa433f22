// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark of CPU time accounting per tick, built into a kernel by
 * tools/bench/cputime.sh (never part of the series), once with
 * CONFIG_FREQ_SCALED_CPUTIME and once without. At boot it counts the
 * instructions of account_process_tick() for a user tick and for a system
 * tick (PMU event "instructions", interrupts off, minus an empty loop),
 * charged to the benchmark's own task, and prints the task's times.
 */
#include <linux/init.h>
#include <linux/kernel_stat.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/sched/cputime.h>
#include <linux/workqueue.h>

#define BENCH_LOOPS	1000

static bool bench_sink;

static noinline void bench_nothing(struct task_struct *p, int user)
{
	bench_sink = READ_ONCE(bench_sink) ^ user;
}

static u64 bench_count(struct perf_event *ev,
		       void (*fn)(struct task_struct *, int), int user)
{
	unsigned long flags;
	u64 start, end;
	int i;

	local_irq_save(flags);
	perf_event_read_local(ev, &start, NULL, NULL);
	for (i = 0; i < BENCH_LOOPS; i++)
		fn(current, user);
	perf_event_read_local(ev, &end, NULL, NULL);
	local_irq_restore(flags);
	return end - start;
}

static long bench_measure(void *unused)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.size = sizeof(attr),
		.pinned = 1,
	};
	u64 utime, stime, uscaled, sscaled, empty, tick[2];
	struct perf_event *ev;
	int user;

	ev = perf_event_create_kernel_counter(&attr, smp_processor_id(), NULL,
					      NULL, NULL);
	if (IS_ERR(ev)) {
		pr_err("cputime-tick-bench: no instruction counter: %ld\n",
		       PTR_ERR(ev));
		return PTR_ERR(ev);
	}
	for (user = 0; user <= 1; user++) {
		/* Warm up, then measure. */
		bench_count(ev, account_process_tick, user);
		tick[user] = bench_count(ev, account_process_tick, user);
	}
	empty = bench_count(ev, bench_nothing, 0);
	task_cputime(current, &utime, &stime);
	task_cputime_scaled(current, &uscaled, &sscaled);
	pr_info("cputime-tick-bench: scaled=%s ticks=%d instructions/user-tick=%llu instructions/system-tick=%llu (loop overhead %llu subtracted) utime=%llu stime=%llu utimescaled=%llu stimescaled=%llu\n",
		IS_ENABLED(CONFIG_FREQ_SCALED_CPUTIME) ? "on" : "off",
		BENCH_LOOPS, div_u64(tick[1] - empty, BENCH_LOOPS),
		div_u64(tick[0] - empty, BENCH_LOOPS),
		div_u64(empty, BENCH_LOOPS), utime, stime, uscaled, sscaled);
	perf_event_release_kernel(ev);
	return 0;
}

static int __init cputime_tick_bench_init(void)
{
	work_on_cpu(0, bench_measure, NULL);
	return 0;
}
late_initcall_sync(cputime_tick_bench_init);
