/*
 * bench_clock.c -- wall clock, cycle/tick counters, CPU pinning, machine
 * facts for aesgen-bench.
 *
 * Counters, best first:
 *  - perf: perf_event_open(PERF_COUNT_HW_CPU_CYCLES), user space only, this
 *    thread: real core cycles. Often missing in VMs (no virtual PMU).
 *  - tsc: rdtsc ticks. The TSC runs at a fixed rate that is generally NOT
 *    the core clock, so these are reported as "TSC ticks", never cycles.
 *  - none: only nanoseconds.
 */
#define _GNU_SOURCE
#include "bench.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#define HAVE_PERF 1
#else
#define HAVE_PERF 0
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#else
#define HAVE_TSC 0
#endif

static int g_kind = CNT_NONE;
static int g_perf_fd = -1;

double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

long involuntary_switches(void)
{
#if defined(RUSAGE_THREAD)
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) == 0)
        return ru.ru_nivcsw;
#endif
    return -1;
}

const char *counter_kind_name(int kind)
{
    switch (kind) {
    case CNT_PERF: return "perf";
    case CNT_TSC: return "tsc";
    default: return "none";
    }
}

const char *counter_unit(int kind)
{
    switch (kind) {
    case CNT_PERF: return "cycles";
    case CNT_TSC: return "TSC ticks";
    default: return "ns";
    }
}

int counter_kind_now(void) { return g_kind; }

#if HAVE_PERF
/* read_format: value, time_enabled, time_running; scaled if multiplexed. */
static uint64_t perf_read(void)
{
    uint64_t v[3] = {0, 0, 0};
    if (read(g_perf_fd, v, sizeof v) != (ssize_t)sizeof v)
        return 0;
    if (v[2] != 0 && v[2] < v[1])
        return (uint64_t)((double)v[0] * ((double)v[1] / (double)v[2]));
    return v[0];
}

static int perf_open(char *why, size_t whylen)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_HARDWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_HW_CPU_CYCLES;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    if (fd < 0) {
        snprintf(why, whylen, "perf_event_open(PERF_COUNT_HW_CPU_CYCLES) failed: %s",
                 strerror(errno));
        return -1;
    }
    g_perf_fd = fd;
    /* It must count something: some hypervisors accept the event and never
     * count. */
    uint64_t c0 = perf_read();
    uint64_t x = 0;
    for (uint64_t i = 0; i < 2000000; i++) {
        x += i;
        __asm__ volatile("" : "+r"(x)); /* keep the loop */
    }
    uint64_t c1 = perf_read();
    if (c1 <= c0 || c1 - c0 < 1000000) {
        snprintf(why, whylen,
                 "perf_event_open(PERF_COUNT_HW_CPU_CYCLES) opened but counted %llu "
                 "cycles over 2e6 loop iterations",
                 (unsigned long long)(c1 - c0));
        close(fd);
        g_perf_fd = -1;
        return -1;
    }
    return 0;
}
#endif

int counter_setup(int want, char *why, size_t whylen)
{
    if (whylen)
        why[0] = '\0';
    g_kind = CNT_NONE;
    if (want < 0 || want == CNT_PERF) {
#if HAVE_PERF
        if (perf_open(why, whylen) == 0) {
            g_kind = CNT_PERF;
            return g_kind;
        }
#else
        snprintf(why, whylen, "perf_event_open is Linux-only");
#endif
        if (want == CNT_PERF)
            return g_kind;
    }
    if (want < 0 || want == CNT_TSC) {
#if HAVE_TSC
        g_kind = CNT_TSC;
#else
        if (want == CNT_TSC)
            snprintf(why, whylen, "no TSC on this architecture");
#endif
    }
    return g_kind;
}

uint64_t counter_read(void)
{
    switch (g_kind) {
#if HAVE_PERF
    case CNT_PERF: return perf_read();
#endif
#if HAVE_TSC
    case CNT_TSC: return (uint64_t)__rdtsc();
#endif
    default: return 0;
    }
}

