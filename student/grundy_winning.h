/*
 * grundy_winning.h - Task 5 (optional, Part 2): the winning move.
 *
 * Tasks 1-2 answer "does the player to move win?". This file answers
 * "how?": from an N-position it names a move that leaves the opponent in a
 * P-position. It is written with the Task 0-2 API only (grundy_get_moves,
 * grundy_is_p_position and the memo behind it), so it is as fast as your
 * memoized solver. The handout's section "Task 5" (#task-5) explains it.
 *
 * Like grundy.h, this header is the contract: the grader compiles your
 * grundy_winning.c against a pristine copy, so do not change it.
 */
#ifndef GRUNDY_WINNING_H
#define GRUNDY_WINNING_H

#include "grundy.h"

/* A winning move from `p`, or NULL when there is none.
 *
 * Result: when p is an N-position, a new position that is (1) one legal
 * move away from p, i.e. equal to one of the positions grundy_get_moves(p)
 * lists, and (2) a P-position, so the opponent, who moves next, loses
 * against perfect play. When several moves win, any of them will do. When
 * p is a P-position (terminal positions included) no move wins, and the
 * result is NULL. NULL means "no winning move" and nothing else.
 *
 * Ownership: the caller owns the result and frees it with grundy_free().
 * p is not changed. The result shares no memory with p or with any list
 * you freed on the way.
 *
 * Cost: it asks grundy_is_p_position() about the moves of p, so it reads
 * and fills the one Task 2 memo: from a cold memo it expands each position
 * reachable from p at most once, and asked twice in a row about the same
 * p, the second call expands p only (every move it looks at is in the
 * memo by then). */
grundy_position *grundy_winning_move(const grundy_position *p);

#endif /* GRUNDY_WINNING_H */
