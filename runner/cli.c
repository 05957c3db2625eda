/* cli.c: the command line every lab shares. */
#define _POSIX_C_SOURCE 200809L /* access */
#include "cli.h"
#include "gpu_profile.h"
#include "kernel_loader.h"
#include "profiler.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_REPS 100000
#define MAX_DEVICE_INDEX 1023
#define MAX_TIME_LIMIT_S 86400

static int fail(char *error, size_t error_size, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, error_size, format, arguments);
    va_end(arguments);
    return ML_EXIT_USAGE;
}

int ml_parse_integer(const char *text, long long min, long long max, long long *value)
{
    /* strtoll accepts leading spaces and a sign; a count on a command line should be digits
     * only (a leading '-' is allowed so negative values get the "out of range" message). */
    const char *digits = (text[0] == '-') ? text + 1 : text;
    if (digits[0] < '0' || digits[0] > '9')
        return -1;
    char *end = NULL;
    errno = 0;
    long long parsed = strtoll(text, &end, 10);
    if (errno == ERANGE || *end != '\0' || parsed < min || parsed > max)
        return -1;
    *value = parsed;
    return 0;
}

static int parse_unsigned64(const char *text, uint64_t *value)
{
    if (text[0] < '0' || text[0] > '9')
        return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long parsed = strtoull(text, &end, 10);
    if (errno == ERANGE || *end != '\0')
        return -1;
    *value = (uint64_t)parsed;
    return 0;
}

static int find_param(const ml_lab *lab, const char *name, size_t name_length)
{
    for (int i = 0; i < lab->num_params; i++)
        if (strlen(lab->params[i].name) == name_length &&
            strncmp(lab->params[i].name, name, name_length) == 0)
            return i;
    return -1;
}

static int takes_value(const ml_lab *lab, const char *flag)
{
    static const char *const option_flags[] = {"--variant", "--sweep",   "--reps", "--warmup",
                                               "--seed",    "--metrics", "--format", "--out",
                                               "--device", "--kernels", "--save-kernels", "--gpu",
                                               "--gpu-profile",
                                               "--time-limit", "--cases"};
    for (size_t i = 0; i < sizeof option_flags / sizeof option_flags[0]; i++)
        if (strcmp(flag, option_flags[i]) == 0)
            return 1;
    return find_param(lab, flag + 2, strlen(flag + 2)) >= 0;
}

#define SWEEP_FORMS "PARAM=FIRST:LAST[:STEP] or PARAM=V1,V2,..."

/* "FIRST:LAST[:STEP]": every STEP-th value from FIRST to LAST. */
static int parse_sweep_range(const ml_param *param, char *range, ml_options *options,
                             const char *text, char *error, size_t error_size)
{
    char *fields[3] = {range, NULL, NULL};
    int field_count = 1;
    for (char *cursor = range; *cursor != '\0'; cursor++) {
        if (*cursor == ':') {
            if (field_count == 3)
                return fail(error, error_size, "--sweep expects " SWEEP_FORMS ", got '%s'", text);
            *cursor = '\0';
            fields[field_count++] = cursor + 1;
        }
    }
    long long first, last, step = 1;
    if (ml_parse_integer(fields[0], param->min_value, param->max_value, &first) != 0 ||
        ml_parse_integer(fields[1], param->min_value, param->max_value, &last) != 0)
        return fail(error, error_size, "--sweep %s: bounds must be whole numbers in [%lld, %lld]",
                    param->name, param->min_value, param->max_value);
    if (field_count == 3 && ml_parse_integer(fields[2], 1, param->max_value, &step) != 0)
        return fail(error, error_size, "--sweep %s: step must be a positive whole number, got '%s'",
                    param->name, fields[2]);
    if (last < first)
        return fail(error, error_size, "--sweep %s=%lld:%lld is empty (the last value is below the first)",
                    param->name, first, last);
    if ((last - first) / step + 1 > ML_MAX_SWEEP_POINTS)
        return fail(error, error_size, "--sweep %s: more than %d points", param->name,
                    ML_MAX_SWEEP_POINTS);
    options->sweep_count = 0;
    for (long long value = first; value <= last; value += step)
        options->sweep_value[options->sweep_count++] = value;
    return ML_EXIT_OK;
}

