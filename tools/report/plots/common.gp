# common.gp: what every memlab plot shares. ./memlab plot loads it before each plot file, after
# setting, with gnuplot -e:
#   format   "svg" or "png"
#   output   the image file to write
#   gpu      the GPU's name, or a note that the run holds predictions only
#   NAME, NAME_columns
#            for each "# data NAME: ..." line of the plot file: the data file that
#            `memlab_report` wrote for that line, and the names of its columns that hold at least
#            one value in this run (a --model run measures nothing, a run without counter
#            permission has timings but no measured counters)
# A plot file sets its title and axes, then draws with line(...) or bar(...) pieces joined by
# "." and handed to plot_all, so a column with no value adds nothing to the plot or its key.

if (format eq "svg") {
    set terminal svg size 980,520 dynamic noenhanced font "Helvetica,13" background rgb "white"
} else {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
        set terminal pngcairo size 980,520 noenhanced font "Helvetica,11" background rgb "white"
    } else {
        set terminal png size 980,520 noenhanced
    }
}
set output output

# Data files start with a line of column names; rows use NaN for a missing value.
set datafile columnheaders
set grid
set key outside right top vertical Left reverse samplen 4 spacing 1.15
set tics nomirror
set border 3

# Axes fit the data: x runs from the first point to the last with 3% of the width to spare on
# each side, y keeps 6% of the height above the data, then widens to the next tic. y starts at 0
# where a plot fixes its minimum there (bandwidths, counts), with no margin below: a plot that
# leaves y's minimum to autoscaling, or wants its zeros off the axis line, sets its own offsets.
set autoscale xfix
set offsets graph 0.03, graph 0.03, graph 0.06, 0

# One colour per quantity; predicted and measured values of a quantity share it.
BLUE = "#1f77b4"; ORANGE = "#ff7f0e"; GREEN = "#2ca02c"; RED = "#d62728"; PURPLE = "#9467bd"

# dark(colour): the colour at 45% of its brightness ("#rrggbb"; a colour name is kept as it is).
# A prediction is drawn in it, so that it shows on top of the measurement in the plain colour.
hex_digit(c) = (strstrt("0123456789abcdef", c) > 0 ? strstrt("0123456789abcdef", c) : strstrt("0123456789ABCDEF", c)) - 1
hex_byte(text, i) = 16 * hex_digit(text[i:i]) + hex_digit(text[i + 1:i + 1])
dark(colour) = colour[1:1] eq "#" && strlen(colour) == 7 ? \
    sprintf("#%02x%02x%02x", int(0.45 * hex_byte(colour, 2)), int(0.45 * hex_byte(colour, 4)), int(0.45 * hex_byte(colour, 6))) : colour

# Line styles. A measured series is a solid line with filled points; its prediction is a thin
# dashed line in the darker shade with larger open points. A plot draws every measured series
# first and the predictions after them, so a prediction that equals its measurement shows on top
# of it instead of hiding it (or hiding under it).
#
# Series of different quantities that coincide (three predictions of one straight line, two
# bandwidths within a fraction of a percent) are told apart by their layer n, 0, 1 or 2: the
# series of layer n is drawn with a wider line and larger points of its own shape, so a series
# drawn before those of lower layers stays visible as a band and as an outline around theirs. A
# plot draws the series of layer 2 first, then 1, then 0. The data stay as they are: no series is
# shifted to make room.
#   measured: filled circle, square, diamond; line width 3.5, 5.5, 7.5
#   predicted: open square, triangle, diamond; dashes --, - -, -.; line width 1.5, 2, 2.5
measured_lines(n) = sprintf("dashtype 1 linewidth %g", 3.5 + 2 * n)
measured_points(n) = sprintf("pointtype %d pointsize %g", n == 0 ? 7 : n == 1 ? 5 : 13, 0.8 + 0.35 * n)
predicted_lines(n) = sprintf("dashtype %s linewidth %g", n == 0 ? "(12,6)" : n == 1 ? "(5,6)" : "(14,5,3,5)", 1.5 + 0.5 * n)
predicted_points(n) = sprintf("pointtype %d pointsize %g", n == 0 ? 4 : n == 1 ? 8 : 12, 1.7 + 0.4 * n)
colour_of(kind, colour) = sprintf("linecolor rgb '%s'", kind eq "predicted" ? dark(colour) : colour)
measured_layer(colour, n) = "with linespoints " . measured_lines(n) . " " . measured_points(n) . " " . colour_of("measured", colour)
predicted_layer(colour, n) = "with linespoints " . predicted_lines(n) . " " . predicted_points(n) . " " . colour_of("predicted", colour)
measured(colour) = measured_layer(colour, 0)
predicted(colour) = predicted_layer(colour, 0)

