/*
 * play_game.h - a game of Grundy's game between a person at the terminal
 * and a solver (given code, Task 5).
 *
 * The loop shows whose turn it is, the position and the legal moves,
 * numbered; reads the person's choice (a number, or q to quit) and says
 * plainly what is wrong with an illegal one; plays the solver's reply;
 * and says who won. What the solver is comes from outside, as a
 * play_engine: `make play` plugs in your Task 0-5 functions
 * (student/play_main.c), `bin/grundy play` the course's oracle.
 *
 * Positions cross this interface as plain arrays of heap heights, so the
 * loop needs nothing from grundy.h and works with any engine.
 */
#ifndef PLAY_GAME_H
#define PLAY_GAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A position: n heap heights, ascending, every one >= 3 (dead heaps are
 * not shown, as in grundy.h). heaps is malloc'd (NULL when n is 0). */
typedef struct {
    int *heaps;
    size_t n;
} play_position;

typedef struct {
    /* Who the person plays against, for messages ("the solver"). */
    const char *name;
    /* Every position one move away from `from`, each once: a malloc'd
     * array of *count positions (NULL when there is none), freed by the
     * loop with play_positions_free(). */
    play_position *(*moves)(const play_position *from, size_t *count);
    /* The engine's winning move from `from`: true with *to set (heaps
     * malloc'd, freed by the loop) when it has one, false when it has
     * none (from is a P-position, or terminal). */
    bool (*winning_move)(const play_position *from, play_position *to);
} play_engine;

/* What play_game() returns, usable as a process's exit status. */
enum {
    PLAY_OVER = 0,         /* the game ended, or the person quit */
    PLAY_ENGINE_ERROR = 1  /* the engine's winning move was not one of its own moves */
};

/* Plays from the position with heaps[0 .. n-1] (any order; heights < 3
 * are dropped): the person moves first unless solver_first. Reads the
 * person's choices from `in`, one per line, and writes everything to
 * `out`. End of input counts as quitting. */
int play_game(const play_engine *engine, const int *heaps, size_t n, bool solver_first, FILE *in,
              FILE *out);

/* Frees an array of `count` positions made by an engine. NULL is a no-op. */
void play_positions_free(play_position *positions, size_t count);

/* A position with the heaps of heaps[0 .. n-1] (any order; heights < 3
 * are dropped): heaps sorted ascending, in a new malloc'd array. */
play_position play_position_make(const int *heaps, size_t n);

#endif /* PLAY_GAME_H */