/* "V1,V2,...": these values, rising (a log-spaced sweep is a list: stride=1,2,4,8,16,32). */
static int parse_sweep_list(const ml_param *param, char *list, ml_options *options,
                            char *error, size_t error_size)
{
    options->sweep_count = 0;
    for (char *value_text = strtok(list, ","); value_text != NULL; value_text = strtok(NULL, ",")) {
        long long value;
        if (ml_parse_integer(value_text, param->min_value, param->max_value, &value) != 0)
            return fail(error, error_size, "--sweep %s: values must be whole numbers in [%lld, %lld], got '%s'",
                        param->name, param->min_value, param->max_value, value_text);
        if (options->sweep_count > 0 && value <= options->sweep_value[options->sweep_count - 1])
            return fail(error, error_size, "--sweep %s: the values must rise, got %lld after %lld",
                        param->name, value, options->sweep_value[options->sweep_count - 1]);
        if (options->sweep_count == ML_MAX_SWEEP_POINTS)
            return fail(error, error_size, "--sweep %s: more than %d points", param->name,
                        ML_MAX_SWEEP_POINTS);
        options->sweep_value[options->sweep_count++] = value;
    }
    return ML_EXIT_OK;
}

static int parse_sweep(const ml_lab *lab, const char *text, ml_options *options, char *error,
                       size_t error_size)
{
    const char *equals = strchr(text, '=');
    if (equals == NULL)
        return fail(error, error_size, "--sweep expects " SWEEP_FORMS ", got '%s'", text);
    int param_index = find_param(lab, text, (size_t)(equals - text));
    if (param_index < 0)
        return fail(error, error_size, "--sweep: '%.*s' is not a parameter of %s (./memlab run %s "
                    "--help lists them)", (int)(equals - text), text, lab->program, lab->program);
    const ml_param *param = &lab->params[param_index];

    char values[4096];
    if (strlen(equals + 1) >= sizeof values)
        return fail(error, error_size, "--sweep: range too long");
    strcpy(values, equals + 1);
    int is_range = strchr(values, ':') != NULL, is_list = strchr(values, ',') != NULL;
    if (is_range == is_list || values[0] == ',' || values[strlen(values) - 1] == ',' ||
        strstr(values, ",,") != NULL)
        return fail(error, error_size, "--sweep expects " SWEEP_FORMS ", got '%s'", text);
    int status = is_range ? parse_sweep_range(param, values, options, text, error, error_size)
                          : parse_sweep_list(param, values, options, error, error_size);
    if (status == ML_EXIT_OK)
        options->sweep_param = param_index;
    return status;
}

/* "all", one name, or names separated by commas (global,constant,ldg). */
static int select_variants(const ml_lab *lab, const char *names, ml_options *options, char *error,
                           size_t error_size)
{
    memset(options->variant_selected, 0, sizeof options->variant_selected);
    if (strcmp(names, "all") == 0) {
        for (int i = 0; i < lab->num_variants; i++)
            options->variant_selected[i] = 1;
        return ML_EXIT_OK;
    }
    for (const char *name = names; ; name++) {
        size_t length = strcspn(name, ",");
        int found = 0;
        for (int i = 0; i < lab->num_variants && !found; i++) {
            if (strlen(lab->variants[i].name) == length &&
                strncmp(lab->variants[i].name, name, length) == 0) {
                options->variant_selected[i] = 1;
                found = 1;
            }
        }
        if (!found)
            return fail(error, error_size, "unknown variant '%.*s' (./memlab run %s --list shows "
                        "them)", (int)length, name, lab->program);
        name += length;
        if (*name == '\0')
            return ML_EXIT_OK;
    }
}

/* An --out path must be writable now, so a long run does not fail at the end. Nothing is
 * created here: the directory must exist and be writable, and an existing file writable. */
static int check_writable(const char *flag, const char *path, char *error, size_t error_size)
{
    if (path[0] == '\0')
        return fail(error, error_size, "%s needs a file name", flag);
    struct stat status;
    if (stat(path, &status) == 0 && S_ISDIR(status.st_mode))
        return fail(error, error_size, "%s %s: is a directory, not a file", flag, path);
    if (access(path, F_OK) == 0)
        return access(path, W_OK) == 0
                   ? ML_EXIT_OK
                   : fail(error, error_size, "%s %s: file is not writable", flag, path);
    char directory[4096];
    if (strlen(path) >= sizeof directory)
        return fail(error, error_size, "%s: path too long", flag);
    strcpy(directory, path);
    char *slash = strrchr(directory, '/');
    if (slash == NULL)
        strcpy(directory, ".");
    else if (slash == directory)
        directory[1] = '\0';
    else
        *slash = '\0';
    if (access(directory, W_OK) != 0)
        return fail(error, error_size, "%s %s: directory %s does not exist or is not writable",
                    flag, path, directory);
    return ML_EXIT_OK;
}

