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
 * pointer handed out) is on the block's own mapping; a guarded block's
 * guard page starts `usable` bytes after its pointer, and its `pages`
 * pages before the guard are its mapping's; at most GUARDED_MAX guarded
 * blocks are live, the rest come from a pool, unguarded; the process is
 * single-threaded (the policy allows no clone).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { GRAIN = 8, PAGE = 4096, POISON = 0xa5 };
/* Live guarded blocks at most: each is two mappings (its pages, its guard)
 * and a process may hold 65530. Beyond it, blocks come unguarded from a
 * pool (still new, poisoned, never reused), so a correct program never
 * fails for want of mappings; a test that keeps 30000 blocks alive is
 * beyond the light tests this run is for. */
enum { GUARDED_MAX = 30000, POOL_CHUNK = 1 << 20 };
static const uint32_t GUARDED = 0x67726464u; /* "grdd" */
static const uint32_t POOLED = 0x706f6f6cu;  /* "pool" */

struct header {
    uint32_t magic;
    uint32_t pages;   /* guarded: the block's pages before its guard page */
    size_t usable;    /* bytes from the pointer to the guard (or the block's end) */
};

static size_t guarded_live;
static char *pool_next, *pool_end;

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

static void *mapped(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void *finish(struct header *h, uint32_t magic, uint32_t pages, size_t usable, int fill)
{
    h->magic = magic;
    h->pages = pages;
    h->usable = usable;
    if (fill)
        memset(h + 1, POISON, usable);
    return h + 1;
}

static void *pooled(size_t body, size_t align, int fill)
{
    char *start = (char *)round_up((uintptr_t)pool_next + sizeof(struct header), align);
    if (pool_next == NULL || start + body > pool_end) {
        size_t bytes = round_up(sizeof(struct header) + body + align, POOL_CHUNK);
        char *chunk = mapped(bytes);
        if (chunk == NULL)
            return NULL;
        pool_next = chunk;
        pool_end = chunk + bytes;
        start = (char *)round_up((uintptr_t)pool_next + sizeof(struct header), align);
    }
    pool_next = start + body;
    return finish((struct header *)start - 1, POOLED, 0, body, fill);
}

/* A block of `size` bytes aligned to `align` (a power of two, at least
 * GRAIN, at most PAGE), ending as close to its guard page as the
 * alignment allows. */
static void *guarded(size_t size, size_t align, int fill)
{
    if (size > SIZE_MAX / 2 - 2 * PAGE - align) {
        errno = ENOMEM;
        return NULL;
    }
    size_t body = round_up(size, GRAIN);
    if (guarded_live >= GUARDED_MAX)
        return pooled(body, align, fill);
    size_t pages = round_up(sizeof(struct header) + body + align, PAGE) / PAGE;
    if (pages > UINT32_MAX - 1)
        return pooled(body, align, fill);
    char *base = mapped((pages + 1) * PAGE);
    if (base == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    char *guard = base + pages * PAGE;
    if (mprotect(guard, PAGE, PROT_NONE) != 0) {
        /* out of mappings: the mapping serves unguarded (the policy allows
         * no munmap) */
        char *user = (char *)round_up((uintptr_t)base + sizeof(struct header), align);
        return finish((struct header *)user - 1, POOLED, 0, (size_t)(guard + PAGE - user), fill);
    }
    guarded_live++;
    char *user = (char *)((uintptr_t)(guard - body) & ~(uintptr_t)(align - 1));
    return finish((struct header *)user - 1, GUARDED, (uint32_t)pages, (size_t)(guard - user), fill);
}

static struct header *header_of(void *p)
{
    struct header *h = (struct header *)p - 1;
    if (h->magic != GUARDED && h->magic != POOLED) /* a freed guarded block's header faults first */
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
    if (h->magic == POOLED) {
        h->magic = 0;
        memset(p, POISON, h->usable); /* never reused: a later read finds poison */
        return;
    }
    char *guard = (char *)p + h->usable;
    size_t bytes = (size_t)h->pages * PAGE;
    h->magic = 0;
    guarded_live--;
    if (mprotect(guard - bytes, bytes, PROT_NONE) != 0)
        abort();
    (void)madvise(guard - bytes, bytes, MADV_DONTNEED); /* give the memory back */
}

size_t malloc_usable_size(void *p)
{
    return p == NULL ? 0 : header_of(p)->usable;
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
