/*
 * play_main.c - `make play`: a game against your own solver (given code,
 * Task 5).
 *
 * The game loop (play_game.c) asks an engine for the moves of a position
 * and for a winning move. Here the engine is your code: grundy_get_moves()
 * lists the moves you may choose from, and grundy_winning_move() chooses
 * the solver's replies, so a game exercises Tasks 0, 1, 2 and 5 together.
 * The loop checks that every winning move is one of the listed moves.
 *
 * usage: play [--solver-first] H...     (make play HEAPS="10 7")
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grundy.h"
#include "grundy_winning.h"
#include "lab_todo.h"
#include "play_game.h"

/* A stub ends the game with a pointer to the TODOs: guessing around an
 * unwritten function would only confuse. */
static void stop_at_stubs(void)
{
    if (lab_stub_reached(0) == NULL)
        return;
    fflush(stdout);
    fputs("\nmake play: not implemented yet:", stderr);
    for (size_t i = 0; lab_stub_reached(i) != NULL; i++)
        fprintf(stderr, "%s %s", i ? "," : "", lab_stub_reached(i));
    fputs(" (see the TODOs in your code; make play needs Tasks 0-2 and Task 5).\n", stderr);
    exit(1);
}

static grundy_position *to_grundy(const play_position *p)
{
    grundy_position *g = grundy_new(0);
    stop_at_stubs();
    if (g == NULL) {
        fputs("make play: grundy_new(0) returned NULL\n", stderr);
        exit(1);
    }
    for (size_t i = 0; i < p->n; i++)
        grundy_add_heap(g, p->heaps[i]);
    return g;
}

/* Reads the heaps back from the entries, one height per heap. */
static play_position from_grundy(const grundy_position *g)
{
    size_t n = 0;
    for (size_t i = 0; i < g->size; i++)
        n += g->entries[i].count > 0 ? (size_t)g->entries[i].count : 0;
    int *heaps = malloc((n ? n : 1) * sizeof *heaps);
    if (heaps == NULL) {
        fputs("make play: out of memory\n", stderr);
        exit(1);
    }
    size_t k = 0;
    for (size_t i = 0; i < g->size; i++)
        for (int c = 0; c < g->entries[i].count; c++)
            heaps[k++] = g->entries[i].height;
    play_position p = play_position_make(heaps, n);
    free(heaps);
    return p;
}

static play_position *student_moves(const play_position *from, size_t *count)
{
    grundy_position *g = to_grundy(from);
    position_list *list = grundy_get_moves(g);
    stop_at_stubs();
    *count = list == NULL ? 0 : list->size;
    play_position *moves = *count ? calloc(*count, sizeof *moves) : NULL;
    for (size_t i = 0; moves != NULL && i < *count; i++)
        moves[i] = from_grundy(list->items[i]);
    if (*count > 0 && moves == NULL) {
        fputs("make play: out of memory\n", stderr);
        exit(1);
    }
    position_list_free(list);
    grundy_free(g);
    return moves;
}

static bool student_winning_move(const play_position *from, play_position *to)
{
    grundy_position *g = to_grundy(from);
    grundy_position *winning = grundy_winning_move(g);
    stop_at_stubs();
    if (winning != NULL)
        *to = from_grundy(winning);
    grundy_free(winning);
    grundy_free(g);
    return winning != NULL;
}

int main(int argc, char **argv)
{
    int first = 1;
    bool solver_first = argc > 1 && strcmp(argv[1], "--solver-first") == 0;
    if (solver_first)
        first = 2;
    if (first >= argc) {
        fputs("usage: play [--solver-first] H...   (make play HEAPS=\"10 7\")\n", stderr);
        return 2;
    }
    size_t n = (size_t)(argc - first);
    int *heaps = malloc(n * sizeof *heaps);
    if (heaps == NULL)
        return 1;
    for (size_t i = 0; i < n; i++) {
        char *end;
        long h = strtol(argv[first + (int)i], &end, 10);
        if (*argv[first + (int)i] == '\0' || *end != '\0' || h < 0 || h > 1000) {
            fprintf(stderr, "play: '%s' is not a heap height from 0 to 1000\n", argv[first + (int)i]);
            free(heaps);
            return 2;
        }
        heaps[i] = (int)h;
    }
    const play_engine yours = {
        .name = "your solver",
        .moves = student_moves,
        .winning_move = student_winning_move,
    };
    int status = play_game(&yours, heaps, n, solver_first, stdin, stdout);
    free(heaps);
    grundy_memo_clear();
    return status;
}
