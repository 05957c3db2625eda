/* svg_plot.h: a lab's plots drawn as inline SVG by memlab itself, so report.html needs no
 * gnuplot. Each plot is read from the same plot file that gnuplot draws
 * (labs/NN_PROGRAM/plots/NAME.gp): its title (the first comment line), its "# data" lines (the
 * same columns, through the same query as memlab_report series and bars), its axis labels, log
 * scales, y_scale and "set yrange [0:*]", and its line(...), line_taking_turns(...) and bar(...)
 * pieces (column, title, measured or predicted, colour, second y axis). What else the file says
 * to gnuplot (margins, key, layers) stays gnuplot's: the SVG shows the same series on the same
 * axes, not the same pixels.
 */
#ifndef MEMLAB_SVG_PLOT_H
#define MEMLAB_SVG_PLOT_H

#include <stdio.h>

#include <cjson/cJSON.h>

/* Draws each plot of PLOTS_DIRECTORY/\*.gp, in name order, from the reports of the lab: a
 * <figure class="plot"> each, or a line saying why a plot has nothing to show. Returns how
 * many were drawn. */
int write_lab_plots(const char *plots_directory, const char *program,
                    const cJSON *const *reports, int report_count, FILE *stream);

#endif
