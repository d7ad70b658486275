/*
 * grundy_stack.c - model solution of Task 8: the memoized P/N search with
 * an explicit stack instead of recursion.
 *
 * A frame is what one call of the recursive solver kept in its local
 * variables: the position, its moves, and the index of the move being
 * tried. "Calling" pushes a frame for that move's position; "returning"
 * pops the finished frame and hands its answer to the frame below, which
 * goes on exactly where its loop stopped. The frames live in a heap array
 * that doubles when full, so the C stack depth stays the same however long
 * the game is.
 *
 * Invariant of the loop: frames[0 .. size-1] are the positions on the
 * current line of play, each but the top one waiting for the answer about
 * frames[i].moves->items[frames[i].next]; every frame above the root
 * points into its parent's move list, which stays alive until the parent
 * is popped.
 */
#include <stdio.h>
#include <stdlib.h>

#include "grundy_stack.h"
#include "memo_table.h"

typedef struct {
    const grundy_position *position; /* owned by the parent's move list (the caller's for the root) */
    position_list *moves;            /* NULL until the position is expanded */
    size_t next;                     /* the move being tried */
} frame;

typedef struct {
    frame *frames;
    size_t size;
    size_t capacity;
} frame_stack;

/* Created on first use; NULL again after grundy_stack_memo_clear(). */
static memo_table *memo;

static void push(frame_stack *stack, const grundy_position *position)
{
    if (stack->size == stack->capacity) {
        size_t capacity = stack->capacity ? 2 * stack->capacity : 64;
        frame *frames = realloc(stack->frames, capacity * sizeof *frames);
        if (frames == NULL) {
            /* No way to go deeper and no way to answer without it. */
            fputs("grundy_stack_is_p: out of memory\n", stderr);
            abort();
        }
        stack->frames = frames;
        stack->capacity = capacity;
    }
    stack->frames[stack->size++] = (frame){.position = position, .moves = NULL, .next = 0};
}

/* Pops the top frame, remembering its answer; returns that answer. */
static bool finish(frame_stack *stack, bool is_p)
{
    frame *top = &stack->frames[--stack->size];
    if (top->moves != NULL) { /* searched here: worth remembering (a memo hit or {} is not) */
        if (memo == NULL)
            memo = memo_table_new();
        if (memo != NULL)
            memo_table_put(memo, top->position, is_p);
        position_list_free(top->moves);
    }
    return is_p;
}

bool grundy_stack_is_p(const grundy_position *p)
{
    frame_stack stack = {NULL, 0, 0};
    push(&stack, p);
    bool answer = false;
    bool answered = false; /* `answer` is about the top frame's current move */
    while (stack.size > 0) {
        frame *top = &stack.frames[stack.size - 1];
        if (answered) {
            answered = false;
            if (answer) { /* that move leads to a P-position: top is N */
                answer = finish(&stack, false);
                answered = true;
            } else {
                top->next++;
            }
            continue;
        }
        if (top->moves == NULL) {
            bool known;
            if (grundy_is_terminal(top->position)) {
                answer = finish(&stack, true);
                answered = true;
                continue;
            }
            if (memo != NULL && memo_table_get(memo, top->position, &known)) {
                answer = finish(&stack, known);
                answered = true;
                continue;
            }
            top->moves = grundy_get_moves(top->position);
            if (top->moves == NULL) {
                fputs("grundy_stack_is_p: out of memory\n", stderr);
                abort();
            }
        }
        if (top->next < top->moves->size)
            push(&stack, top->moves->items[top->next]); /* may move the frames: top is stale now */
        else {
            answer = finish(&stack, true); /* every move leads to an N-position */
            answered = true;
        }
    }
    free(stack.frames);
    return answer;
}

void grundy_stack_memo_clear(void)
{
    memo_table_free(memo);
    memo = NULL;
}

size_t grundy_stack_memo_size(void)
{
    return memo == NULL ? 0 : memo_table_size(memo);
}
