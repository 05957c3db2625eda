/* memory_chart.h: a record's memory chart, drawn as inline SVG from its JSON alone. Boxes are the
 * levels of the memory hierarchy the record's counters touch; each arrow between two levels
 * carries the metrics that count traffic along it, measured beside predicted, coloured and
 * labelled by the census's verdict (census.h). One table (memory_chart.c) says which arrow each
 * metric alias belongs on, so a lab does nothing to get its charts.
 */
#ifndef MEMLAB_MEMORY_CHART_H
#define MEMLAB_MEMORY_CHART_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

typedef enum {
    RD_LEVEL_KERNEL,        /* the kernel's warps */
    RD_LEVEL_REGISTERS,     /* registers, and the local memory they spill to */
    RD_LEVEL_SHARED,
    RD_LEVEL_CONSTANT,      /* the constant cache */
    RD_LEVEL_L1,            /* L1/TEX */
    RD_LEVEL_L2,
    RD_LEVEL_DRAM,
    RD_LEVEL_HOST,          /* across the host link (unified memory) */
    RD_LEVEL_COUNT
} rd_level;

typedef enum {
    RD_ARROW_NONE = -1,
    RD_ARROW_GLOBAL,        /* kernel -> L1/TEX: global loads and stores */
    RD_ARROW_REGISTERS,     /* kernel -> registers/local: spills, occupancy, shuffles */
    RD_ARROW_SHARED,        /* kernel -> shared memory */
    RD_ARROW_CONSTANT,      /* kernel -> constant cache */
    RD_ARROW_L2,            /* L1/TEX -> L2: misses, and reductions done in the L2 */
    RD_ARROW_DRAM,          /* L2 -> DRAM */
    RD_ARROW_HOST,          /* DRAM <-> host: unified memory's migrations */
    RD_ARROW_COUNT
} rd_arrow;

/* The arrow a metric alias belongs on, or RD_ARROW_NONE for an alias the table lacks. */
rd_arrow rd_arrow_of(const char *alias);
/* The table itself, for tests: entry index's alias and arrow (NULL past the end). */
const char *rd_arrow_table_alias(int index, rd_arrow *arrow);
/* An arrow's ends and its name ("global loads and stores"); a level's name ("L1/TEX"). */
rd_level rd_arrow_from(rd_arrow arrow);
rd_level rd_arrow_to(rd_arrow arrow);
const char *rd_arrow_name(rd_arrow arrow);
const char *rd_level_name(rd_level level);

/* Whether a record has a chart: a metric with a number measured or predicted. */
bool rd_record_has_chart(const cJSON *record);

/* The record's chart as an <svg> element. Every number is a <tspan class="number"> with
 * data-alias and data-kind ("measured", "predicted", "predicted_low") attributes, its text as
 * rt_metric_text writes the value, so that a test can read them back from the page. */
void rd_write_memory_chart(const cJSON *record, FILE *stream);

#endif
