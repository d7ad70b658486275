/*
 * grundy_cli.c - the `grundy` command: the oracle from the shell.
 *
 * It lets shell tests, and people writing fixtures, ask the oracle for
 * nim values, outcomes and moves without writing C. Output formats follow
 * the data files (OEIS b-file lines) and the lab's grundy_to_string()
 * ("{3=1, 4=1}"), so results can be compared with diff. `grundy play`
 * lets a person play against the oracle, with the game loop students get
 * for `make play` (student/play_game.c).
 */
#include "oracle.h"
#include "play_game.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The nim table costs about 2 microseconds and 4 bytes per height (see
 * nim_values.c and `make bench`): a million heights take a second or two,
 * 2^24 under a minute. Beyond that it would look like a hang. */
#define NIM_MAX 16777216L
/* The search grows about 2.75-fold per 10 of total height: a heap of 100
 * takes about a second and 35 MB (see `make bench`), 120 would take tens. */
#define SEARCH_MAX_TOTAL 100L
/* A heap of h has (h-1)/2 moves, all held in memory at once. */
#define MOVES_MAX 1000000L
/* A person reads every move of the position each turn: beyond a few
 * hundred heights the list is no longer readable. */
#define PLAY_MAX 1000L

static const char *program = "grundy";

static void usage(FILE *out)
{
    fprintf(out,
        "usage: %s nim N\n"
        "       %s outcome [--method=nim|--method=search] H...\n"
        "       %s moves H...\n"
        "       %s play [--solver-first] H...\n"
        "       %s --help\n"
        "\n"
        "Grundy's game: a move splits one heap into two heaps of different\n"
        "sizes; heaps of 1 and 2 cannot be split; whoever cannot move loses.\n"
        "\n"
        "  nim N       prints \"n g(n)\" for n = 0..N (OEIS b-file format),\n"
        "              g(n) being the Sprague-Grundy value of one heap of n.\n"
        "              0 <= N <= %ld.\n"
        "  outcome H.. prints P if the position with heaps H... is a win for\n"
        "              the previous player, N if for the next player.\n"
        "              --method=nim (default): XOR of the g values; each\n"
        "              heap 0 <= H <= %ld.\n"
        "              --method=search: game-tree search without g values;\n"
        "              heaps must add up to at most %ld.\n"
        "  moves H...  prints every position reachable in one move, one per\n"
        "              line, as {height=count, ...}; each heap\n"
        "              0 <= H <= %ld.\n"
        "  play H...   a game in the terminal against the oracle, from the\n"
        "              position with heaps H... (each 0 <= H <= %ld): you\n"
        "              move first (--solver-first: the oracle does), by\n"
        "              typing a move's number; q quits.\n"
        "\n"
        "Bad arguments print an error and this text on stderr, exit 2.\n",
        program, program, program, program, program,
        NIM_MAX, NIM_MAX, SEARCH_MAX_TOTAL, MOVES_MAX, PLAY_MAX);
}

_Noreturn static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", program);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    usage(stderr);
    exit(2);
}

