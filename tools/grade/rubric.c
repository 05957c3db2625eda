/* rubric.c: reading a lab's grading cases (the format is in rubric.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "rubric.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 8
#define MAX_POINTS 1000.0
#define MAX_TIMEOUT_S 3600

static const char *const visibilities[] = {"visible", "hidden", "after_due_date", "after_published"};

/* Quantities that are not hardware counters. */
static const char *const plain_quantities[] = {"time_ratio", "registers_per_thread",
                                               "local_bytes_per_thread", "shared_bytes_per_block",
                                               "cycles_per_op"};

/* The grader adds these itself, or they would make the run something else than a case. */
static const char *const refused_arguments[] = {"--format", "--out", "--model", "--help",
                                                "--list", "--list-metrics", "--kernels",
                                                "--save-kernels"};

typedef struct {
    const char *name;           /* the file, for messages */
    int line;
    char *error;
    size_t error_size;
} parse_state;

static int fail(parse_state *state, const char *format, ...)
{
    int used = snprintf(state->error, state->error_size, "%s:%d: ", state->name, state->line);
    if (used < 0 || (size_t)used >= state->error_size)
        return -1;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(state->error + used, state->error_size - (size_t)used, format, arguments);
    va_end(arguments);
    return -1;
}

static char *skip_space(char *text)
{
    while (*text == ' ' || *text == '\t')
        text++;
    return text;
}

static void trim_end(char *text)
{
    size_t length = strlen(text);
    while (length > 0 && isspace((unsigned char)text[length - 1]))
        text[--length] = '\0';
}

/* Splits text at spaces and tabs, in place. Returns the word count, or -1 if there are more
 * than `capacity`. */
static int split_words(char *text, char **word, int capacity)
{
    int count = 0;
    for (char *cursor = skip_space(text); *cursor != '\0'; cursor = skip_space(cursor)) {
        if (count == capacity)
            return -1;
        word[count++] = cursor;
        while (*cursor != '\0' && *cursor != ' ' && *cursor != '\t')
            cursor++;
        if (*cursor != '\0')
            *cursor++ = '\0';
    }
    return count;
}

static int parse_number(const char *text, double *value)
{
    char *end = NULL;
    errno = 0;
    double parsed = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(parsed))
        return -1;
    *value = parsed;
    return 0;
}

static int is_one_of(const char *text, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(text, list[i]) == 0)
            return 1;
    return 0;
}

#define IS_ONE_OF(text, list) is_one_of((text), (list), sizeof(list) / sizeof((list)[0]))

