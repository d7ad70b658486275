/*
 * guard_alloc.c - the allocator of the guarded run: the memory check that
 * the kernel makes (grader/gradelib/guard.py).
 *
 * Linked into a static student program before the C library, it is that
 * program's malloc, the C library's own calls included. Each block has a
 * mapping of its own and ends where a page begins that nobody may touch;
 * a freed block's pages become untouchable too and are never handed out
 * again. So a read or write past the end of a block (at 8-byte grain, the
 * alignment malloc promises), into a freed block, or a second free (its
 * header lies on a freed page) is a fault the kernel raises: SIGSEGV.
 * A new block is filled with POISON, so an answer built on bytes never
 * written comes out differently than it does natively.
 *
 * Why this can earn points where valgrind cannot: valgrind's verdict is
 * made inside the student process, and a program can silence it
 * (grader/boundary/README.md, "Client requests"). Here nothing in the
 * process decides: under POLICY_GUARD (seccomp_policy.c) the process may
 * make a page untouchable but never touchable again (mprotect only to
 * PROT_NONE; no munmap, mremap or fixed mapping that could put a page
 * back), and may not handle SIGSEGV or SIGBUS; a fault kills it, and the
 * trusted runner sees the test crash.
 *
 * Invariants: every block's header (struct header, just before the
 * pointer handed out) is on the block's own mapping; `base` and `pages`
 * describe that mapping but its last page, which is the guard; the
 * process is single-threaded (the policy allows no clone).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { GRAIN = 8, PAGE = 4096, POISON = 0xa5 };
static const uint32_t LIVE = 0x6c697665u; /* "live" */

struct header {
    uint32_t magic;
    uint32_t pages; /* the block's pages before its guard page */
    char *base;
};

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

/* A block of `size` bytes aligned to `align` (a power of two, at least
 * GRAIN), ending as close to its guard page as the alignment allows. */
static void *guarded(size_t size, size_t align, int fill)
{
    if (size > SIZE_MAX / 2 - 2 * PAGE - align) {
        errno = ENOMEM;
        return NULL;
    }
    size_t body = round_up(size, GRAIN);
    size_t pages = round_up(sizeof(struct header) + body + align, PAGE) / PAGE;
    char *base = mmap(NULL, (pages + 1) * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        errno = ENOMEM;
        return NULL;
    }
    char *guard = base + pages * PAGE;
    if (mprotect(guard, PAGE, PROT_NONE) != 0) {
        errno = ENOMEM;
        return NULL; /* the mapping is lost: the run reports the failure */
    }
    char *user = (char *)((uintptr_t)(guard - body) & ~(uintptr_t)(align - 1));
    struct header *h = (struct header *)user - 1;
    h->magic = LIVE;
    h->pages = (uint32_t)pages;
    h->base = base;
    if (fill)
        memset(user, POISON, (size_t)(guard - user));
    return user;
}

static struct header *header_of(void *p)
{
    struct header *h = (struct header *)p - 1;
    if (h->magic != LIVE) /* reading a freed block's header faults first */
        abort();
    return h;
}

void *malloc(size_t size)
{
    return guarded(size, GRAIN, 1);
}

void *calloc(size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    return guarded(count * size, GRAIN, 0); /* a new mapping is zeros */
}

void free(void *p)
{
    if (p == NULL)
        return;
    struct header *h = header_of(p);
    char *base = h->base;
    size_t pages = h->pages;
    h->magic = 0;
    if (mprotect(base, pages * PAGE, PROT_NONE) != 0)
        abort();
    (void)madvise(base, pages * PAGE, MADV_DONTNEED); /* give the memory back */
}

size_t malloc_usable_size(void *p)
{
    if (p == NULL)
        return 0;
    struct header *h = header_of(p);
    return (size_t)(h->base + (size_t)h->pages * PAGE - (char *)p);
}

void *realloc(void *p, size_t size)
{
    if (p == NULL)
        return malloc(size);
    size_t old = malloc_usable_size(p);
    void *moved = guarded(size, GRAIN, 1);
    if (moved == NULL)
        return NULL;
    memcpy(moved, p, old < size ? old : size);
    free(p);
    return moved;
}

void *aligned_alloc(size_t align, size_t size)
{
    if (align == 0 || (align & (align - 1)) != 0 || align > PAGE) {
        errno = EINVAL;
        return NULL;
    }
    return guarded(size, align < GRAIN ? GRAIN : align, 1);
}

void *memalign(size_t align, size_t size)
{
    return aligned_alloc(align, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
    if (align % sizeof(void *) != 0)
        return EINVAL;
    void *p = aligned_alloc(align, size);
    if (p == NULL)
        return errno;
    *out = p;
    return 0;
}

void *valloc(size_t size)
{
    return aligned_alloc(PAGE, size);
}

void *pvalloc(size_t size)
{
    return aligned_alloc(PAGE, round_up(size, PAGE));
}
