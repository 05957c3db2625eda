/* report_data.c: CSV and plot columns from the JSON reports of lab programs (see report_data.h
 * and, for the JSON itself, report.c).
 */
#include "report_data.h"
#include "tables.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(void)
{
    fprintf(stderr, "memlab_report: out of memory\n");
    exit(EXIT_FAILURE);
}

static void *checked_calloc(size_t count, size_t size)
{
    void *memory = calloc(count + 1, size);     /* + 1: calloc(0) may return NULL */
    if (memory == NULL)
        out_of_memory();
    return memory;
}

/* ---- loading --------------------------------------------------------------------------------- */

char *rd_read_text(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return NULL;
    size_t capacity = 1 << 16, length = 0;
    char *text = malloc(capacity);
    while (text != NULL) {
        length += fread(text + length, 1, capacity - length - 1, file);
        if (length < capacity - 1)
            break;
        capacity *= 2;
        char *grown = realloc(text, capacity);
        if (grown == NULL)
            free(text);
        text = grown;
    }
    bool failed = ferror(file);
    fclose(file);
    if (text == NULL)
        out_of_memory();
    if (failed) {
        free(text);
        return NULL;
    }
    text[length] = '\0';
    return text;
}

const char *rd_text_tail(const char *text, int lines)
{
    size_t used = strlen(text);
    if (lines <= 0 || used == 0)
        return text;
    size_t position = used - (text[used - 1] == '\n');
    int seen = 0;
    while (position > 0) {
        if (text[position - 1] == '\n' && ++seen == lines)
            break;
        position--;
    }
    return text + position;
}

static const cJSON *member(const cJSON *object, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(object, name);
}

cJSON *rd_load(const char *path, char *error, size_t error_size)
{
    char *text = rd_read_text(path);
    if (text == NULL) {
        snprintf(error, error_size, "cannot read %s", path);
        return NULL;
    }
    cJSON *report = rd_parse(text, path, error, error_size);
    free(text);
    return report;
}

cJSON *rd_parse(const char *text, const char *name, char *error, size_t error_size)
{
    cJSON *report = cJSON_Parse(text);
    if (report == NULL) {
        snprintf(error, error_size, "%s is not JSON", name);
        return NULL;
    }

    const char *problem = NULL;
    const cJSON *records = member(report, "records");
    if (!cJSON_IsObject(report) || !cJSON_IsString(member(report, "lab")))
        problem = "has no \"lab\"";
    else if (!cJSON_IsArray(records))
        problem = "has no \"records\" array";
    const cJSON *record;
    cJSON_ArrayForEach(record, records) {
        if (problem == NULL && (!cJSON_IsString(member(record, "variant")) ||
                                !cJSON_IsObject(member(record, "params"))))
            problem = "has a record without \"variant\" or \"params\"";
    }
    if (problem != NULL) {
        snprintf(error, error_size, "%s is not a memlab report: it %s", name, problem);
        cJSON_Delete(report);
        return NULL;
    }
    return report;
}

const char *rd_device_name(const cJSON *report)
{
    const cJSON *name = member(member(report, "device"), "name");
    return cJSON_IsString(name) ? name->valuestring : NULL;
}

const char *rd_title(const cJSON *report)
{
    const cJSON *title = member(report, "title");
    return cJSON_IsString(title) ? title->valuestring : member(report, "lab")->valuestring;
}

const char *rd_profiler_note(const cJSON *report)
{
    const cJSON *note = member(report, "profiler_note");
    return cJSON_IsString(note) ? note->valuestring : NULL;
}

/* ---- values ---------------------------------------------------------------------------------- */

static double number(const cJSON *item)
{
    if (cJSON_IsNumber(item))
        return item->valuedouble;
    if (cJSON_IsBool(item))
        return cJSON_IsTrue(item) ? 1.0 : 0.0;
    return NAN;
}