/* Names of cases and quantities: letters, digits, '_', '.', '-'. */
static int is_name(const char *text, size_t capacity)
{
    size_t length = strlen(text);
    if (length == 0 || length >= capacity)
        return 0;
    for (const char *c = text; *c != '\0'; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.' && *c != '-')
            return 0;
    return 1;
}

static int add_case(rubric_set *rubric, grading_case **added)
{
    if (rubric->count == rubric->capacity) {
        int capacity = rubric->capacity == 0 ? 16 : 2 * rubric->capacity;
        grading_case *cases = realloc(rubric->cases, (size_t)capacity * sizeof *cases);
        if (cases == NULL)
            return -1;
        rubric->cases = cases;
        rubric->capacity = capacity;
    }
    *added = &rubric->cases[rubric->count++];
    memset(*added, 0, sizeof **added);
    return 0;
}

/* The word after "--" of each argument the grader refuses, checked word by word. */
static int check_arguments(parse_state *state, const char *arguments)
{
    char copy[RUBRIC_ARGUMENTS_SIZE];
    snprintf(copy, sizeof copy, "%s", arguments);
    char *word[64];
    int count = split_words(copy, word, 64);
    if (count < 0)
        return fail(state, "a case takes at most 64 arguments");
    for (int i = 0; i < count; i++)
        if (IS_ONE_OF(word[i], refused_arguments))
            return fail(state, "a case's arguments cannot hold %s (the grader runs the lab with "
                               "--kernels, --format json and --out FILE itself)", word[i]);
    return 0;
}

static int parse_case(parse_state *state, rubric_set *rubric, char *text, int default_timeout_s)
{
    char *word[3];
    char *cursor = skip_space(text);
    for (int i = 0; i < 3; i++) {
        if (*cursor == '\0')
            return fail(state, "a case line is: case NAME POINTS VISIBILITY ARGUMENTS...");
        word[i] = cursor;
        while (*cursor != '\0' && *cursor != ' ' && *cursor != '\t')
            cursor++;
        if (*cursor != '\0')
            *cursor++ = '\0';
        cursor = skip_space(cursor);
    }
    const char *arguments = cursor;

    grading_case probe;
    if (!is_name(word[0], sizeof probe.name))
        return fail(state, "case name '%s': use letters, digits, '_', '.' and '-' (at most %zu)",
                    word[0], sizeof probe.name - 1);
    if (rubric_find(rubric, word[0]) != NULL)
        return fail(state, "case '%s' is defined twice (names must be unique, --cases files "
                           "included)", word[0]);
    double points = 0;
    if (parse_number(word[1], &points) != 0 || points < 0 || points > MAX_POINTS)
        return fail(state, "case %s: points must be a number in [0, %g], got '%s'", word[0],
                    MAX_POINTS, word[1]);
    if (!IS_ONE_OF(word[2], visibilities))
        return fail(state, "case %s: visibility must be visible, hidden, after_due_date or "
                           "after_published, got '%s'", word[0], word[2]);
    if (strlen(arguments) >= sizeof probe.arguments)
        return fail(state, "case %s: the arguments are longer than %zu characters", word[0],
                    sizeof probe.arguments - 1);
    if (check_arguments(state, arguments) != 0)
        return -1;

    grading_case *added = NULL;
    if (add_case(rubric, &added) != 0)
        return fail(state, "out of memory");
    snprintf(added->name, sizeof added->name, "%s", word[0]);
    added->points = points;
    snprintf(added->visibility, sizeof added->visibility, "%s", word[2]);
    snprintf(added->arguments, sizeof added->arguments, "%s", arguments);
    added->timeout_s = default_timeout_s;
    snprintf(added->file, sizeof added->file, "%s", state->name);
    added->line = state->line;
    return 0;
}

static int parse_op(const char *text, check_op *op)
{
    static const struct {
        const char *text;
        check_op op;
    } ops[] = {{"<", OP_LT}, {"<=", OP_LE}, {">", OP_GT}, {">=", OP_GE}, {"==", OP_EQ}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (strcmp(text, ops[i].text) == 0) {
            *op = ops[i].op;
            return 0;
        }
    }
    return -1;
}

static int parse_check(parse_state *state, grading_case *owner, char *text)
{
    if (owner->check_count == RUBRIC_MAX_CHECKS)
        return fail(state, "case %s has more than %d checks", owner->name, RUBRIC_MAX_CHECKS);
    grading_check *check = &owner->check[owner->check_count];
    memset(check, 0, sizeof *check);
    check->line = state->line;

    char *bar = strchr(text, '|');
    if (bar != NULL) {
        *bar = '\0';
        char *hint = skip_space(bar + 1);
        trim_end(hint);
        if (hint[0] == '\0')
            return fail(state, "nothing after '|': a hint is the text a failing student reads");
        if (strlen(hint) >= sizeof check->hint)
            return fail(state, "the hint is longer than %zu characters", sizeof check->hint - 1);
        snprintf(check->hint, sizeof check->hint, "%s", hint);
    }

    char *word[MAX_WORDS];
    int count = split_words(text, word, MAX_WORDS);
    const char *form = "a check is: correct, memcheck, racecheck, synccheck, QUANTITY OP NUMBER, "
                       "or QUANTITY ~ predicted|reference PCT%";
    if (count <= 0)
        return fail(state, "%s", form);

    if (count == 1 && strcmp(word[0], "correct") == 0) {
        check->kind = CHECK_CORRECT;
    } else if (count == 1 && strcmp(word[0], "memcheck") == 0) {
        check->kind = CHECK_MEMCHECK;
    } else if (count == 1 && strcmp(word[0], "racecheck") == 0) {
        check->kind = CHECK_RACECHECK;
    } else if (count == 1 && strcmp(word[0], "synccheck") == 0) {
        check->kind = CHECK_SYNCCHECK;
    } else if (count == 3 || count == 4) {
        if (!is_name(word[0], sizeof check->quantity))
            return fail(state, "'%s' is not a metric alias or a quantity name", word[0]);
        snprintf(check->quantity, sizeof check->quantity, "%s", word[0]);
        int plain = IS_ONE_OF(word[0], plain_quantities);
        if (count == 3 && parse_op(word[1], &check->op) == 0) {
            check->kind = CHECK_BOUND;
            if (parse_number(word[2], &check->bound) != 0)
                return fail(state, "'%s' is not a number", word[2]);
        } else if (count == 4 && strcmp(word[1], "~") == 0) {
            size_t length = strlen(word[3]);
            if (length < 2 || word[3][length - 1] != '%')
                return fail(state, "the tolerance is a percentage such as 5%%, got '%s'", word[3]);
            word[3][length - 1] = '\0';
            if (parse_number(word[3], &check->tolerance_pct) != 0 || check->tolerance_pct < 0)
                return fail(state, "the tolerance is a percentage such as 5%%, got '%s%%'",
                            word[3]);
            if (strcmp(word[2], "predicted") == 0) {
                check->kind = CHECK_PREDICTED;
                if (plain)
                    return fail(state, "the access model predicts hardware counters, not %s",
                                word[0]);
            } else if (strcmp(word[2], "reference") == 0) {
                check->kind = CHECK_REFERENCE;
                if (strcmp(word[0], "time_ratio") == 0)
                    return fail(state, "time_ratio is already relative to the reference: "
                                       "check time_ratio <= NUMBER");
            } else {
                return fail(state, "after '~' comes predicted or reference, got '%s'", word[2]);
            }
        } else {
            return fail(state, "%s", form);
        }
    } else {
        return fail(state, "%s", form);
    }
    owner->check_count++;
    return 0;
}

/* A case is complete when it has a check, and when its checks can share one run. */
static int finish_case(parse_state *state, const grading_case *finished)
{
    if (finished == NULL)
        return 0;
    if (finished->check_count == 0) {
        state->line = finished->line;
        return fail(state, "case %s has no check line", finished->name);
    }
    const char *tool = NULL;
    if (rubric_case_sanitizer(finished, &tool)) {
        for (int i = 0; i < finished->check_count; i++) {
            const grading_check *check = &finished->check[i];
            const char *check_tool = rubric_check_tool(check->kind);
            int other_tool = check_tool != NULL && strcmp(tool, check_tool) != 0;
            int timed = check->kind != CHECK_CORRECT && check_tool == NULL;
            if (other_tool || timed) {
                state->line = check->line;
                return fail(state, "case %s runs under compute-sanitizer %s: it can only check "
                                   "correct besides (put counters, times and the other tool in "
                                   "cases of their own)", finished->name, tool);
            }
        }
        char copy[sizeof finished->arguments];
        snprintf(copy, sizeof copy, "%s", finished->arguments);
        char *word[64];
        int count = split_words(copy, word, 64);
        for (int i = 0; i < count; i++) {
            if (strcmp(word[i], "--metrics") == 0) {
                state->line = finished->line;
                return fail(state, "case %s runs under compute-sanitizer: leave out --metrics "
                                   "(the grader adds --metrics none)", finished->name);
            }
        }
    }
    return 0;
}

int rubric_parse(rubric_set *rubric, const char *text, const char *name, char *error,
                 size_t error_size)
{
    parse_state state = {name, 0, error, error_size};
    char *copy = strdup(text);
    if (copy == NULL)
        return fail(&state, "out of memory");

    int status = 0, default_timeout_s = RUBRIC_DEFAULT_TIMEOUT_S, open_case = -1;
    char *next = copy;
    while (status == 0 && next != NULL && *next != '\0') {
        char *line = next;
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        state.line++;
        trim_end(line);
        line = skip_space(line);
        if (line[0] == '\0' || line[0] == '#')
            continue;

        char *rest = line;
        while (*rest != '\0' && *rest != ' ' && *rest != '\t')
            rest++;
        if (*rest != '\0')
            *rest++ = '\0';
        if (strcmp(line, "case") == 0) {
            status = finish_case(&state, open_case >= 0 ? &rubric->cases[open_case] : NULL);
            if (status == 0)
                status = parse_case(&state, rubric, rest, default_timeout_s);
            open_case = rubric->count - 1;
        } else if (strcmp(line, "check") == 0) {
            if (open_case < 0)
                status = fail(&state, "a check line belongs under a case line");
            else
                status = parse_check(&state, &rubric->cases[open_case], rest);
        } else if (strcmp(line, "timeout") == 0) {
            double seconds = 0;
            rest = skip_space(rest);
            if (parse_number(rest, &seconds) != 0 || seconds < 1 || seconds > MAX_TIMEOUT_S ||
                seconds != floor(seconds))
                status = fail(&state, "timeout takes whole seconds in [1, %d], got '%s'",
                              MAX_TIMEOUT_S, rest);
            else if (open_case < 0)
                default_timeout_s = (int)seconds;
            else
                rubric->cases[open_case].timeout_s = (int)seconds;
        } else {
            status = fail(&state, "unknown line '%s' (a line is case, check, timeout or a "
                                  "# comment)", line);
        }
    }
    if (status == 0) {
        state.line++;
        status = finish_case(&state, open_case >= 0 ? &rubric->cases[open_case] : NULL);
    }
    free(copy);
    return status;
}

int rubric_read(rubric_set *rubric, const char *path, char *error, size_t error_size)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        snprintf(error, error_size, "%s: cannot read the file", path);
        return -1;
    }
    size_t capacity = 4096, size = 0;
    char *text = malloc(capacity);
    while (text != NULL) {
        size += fread(text + size, 1, capacity - size - 1, file);
        if (size < capacity - 1)
            break;
        capacity *= 2;
        char *larger = realloc(text, capacity);
        if (larger == NULL)
            free(text);
        text = larger;
    }
    int read_failed = ferror(file);
    fclose(file);
    if (text == NULL || read_failed) {
        free(text);
        snprintf(error, error_size, "%s: cannot read the file", path);
        return -1;
    }
    text[size] = '\0';
    if (strlen(text) != size) {
        free(text);
        snprintf(error, error_size, "%s: not a text file (it holds a NUL byte)", path);
        return -1;
    }
    int status = rubric_parse(rubric, text, path, error, error_size);
    free(text);
    return status;
}