int ml_parse_args(const ml_lab *lab, int argc, char **argv, ml_options *options, char *error,
                  size_t error_size)
{
    memset(options, 0, sizeof *options);
    options->action = ML_ACTION_RUN;
    for (int i = 0; i < lab->num_variants; i++)
        options->variant_selected[i] = 1;
    for (int i = 0; i < lab->num_params; i++)
        options->param[i] = lab->params[i].default_value;
    options->sweep_param = -1;
    options->reps = 10;
    options->warmup = 2;
    strcpy(options->metrics, "default");
    options->format = ML_FORMAT_TABLE;
    error[0] = '\0';

    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        if (strcmp(flag, "--help") == 0 || strcmp(flag, "-h") == 0) {
            options->action = ML_ACTION_HELP;
            return ML_EXIT_OK;
        }
        if (strcmp(flag, "--list") == 0) {
            options->action = ML_ACTION_LIST;
            continue;
        }
        if (strcmp(flag, "--list-metrics") == 0) {
            options->action = ML_ACTION_LIST_METRICS;
            continue;
        }
        if (strcmp(flag, "--model") == 0) {
            options->action = ML_ACTION_MODEL;
            continue;
        }
        if (strncmp(flag, "--", 2) != 0)
            return fail(error, error_size, "unexpected argument '%s' (flags start with --: "
                        "./memlab run %s --help)", flag, lab->program);
        /* Every other flag takes a value. */
        if (!takes_value(lab, flag))
            return fail(error, error_size, "unknown flag '%s' (./memlab run %s --help lists them)",
                        flag, lab->program);
        if (i + 1 >= argc)
            return fail(error, error_size, "%s needs a value", flag);
        const char *value = argv[++i];
        long long number;

        if (strcmp(flag, "--variant") == 0) {
            int status = select_variants(lab, value, options, error, error_size);
            if (status != ML_EXIT_OK)
                return status;
        } else if (strcmp(flag, "--sweep") == 0) {
            int status = parse_sweep(lab, value, options, error, error_size);
            if (status != ML_EXIT_OK)
                return status;
        } else if (strcmp(flag, "--reps") == 0) {
            if (ml_parse_integer(value, 1, MAX_REPS, &number) != 0)
                return fail(error, error_size, "--reps must be a whole number in [1, %d], got '%s'",
                            MAX_REPS, value);
            options->reps = (int)number;
        } else if (strcmp(flag, "--warmup") == 0) {
            if (ml_parse_integer(value, 0, MAX_REPS, &number) != 0)
                return fail(error, error_size, "--warmup must be a whole number in [0, %d], got '%s'",
                            MAX_REPS, value);
            options->warmup = (int)number;
        } else if (strcmp(flag, "--seed") == 0) {
            if (parse_unsigned64(value, &options->seed) != 0)
                return fail(error, error_size, "--seed must be a whole number in [0, 2^64), got '%s'",
                            value);
            options->seed_given = 1;
        } else if (strcmp(flag, "--metrics") == 0) {
            if (value[0] == '\0' || strlen(value) >= sizeof options->metrics)
                return fail(error, error_size, "--metrics needs a set name or a list of metric names");
            strcpy(options->metrics, value);
        } else if (strcmp(flag, "--format") == 0) {
            if (strcmp(value, "table") == 0)
                options->format = ML_FORMAT_TABLE;
            else if (strcmp(value, "csv") == 0)
                options->format = ML_FORMAT_CSV;
            else if (strcmp(value, "json") == 0)
                options->format = ML_FORMAT_JSON;
            else if (strcmp(value, "html") == 0)
                options->format = ML_FORMAT_HTML;
            else
                return fail(error, error_size, "--format must be table, csv or json, or html, got '%s'", value);
        } else if (strcmp(flag, "--out") == 0) {
            int status = check_writable(flag, value, error, error_size);
            if (status != ML_EXIT_OK)
                return status;
            options->out_path = value;
        } else if (strcmp(flag, "--kernels") == 0) {
            char lab_header[256];
            ml_kernels_lab_header(lab->kernels, lab_header, sizeof lab_header);
            if (ml_kernels_check_file(value, lab_header, error, error_size) != 0)
                return ML_EXIT_USAGE;
            options->kernels_path = value;
        } else if (strcmp(flag, "--save-kernels") == 0) {
            size_t length = strlen(value);
            if (length < 7 || strcmp(value + length - 7, ".fatbin") != 0)
                return fail(error, error_size, "--save-kernels writes a .fatbin file, got '%s'", value);
            int status = check_writable(flag, value, error, error_size);
            if (status != ML_EXIT_OK)
                return status;
            options->save_kernels_path = value;
        } else if (strcmp(flag, "--gpu") == 0) {
            if (options->gpu_profile_path != NULL)
                return fail(error, error_size, "--gpu and --gpu-profile both name the GPU to "
                                               "predict for: give one");
            options->model_gpu = ml_gpu_facts_named(value);
            if (options->model_gpu == NULL) {
                char names[128] = "";
                for (int g = 0; ml_gpu_facts_at(g) != NULL; g++)
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                             g > 0 ? ", " : "", ml_gpu_facts_at(g)->name);
                return fail(error, error_size, "--gpu: no GPU '%s' in memlab's table (%s)", value,
                            names);
            }
        } else if (strcmp(flag, "--gpu-profile") == 0) {
            if (options->model_gpu != NULL)
                return fail(error, error_size, "--gpu and --gpu-profile both name the GPU to "
                                               "predict for: give one");
            options->model_gpu = ml_gpu_profile_load(value, error, error_size);
            if (options->model_gpu == NULL)
                return ML_EXIT_USAGE;   /* the profile's one line is in error */
            options->gpu_profile_path = value;
        } else if (strcmp(flag, "--time-limit") == 0) {
            if (ml_parse_integer(value, 1, MAX_TIME_LIMIT_S, &number) != 0)
                return fail(error, error_size, "--time-limit must be a whole number of seconds in "
                            "[1, %d], got '%s'", MAX_TIME_LIMIT_S, value);
            options->time_limit_s = (int)number;
        } else if (strcmp(flag, "--cases") == 0) {
            if (argc != 3)
                return fail(error, error_size, "--cases FILE takes no other option: each line of "
                                               "FILE holds a case's own");
            options->cases_path = value;
            options->action = ML_ACTION_CASES;
        } else if (strcmp(flag, "--device") == 0) {
            if (ml_parse_integer(value, 0, MAX_DEVICE_INDEX, &number) != 0)
                return fail(error, error_size, "--device must be a device index (0, 1, ...), got '%s'",
                            value);
            options->device = (int)number;
        } else {
            int param_index = find_param(lab, flag + 2, strlen(flag + 2));
            const ml_param *param = &lab->params[param_index];
            if (ml_parse_integer(value, param->min_value, param->max_value, &number) != 0)
                return fail(error, error_size, "--%s must be a whole number in [%lld, %lld], got '%s'",
                            param->name, param->min_value, param->max_value, value);
            options->param[param_index] = number;
        }
    }
    if (options->gpu_profile_path != NULL && options->action != ML_ACTION_MODEL)
        return fail(error, error_size, "--gpu-profile FILE predicts for the GPU it describes: "
                                       "use it with --model (a run on a GPU finds its own "
                                       "profile)");
    if (options->model_gpu != NULL && options->action != ML_ACTION_MODEL)
        return fail(error, error_size, "--gpu NAME predicts for a GPU that is not here: use it "
                                       "with --model");
    if (options->save_kernels_path != NULL) {
        size_t length = options->kernels_path != NULL ? strlen(options->kernels_path) : 0;
        if (length < 3 || strcmp(options->kernels_path + length - 3, ".cu") != 0)
            return fail(error, error_size, "--save-kernels compiles a --kernels FILE.cu: give one");
        if (options->action == ML_ACTION_RUN)
            options->action = ML_ACTION_SAVE_KERNELS;
    }
    return ML_EXIT_OK;
}

