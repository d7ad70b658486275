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
 * written comes out differently than it does natively. A process has
 * mappings and address space for some 30,000 such blocks over its life;
 * later ones come from a pool, unguarded, poisoned, reused only after a
 * quarantine: a long search (a correct solver without its memo makes
 * millions) must end as it does natively, not for want of memory.
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
 * pointer handed out) is on the block's own mapping or in the pool; a
 * guarded block's guard page starts `usable` bytes after its pointer, and
 * its `pages` pages before the guard are its mapping's; the guarded blocks
 * hold at most MAPPINGS_MAX mappings (two each, freed or not: the kernel
 * keeps a freed block's pages and guard apart), the rest come from the pool,
 * unguarded; a pooled block of usable size u sits in class floor(log2 u)
 * and serves requests of at most that power of two; the process is
 * single-threaded (the policy allows no clone).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

enum { GRAIN = 8, PAGE = 4096, POISON = 0xa5 };
/* The mappings the guarded blocks may take, of the 65530 a process may
 * hold. Once they are spent, every new block comes from the pool (new or
 * quarantined, poisoned, unguarded), so a correct program never fails for
 * want of mappings or address space, however many blocks it makes over a
 * long search: the light tests this run is for are guarded whole. */
enum { MAPPINGS_MAX = 60000, POOL_CHUNK = 1 << 20 };
/* ... and the address space they may take, which a freed one keeps: a
 * quarter of the process's RLIMIT_AS (1 GiB without one), so the pool
 * always has room. */
enum { GUARDED_SHARE = 4 };
static const size_t GUARDED_BYTES_UNLIMITED = (size_t)1 << 30;
/* A freed pooled block is handed out again only once QUARANTINE later
 * frees into its class, or QUARANTINE_BYTES of them, wait behind it: a
 * read soon after a free still finds poison, and the pool's address space
 * stays near what the program holds at once. */
enum { QUARANTINE = 1024, QUARANTINE_BYTES = 1 << 20, CLASSES = 64, SMALLEST_CLASS = 4 };
static const uint32_t GUARDED = 0x67726464u; /* "grdd" */
static const uint32_t POOLED = 0x706f6f6cu;  /* "pool" */

struct header {
    uint32_t magic;
    uint32_t pages;      /* guarded: the block's pages before its guard page */
    size_t usable;       /* bytes from the pointer to the guard (or the block's end) */
    struct header *next; /* a freed pooled block: the next one freed into its class */
};

static size_t mappings_used, guarded_bytes;
static char *pool_next, *pool_end;
static struct {
    struct header *oldest, *newest;
    size_t count;
} quarantine[CLASSES];

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

/* The class a pooled block of `usable` bytes is filed under, and the one
 * a request of `body` bytes is served from. */
static unsigned class_of_block(size_t usable)
{
    unsigned k = SMALLEST_CLASS;
    while (k + 1 < CLASSES && ((size_t)1 << (k + 1)) <= usable)
        k++;
    return k;
}

static unsigned class_of_request(size_t body)
{
    unsigned k = SMALLEST_CLASS;
    while (k + 1 < CLASSES && ((size_t)1 << k) < body)
        k++;
    return k;
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

/* A pooled block of at least `body` bytes: the oldest of its class once
 * QUARANTINE more have been freed after it, else a new one carved from a
 * chunk (its bytes a power of two, so it files back under its class). */
static void *pooled(size_t body, size_t align, int fill)
{
    unsigned k = class_of_request(body);
    size_t waiting = QUARANTINE_BYTES >> (k < 20 ? k : 20);
    if (waiting > QUARANTINE)
        waiting = QUARANTINE;
    if (align == GRAIN && quarantine[k].count > waiting) {
        struct header *h = quarantine[k].oldest;
        quarantine[k].oldest = h->next;
        quarantine[k].count--;
        h->magic = POOLED;
        memset(h + 1, fill ? POISON : 0, h->usable);
        return h + 1;
    }
    if (k < CLASSES - 1)
        body = (size_t)1 << k;
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

static void quarantined(struct header *h)
{
    unsigned k = class_of_block(h->usable);
    h->next = NULL;
    if (quarantine[k].count > 0)
        quarantine[k].newest->next = h;
    else
        quarantine[k].oldest = h;
    quarantine[k].newest = h;
    quarantine[k].count++;
}

/* The address space the guarded blocks may take (GUARDED_SHARE), asked
 * each time: the limit may be lowered after the first block. */
static size_t guarded_room(void)
{
    struct rlimit limit;
    if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        limit.rlim_cur / GUARDED_SHARE < GUARDED_BYTES_UNLIMITED)
        return limit.rlim_cur / GUARDED_SHARE;
    return GUARDED_BYTES_UNLIMITED;
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
    size_t pages = round_up(sizeof(struct header) + body + align, PAGE) / PAGE;
    if (mappings_used + 2 > MAPPINGS_MAX || pages > UINT32_MAX - 1 ||
        guarded_bytes + (pages + 1) * PAGE > guarded_room())
        return pooled(body, align, fill);
    char *base = mapped((pages + 1) * PAGE);
    if (base == NULL)
        return pooled(body, align, fill);
    guarded_bytes += (pages + 1) * PAGE;
    char *guard = base + pages * PAGE;
    if (mprotect(guard, PAGE, PROT_NONE) != 0) {
        /* out of mappings: the mapping serves unguarded (the policy allows
         * no munmap) */
        char *user = (char *)round_up((uintptr_t)base + sizeof(struct header), align);
        return finish((struct header *)user - 1, POOLED, 0, (size_t)(guard + PAGE - user), fill);
    }
    mappings_used += 2;
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
        memset(p, POISON, h->usable); /* a read before its reuse finds poison */
        quarantined(h);
        return;
    }
    char *guard = (char *)p + h->usable;
    size_t bytes = (size_t)h->pages * PAGE;
    h->magic = 0;
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