void rubric_free(rubric_set *rubric)
{
    free(rubric->cases);
    rubric->cases = NULL;
    rubric->count = rubric->capacity = 0;
}

const grading_case *rubric_find(const rubric_set *rubric, const char *name)
{
    for (int i = 0; i < rubric->count; i++)
        if (strcmp(rubric->cases[i].name, name) == 0)
            return &rubric->cases[i];
    return NULL;
}

const char *rubric_check_tool(check_kind kind)
{
    switch (kind) {
    case CHECK_MEMCHECK:
        return "memcheck";
    case CHECK_RACECHECK:
        return "racecheck";
    case CHECK_SYNCCHECK:
        return "synccheck";
    default:
        return NULL;
    }
}

int rubric_case_sanitizer(const grading_case *rubric_case, const char **tool)
{
    for (int i = 0; i < rubric_case->check_count; i++) {
        if (rubric_check_tool(rubric_case->check[i].kind) != NULL) {
            *tool = rubric_check_tool(rubric_case->check[i].kind);
            return 1;
        }
    }
    return 0;
}

int rubric_case_needs_reference(const grading_case *rubric_case)
{
    for (int i = 0; i < rubric_case->check_count; i++) {
        const grading_check *check = &rubric_case->check[i];
        if (check->kind == CHECK_REFERENCE ||
            (check->kind == CHECK_BOUND && strcmp(check->quantity, "time_ratio") == 0))
            return 1;
    }
    return 0;
}

int rubric_case_needs_model(const grading_case *rubric_case)
{
    for (int i = 0; i < rubric_case->check_count; i++)
        if (rubric_case->check[i].kind == CHECK_PREDICTED)
            return 1;
    return 0;
}

int rubric_check_reads_counter(const grading_check *check)
{
    return (check->kind == CHECK_BOUND || check->kind == CHECK_PREDICTED ||
            check->kind == CHECK_REFERENCE) &&
           !IS_ONE_OF(check->quantity, plain_quantities);
}

const char *rubric_op_text(check_op op)
{
    switch (op) {
    case OP_LT: return "<";
    case OP_LE: return "<=";
    case OP_GT: return ">";
    case OP_GE: return ">=";
    case OP_EQ: return "==";
    }
    return "?";
}
