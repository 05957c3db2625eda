/* memory_chart.c: a record's memory chart (memory_chart.h).
 *
 * The layout, in SVG units (the page scales it to its width):
 *
 *   kernel |--arrow, its metrics above--> registers / local
 *          |--------------------------> shared memory
 *          |--------------------------> constant cache
 *          |--------------------------> L1/TEX ------------> L2
 *                                                             |
 *                                                            DRAM
 *                                                             |
 *                                                            host
 *
 * A level is drawn when an arrow into or out of it carries a metric; the path from the kernel
 * through L1/TEX, L2 and DRAM to the host is drawn up to the farthest level used, its arrows
 * without metrics thin and grey, so the flow always starts at the kernel.
 */
#include "memory_chart.h"

#include <math.h>
#include <string.h>

#include "census.h"
#include "html_text.h"
#include "report_data.h"
#include "tables.h"

/* Which arrow each alias belongs on: the profiler's alias table (profiling/metrics.c) names
 * every alias a lab may predict, and tests/unit/test_memory_chart.c checks that each one is
 * here exactly once. Hit rates go on the arrow into the cache they are the hit rate of. */
static const struct {
    const char *alias;
    rd_arrow arrow;
} alias_arrows[] = {
    {"gld_efficiency", RD_ARROW_GLOBAL},
    {"gst_efficiency", RD_ARROW_GLOBAL},
    {"gld_transactions", RD_ARROW_GLOBAL},
    {"gst_transactions", RD_ARROW_GLOBAL},
    {"gld_requests", RD_ARROW_GLOBAL},
    {"gld_bytes", RD_ARROW_GLOBAL},
    {"gst_requests", RD_ARROW_GLOBAL},
    {"gld_transactions_per_request", RD_ARROW_GLOBAL},
    {"gst_transactions_per_request", RD_ARROW_GLOBAL},
    {"global_hit_rate", RD_ARROW_GLOBAL},
    {"shared_load_transactions", RD_ARROW_SHARED},
    {"shared_store_transactions", RD_ARROW_SHARED},
    {"shared_load_instructions", RD_ARROW_SHARED},
    {"shared_store_instructions", RD_ARROW_SHARED},
    {"shared_ld_instructions", RD_ARROW_SHARED},
    {"shared_st_instructions", RD_ARROW_SHARED},
    {"shared_load_transactions_per_request", RD_ARROW_SHARED},
    {"shared_store_transactions_per_request", RD_ARROW_SHARED},
    {"shared_ld_bank_conflict", RD_ARROW_SHARED},
    {"shared_st_bank_conflict", RD_ARROW_SHARED},
    {"shared_ld_conflicts_per_request", RD_ARROW_SHARED},
    {"shared_st_conflicts_per_request", RD_ARROW_SHARED},
    {"shared_atom_instructions", RD_ARROW_SHARED},
    {"local_load_transactions", RD_ARROW_REGISTERS},
    {"local_store_transactions", RD_ARROW_REGISTERS},
    {"local_load_requests", RD_ARROW_REGISTERS},
    {"local_store_requests", RD_ARROW_REGISTERS},
    {"local_load_transactions_per_request", RD_ARROW_REGISTERS},
    {"local_store_transactions_per_request", RD_ARROW_REGISTERS},
    {"local_load_efficiency", RD_ARROW_REGISTERS},
    {"local_store_efficiency", RD_ARROW_REGISTERS},
    /* Registers per thread set the occupancy; a shuffle moves registers between lanes. */
    {"achieved_occupancy", RD_ARROW_REGISTERS},
    {"shuffle_thread_instructions", RD_ARROW_REGISTERS},
    {"constant_requests", RD_ARROW_CONSTANT},
    {"constant_hits", RD_ARROW_CONSTANT},
    {"constant_hit_rate", RD_ARROW_CONSTANT},
    {"constant_instructions", RD_ARROW_CONSTANT},
    {"constant_requests_per_instruction", RD_ARROW_CONSTANT},
    {"constant_replays", RD_ARROW_CONSTANT},
    {"constant_replays_per_instruction", RD_ARROW_CONSTANT},
    {"l2_hit_rate", RD_ARROW_L2},
    {"l2_read_sectors", RD_ARROW_L2},
    /* A global reduction passes L1 and is done by the L2's atomic units. */
    {"global_red_instructions", RD_ARROW_L2},
    {"l2_red_requests", RD_ARROW_L2},
    {"l2_red_bytes", RD_ARROW_L2},
    {"dram_read_bytes", RD_ARROW_DRAM},
    {"dram_write_bytes", RD_ARROW_DRAM},
    {"um_htod_bytes", RD_ARROW_HOST},
    {"um_dtoh_bytes", RD_ARROW_HOST},
    {"um_htod_migrations", RD_ARROW_HOST},
    {"um_dtoh_migrations", RD_ARROW_HOST},
    {"um_cpu_faults", RD_ARROW_HOST},
    {"um_gpu_fault_groups", RD_ARROW_HOST},
};

