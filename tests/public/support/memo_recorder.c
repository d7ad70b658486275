/*
 * memo_recorder.c - keeps the record of memo_record.h: wraps the given
 * memo table's calls (linked with -Wl,--wrap=memo_table_new, _free, _get,
 * _put, _size and _clear), so every call the solver's object makes is
 * written down before the real table answers it, and makes the table
 * forgetful when asked. Linked into the test programs that solve (make
 * test) and into the grader's student processes.
 */
#include <string.h>

#include "grundy.h"
#include "memo_record.h"
#include "memo_table.h"

memo_table *__real_memo_table_new(void);
void __real_memo_table_free(memo_table *table);
bool __real_memo_table_get(const memo_table *table, const grundy_position *key, bool *is_p);
void __real_memo_table_put(memo_table *table, const grundy_position *key, bool is_p);
size_t __real_memo_table_size(const memo_table *table);
void __real_memo_table_clear(memo_table *table);

memo_table *__wrap_memo_table_new(void);
void __wrap_memo_table_free(memo_table *table);
bool __wrap_memo_table_get(const memo_table *table, const grundy_position *key, bool *is_p);
void __wrap_memo_table_put(memo_table *table, const grundy_position *key, bool is_p);
size_t __wrap_memo_table_size(const memo_table *table);
void __wrap_memo_table_clear(memo_table *table);

static memo_event record[MEMO_RECORD_MAX];
static size_t recorded;
/* While on, no get or put reaches a real table, whichever pointer the
 * solver passes (NULL too): Task 1 tests the recursion, and where the
 * solver keeps its table is Task 2's business. */
static bool forgetful;

/* The forgetful memo's tables: one object, never allocated, that every
 * call recognises (also once the forgetful memo is off again, so a solver
 * that kept it in a static is not handed to the real table). */
static char forgetful_table;
#define FORGETFUL ((memo_table *)(void *)&forgetful_table)

/* Tables seen since the reset, numbered from 1 in that order. */
enum { TABLES_MAX = 256 };
static const memo_table *tables[TABLES_MAX];
static size_t tables_seen;

static uint16_t table_number(const memo_table *table, bool created)
{
    if (!created)
        for (size_t i = tables_seen; i > 0; i--)
            if (tables[i - 1] == table)
                return (uint16_t)i;
    if (tables_seen == TABLES_MAX)
        return 0;
    tables[tables_seen++] = table;
    return (uint16_t)tables_seen;
}

static memo_event *next_event(memo_event_kind kind)
{
    if (recorded == MEMO_RECORD_MAX)
        return NULL;
    memo_event *e = &record[recorded++];
    memset(e, 0, sizeof *e);
    e->kind = (uint8_t)kind;
    return e;
}

/* The key's entries, read without trusting them: a broken position is
 * recorded as not ok. */
static void note_key(memo_event *e, const grundy_position *p)
{
    if (p == NULL || p->size > p->capacity || p->size > MEMO_KEY_MAX || (p->size > 0 && p->entries == NULL))
        return;
    for (size_t i = 0; i < p->size; i++) {
        e->key[i][0] = p->entries[i].height;
        e->key[i][1] = p->entries[i].count;
    }
    e->key_size = (uint16_t)p->size;
    e->key_ok = 1;
}

void memo_record_reset(void)
{
    recorded = 0;
    tables_seen = 0;
}

size_t memo_record_read(memo_event *events, size_t max)
{
    size_t n = recorded < max ? recorded : max;
    memcpy(events, record, n * sizeof *events);
    return n;
}

void memo_record_set_forgetful(bool on)
{
    forgetful = on;
}

void memo_record_expansion(const void *position)
{
    memo_event *e = next_event(MEMO_EVENT_EXPAND);
    if (e != NULL)
        note_key(e, position);
}

memo_table *__wrap_memo_table_new(void)
{
    memo_table *table = forgetful ? FORGETFUL : __real_memo_table_new();
    memo_event *e = next_event(MEMO_EVENT_NEW);
    if (e != NULL)
        e->table = table_number(table, true);
    return table;
}

void __wrap_memo_table_free(memo_table *table)
{
    memo_event *e = next_event(MEMO_EVENT_FREE);
    if (e != NULL)
        e->table = table_number(table, false);
    if (table != FORGETFUL)
        __real_memo_table_free(table);
}

void __wrap_memo_table_clear(memo_table *table)
{
    memo_event *e = next_event(MEMO_EVENT_CLEAR);
    if (e != NULL)
        e->table = table_number(table, false);
    if (table != FORGETFUL)
        __real_memo_table_clear(table);
}

bool __wrap_memo_table_get(const memo_table *table, const grundy_position *key, bool *is_p)
{
    bool found = false, flag = false;
    if (!forgetful && table != FORGETFUL)
        found = __real_memo_table_get(table, key, &flag);
    memo_event *e = next_event(MEMO_EVENT_GET);
    if (e != NULL) {
        e->table = table_number(table, false);
        e->hit = found;
        e->flag = found && flag;
        note_key(e, key);
    }
    if (found)
        *is_p = flag;
    return found;
}

void __wrap_memo_table_put(memo_table *table, const grundy_position *key, bool is_p)
{
    memo_event *e = next_event(MEMO_EVENT_PUT);
    if (e != NULL) {
        e->table = table_number(table, false);
        e->flag = is_p;
        note_key(e, key);
    }
    if (!forgetful && table != FORGETFUL)
        __real_memo_table_put(table, key, is_p);
}

size_t __wrap_memo_table_size(const memo_table *table)
{
    return forgetful || table == FORGETFUL ? 0 : __real_memo_table_size(table);
}