int ml_read_cases(const char *program, const char *path, ml_case_list *list, char *error,
                  size_t error_size)
{
    memset(list, 0, sizeof *list);
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return fail(error, error_size, "--cases %s: %s", path, strerror(errno));
    list->text = malloc(ML_CASES_MAX_BYTES + 1);
    size_t bytes = list->text != NULL ? fread(list->text, 1, ML_CASES_MAX_BYTES + 1, file) : 0;
    int read_error = ferror(file);
    fclose(file);
    if (list->text == NULL)
        return fail(error, error_size, "--cases %s: out of host memory", path);
    if (read_error)
        return fail(error, error_size, "--cases %s: cannot read it", path);
    if (bytes > ML_CASES_MAX_BYTES)
        return fail(error, error_size, "--cases %s: more than %d bytes", path, ML_CASES_MAX_BYTES);
    if (memchr(list->text, '\0', bytes) != NULL)
        return fail(error, error_size, "--cases %s: holds a NUL byte", path);
    list->text[bytes] = '\0';
    int lines = 1;
    for (size_t i = 0; i < bytes; i++)
        lines += list->text[i] == '\n';
    list->cases = calloc((size_t)lines, sizeof *list->cases);
    if (list->cases == NULL)
        return fail(error, error_size, "--cases %s: out of host memory", path);
    char *cursor = list->text;
    for (int line = 1; cursor != NULL; line++) {
        char *end = strchr(cursor, '\n');
        if (end != NULL)
            *end = '\0';
        ml_case *one = &list->cases[list->count];
        memset(one, 0, sizeof *one);
        one->line = line;
        one->argv[one->argc++] = (char *)program;
        char *saved = NULL;
        for (char *word = strtok_r(cursor, " \t\r", &saved); word != NULL;
             word = strtok_r(NULL, " \t\r", &saved)) {
            if (one->argc > ML_CASE_MAX_WORDS)
                return fail(error, error_size, "%s:%d: more than %d words", path, line,
                            ML_CASE_MAX_WORDS);
            one->argv[one->argc++] = word;
        }
        cursor = end != NULL ? end + 1 : NULL;
        if (one->argc == 1)
            continue;   /* a blank line */
        for (int i = 1; i < one->argc; i++) {
            const char *word = one->argv[i];
            if (strcmp(word, "--cases") == 0 || strcmp(word, "--device") == 0)
                return fail(error, error_size, "%s:%d: a case cannot hold %s (the cases share "
                            "one process and one device)", path, line, word);
            if (strcmp(word, "--out") == 0 && i + 1 < one->argc)
                one->out_path = one->argv[i + 1];
        }
        if (one->out_path == NULL || one->out_path[0] == '\0')
            return fail(error, error_size, "%s:%d: a case needs --out REPORT (its report; its "
                        "output and exit status go beside it)", path, line);
        one->argv[one->argc] = NULL;
        list->count++;
    }
    if (list->count == 0)
        return fail(error, error_size, "--cases %s: no case in it", path);
    return ML_EXIT_OK;
}