static const struct {
    rd_level from, to;
    const char *name;
} arrows[RD_ARROW_COUNT] = {
    [RD_ARROW_GLOBAL] = {RD_LEVEL_KERNEL, RD_LEVEL_L1, "global loads and stores"},
    [RD_ARROW_REGISTERS] = {RD_LEVEL_KERNEL, RD_LEVEL_REGISTERS, "registers and local memory"},
    [RD_ARROW_SHARED] = {RD_LEVEL_KERNEL, RD_LEVEL_SHARED, "shared memory"},
    [RD_ARROW_CONSTANT] = {RD_LEVEL_KERNEL, RD_LEVEL_CONSTANT, "constant loads"},
    [RD_ARROW_L2] = {RD_LEVEL_L1, RD_LEVEL_L2, "to the L2"},
    [RD_ARROW_DRAM] = {RD_LEVEL_L2, RD_LEVEL_DRAM, "DRAM traffic"},
    [RD_ARROW_HOST] = {RD_LEVEL_DRAM, RD_LEVEL_HOST, "across the host link"},
};

static const char *const level_names[RD_LEVEL_COUNT] = {
    "kernel (warps)", "registers / local", "shared memory", "constant cache",
    "L1/TEX",         "L2",                "DRAM",          "host",
};

rd_arrow rd_arrow_of(const char *alias)
{
    for (size_t i = 0; i < sizeof alias_arrows / sizeof alias_arrows[0]; i++)
        if (alias != NULL && strcmp(alias_arrows[i].alias, alias) == 0)
            return alias_arrows[i].arrow;
    return RD_ARROW_NONE;
}

const char *rd_arrow_table_alias(int index, rd_arrow *arrow)
{
    if (index < 0 || (size_t)index >= sizeof alias_arrows / sizeof alias_arrows[0])
        return NULL;
    *arrow = alias_arrows[index].arrow;
    return alias_arrows[index].alias;
}

rd_level rd_arrow_from(rd_arrow arrow) { return arrows[arrow].from; }
rd_level rd_arrow_to(rd_arrow arrow) { return arrows[arrow].to; }
const char *rd_arrow_name(rd_arrow arrow) { return arrows[arrow].name; }
const char *rd_level_name(rd_level level) { return level_names[level]; }

static bool has_number(const cJSON *metric)
{
    return !isnan(rd_metric_number(metric, "measured")) ||
           !isnan(rd_metric_number(metric, "predicted"));
}

bool rd_record_has_chart(const cJSON *record)
{
    const cJSON *metric = NULL;
    cJSON_ArrayForEach(metric, rd_metrics(record))
    {
        if (has_number(metric))
            return true;
    }
    return false;
}

/* ---- drawing --------------------------------------------------------------------------------- */

#define MAX_ON_ARROW 32
#define LINE 15             /* one line of text */
#define METRIC_HEIGHT 50    /* a metric's three lines and a gap */
#define NAME_HEIGHT 20      /* the arrow's name above its metrics */
#define BOX_HEIGHT 44
#define KERNEL_X 10
#define KERNEL_WIDTH 124
#define SM_X 514            /* registers, shared, constant, L1 */
#define BOX_WIDTH 140
#define L2_X 1036           /* L2, DRAM, host */
#define LABEL_WIDTH 360     /* a block of metrics beside its arrow */
#define CHART_WIDTH 1190

