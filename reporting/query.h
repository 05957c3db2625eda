/* query.h: the options that choose a plot's data (memlab_report series and bars, and the
 * "# data" lines of a plot file, which svg_plot.c reads too), parsed one way.
 */
#ifndef MEMLAB_QUERY_H
#define MEMLAB_QUERY_H

#include "report_data.h"

#include <stddef.h>

/* Parses --lab, --x, --variant(s), --columns, --where and --out from the front of argv (in
 * place: lists are split in argv's own strings) into query and out_path. Returns the index of
 * the first argument that is not an option (argc when none is), or -1 with a one-line reason in
 * error for a bad option. */
int rd_parse_query(int argc, char **argv, rd_query *query, const char **out_path, char *error,
                   size_t error_size);

#endif
