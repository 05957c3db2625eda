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
set key outside right top vertical Left reverse samplen 2
set tics nomirror
set border 3

# One colour per quantity; predicted and measured values of a quantity share it.
BLUE = "#1f77b4"; ORANGE = "#ff7f0e"; GREEN = "#2ca02c"; RED = "#d62728"; PURPLE = "#9467bd"
predicted(colour) = sprintf("with linespoints dashtype 2 pointtype 6 pointsize 1 linewidth 1.5 linecolor rgb '%s'", colour)
measured(colour) = sprintf("with linespoints dashtype 1 pointtype 7 pointsize 0.8 linewidth 2 linecolor rgb '%s'", colour)
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
# run.
bar_label = "xtic(1)"
bar(set, column, title, style) = has(value(set . "_columns"), column) ? \
    sprintf("'%s' using (column('%s') / y_scale):%s title '%s' %s, ", value(set), column, bar_label, title, style) : ""

# plot_all(pieces): the plot command for the pieces (each ends in ", ").
plot_all(pieces) = "plot " . pieces[1:strlen(pieces) - 2]

# Bar charts: bars of one row side by side, rows along the x axis.
bar_chart = "set style data histograms; set style histogram clustered gap 1; set boxwidth 0.9; set xtics rotate by -25 left; set yrange [0:*]"