typedef struct {
    const cJSON *metric[MAX_ON_ARROW];
    int count;
} arrow_metrics;

/* What a label block's height is for count metrics. */
static int labels_height(int count)
{
    return count == 0 ? 0 : NAME_HEIGHT + count * METRIC_HEIGHT;
}

/* The worst verdict among the arrow's metrics (outside worst), RD_NO_PAIR when none has a pair:
 * the arrow's colour. */
static rd_verdict worst_verdict(const arrow_metrics *on_arrow)
{
    rd_verdict worst = RD_NO_PAIR;
    for (int i = 0; i < on_arrow->count; i++) {
        double predicted, measured;
        rd_verdict verdict = rd_census_verdict(on_arrow->metric[i], &predicted, &measured);
        if (verdict > worst)
            worst = verdict;
    }
    return worst;
}

/* A number of a metric as a tspan the browser test reads back. */
static void write_number(const cJSON *metric, const char *kind, FILE *stream)
{
    char text[64];
    rt_metric_text(text, sizeof text, rd_metric_number(metric, kind));
    fprintf(stream, "<tspan class=\"number\" data-alias=\"");
    rd_html_escape(rd_metric_text(metric, "alias"), stream);
    fprintf(stream, "\" data-kind=\"%s\">%s</tspan>", kind, text);
}

static void write_unit(const char *unit, FILE *stream)
{
    if (unit == NULL)
        return;
    fputc(' ', stream);
    rd_html_escape(unit, stream);
}

/* One metric: its alias and verdict, then measured, then predicted (a range as low-high), from
 * (x, y), the top of its first line. */
static void write_metric(const cJSON *metric, int x, int y, FILE *stream)
{
    double predicted, measured;
    rd_verdict verdict = rd_census_verdict(metric, &predicted, &measured);
    const char *verdict_text = rd_verdict_name(verdict);
    if (verdict == RD_NO_PAIR)
        verdict_text = isnan(rd_metric_number(metric, "measured")) ? "predicted only"
                                                                    : "measured only";
    const char *unit = rd_metric_text(metric, "unit");
    fprintf(stream, "<text x=\"%d\" y=\"%d\" class=\"alias\">", x, y + 11);
    rd_html_escape(rd_metric_text(metric, "alias"), stream);
    fprintf(stream, "</text>\n");
    /* The verdict in words, on its colour: the colour is never the only sign. Beside the
     * measurement, where a long alias does not reach. */
    fprintf(stream,
            "<rect x=\"%d\" y=\"%d\" width=\"96\" height=\"15\" rx=\"7\" fill=\"%s\"/>"
            "<text x=\"%d\" y=\"%d\" class=\"verdict\" text-anchor=\"middle\" "
            "fill=\"#ffffff\">%s</text>\n",
            x + LABEL_WIDTH - 98, y + LINE, rd_verdict_colour(verdict), x + LABEL_WIDTH - 50,
            y + 11 + LINE, verdict_text);
    fprintf(stream, "<text x=\"%d\" y=\"%d\" class=\"value\">measured ", x + 10, y + 11 + LINE);
    write_number(metric, "measured", stream);
    if (!isnan(rd_metric_number(metric, "measured")))
        write_unit(unit, stream);
    fprintf(stream, "</text>\n<text x=\"%d\" y=\"%d\" class=\"value\">predicted ", x + 10,
            y + 11 + 2 * LINE);
    const char *reason = rd_metric_text(metric, "range_reason");
    if (reason != NULL && !isnan(rd_metric_number(metric, "predicted_low"))) {
        write_number(metric, "predicted_low", stream);
        fprintf(stream, " to ");
    }
    write_number(metric, "predicted", stream);
    if (!isnan(rd_metric_number(metric, "predicted")))
        write_unit(unit, stream);
    fprintf(stream, "</text>\n");
}

/* An arrow's name and its metrics, from (x, y) down. */
static void write_labels(rd_arrow arrow, const arrow_metrics *on_arrow, int x, int y,
                         FILE *stream)
{
    if (on_arrow->count == 0)
        return;
    fprintf(stream, "<text x=\"%d\" y=\"%d\" class=\"arrow-name\">%s</text>\n", x, y + 13,
            arrows[arrow].name);
    for (int i = 0; i < on_arrow->count; i++)
        write_metric(on_arrow->metric[i], x, y + NAME_HEIGHT + i * METRIC_HEIGHT, stream);
}

