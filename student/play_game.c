/*
 * play_game.c - the game loop behind play_game.h (given code, Task 5).
 *
 * The loop trusts the engine for nothing it can check itself: it names
 * each move as a split ("split 10 into 3 + 7") by comparing the two
 * positions, and it accepts the engine's winning move only if it is one
 * of the moves the same engine listed. A wrong winning move therefore
 * shows up as a plain message instead of a strange game.
 */
#include <stdlib.h>
#include <string.h>

#include "play_game.h"

static void *allocated(void *block)
{
    if (block == NULL) {
        fputs("play: out of memory\n", stderr);
        exit(PLAY_ENGINE_ERROR);
    }
    return block;
}

static int ascending(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

play_position play_position_make(const int *heaps, size_t n)
{
    play_position p = {NULL, 0};
    if (n > 0)
        p.heaps = allocated(malloc(n * sizeof *p.heaps));
    for (size_t i = 0; i < n; i++)
        if (heaps[i] >= 3) /* heaps of 1 and 2 are dead: not shown */
            p.heaps[p.n++] = heaps[i];
    qsort(p.heaps, p.n, sizeof *p.heaps, ascending);
    return p;
}

void play_positions_free(play_position *positions, size_t count)
{
    if (positions == NULL)
        return;
    for (size_t i = 0; i < count; i++)
        free(positions[i].heaps);
    free(positions);
}

static bool same_position(const play_position *a, const play_position *b)
{
    return a->n == b->n && (a->n == 0 || memcmp(a->heaps, b->heaps, a->n * sizeof *a->heaps) == 0);
}

/* "{3=2, 5=1}", as grundy_to_string() writes a position. */
static void print_position(FILE *out, const play_position *p)
{
    fputc('{', out);
    for (size_t i = 0; i < p->n;) {
        size_t same = 1;
        while (i + same < p->n && p->heaps[i + same] == p->heaps[i])
            same++;
        fprintf(out, "%s%d=%zu", i ? ", " : "", p->heaps[i], same);
        i += same;
    }
    fputc('}', out);
}

/* A move read off two positions: the heap of `height` was split into
 * `smaller` and height - smaller. */
typedef struct {
    int height;
    int smaller;
} split;

/* True when `to` is `from` with one heap split into two unequal parts
 * (dead parts are not shown in `to`), and then sets *s. Both arrays are
 * ascending, so one merge finds what disappeared and what appeared. */
static bool split_between(const play_position *from, const play_position *to, split *s)
{
    int gone[2], came[3];
    size_t n_gone = 0, n_came = 0, i = 0, j = 0;
    while (i < from->n || j < to->n) {
        if (j == to->n || (i < from->n && from->heaps[i] < to->heaps[j])) {
            if (n_gone == 2)
                return false;
            gone[n_gone++] = from->heaps[i++];
        } else if (i == from->n || to->heaps[j] < from->heaps[i]) {
            if (n_came == 3)
                return false;
            came[n_came++] = to->heaps[j++];
        } else {
            i++;
            j++;
        }
    }
    if (n_gone != 1 || n_came > 2)
        return false;
    int height = gone[0], live = 0;
    for (size_t k = 0; k < n_came; k++)
        live += came[k];
    int rest = height - live; /* what the dead parts (1s and 2s) add up to */
    int smaller;
    if (n_came == 2)
        smaller = rest == 0 && came[0] != came[1] ? came[0] : 0;
    else if (n_came == 1)
        smaller = rest == 1 || rest == 2 ? rest : 0;
    else
        smaller = height == 3 ? 1 : 0; /* 3 = 1 + 2, both dead */
    if (smaller == 0)
        return false;
    s->height = height;
    s->smaller = smaller;
    return true;
}

/* Orders moves as a person reads them: by the heap split, then by the
 * smaller part; anything that is not a split comes last. qsort passes
 * the comparison no context, hence the position moved from in a static. */
static const play_position *sort_from;
static int by_split(const void *a, const void *b)
{
    split x, y;
    bool ok_x = split_between(sort_from, a, &x), ok_y = split_between(sort_from, b, &y);
    if (ok_x != ok_y)
        return ok_x ? -1 : 1;
    if (!ok_x)
        return 0;
    if (x.height != y.height)
        return (x.height > y.height) - (x.height < y.height);
    return (x.smaller > y.smaller) - (x.smaller < y.smaller);
}

static void print_move(FILE *out, const play_position *from, const play_position *to)
{
    split s;
    if (split_between(from, to, &s))
        fprintf(out, "split %d into %d + %d", s.height, s.smaller, s.height - s.smaller);
    else
        fputs("move", out);
}

typedef enum { CHOSE, QUIT } choice_outcome;

/* Reads the person's choice among `count` moves into *chosen (0-based),
 * saying what is wrong with each line that is not a valid choice. */
static choice_outcome read_choice(FILE *in, FILE *out, size_t count, size_t *chosen)
{
    char line[256];
    for (;;) {
        if (count == 1)
            fputs("Your choice (1, or q to quit): ", out);
        else
            fprintf(out, "Your choice (1-%zu, or q to quit): ", count);
        fflush(out);
        if (fgets(line, sizeof line, in) == NULL) {
            fputs("\nEnd of input: the game is abandoned.\n", out);
            return QUIT;
        }
        char *text = line + strspn(line, " \t");
        size_t length = strlen(text);
        while (length > 0 && strchr(" \t\r\n", text[length - 1]) != NULL)
            text[--length] = '\0';
        if (strcmp(text, "q") == 0 || strcmp(text, "quit") == 0) {
            fputs("You quit. Goodbye.\n", out);
            return QUIT;
        }
        char *end;
        long number = strtol(text, &end, 10);
        bool is_number = *text != '\0' && *end == '\0' && strspn(text, "0123456789") == strlen(text);
        if (!is_number)
            fprintf(out, "  \"%s\" is not a move: type the number of a move, from 1 to %zu, or q.\n",
                    text, count);
        else if (number < 1 || (size_t)number > count)
            fprintf(out, "  There is no move %s: the moves are numbered 1 to %zu.\n", text, count);
        else {
            *chosen = (size_t)number - 1;
            return CHOSE;
        }
    }
}

/* The engine's name at the start of a sentence. */
static void print_name_capitalized(FILE *out, const play_engine *engine)
{
    if (engine->name[0] >= 'a' && engine->name[0] <= 'z')
        fprintf(out, "%c%s", engine->name[0] - 'a' + 'A', engine->name + 1);
    else
        fputs(engine->name, out);
}

/* The solver's turn: its winning move if it has one (checked against its
 * own list), else the first move. Returns the index in moves[], or -1
 * after reporting a winning move that is not one of the moves. */
static long solver_reply(const play_engine *engine, const play_position *from,
                         const play_position *moves, size_t count, bool *wins, FILE *out)
{
    play_position winning;
    *wins = engine->winning_move(from, &winning);
    if (!*wins) {
        print_name_capitalized(out, engine);
        fputs(" has no winning move here: it plays the first move and hopes you slip.\n", out);
        return 0;
    }
    long found = -1;
    for (size_t i = 0; i < count && found < 0; i++)
        if (same_position(&moves[i], &winning))
            found = (long)i;
    if (found < 0) {
        print_name_capitalized(out, engine);
        fputs("'s winning move from ", out);
        print_position(out, from);
        fputs(" is ", out);
        print_position(out, &winning);
        fputs(", which is not one of the legal moves listed. A winning move must be one of\n"
              "grundy_get_moves()' positions (handout: grundy-lab.html#task-5).\n",
              out);
    }
    free(winning.heaps);
    return found;
}

int play_game(const play_engine *engine, const int *heaps, size_t n, bool solver_first, FILE *in,
              FILE *out)
{
    fprintf(out, "Grundy's game against %s. A move splits one heap into two heaps of\n"
                 "different sizes; heaps of 1 and 2 cannot be split and are not shown.\n"
                 "Whoever cannot move loses. Type the number of a move, or q to quit.\n",
            engine->name);
    play_position position = play_position_make(heaps, n);
    bool person_moves = !solver_first;
    int status = PLAY_OVER;
    for (;;) {
        fputs("\nPosition: ", out);
        print_position(out, &position);
        fputc('\n', out);
        size_t count = 0;
        play_position *moves = engine->moves(&position, &count);
        if (count == 0) {
            if (person_moves) {
                fprintf(out, "You cannot move: %s wins.\n", engine->name);
            } else {
                print_name_capitalized(out, engine);
                fputs(" cannot move: you win!\n", out);
            }
            play_positions_free(moves, count);
            break;
        }
        sort_from = &position;
        qsort(moves, count, sizeof *moves, by_split);
        long chosen;
        bool wins = false;
        if (person_moves) {
            fputs("Your move. The legal moves:\n", out);
            for (size_t i = 0; i < count; i++) {
                fprintf(out, "  %3zu) ", i + 1);
                print_move(out, &position, &moves[i]);
                fputs("  -> ", out);
                print_position(out, &moves[i]);
                fputc('\n', out);
            }
            size_t choice;
            if (read_choice(in, out, count, &choice) == QUIT) {
                play_positions_free(moves, count);
                break;
            }
            chosen = (long)choice;
            fputs("You ", out);
        } else {
            chosen = solver_reply(engine, &position, moves, count, &wins, out);
            if (chosen < 0) {
                play_positions_free(moves, count);
                status = PLAY_ENGINE_ERROR;
                break;
            }
            print_name_capitalized(out, engine);
            fputs(" plays: ", out);
        }
        print_move(out, &position, &moves[chosen]);
        fputs(wins ? ", a winning move: it leaves you a P-position.\n" : ".\n", out);
        /* Take over the chosen position's heaps; the rest go. */
        free(position.heaps);
        position = moves[chosen];
        moves[chosen] = (play_position){NULL, 0};
        play_positions_free(moves, count);
        person_moves = !person_moves;
    }
    free(position.heaps);
    return status;
}