void ml_free_cases(ml_case_list *list)
{
    free(list->cases);
    free(list->text);
    memset(list, 0, sizeof *list);
}

long long ml_sweep_count(const ml_options *options)
{
    if (options->sweep_param < 0)
        return 1;
    return options->sweep_count;
}

void ml_sweep_point(const ml_options *options, long long index, long long *param)
{
    memcpy(param, options->param, sizeof options->param);
    if (options->sweep_param >= 0)
        param[options->sweep_param] = options->sweep_value[index];
}

void ml_print_variants(const ml_lab *lab, FILE *stream)
{
    fprintf(stream, "%s: %s\n", lab->program, lab->title);
    for (int i = 0; i < lab->num_variants; i++)
        fprintf(stream, "  %-20s %s\n", lab->variants[i].name, lab->variants[i].summary);
}

void ml_print_metrics(FILE *stream)
{
    fputs("Metrics, by memlab name. Where nvprof had another name it is accepted too; any other\n"
          "Perfworks name (as Nsight Compute spells it) is accepted as it is.\n"
          "Sectors are 32 bytes; shared-memory transactions are wavefronts; percentages are 0-100.\n\n",
          stream);
    for (size_t i = 0; i < prof_metric_count(); i++) {
        const prof_metric *metric = prof_metric_at(i);
        char full_name[256];
        prof_metric_full_name(metric, full_name, sizeof full_name);
        fprintf(stream, "%-38s [%s] %s\n", metric->alias, metric->group, metric->unit);
        if (metric->legacy_names[0] != '\0')
            fprintf(stream, "    also: %s\n", metric->legacy_names);
        fprintf(stream, "    %s\n    %s\n", full_name, metric->meaning);
    }
}