/* An arrow from (x1, y1) to (x2, y2), horizontal or vertical, its head at the second end. */
static void write_arrow(int x1, int y1, int x2, int y2, const arrow_metrics *on_arrow,
                        FILE *stream)
{
    bool empty = on_arrow->count == 0;
    const char *colour = empty ? "#b0b0b0" : rd_verdict_colour(worst_verdict(on_arrow));
    int width = empty ? 2 : 4;
    int dx = (x2 > x1) - (x2 < x1), dy = (y2 > y1) - (y2 < y1);
    fprintf(stream,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"%d\"/>"
            "<polygon points=\"%d,%d %d,%d %d,%d\" fill=\"%s\"/>\n",
            x1, y1, x2 - 10 * dx, y2 - 10 * dy, colour, width, x2, y2,
            x2 - 12 * dx - 7 * dy, y2 - 12 * dy - 7 * dx, x2 - 12 * dx + 7 * dy,
            y2 - 12 * dy + 7 * dx, colour);
}

static void write_box(rd_level level, int x, int y, int height, FILE *stream)
{
    fprintf(stream,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"6\" class=\"level\" "
            "fill=\"#eef2f7\" stroke=\"#34495e\" stroke-width=\"1.5\"/>"
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"level-name\">%s</text>\n",
            x, y, level == RD_LEVEL_KERNEL ? KERNEL_WIDTH : BOX_WIDTH, height,
            x + (level == RD_LEVEL_KERNEL ? KERNEL_WIDTH : BOX_WIDTH) / 2, y + height / 2 + 5,
            level_names[level]);
}

