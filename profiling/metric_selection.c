/* metric_selection.c: what --metrics asks for (metric_selection.h), checked against the alias
 * table and then against the device's chip. */
#include "metric_selection.h"

#include <stdio.h>
#include <string.h>

static int add_metric(prof_selection *selection, const char *name, char *error, size_t error_size)
{
    const prof_metric *known = prof_metric_find(name);
    for (int i = 0; i < selection->count; i++)
        if (strcmp(selection->metric[i].name, known ? known->alias : name) == 0)
            return 0;
    if (selection->count == PROF_MAX_SELECTED) {
        snprintf(error, error_size, "--metrics: more than %d metrics", PROF_MAX_SELECTED);
        return -1;
    }
    prof_selected_metric *selected = &selection->metric[selection->count];
    if (known != NULL) {
        selected->metric = *known;
        snprintf(selected->name, sizeof selected->name, "%s", known->alias);
    } else if (strstr(name, "__") != NULL && strlen(name) < sizeof selected->name) {
        /* Not in the alias table but shaped like a Perfworks name: checked against the chip
         * once the device is known. */
        snprintf(selected->name, sizeof selected->name, "%s", name);
        memset(&selected->metric, 0, sizeof selected->metric);
        selected->metric.alias = selected->name;
        selected->metric.perfworks = selected->name;
        selected->metric.unit = "";
    } else {
        snprintf(error, error_size, "unknown metric '%s' (./memlab list --metrics shows them)",
                 name);
        return -1;
    }
    selected->supported = 1;
    selection->count++;
    return 0;
}

static int add_metric_list(prof_selection *selection, const char *list, char *error,
                           size_t error_size)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", list);
    /* strtok would skip empty names ("a,,b", "a,"): walk the commas so they are refused. */
    char *name = copy;
    for (;;) {
        char *comma = strchr(name, ',');
        if (comma != NULL)
            *comma = '\0';
        if (name[0] == '\0') {
            snprintf(error, error_size, "--metrics: a metric name is empty (names are separated by single commas)");
            return -1;
        }
        int status = add_metric(selection, name, error, error_size);
        if (status != 0 || comma == NULL)
            return status;
        name = comma + 1;
    }
}

static int is_metric_group(const char *name)
{
    if (strcmp(name, "all") == 0)
        return 1;
    for (size_t i = 0; i < prof_metric_count(); i++)
        if (strcmp(prof_metric_at(i)->group, name) == 0)
            return 1;
    return 0;
}

/* What --metrics means for one variant. */
int prof_select_metrics(const char *request, const char *variant_metrics,
                        prof_selection *selection, char *error, size_t error_size)
{
    memset(selection, 0, sizeof *selection);
    if (strcmp(request, "none") == 0)
        return 0;
    if (strcmp(request, "default") == 0)
        return variant_metrics == NULL || variant_metrics[0] == '\0'
                   ? 0    /* a variant without counters of its own (a library call) */
                   : add_metric_list(selection, variant_metrics, error, error_size);
    if (is_metric_group(request)) {
        for (size_t i = 0; i < prof_metric_count(); i++) {
            const prof_metric *metric = prof_metric_at(i);
            if (strcmp(request, "all") == 0 || strcmp(metric->group, request) == 0) {
                int status = add_metric(selection, metric->alias, error, error_size);
                if (status != 0)
                    return status;
            }
        }
        return 0;
    }
    return add_metric_list(selection, request, error, error_size);
}

/* Checks every Perfworks name of the selection against the chip. Names typed by the user must be
 * right (exit 2); a table metric the chip lacks is dropped with a warning. */
int prof_check_selection(const char *chip, prof_selection *selection, char *error,
                         size_t error_size)
{
    for (int i = 0; i < selection->count; i++) {
        prof_selected_metric *selected = &selection->metric[i];
        const char *inputs[2];
        size_t input_count = prof_metric_inputs(&selected->metric, inputs);
        if (input_count == 0)
            continue; /* a unified-memory counter: no Perfworks name to check */
        size_t bad_index = 0;
        prof_status status = prof_validate_metrics(chip, inputs, input_count, &bad_index, NULL);
        if (status == PROF_OK)
            continue;
        if (status == PROF_ERR_UNKNOWN_METRIC && prof_metric_find(selected->name) == NULL) {
            snprintf(error, error_size, "metric '%s' is not known on this device's chip (%s)",
                     selected->name, chip);
            return -1;
        }
        fprintf(stderr, "memlab: warning: metric %s is not available on %s: %s\n", selected->name,
                chip, prof_last_error());
        selected->supported = 0;
    }
    return 0;
}

int prof_selection_has(const prof_selection *selection, int unified)
{
    for (int i = 0; i < selection->count; i++)
        if ((selection->metric[i].metric.unified != PROF_UM_NONE) == unified)
            return 1;
    return 0;
}