static bool all_digits(const char *s)
{
    if (*s == '\0')
        return false;
    for (; *s != '\0'; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* A whole decimal number in [0, max]; anything else is a usage error.
 * strtol alone would accept leading blanks, a '+' and trailing junk, so
 * the characters are checked first and strtol only does the conversion
 * and the overflow check. */
static int parse_number(const char *text, long max, const char *what)
{
    if (text[0] == '-' && all_digits(text + 1))
        fail("%s must not be negative: '%s'", what, text);
    if (!all_digits(text))
        fail("%s is not a number: '%s'", what, text);
    errno = 0;
    char *end;
    long v = strtol(text, &end, 10);
    if (errno == ERANGE || *end != '\0' || v > max)
        fail("%s must be at most %ld: '%s'", what, max, text);
    return (int)v;
}

/* Every argument is checked before anything is allocated, so that the
 * error exits leave no memory behind (valgrind-clean even on bad input). */
static int *parse_heaps(const char *cmd, int count, char **args, long max,
                        size_t *n)
{
    if (count == 0)
        fail("%s: no heaps given", cmd);
    for (int i = 0; i < count; i++)
        (void)parse_number(args[i], max, "a heap height");
    int *heaps = malloc((size_t)count * sizeof *heaps);
    if (heaps == NULL) {
        fprintf(stderr, "%s: out of memory\n", program);
        exit(1);
    }
    for (int i = 0; i < count; i++)
        heaps[i] = parse_number(args[i], max, "a heap height");
    *n = (size_t)count;
    return heaps;
}

static int cmd_nim(int argc, char **argv)
{
    if (argc < 1)
        fail("nim: missing N");
    if (argc > 1)
        fail("nim: unexpected argument '%s'", argv[1]);
    int top = parse_number(argv[0], NIM_MAX, "N");
    for (int n = 0; n <= top; n++)
        printf("%d %d\n", n, oracle_nim_value(n));
    oracle_nim_table_free();
    return 0;
}

static int cmd_outcome(int argc, char **argv)
{
    /* Options may appear anywhere; they are moved to the end of argv so
     * that the heaps form one contiguous run. */
    bool search = false;
    int count = 0;
    for (int i = 0; i < argc; i++) {
        char *arg = argv[i];
        if (strcmp(arg, "--method=nim") == 0) {
            search = false;
        } else if (strcmp(arg, "--method=search") == 0) {
            search = true;
        } else if (strncmp(arg, "--", 2) == 0) {
            fail("outcome: unknown option '%s'", arg);
        } else {
            argv[i] = argv[count];
            argv[count++] = arg;
        }
    }

    long max = search ? SEARCH_MAX_TOTAL : NIM_MAX;
    long total = 0;
    for (int i = 0; i < count; i++)
        total += parse_number(argv[i], max, "a heap height");
    if (search && total > SEARCH_MAX_TOTAL)
        fail("outcome: with --method=search the heaps must add up to at "
             "most %ld (they add up to %ld)", SEARCH_MAX_TOTAL, total);

    size_t n;
    int *heaps = parse_heaps("outcome", count, argv, max, &n);
    bool is_p;
    if (search) {
        is_p = oracle_search_is_p(heaps, n);
        oracle_search_reset();
    } else {
        is_p = oracle_is_p(heaps, n);
        oracle_nim_table_free();
    }
    free(heaps);
    puts(is_p ? "P" : "N");
    return 0;
}

static int cmd_moves(int argc, char **argv)
{
    size_t n;
    int *heaps = parse_heaps("moves", argc, argv, MOVES_MAX, &n);
    oracle_move_list *m = oracle_moves(heaps, n);
    for (size_t i = 0; i < m->count; i++) {
        char *text = oracle_format(m->positions[i], m->lengths[i]);
        puts(text);
        free(text);
    }
    oracle_move_list_free(m);
    free(heaps);
    return 0;
}

/* ---- play: the oracle as the engine of the game loop ---- */

static play_position *oracle_engine_moves(const play_position *from, size_t *count)
{
    oracle_move_list *m = oracle_moves(from->heaps, from->n);
    *count = m->count;
    play_position *moves = m->count ? calloc(m->count, sizeof *moves) : NULL;
    if (m->count > 0 && moves == NULL)
        oracle_out_of_memory("play moves");
    for (size_t i = 0; i < m->count; i++)
        moves[i] = play_position_make(m->positions[i], m->lengths[i]);
    oracle_move_list_free(m);
    return moves;
}

static bool oracle_engine_winning_move(const play_position *from, play_position *to)
{
    oracle_move_list *m = oracle_moves(from->heaps, from->n);
    bool found = false;
    for (size_t i = 0; i < m->count && !found; i++) {
        if (oracle_is_p(m->positions[i], m->lengths[i])) {
            *to = play_position_make(m->positions[i], m->lengths[i]);
            found = true;
        }
    }
    oracle_move_list_free(m);
    return found;
}

static int cmd_play(int argc, char **argv)
{
    bool solver_first = false;
    if (argc > 0 && strcmp(argv[0], "--solver-first") == 0) {
        solver_first = true;
        argc--;
        argv++;
    }
    size_t n;
    int *heaps = parse_heaps("play", argc, argv, PLAY_MAX, &n);
    const play_engine oracle_engine = {
        .name = "the solver",
        .moves = oracle_engine_moves,
        .winning_move = oracle_engine_winning_move,
    };
    int status = play_game(&oracle_engine, heaps, n, solver_first, stdin, stdout);
    free(heaps);
    oracle_nim_table_free();
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        fail("missing command");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
        strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "nim") == 0)
        return cmd_nim(argc - 2, argv + 2);
    if (strcmp(cmd, "outcome") == 0)
        return cmd_outcome(argc - 2, argv + 2);
    if (strcmp(cmd, "moves") == 0)
        return cmd_moves(argc - 2, argv + 2);
    if (strcmp(cmd, "play") == 0)
        return cmd_play(argc - 2, argv + 2);
    fail("unknown command '%s'", cmd);
}