void ml_print_help(const ml_lab *lab, FILE *stream)
{
    fprintf(stream, "usage: %s [options]\n%s\n\nsizes:\n", lab->program, lab->title);
    for (int i = 0; i < lab->num_params; i++) {
        const ml_param *param = &lab->params[i];
        fprintf(stream, "  --%-10s N  %s (default %lld, %lld..%lld)\n", param->name, param->help,
                param->default_value, param->min_value, param->max_value);
    }
    fputs("\noptions:\n"
          "  --list                 list the variants and exit\n"
          "  --list-metrics         list the metric names --metrics accepts and exit\n"
          "  --variant NAME|all     run one variant, or all (the default)\n"
          "  --variant A,B,...      run these variants\n"
          "  --sweep P=A:B[:STEP]   run every value of size P from A to B\n"
          "  --sweep P=V1,V2,...    run these values of size P (rising), e.g. stride=1,2,4,8\n"
          "  --reps N               timed repetitions (default 10)\n"
          "  --warmup N             untimed runs first (default 2)\n"
          "  --seed N               seed of the random inputs (default: a fresh one, reported)\n"
          "  --metrics SET|LIST     counters: default (each variant's own), none, a group\n"
          "                         (global, shared, local, dram, occupancy, constant, atomic,\n"
          "                         unified: the driver's managed-memory migrations; all), or\n"
          "                         names, comma-separated (aliases or Perfworks names)\n"
          "  --model                predictions of the access model only; needs no GPU\n"
          "  --gpu NAME             with --model: predict for this GPU (h100, the default, h200,\n"
          "                         a100, l4, t4, rtx4090)\n"
          "  --gpu-profile FILE     with --model: predict for the GPU a profile describes (one\n"
          "                         that ./memlab calibrate wrote)\n"
          "  --format table|csv|json|html   (html: a page for a browser, a chart per kernel)\n"
          "  --out FILE             write the report, in the --format, to FILE; the table still\n"
          "                         goes to standard output, for people\n"
          "  --device N             CUDA device index (default 0)\n"
          "  --kernels FILE         run the kernels of FILE (a kernels.cu, compiled here with\n"
          "                         nvcc, or a .fatbin or .cubin) instead of the program's own;\n"
          "                         with no GPU a .cu is still compiled and its kernels looked\n"
          "                         up, then exit 3; --model does not read them\n"
          "  --save-kernels F.fatbin  with --kernels FILE.cu: compile it into F.fatbin (and what\n"
          "                         ptxas said into F.fatbin.ptxas) and exit; needs no GPU\n"
          "  --time-limit S         stop the run after S seconds (killed by SIGALRM)\n"
          "  --cases FILE           run each line of FILE as a case: its arguments as on this\n"
          "                         command line, with --out REPORT; the case's output goes to\n"
          "                         REPORT.stdout and REPORT.stderr, its exit status to\n"
          "                         REPORT.exit; the cases share the device and the profiler,\n"
          "                         the kernels are loaded anew for each (the grader's path)\n"
          "  --help                 this text\n"
          "\nexit status:\n"
          "  0  every variant matched the CPU reference\n"
          "  1  a variant's output did not match the CPU reference\n"
          "  2  bad input (flag, value, variant, size, output file): nothing was run\n"
          "  3  no usable CUDA device (use --model for predictions without one)\n"
          "  4  a CUDA call failed\n"
          "  5  the lab program itself is wrong (its variant table, a prediction): a bug to report\n"
          "\nprogress: a run of several records says which one it is at on stderr when stderr is\n"
          "a terminal, or, one line each (\"progress: 3 of 32: strided stride=3\"), when\n"
          "MEMLAB_PROGRESS=1 is set (./memlab demo sets it and shows them)\n",
          stream);
}

int ml_usage_error(const ml_lab *lab, const char *message)
{
    fprintf(stderr, "%s: %s\n", lab->program, message);
    return ML_EXIT_USAGE;
}
