/* html_text.h: what the page (html.c) and the pictures on it (memory_chart.c, svg_plot.c) share:
 * text escaped for HTML and SVG, and the colour of each of the census's verdicts.
 */
#ifndef MEMLAB_HTML_TEXT_H
#define MEMLAB_HTML_TEXT_H

#include <stdio.h>

/* Text as HTML or SVG text and attribute values take it: & < > " ' escaped. */
void rd_html_escape(const char *text, FILE *stream);

/* A verdict's colour (census.h's rd_verdict; RD_NO_PAIR is grey). */
const char *rd_verdict_colour(int verdict);

#endif
