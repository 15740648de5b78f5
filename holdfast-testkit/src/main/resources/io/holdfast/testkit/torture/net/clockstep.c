/*
 * clockstep: an LD_PRELOAD library that offsets a server's wall clock by the number of milliseconds the
 * file named by HOLDFAST_CLOCK_FILE holds (a little-endian int64 at offset 0, mapped shared: a write by
 * the torture harness takes effect at once). clock_gettime(CLOCK_REALTIME[_COARSE]), gettimeofday and
 * time are offset; every other clock (CLOCK_MONOTONIC...) is untouched.
 *
 * Written for Redis built with jemalloc, where libfaketime cannot run (jemalloc calls clock_gettime while
 * libfaketime initialises, which allocates: wolfcw/libfaketime#130). This library never allocates and
 * never calls dlsym: the real clocks are read with the raw system call.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile int64_t *offset_ms;
static volatile int mapped; /* 0: not tried, 1: mapped, -1: no file */

static int64_t offset(void) {
    if (__atomic_load_n(&mapped, __ATOMIC_ACQUIRE) == 0) {
        const char *path = getenv("HOLDFAST_CLOCK_FILE");
        int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
        void *p = fd >= 0 ? mmap(NULL, sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
        if (fd >= 0) {
            close(fd);
        }
        if (p != MAP_FAILED) {
            offset_ms = p;
        }
        __atomic_store_n(&mapped, p != MAP_FAILED ? 1 : -1, __ATOMIC_RELEASE);
    }
    return mapped == 1 ? __atomic_load_n(offset_ms, __ATOMIC_RELAXED) : 0;
}

static int real_clock_gettime(clockid_t id, struct timespec *ts) {
    return (int) syscall(SYS_clock_gettime, id, ts);
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    int r = real_clock_gettime(id, ts);
    if (r == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) {
        int64_t ns = (int64_t) ts->tv_sec * 1000000000LL + ts->tv_nsec + offset() * 1000000LL;
        ts->tv_sec = ns / 1000000000LL;
        ts->tv_nsec = ns % 1000000000LL;
    }
    return r;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    (void) tz;
    struct timespec ts;
    int r = clock_gettime(CLOCK_REALTIME, &ts);
    if (r == 0) {
        tv->tv_sec = ts.tv_sec;
        tv->tv_usec = ts.tv_nsec / 1000;
    }
    return r;
}

time_t time(time_t *t) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (t != NULL) {
        *t = ts.tv_sec;
    }
    return ts.tv_sec;
}