# line_taking_turns(set, column, title, kind, colour, n, turn, turns): line() for series that
# lie on one path all along, where even nested markers make one blob: the series' line
# (kind "measured" or "predicted", of layer n) runs through every point, its markers stand on
# every turns-th point from the turn-th (0 the first point), so that the series take turns
# showing theirs. Every point is still on its line; the key shows line and marker.
line_taking_turns(set, column, title, kind, colour, n, turn, turns) = has(value(set . "_columns"), column) ? \
    sprintf("'%s' using 1:(column('%s') / y_scale) notitle with lines %s %s, ", value(set), column, \
        kind eq "measured" ? measured_lines(n) : predicted_lines(n), colour_of(kind, colour)) . \
    sprintf("'%s' using 1:(column('%s') / y_scale) every %d::%d notitle with points linewidth 1.5 %s %s, ", value(set), column, turns, turn, \
        kind eq "measured" ? measured_points(n) : predicted_points(n), colour_of(kind, colour)) . \
    sprintf("keyentry title '%s' %s, ", title, kind eq "measured" ? measured_layer(colour, n) : predicted_layer(colour, n)) : ""
ceiling(colour) = sprintf("with linespoints dashtype 3 pointtype 5 pointsize 0.6 linewidth 2.5 linecolor rgb '%s'", colour)
predicted_bar(colour) = sprintf("fill pattern 4 border rgb '%s' linecolor rgb '%s'", colour, colour)
measured_bar(colour) = sprintf("fill solid 0.85 border rgb '%s' linecolor rgb '%s'", colour, colour)

# Values are divided by y_scale (say 1e9 to show bytes as GB).
y_scale = 1

# has(columns, name): whether name is one of the space-separated names in columns.
has(columns, name) = strstrt(" " . columns . " ", " " . name . " ") > 0

# line(set, column, title, style): a piece of a plot command drawing column against the first
# column of data set `set`, or "" when the column holds no value in this run.
line(set, column, title, style) = has(value(set . "_columns"), column) ? \
    sprintf("'%s' using 1:(column('%s') / y_scale) title '%s' %s, ", value(set), column, title, style) : ""

# bar(set, column, title, style): one bar per row of a bar chart's data set, labelled by its
# first column (or by the expression bar_label), or "" when the column holds no value in this
# run. Each bar has its value written above it (bar_text), so that a bar too short to see (no
# conflict at all, 0.02 of one) still shows what it holds; a row without a value (NaN) gets
# neither bar nor text. The text's place depends on how many bars a row has, which only
# plot_all knows: bar() leaves @BAR@ (this bar's number in the row) and @BARS@ (how many) to it.
bar_label = "xtic(1)"
bar_gap = 1
bar(set, column, title, style) = has(value(set . "_columns"), column) ? \
    sprintf("'%s' using (column('%s') / y_scale):%s title '%s' %s, ", value(set), column, bar_label, title, style) . \
    sprintf("'%s' using ($0 + (@BAR@ - (@BARS@ - 1) / 2.0) / (@BARS@ + bar_gap)):(column('%s') / y_scale):(bar_text(column('%s') / y_scale)) notitle with labels rotate by 90 left offset 0.45, 0.4 font ',9' textcolor rgb '%s', ", \
        value(set), column, column, dark(bar_colour(style))) : ""
# bar_colour(style): the colour a bar style names (predicted_bar, measured_bar), for its text.
bar_colour(style) = strstrt(style, "linecolor rgb '") ? \
    style[strstrt(style, "linecolor rgb '") + 15:strstrt(style, "linecolor rgb '") + 21] : "#333333"
# bar_text(value): 3 significant digits, whole numbers from 100 up; written in the bar's colour,
# darker.
bar_text(v) = v == 0 ? "0" : abs(v) >= 100 ? sprintf("%.0f", v) : sprintf("%.3g", v)

# count_of(text, token), replace_all(text, token, with), number_each(text, token, first): how
# often token occurs in text; text with every token replaced; text with the tokens replaced by
# first, first + 1, ...
count_of(text, token) = strstrt(text, token) ? 1 + count_of(text[strstrt(text, token) + strlen(token):], token) : 0
replace_all(text, token, with) = strstrt(text, token) ? \
    text[1:strstrt(text, token) - 1] . with . replace_all(text[strstrt(text, token) + strlen(token):], token, with) : text
number_each(text, token, first) = strstrt(text, token) ? \
    text[1:strstrt(text, token) - 1] . sprintf("%d", first) . number_each(text[strstrt(text, token) + strlen(token):], token, first + 1) : text

# plot_all(pieces): the plot command for the pieces (each ends in ", "), the bars numbered.
plot_all(pieces) = "plot " . number_each(replace_all(pieces[1:strlen(pieces) - 2], "@BARS@", sprintf("%d", count_of(pieces, "@BAR@"))), "@BAR@", 0)

# Bar charts: bars of one row side by side, rows along the x axis, which gnuplot lays out (no
# x margin of line plots); y from 0 with 14% of the height above the tallest bar for its value.
bar_chart = sprintf("set style data histograms; set style histogram clustered gap %d; set boxwidth 0.9; set xtics rotate by -25 left; set autoscale x; set offsets 0, 0, graph 0.14, 0; set yrange [0:*]", bar_gap)