static bool is_one_of(const char *name, const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

/* The metric keyed by Perfworks name, or whose alias is name; NULL if none. */
static const cJSON *find_metric(const cJSON *record, const char *name, size_t name_length)
{
    const cJSON *metric;
    cJSON_ArrayForEach(metric, member(record, "metrics")) {
        const cJSON *alias = member(metric, "alias");
        bool key_matches = metric->string != NULL && strlen(metric->string) == name_length &&
                           strncmp(metric->string, name, name_length) == 0;
        bool alias_matches = cJSON_IsString(alias) && strlen(alias->valuestring) == name_length &&
                             strncmp(alias->valuestring, name, name_length) == 0;
        if (key_matches || alias_matches)
            return metric;
    }
    return NULL;
}

/* "gld_efficiency.measured": the metric's measured value. */
static bool metric_value(const cJSON *record, const char *column, double *value)
{
    static const char *const suffixes[] = {".predicted", ".measured"};
    size_t length = strlen(column);
    for (size_t s = 0; s < 2; s++) {
        size_t suffix_length = strlen(suffixes[s]);
        if (length <= suffix_length || strcmp(column + length - suffix_length, suffixes[s]) != 0)
            continue;
        const cJSON *metric = find_metric(record, column, length - suffix_length);
        *value = number(member(metric, suffixes[s] + 1));
        return true;
    }
    return false;
}

/* A size parameter of the record, NAN if it has none of that name. */
static double param_value(const cJSON *record, const char *name)
{
    return number(member(member(record, "params"), name));
}

bool rd_agrees(double measured, double predicted)
{
    if (predicted == 0)
        return measured == 0;
    return fabs(measured - predicted) <= 0.05 * fabs(predicted);
}

bool rd_in_range(double measured, double low, double high)
{
    return measured >= 0.95 * low && measured <= 1.05 * high;
}

const cJSON *rd_records(const cJSON *report)
{
    return member(report, "records");
}

const cJSON *rd_metrics(const cJSON *record)
{
    return member(record, "metrics");
}

const cJSON *rd_params(const cJSON *record)
{
    return member(record, "params");
}

double rd_metric_number(const cJSON *metric, const char *field)
{
    return number(member(metric, field));
}

const char *rd_metric_text(const cJSON *metric, const char *field)
{
    const cJSON *text = member(metric, field);
    return cJSON_IsString(text) ? text->valuestring : NULL;
}

double rd_report_number(const cJSON *report, const char *field)
{
    return number(member(report, field));
}

const char *rd_report_text(const cJSON *report, const char *field)
{
    const cJSON *text = member(report, field);
    return cJSON_IsString(text) ? text->valuestring : NULL;
}

const cJSON *rd_record(const cJSON *report, const char *variant)
{
    const cJSON *record;
    cJSON_ArrayForEach(record, member(report, "records")) {
        if (strcmp(rd_variant(record), variant) == 0)
            return record;
    }
    return NULL;
}

const char *rd_variant(const cJSON *record)
{
    return member(record, "variant")->valuestring; /* rd_parse checked that it is a string */
}

const char *rd_kernel(const cJSON *record)
{
    const cJSON *kernel = member(member(record, "resources"), "kernel");
    return cJSON_IsString(kernel) ? kernel->valuestring : NULL;
}

const cJSON *rd_metric(const cJSON *record, const char *name)
{
    return find_metric(record, name, strlen(name));
}

/* The record's own values rd_value reads, by where they sit in a record's JSON. */
static const char *const top_level[] = {"bytes", "gbps", "pct_of_ceiling", "peak_gbps",
                                        "pct_of_peak", "flops", "gflops",
                                        "pct_of_flops_ceiling", "max_rel_error",
                                        "mismatches", "correct"};
static const char *const timing[] = {"median_ms", "min_ms", "max_ms", "cv", "reps"};
static const char *const latency[] = {"cycles_per_op", "min_cycles_per_op",
                                      "max_cycles_per_op", "ns_per_op"};
static const char *const resources[] = {"registers_per_thread", "local_bytes_per_thread",
                                        "spill_store_bytes", "spill_load_bytes",
                                        "shared_bytes_per_block", "threads_per_block",
                                        "blocks_per_sm", "occupancy_pct"};
#define COUNT(array) (sizeof(array) / sizeof(array[0]))

bool rd_is_record_column(const char *column)
{
    static const char *const others[] = {"flops_per_gld_byte_predicted",
                                         "flops_per_gld_byte_measured", "lab", "variant", "device"};
    return is_one_of(column, top_level, COUNT(top_level)) ||
           is_one_of(column, timing, COUNT(timing)) ||
           is_one_of(column, resources, COUNT(resources)) ||
           is_one_of(column, latency, COUNT(latency)) || is_one_of(column, others, COUNT(others));
}

double rd_value(const cJSON *record, const char *column)
{
    if (is_one_of(column, top_level, COUNT(top_level)))
        return number(member(record, column));
    if (is_one_of(column, timing, COUNT(timing)))
        return number(member(member(record, "timing"), column));
    if (is_one_of(column, resources, COUNT(resources)))
        return number(member(member(record, "resources"), column));
    if (is_one_of(column, latency, COUNT(latency)))
        return number(member(member(record, "latency"), column));
    if (strcmp(column, "flops_per_gld_byte_predicted") == 0)
        return number(member(member(record, "flops_per_gld_byte"), "predicted"));
    if (strcmp(column, "flops_per_gld_byte_measured") == 0)
        return number(member(member(record, "flops_per_gld_byte"), "measured"));
    double value;
    if (metric_value(record, column, &value))
        return value;
    return param_value(record, column);
}

/* ---- CSV ------------------------------------------------------------------------------------- */

/* Every metric alias of the report, each once, in first-seen order; returns how many. */
static int collect_aliases(const cJSON *records, const char ***aliases)
{
    int total = 0;
    const cJSON *record, *metric;
    cJSON_ArrayForEach(record, records)
        total += cJSON_GetArraySize(member(record, "metrics"));
    *aliases = checked_calloc((size_t)total, sizeof **aliases);

    int count = 0;
    cJSON_ArrayForEach(record, records) {
        cJSON_ArrayForEach(metric, member(record, "metrics")) {
            const cJSON *alias = member(metric, "alias");
            const char *name = cJSON_IsString(alias) ? alias->valuestring : metric->string;
            bool seen = false;
            for (int i = 0; i < count && !seen; i++)
                seen = (strcmp((*aliases)[i], name) == 0);
            if (!seen)
                (*aliases)[count++] = name;
        }
    }
    return count;
}

/* The values every CSV row has, after the sizes and the device; then two per metric alias. */
static const char *const csv_values[] = {
    "median_ms", "min_ms", "max_ms", "cv", "bytes", "gbps", "pct_of_ceiling", "peak_gbps",
    "pct_of_peak", "flops", "gflops", "pct_of_flops_ceiling", "flops_per_gld_byte_predicted", "flops_per_gld_byte_measured",
    "correct", "max_rel_error", "registers_per_thread", "local_bytes_per_thread",
    "spill_store_bytes", "spill_load_bytes", "shared_bytes_per_block", "threads_per_block",
    "blocks_per_sm", "occupancy_pct", "cycles_per_op", "ns_per_op"};

/* A column named ALIAS_SUFFIX. */
static void alias_column(rt_table *table, const char *alias, const char *suffix)
{
    size_t size = strlen(alias) + strlen(suffix) + 1;
    char *name = checked_calloc(size, 1);
    snprintf(name, size, "%s%s", alias, suffix);
    rt_column(table, name, RT_LEFT);
    free(name);
}

/* Every record has the lab's parameters, in the lab's order: the first record's name them. */
static void csv_header(rt_table *table, const cJSON *params, const char **aliases, int alias_count)
{
    const cJSON *param;
    rt_column(table, "lab", RT_LEFT);
    rt_column(table, "variant", RT_LEFT);
    cJSON_ArrayForEach(param, params)
        rt_column(table, param->string, RT_LEFT);
    rt_column(table, "device", RT_LEFT);
    for (size_t c = 0; c < COUNT(csv_values); c++)
        rt_column(table, csv_values[c], RT_LEFT);
    for (int a = 0; a < alias_count; a++) {
        alias_column(table, aliases[a], "_predicted");
        alias_column(table, aliases[a], "_measured");
    }
}

/* Full precision (%.9g keeps a float's digits), an empty field for a missing value; the device's
 * name, free text, quoted. */
static void csv_row(rt_table *table, const cJSON *report, const cJSON *params,
                    const cJSON *record, const char **aliases, int alias_count)
{
    const char *device = rd_device_name(report);
    const cJSON *param;
    rt_text(table, "%s", member(report, "lab")->valuestring);
    rt_text(table, "%s", rd_variant(record));
    cJSON_ArrayForEach(param, params)
        rt_text(table, "%lld", (long long)param_value(record, param->string));
    rt_quoted(table, device != NULL ? device : "");
    for (size_t c = 0; c < COUNT(csv_values); c++)
        rt_number(table, "%.9g", rd_value(record, csv_values[c]));
    for (int a = 0; a < alias_count; a++) {
        const cJSON *metric = find_metric(record, aliases[a], strlen(aliases[a]));
        rt_number(table, "%.9g", number(member(metric, "predicted")));
        rt_number(table, "%.9g", number(member(metric, "measured")));
    }
}

void rd_write_csv(const cJSON *report, FILE *stream)
{
    const cJSON *records = member(report, "records");
    const cJSON *params = member(cJSON_GetArrayItem(records, 0), "params");
    const char **aliases;
    int alias_count = collect_aliases(records, &aliases);
    rt_table table;
    rt_init(&table);
    csv_header(&table, params, aliases, alias_count);
    const cJSON *record;
    cJSON_ArrayForEach(record, records)
        csv_row(&table, report, params, record, aliases, alias_count);
    rt_print(&table, RT_CSV, stream);
    rt_free(&table);
    free(aliases);
}

/* ---- selecting records ----------------------------------------------------------------------- */

typedef struct {
    const cJSON *record;
    int report;             /* index into the reports */
    int order;              /* position among all records, to keep sorts stable */
    int variant;            /* index into the query's variants (bars) */
    double x;
} row;

static bool lab_matches(const cJSON *report, const rd_query *query)
{
    return query->lab == NULL || strcmp(member(report, "lab")->valuestring, query->lab) == 0;
}

/* Index of the record's variant among the query's, or -1; 0 when the query names none. */
static int variant_index(const cJSON *record, const rd_query *query)
{
    if (query->variant_count == 0)
        return 0;
    const char *variant = member(record, "variant")->valuestring;
    for (int v = 0; v < query->variant_count; v++)
        if (strcmp(variant, query->variant[v]) == 0)
            return v;
    return -1;
}

static bool is_max(const char *value)
{
    return strcmp(value, "max") == 0;
}

/* Whether the record passes the where clauses; the "max" ones compare with maximum[w]. */
static bool where_matches(const cJSON *record, const rd_query *query, const double *maximum,
                          bool with_max)
{
    for (int w = 0; w < query->where_count; w++) {
        double value = rd_value(record, query->where_param[w]);
        if (is_max(query->where_value[w])) {
            if (with_max && value != maximum[w])
                return false;
        } else if (value != strtod(query->where_value[w], NULL)) {
            return false;
        }
    }
    return true;
}

/* Every record of the reports that the query selects, in report order; returns how many. */
static int select_records(const cJSON *const *reports, int report_count, const rd_query *query,
                          row **rows)
{
    int total = 0;
    for (int r = 0; r < report_count; r++)
        total += cJSON_GetArraySize(member(reports[r], "records"));
    *rows = checked_calloc((size_t)total, sizeof **rows);

    /* The "max" clauses first need the largest values among the records the others keep. */
    double maximum[RD_MAX_WHERE];
    for (int w = 0; w < RD_MAX_WHERE; w++)
        maximum[w] = -INFINITY;
    for (int pass = 0; pass < 2; pass++) {
        int count = 0, order = 0;
        for (int r = 0; r < report_count; r++) {
            if (!lab_matches(reports[r], query))
                continue;
            const cJSON *record;
            cJSON_ArrayForEach(record, member(reports[r], "records")) {
                order++;
                int variant = variant_index(record, query);
                if (variant < 0 || !where_matches(record, query, maximum, pass == 1))
                    continue;
                if (pass == 0) {
                    for (int w = 0; w < query->where_count; w++) {
                        double value = rd_value(record, query->where_param[w]);
                        if (is_max(query->where_value[w]) && value > maximum[w])
                            maximum[w] = value;
                    }
                    continue;
                }
                (*rows)[count] = (row){record, r, order, variant, NAN};
                count++;
            }
        }
        if (pass == 1)
            return count;
    }
    return 0;
}

/* ---- writing columns ------------------------------------------------------------------------- */

static void write_value(FILE *stream, double value)
{
    if (isnan(value) || isinf(value))
        fputs(" NaN", stream);
    else
        fprintf(stream, " %.9g", value);
}

static void write_columns(FILE *stream, const cJSON *record, const rd_query *query,
                          bool has_data[RD_MAX_COLUMNS])
{
    for (int c = 0; c < query->column_count; c++) {
        double value = rd_value(record, query->column[c]);
        write_value(stream, value);
        if (isfinite(value))
            has_data[c] = true;
    }
    fputc('\n', stream);
}

static void write_header(FILE *stream, const char *first, const rd_query *query)
{
    fputs(first, stream);
    for (int c = 0; c < query->column_count; c++)
        fprintf(stream, " %s", query->column[c]);
    fputc('\n', stream);
}

/* Whether series row a goes before b: by x. */
static bool before_by_x(const row *a, const row *b, const void *context)
{
    (void)context;
    return a->x < b->x || (a->x == b->x && a->order < b->order);
}

/* A plot has tens of rows: an insertion sort, with the context qsort lacks. */
static void sort_rows(row *rows, int count, bool (*before)(const row *, const row *, const void *),
                      const void *context)
{
    for (int i = 1; i < count; i++) {
        row moving = rows[i];
        int k = i;
        while (k > 0 && before(&moving, &rows[k - 1], context)) {
            rows[k] = rows[k - 1];
            k--;
        }
        rows[k] = moving;
    }
}

int rd_write_series(const cJSON *const *reports, int report_count, const rd_query *query,
                    FILE *stream, bool has_data[RD_MAX_COLUMNS])
{
    for (int c = 0; c < RD_MAX_COLUMNS; c++)
        has_data[c] = false;
    row *selected;
    int selected_count = select_records(reports, report_count, query, &selected);

    /* Reports in decreasing number of selected records: the first to have an x keeps it. */
    int *records_in = checked_calloc((size_t)report_count, sizeof *records_in);
    for (int i = 0; i < selected_count; i++)
        records_in[selected[i].report]++;
    row *rows = checked_calloc((size_t)selected_count, sizeof *rows);
    int row_count = 0;
    for (int most = selected_count; most > 0; most--) {
        for (int i = 0; i < selected_count; i++) {
            if (records_in[selected[i].report] != most)
                continue;
            double x = rd_value(selected[i].record, query->x);
            bool taken = isnan(x);
            for (int k = 0; k < row_count && !taken; k++)
                taken = (rows[k].x == x);
            if (taken)
                continue;
            rows[row_count] = selected[i];
            rows[row_count].x = x;
            row_count++;
        }
    }
    sort_rows(rows, row_count, before_by_x, NULL);

    write_header(stream, query->x, query);
    for (int i = 0; i < row_count; i++) {
        fprintf(stream, "%.9g", rows[i].x);
        write_columns(stream, rows[i].record, query, has_data);
    }
    free(rows);
    free(records_in);
    free(selected);
    return row_count;
}

/* ---- bars ------------------------------------------------------------------------------------ */

/* The parameters that differ between the rows of a bar chart: they name and order the bars. */
typedef struct {
    const cJSON *params;    /* the first row's params object */
    bool *differs;          /* one per parameter, in that order */
} bar_params;

/* Whether bar a goes before b: by the parameters that differ, then by variant. */
static bool before_by_params(const row *a, const row *b, const void *context)
{
    const bar_params *bars = context;
    const cJSON *param;
    int p = 0;
    cJSON_ArrayForEach(param, bars->params) {
        if (bars->differs[p]) {
            double left = param_value(a->record, param->string);
            double right = param_value(b->record, param->string);
            if (left != right)
                return left < right;
        }
        p++;
    }
    if (a->variant != b->variant)
        return a->variant < b->variant;
    return a->order < b->order;
}

/* Whether two records have the same sizes. */
static bool same_params(const cJSON *a, const cJSON *b)
{
    const cJSON *param;
    cJSON_ArrayForEach(param, member(a, "params"))
        if (param_value(b, param->string) != param->valuedouble)
            return false;
    return true;
}

/* The query's variants, or when it names none, every variant of the selected records in
 * first-seen order: fills query->variant and renumbers rows[].variant. */
static void name_variants(rd_query *query, row *rows, int row_count)
{
    if (query->variant_count > 0)
        return;
    for (int i = 0; i < row_count; i++) {
        const char *variant = member(rows[i].record, "variant")->valuestring;
        int v = 0;
        while (v < query->variant_count && strcmp(query->variant[v], variant) != 0)
            v++;
        if (v == query->variant_count) {
            if (v == RD_MAX_VARIANTS) {
                rows[i].variant = -1;
                continue;
            }
            query->variant[v] = variant;
            query->variant_count++;
        }
        rows[i].variant = v;
    }
}

int rd_write_bars(const cJSON *const *reports, int report_count, const rd_query *query_in,
                  FILE *stream, bool has_data[RD_MAX_COLUMNS])
{
    for (int c = 0; c < RD_MAX_COLUMNS; c++)
        has_data[c] = false;
    rd_query query = *query_in;
    row *selected;
    int selected_count = select_records(reports, report_count, &query, &selected);
    name_variants(&query, selected, selected_count);

    /* records[r][v]: selected records of variant v in report r. */
    int variant_count = query.variant_count;
    int *records = checked_calloc((size_t)report_count * (size_t)variant_count, sizeof *records);
    for (int i = 0; i < selected_count; i++)
        if (selected[i].variant >= 0)
            records[selected[i].report * variant_count + selected[i].variant]++;
    /* A variant's bars come from the reports holding the fewest of its records: single runs
     * rather than a sweep, which is a line plot's business. */
    int *fewest = checked_calloc((size_t)variant_count, sizeof *fewest);
    for (int r = 0; r < report_count; r++)
        for (int v = 0; v < variant_count; v++) {
            int count = records[r * variant_count + v];
            if (count > 0 && (fewest[v] == 0 || count < fewest[v]))
                fewest[v] = count;
        }
    row *rows = checked_calloc((size_t)selected_count, sizeof *rows);
    int row_count = 0;
    for (int i = 0; i < selected_count; i++) {
        int v = selected[i].variant;
        if (v < 0 || records[selected[i].report * variant_count + v] != fewest[v])
            continue;
        bool repeated = false;      /* the same variant and sizes in an earlier run */
        for (int k = 0; k < row_count && !repeated; k++)
            repeated = rows[k].variant == v && same_params(rows[k].record, selected[i].record);
        if (!repeated)
            rows[row_count++] = selected[i];
    }

    /* The parameters that differ between rows name the bars, and order them. */
    const cJSON *params = row_count > 0 ? member(rows[0].record, "params") : NULL;
    bar_params bars = {params, checked_calloc((size_t)cJSON_GetArraySize(params), sizeof(bool))};
    const cJSON *param;
    int p = 0;
    cJSON_ArrayForEach(param, params) {
        for (int i = 1; i < row_count; i++)
            if (param_value(rows[i].record, param->string) != param->valuedouble)
                bars.differs[p] = true;
        p++;
    }
    sort_rows(rows, row_count, before_by_params, &bars);

    write_header(stream, "label", &query);
    for (int i = 0; i < row_count; i++) {
        fprintf(stream, "\"%s", member(rows[i].record, "variant")->valuestring);
        p = 0;
        cJSON_ArrayForEach(param, params) {
            if (bars.differs[p++])
                fprintf(stream, " %s=%.9g", param->string,
                        param_value(rows[i].record, param->string));
        }
        fputc('"', stream);
        write_columns(stream, rows[i].record, &query, has_data);
    }
    free(bars.differs);
    free(rows);
    free(fewest);
    free(records);
    free(selected);
    return row_count;
}
