/* html_text.c: text as HTML takes it, and the verdicts' colours (html_text.h). */
#include "html_text.h"

#include "census.h"

void rd_html_escape(const char *text, FILE *stream)
{
    for (const char *c = text; c != NULL && *c != '\0'; c++) {
        switch (*c) {
        case '&':
            fputs("&amp;", stream);
            break;
        case '<':
            fputs("&lt;", stream);
            break;
        case '>':
            fputs("&gt;", stream);
            break;
        case '"':
            fputs("&quot;", stream);
            break;
        case '\'':
            fputs("&#39;", stream);
            break;
        default:
            fputc(*c, stream);
        }
    }
}

const char *rd_verdict_colour(int verdict)
{
    switch (verdict) {
    case RD_WITHIN:
        return "#2e7d32";   /* green */
    case RD_NARROW:
        return "#1565c0";   /* blue */
    case RD_WIDE:
        return "#a05a00";   /* amber, dark enough for white text */
    case RD_OUTSIDE:
        return "#c62828";   /* red */
    default:
        return "#616161";   /* grey: nothing to compare */
    }
}