void rd_write_memory_chart(const cJSON *record, FILE *stream)
{
    arrow_metrics on_arrow[RD_ARROW_COUNT] = {0};
    arrow_metrics elsewhere = {0};    /* aliases the table lacks: listed under the chart */
    const cJSON *metric = NULL;
    cJSON_ArrayForEach(metric, rd_metrics(record))
    {
        if (!has_number(metric))
            continue;
        rd_arrow arrow = rd_arrow_of(rd_metric_text(metric, "alias"));
        arrow_metrics *list = arrow == RD_ARROW_NONE ? &elsewhere : &on_arrow[arrow];
        if (list->count < MAX_ON_ARROW)
            list->metric[list->count++] = metric;
    }

    /* The levels drawn: the ends of every arrow with metrics, and the path to the farthest. */
    bool used[RD_LEVEL_COUNT] = {[RD_LEVEL_KERNEL] = true};
    for (int a = 0; a < RD_ARROW_COUNT; a++)
        if (on_arrow[a].count > 0)
            used[arrows[a].from] = used[arrows[a].to] = true;
    for (int level = RD_LEVEL_HOST; level > RD_LEVEL_L1; level--)
        if (used[level])
            used[level - 1] = true;

    /* The rows of the SM's side, each as tall as the metrics on its arrow (L1's: on the arrow
     * into it or out of it to the L2). */
    const rd_level sm_rows[] = {RD_LEVEL_REGISTERS, RD_LEVEL_SHARED, RD_LEVEL_CONSTANT,
                                RD_LEVEL_L1};
    const rd_arrow sm_arrows[] = {RD_ARROW_REGISTERS, RD_ARROW_SHARED, RD_ARROW_CONSTANT,
                                  RD_ARROW_GLOBAL};
    int row_center[4], top = 10, first_box = -1, last_box = -1;
    for (int r = 0; r < 4; r++) {
        row_center[r] = -1;
        if (!used[sm_rows[r]])
            continue;
        int labels = labels_height(on_arrow[sm_arrows[r]].count);
        if (sm_rows[r] == RD_LEVEL_L1 && labels_height(on_arrow[RD_ARROW_L2].count) > labels)
            labels = labels_height(on_arrow[RD_ARROW_L2].count);
        row_center[r] = top + labels + 8 + BOX_HEIGHT / 2;
        if (first_box < 0)
            first_box = row_center[r] - BOX_HEIGHT / 2;
        last_box = row_center[r] + BOX_HEIGHT / 2;
        top = last_box + 16;
    }
    if (first_box < 0) { /* no level but the kernel: its counters are all listed below */
        first_box = 10;
        last_box = 10 + BOX_HEIGHT;
        top = last_box + 16;
    }
    /* DRAM and the host hang below the L2, each arrow's metrics beside it. */
    int l2_center = row_center[3];
    int dram_top = -1, host_top = -1, bottom = top;
    if (used[RD_LEVEL_DRAM]) {
        int gap = labels_height(on_arrow[RD_ARROW_DRAM].count);
        dram_top = l2_center + BOX_HEIGHT / 2 + (gap > 40 ? gap : 40);
        bottom = dram_top + BOX_HEIGHT + 16;
    }
    if (used[RD_LEVEL_HOST]) {
        int gap = labels_height(on_arrow[RD_ARROW_HOST].count);
        host_top = dram_top + BOX_HEIGHT + (gap > 40 ? gap : 40);
        bottom = host_top + BOX_HEIGHT + 16;
    }
    if (bottom < top)
        bottom = top;
    int elsewhere_top = bottom;
    if (elsewhere.count > 0)
        bottom += labels_height(elsewhere.count) + 10;

    fprintf(stream,
            "<svg class=\"memory-chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
            "width=\"%d\" height=\"%d\" role=\"img\">\n",
            CHART_WIDTH, bottom, CHART_WIDTH, bottom);
    write_box(RD_LEVEL_KERNEL, KERNEL_X, first_box, last_box - first_box, stream);
    for (int r = 0; r < 4; r++) {
        if (row_center[r] < 0)
            continue;
        const arrow_metrics *into = &on_arrow[sm_arrows[r]];
        write_box(sm_rows[r], SM_X, row_center[r] - BOX_HEIGHT / 2, BOX_HEIGHT, stream);
        write_arrow(KERNEL_X + KERNEL_WIDTH, row_center[r], SM_X, row_center[r], into, stream);
        write_labels(sm_arrows[r], into, KERNEL_X + KERNEL_WIDTH + 12,
                     row_center[r] - 8 - labels_height(into->count), stream);
    }
    if (used[RD_LEVEL_L2]) {
        const arrow_metrics *into = &on_arrow[RD_ARROW_L2];
        write_box(RD_LEVEL_L2, L2_X, l2_center - BOX_HEIGHT / 2, BOX_HEIGHT, stream);
        write_arrow(SM_X + BOX_WIDTH, l2_center, L2_X, l2_center, into, stream);
        write_labels(RD_ARROW_L2, into, SM_X + BOX_WIDTH + 12,
                     l2_center - 8 - labels_height(into->count), stream);
    }
    int above = l2_center + BOX_HEIGHT / 2; /* the bottom of the box above */
    const struct {
        rd_level level;
        rd_arrow arrow;
        int top;
    } hanging[2] = {{RD_LEVEL_DRAM, RD_ARROW_DRAM, dram_top}, {RD_LEVEL_HOST, RD_ARROW_HOST, host_top}};
    for (int h = 0; h < 2; h++) {
        if (hanging[h].top < 0)
            continue;
        const arrow_metrics *into = &on_arrow[hanging[h].arrow];
        int middle = L2_X + BOX_WIDTH / 2;
        write_box(hanging[h].level, L2_X, hanging[h].top, BOX_HEIGHT, stream);
        write_arrow(middle, above, middle, hanging[h].top, into, stream);
        write_labels(hanging[h].arrow, into, L2_X - 12 - LABEL_WIDTH, above + 4, stream);
        above = hanging[h].top + BOX_HEIGHT;
    }
    if (elsewhere.count > 0) {
        fprintf(stream, "<text x=\"%d\" y=\"%d\" class=\"arrow-name\">counters with no arrow "
                        "(memory_chart.c's table lacks them)</text>\n",
                KERNEL_X, elsewhere_top + 13);
        for (int i = 0; i < elsewhere.count; i++)
            write_metric(elsewhere.metric[i], KERNEL_X,
                         elsewhere_top + NAME_HEIGHT + i * METRIC_HEIGHT, stream);
    }
    fprintf(stream, "</svg>\n");
}
