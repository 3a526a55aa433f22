// SPDX-License-Identifier: GPL-2.0
/*
 * Init of the taskstats boot (tools/boot/taskstats.sh): read scaled and
 * unscaled CPU time over taskstats netlink after a busy loop, per thread
 * and per thread group, and check that they are equal, as they must be on
 * a machine whose CPUs run at one frequency with no activity counters
 * (QEMU emulates neither AMU nor APERF/MPERF). Then run getdelays on the
 * same thread and group so that the log shows its columns.
 *
 * The busy loops run in a child process, on CPUs 1 and 2 (nohz_full in
 * the nohz_full boot), which then blocks: reading a running task's times
 * races with its tick (taskstats reads the unscaled and the scaled pair
 * one after the other), a blocked task's cannot. Prints the nohz_full
 * CPUs, "taskstats-check: PASS|FAIL <what>" lines, then "done".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BUSY_NS		300000000LL	/* of user, then of system time */

static int failures;

static void check(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("taskstats-check: %s ", ok ? "PASS" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	failures += !ok;
}

static long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* About BUSY_NS of user time, then as much in the kernel (pipe copies). */
static void busy(void)
{
	static char buf[65536];
	volatile unsigned long spin = 0;
	long long start = thread_cpu_ns();
	int p[2];

	while (thread_cpu_ns() - start < BUSY_NS)
		for (int i = 0; i < 100000; i++)
			spin++;
	if (pipe(p))
		return;
	start = thread_cpu_ns();
	while (thread_cpu_ns() - start < BUSY_NS) {
		if (write(p[1], buf, sizeof(buf)) < 0 ||
		    read(p[0], buf, sizeof(buf)) < 0)
			break;
	}
	close(p[0]);
	close(p[1]);
}

static int ready[2], release[2];
static pid_t worker_tid;

/* Run the calling thread on @cpu only: 1 and 2 are nohz_full if any. */
static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	check(!sched_setaffinity(0, sizeof(set), &set) && sched_getcpu() == cpu,
	      "thread %ld runs on CPU %d", syscall(SYS_gettid), cpu);
}