int pin_to_cpu(int cpu, char *desc, size_t desclen)
{
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        snprintf(desc, desclen, "not pinned: sched_getaffinity failed: %s", strerror(errno));
        return -1;
    }
    int nallowed = CPU_COUNT(&allowed);
    if (cpu < 0) {
        cpu = sched_getcpu();
        if (cpu < 0 || !CPU_ISSET(cpu, &allowed)) {
            cpu = -1;
            for (int i = 0; i < CPU_SETSIZE; i++)
                if (CPU_ISSET(i, &allowed)) {
                    cpu = i;
                    break;
                }
        }
    }
    if (cpu < 0 || cpu >= CPU_SETSIZE) {
        snprintf(desc, desclen, "not pinned: no usable CPU");
        return -1;
    }
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) {
        snprintf(desc, desclen, "NOT pinned: sched_setaffinity(CPU %d) failed: %s", cpu,
                 strerror(errno));
        return -1;
    }
    snprintf(desc, desclen, "pinned to CPU %d (sched_setaffinity; %d CPU%s were allowed)",
             cpu, nallowed, nallowed == 1 ? "" : "s");
    return cpu;
}

#if defined(__x86_64__)
/* 100 dependent register adds per iteration: about 100 core cycles (add has
 * a latency of one cycle; the loop overhead runs in parallel). */
static double core_mhz_add_chain(void)
{
    uint64_t x = 0, one = 1;
    const uint64_t iters = 20000; /* ~2e6 cycles, under a millisecond */
    double best = 0;
    /* The fastest of many short runs: a run that was preempted or shared
     * its core only looks slower. */
    for (int rep = 0; rep < 40; rep++) {
        double t0 = now_ns();
        for (uint64_t i = 0; i < iters; i++) {
            __asm__ volatile(".rept 100\n\taddq %1, %0\n\t.endr" : "+r"(x) : "r"(one));
        }
        double t1 = now_ns();
        double mhz = (double)iters * 100.0 / (t1 - t0) * 1e3;
        if (mhz > best)
            best = mhz;
    }
    return best;
}
#endif

void clock_warmup(double ms, double *tsc_mhz, double *core_mhz)
{
    double t0 = now_ns();
#if HAVE_TSC
    uint64_t r0 = (uint64_t)__rdtsc();
#endif
    uint64_t x = 0;
    double t1;
    do {
        for (int i = 0; i < 100000; i++) {
            x += (uint64_t)i * 3u;
            __asm__ volatile("" : "+r"(x)); /* keep the loop */
        }
        t1 = now_ns();
    } while (t1 - t0 < ms * 1e6);
#if HAVE_TSC
    uint64_t r1 = (uint64_t)__rdtsc();
    *tsc_mhz = (double)(r1 - r0) / (t1 - t0) * 1e3;
#else
    *tsc_mhz = 0;
#endif
#if defined(__x86_64__)
    *core_mhz = core_mhz_add_chain();
#else
    *core_mhz = 0;
#endif
}

void machine_cpu_model(char *out, size_t n)
{
    snprintf(out, n, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *p = strchr(line, ':');
            if (p) {
                p++;
                while (*p == ' ' || *p == '\t')
                    p++;
                p[strcspn(p, "\n")] = '\0';
                snprintf(out, n, "%s", p);
            }
            break;
        }
    }
    fclose(f);
}

void machine_kernel(char *out, size_t n)
{
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(out, n, "%s %s %s", u.sysname, u.release, u.machine);
    else
        snprintf(out, n, "unknown");
}

const char *machine_compiler(void)
{
#if defined(__clang__)
    return __VERSION__; /* e.g. "Debian Clang 14.0.6" */
#elif defined(__GNUC__)
    return "gcc " __VERSION__;
#elif defined(__VERSION__)
    return __VERSION__;
#else
    return "unknown";
#endif
}
