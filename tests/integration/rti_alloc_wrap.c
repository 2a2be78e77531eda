/* Allocation counter linked into the sanitized test build of the RTI (build/rti-san/tempo-rti,
 * mk/30-rti.mk) with -Wl,--wrap: every malloc/calloc/realloc/strdup made by Tempo's own code
 * (not by libevent or libc, which are not wrapped) is counted, and SIGUSR2 writes the count
 * to stderr as "alloc-count: N". Serves doc/contributing.md §8; read rti_alloc_test.c next. */
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

static atomic_ulong allocs; /* allocations made by Tempo's code since start */

void *__wrap_malloc(size_t n)
{
    atomic_fetch_add(&allocs, 1);
    return __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n)
{
    atomic_fetch_add(&allocs, 1);
    return __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
    atomic_fetch_add(&allocs, 1);
    return __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
    atomic_fetch_add(&allocs, 1);
    return __real_strdup(s);
}

/* Async-signal-safe: digits by hand, one write(2). */
static void report(int sig)
{
    char buf[48] = "alloc-count: ";
    char digits[24];
    unsigned long v = atomic_load(&allocs);
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    size_t len = strlen(buf);
    while (n)
        buf[len++] = digits[--n];
    buf[len++] = '\n';
    ssize_t w = write(2, buf, len);
    (void)w;
    (void)sig;
}

__attribute__((constructor)) static void install(void)
{
    signal(SIGUSR2, report);
}