static void *worker(void *unused)
{
	char c;

	pin(2);
	worker_tid = syscall(SYS_gettid);
	busy();
	/* Tell the parent our tid, then block until released. */
	if (write(ready[1], &worker_tid, sizeof(worker_tid)) < 0)
		return NULL;
	if (read(release[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

static void child(void)
{
	pthread_t t;
	char c;

	pin(1);
	busy();
	pthread_create(&t, NULL, worker, NULL);
	/* Blocks here, with the worker, until the parent has read both. */
	if (read(release[0], &c, 1) < 0)
		exit(1);
	pthread_join(t, NULL);
	exit(0);
}

/* Generic netlink */

struct msg {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char buf[2048];
};

#define GENL_DATA(m)	((char *)&(m)->g + GENL_HDRLEN)
#define ATTR_DATA(a)	((char *)(a) + NLA_HDRLEN)

static int nl_request(int fd, __u16 family, __u8 cmd, __u16 type,
		      const void *data, int len, struct msg *reply)
{
	struct msg req = { 0 };
	struct nlattr *a = (struct nlattr *)GENL_DATA(&req);
	ssize_t got;

	req.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_HDRLEN + NLA_ALIGN(len);
	req.n.nlmsg_type = family;
	req.n.nlmsg_flags = NLM_F_REQUEST;
	req.n.nlmsg_pid = getpid();
	req.g.cmd = cmd;
	req.g.version = 1;
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy(ATTR_DATA(a), data, len);
	if (send(fd, &req, req.n.nlmsg_len, 0) < 0)
		return -errno;
	got = recv(fd, reply, sizeof(*reply), 0);
	if (got < 0)
		return -errno;
	if (!NLMSG_OK(&reply->n, got))
		return -EBADMSG;
	if (reply->n.nlmsg_type == NLMSG_ERROR)
		return ((struct nlmsgerr *)NLMSG_DATA(&reply->n))->error;
	return 0;
}

/* The attribute of @type among those from @start to @end, or NULL. */
static struct nlattr *nl_find(char *start, char *end, int type)
{
	while (start + NLA_HDRLEN <= end) {
		struct nlattr *a = (struct nlattr *)start;

		if (a->nla_len < NLA_HDRLEN)
			return NULL;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		start += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

static int taskstats_family(int fd)
{
	struct msg reply;
	struct nlattr *a;

	if (nl_request(fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
		       CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME,
		       sizeof(TASKSTATS_GENL_NAME), &reply))
		return -1;
	a = nl_find(GENL_DATA(&reply), (char *)&reply + reply.n.nlmsg_len,
		    CTRL_ATTR_FAMILY_ID);
	return a ? *(__u16 *)ATTR_DATA(a) : -1;
}

/* Taskstats of a thread (TASKSTATS_CMD_ATTR_PID) or a group (_TGID). */
static int get_stats(int fd, int family, int attr, pid_t id,
		     struct taskstats *ts)
{
	struct msg reply;
	struct nlattr *aggr, *stats;
	int aggr_type = attr == TASKSTATS_CMD_ATTR_PID ?
		TASKSTATS_TYPE_AGGR_PID : TASKSTATS_TYPE_AGGR_TGID;
	int ret;

	ret = nl_request(fd, family, TASKSTATS_CMD_GET, attr, &id, sizeof(id),
			 &reply);
	if (ret)
		return ret;
	aggr = nl_find(GENL_DATA(&reply), (char *)&reply + reply.n.nlmsg_len,
		       aggr_type);
	if (!aggr)
		return -ENOENT;
	stats = nl_find(ATTR_DATA(aggr), (char *)aggr + aggr->nla_len,
			TASKSTATS_TYPE_STATS);
	if (!stats)
		return -ENOENT;
	memset(ts, 0, sizeof(*ts));
	memcpy(ts, ATTR_DATA(stats), stats->nla_len - NLA_HDRLEN < sizeof(*ts) ?
	       stats->nla_len - NLA_HDRLEN : sizeof(*ts));
	return 0;
}

static void check_stats(const char *what, const struct taskstats *ts,
			unsigned long long min_us)
{
	printf("taskstats-check: %s: utime %llu us, stime %llu us, scaled utime %llu us, scaled stime %llu us (version %u)\n",
	       what, (unsigned long long)ts->ac_utime,
	       (unsigned long long)ts->ac_stime,
	       (unsigned long long)ts->ac_utimescaled,
	       (unsigned long long)ts->ac_stimescaled, ts->version);
	check(ts->ac_utime >= min_us && ts->ac_stime >= min_us,
	      "%s: busy loop charged at least %llu us of user and of system time",
	      what, min_us);
	check(ts->ac_utimescaled == ts->ac_utime,
	      "%s: scaled utime equals utime", what);
	check(ts->ac_stimescaled == ts->ac_stime,
	      "%s: scaled stime equals stime", what);
}

static void getdelays(const char *opt, pid_t id)
{
	char arg[16];
	pid_t pid;

	snprintf(arg, sizeof(arg), "%d", id);
	printf("taskstats-check: $ getdelays -d %s %s\n", opt, arg);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl("/getdelays", "getdelays", "-d", opt, arg, (char *)NULL);
		perror("getdelays");
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	printf("taskstats-check: getdelays done\n");
}

static volatile int spinning, stop;
static pid_t spinner_tid;

static void *spinner(void *unused)
{
	pin(3);
	spinner_tid = syscall(SYS_gettid);
	spinning = 1;
	while (!stop)
		;
	return NULL;
}

/*
 * nohz_full only: a thread spinning in user space on a CPU without the
 * tick is charged at its rare kernel entries; taskstats adds the time since
 * the last one to its utime, and must add it to its scaled utime too.
 * Scaled is read after unscaled, so with a scale of 1 it may be larger by
 * the time between the two reads, never smaller.
 */
static void check_running(int fd, int family)
{
	struct taskstats ts;
	pthread_t t;
	int i, good = 0, reads = 5;

	pin(0);
	pthread_create(&t, NULL, spinner, NULL);
	while (!spinning)
		usleep(10000);
	for (i = 0; i < reads; i++) {
		usleep(300000);
		if (get_stats(fd, family, TASKSTATS_CMD_ATTR_PID, spinner_tid, &ts))
			continue;
		printf("taskstats-check: running thread, read %d: utime %llu us, scaled utime %llu us\n",
		       i + 1, (unsigned long long)ts.ac_utime,
		       (unsigned long long)ts.ac_utimescaled);
		good += ts.ac_utimescaled >= ts.ac_utime &&
			ts.ac_utimescaled <= ts.ac_utime + 200000;
	}
	stop = 1;
	pthread_join(t, NULL);
	check(good == reads,
	      "running thread on a nohz_full CPU: utime <= scaled utime <= utime + 200 ms in %d of %d reads",
	      good, reads);
}

static int show_nohz_full(void)
{
	char cpus[64] = "";
	FILE *f = fopen("/sys/devices/system/cpu/nohz_full", "r");

	if (f) {
		if (!fgets(cpus, sizeof(cpus), f))
			cpus[0] = 0;
		fclose(f);
	}
	cpus[strcspn(cpus, "\n")] = 0;
	printf("taskstats-check: nohz_full CPUs: %s\n", cpus[0] ? cpus : "none");
	return cpus[0] != 0;
}

int main(void)
{
	/*
	 * Five ticks at the test kernel's HZ=250, in microseconds: enough that
	 * equal scaled and unscaled times are not two zeros. Not a share of
	 * the loops: their length is the thread's run time, which goes on
	 * while QEMU's vCPU thread waits for a host CPU, and the tick charges
	 * one tick for all the ticks it missed meanwhile (on a loaded host a
	 * thread was charged 260 ms for its 600 ms of loops).
	 */
	unsigned long long min_us = 5 * 4000;
	struct taskstats thread, group;
	pid_t pid, tid;
	int fd, family, ret, nohz_full;

	setvbuf(stdout, NULL, _IOLBF, 0);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	nohz_full = show_nohz_full();
	/*
	 * The checks below, when each one's prerequisite passes: two CPUs
	 * pinned, the netlink family, the thread's and the thread group's
	 * stats (one read and three comparisons each), the group's sum, and
	 * on nohz_full CPUs two more pinned and the running thread.
	 */
	printf("taskstats-check: %d checks\n", nohz_full ? 15 : 12);
	if (pipe(ready) || pipe(release))
		return 1;
	pid = fork();
	if (pid == 0)
		child();
	if (read(ready[0], &tid, sizeof(tid)) != sizeof(tid))
		return 1;
	/* Both threads of the child are blocked now. */

	fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	family = fd < 0 ? -1 : taskstats_family(fd);
	check(family >= 0, "the kernel has the TASKSTATS netlink family");
	if (family >= 0) {
		ret = get_stats(fd, family, TASKSTATS_CMD_ATTR_PID, tid, &thread);
		check(!ret, "taskstats of thread %d (error %d)", tid, ret);
		if (!ret)
			check_stats("thread", &thread, min_us);
		ret = get_stats(fd, family, TASKSTATS_CMD_ATTR_TGID, pid, &group);
		check(!ret, "taskstats of thread group %d (error %d)", pid, ret);
		if (!ret) {
			check_stats("thread group", &group, 2 * min_us);
			check(group.ac_utime + group.ac_stime >=
			      thread.ac_utime + thread.ac_stime + min_us,
			      "thread group: the sum of its two threads");
		}
		getdelays("-p", tid);
		getdelays("-t", pid);
		if (nohz_full)
			check_running(fd, family);
	}

	/* One byte for each of the child's two threads. */
	if (write(release[1], "xx", 2) < 0)
		return 1;
	waitpid(pid, NULL, 0);
	printf("taskstats-check: done, %d failed\n", failures);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
