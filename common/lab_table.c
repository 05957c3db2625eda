/* lab_table.c: what a lab's table and its predictions may call (memlab.h), and the check of the
 * table that every run makes first (lab_table.h). */
#include "lab_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_facts.h"
#include "profiler.h"
#include "report_data.h"

void ml_predict_range(ml_prediction *prediction, const char *alias, double low, double high,
                      const char *reason)
{
    const prof_metric *known = prof_metric_find(alias);
    if (known == NULL || strcmp(known->alias, alias) != 0) {
        fprintf(stderr, "memlab: a prediction names metric '%s', which is no alias of the metric "
                        "table (./memlab list --metrics): a bug in the lab's predict\n", alias);
        exit(ML_EXIT_LAB_ERROR);
    }
    if (prediction->count == ML_MAX_METRICS) {
        fprintf(stderr, "memlab: more than %d predictions for one variant\n", ML_MAX_METRICS);
        exit(ML_EXIT_LAB_ERROR);
    }
    int i = prediction->count++;
    prediction->alias[i] = alias;
    prediction->value[i] = high;
    prediction->low[i] = low;
    prediction->high[i] = high;
    prediction->reason[i] = reason;
    prediction->against[i] = 0;
}

void ml_predict_residue(ml_prediction *prediction, const char *alias, double high, double against,
                        const char *reason)
{
    ml_predict_range(prediction, alias, 0, high, reason);
    prediction->against[prediction->count - 1] = against;
}

void ml_predict(ml_prediction *prediction, const char *alias, double value)
{
    ml_predict_range(prediction, alias, value, value, NULL);
}

void ml_predict_dram_writes(ml_prediction *prediction, double output_bytes)
{
    double low = output_bytes - ml_model_gpu()->l2_bytes / 2;
    ml_predict_range(prediction, "dram_write_bytes", low > 0 ? low : 0, output_bytes,
                     "the L2 writes a line back to DRAM when it evicts it, so up to half the "
                     "L2's size of the output may still be in the L2 when the kernel ends");
}

unsigned ml_threads_per_block(const ml_variant *variant)
{
    return variant->block.x * (variant->block.y > 0 ? variant->block.y : 1);
}

/* Whether the comma-separated list names `name`. */
static int list_names(const char *list, const char *name)
{
    size_t length = strlen(name);
    for (const char *item = list; *item != '\0';) {
        size_t item_length = strcspn(item, ",");
        if (item_length == length && strncmp(item, name, length) == 0)
            return 1;
        item += item_length;
        item += (*item == ',');
    }
    return 0;
}

static int param_index(const ml_lab *lab, const char *param_name)
{
    for (int i = 0; i < lab->num_params; i++)
        if (strcmp(lab->params[i].name, param_name) == 0)
            return i;
    return -1;
}

int ml_variant_uses(const ml_lab *lab, const ml_variant *variant, const char *param_name)
{
    int i = param_index(lab, param_name);
    if (i < 0)
        return 0;
    const char *used_by = lab->params[i].used_by;
    return used_by == NULL || list_names(used_by, variant->name) ||
           list_names(used_by, variant->family->name);
}

long long ml_size(const ml_problem *problem, const char *name)
{
    const ml_lab *lab = problem->lab;
    int i = param_index(lab, name);
    if (i < 0) {
        fprintf(stderr, "%s: the lab reads size '%s', which its param table does not declare\n",
                lab->program, name);
        exit(ML_EXIT_LAB_ERROR);
    }
    if (problem->variant != NULL && !ml_variant_uses(lab, problem->variant, name)) {
        fprintf(stderr, "%s: variant %s reads size '%s', whose used_by names neither it nor its "
                        "family %s\n", lab->program, problem->variant->name, name,
                problem->variant->family->name);
        exit(ML_EXIT_LAB_ERROR);
    }
    return problem->param[i];
}

/* The table's own mistakes, caught before anything runs: a parameter named like a column of the
 * report, too many variants, a variant without a family or a launch, a kernel without a block,
 * a used_by naming no variant or family. */
int ml_check_lab_table(const ml_lab *lab)
{
    if (lab->num_variants > ML_MAX_VARIANTS || lab->num_params > ML_MAX_PARAMS) {
        fprintf(stderr, "%s: %d variants and %d sizes; a lab has at most %d and %d\n",
                lab->program, lab->num_variants, lab->num_params, ML_MAX_VARIANTS, ML_MAX_PARAMS);
        return ML_EXIT_LAB_ERROR;
    }
    for (int v = 0; v < lab->num_variants; v++) {
        const ml_variant *variant = &lab->variants[v];
        const ml_family *family = variant->family;
        if (family == NULL || family->launch == NULL || family->setup == NULL ||
            family->device_bytes == NULL || family->fill_inputs == NULL ||
            family->reference_at == NULL || (variant->kernel != NULL && variant->block.x == 0)) {
            fprintf(stderr, "%s: variant %s: every variant needs a family with device_bytes, "
                            "setup, fill_inputs, reference_at and launch (every timed launch gets "
                            "new inputs, checked at positions drawn at run time), and a kernel "
                            "a block\n", lab->program, variant->name);
            return ML_EXIT_LAB_ERROR;
        }
    }
    for (int i = 0; i < lab->num_params; i++) {
        const ml_param *param = &lab->params[i];
        if (rd_is_record_column(param->name)) {
            fprintf(stderr, "%s: parameter '%s' has the name of a column of every record: name it "
                            "otherwise\n", lab->program, param->name);
            return ML_EXIT_LAB_ERROR;
        }
        for (const char *name = param->used_by; name != NULL && *name != '\0';) {
            size_t length = strcspn(name, ",");
            int found = 0;
            for (int v = 0; v < lab->num_variants; v++) {
                const ml_variant *variant = &lab->variants[v];
                found |= (strlen(variant->name) == length &&
                          strncmp(variant->name, name, length) == 0) ||
                         (strlen(variant->family->name) == length &&
                          strncmp(variant->family->name, name, length) == 0);
            }
            if (!found) {
                fprintf(stderr, "%s: size %s is used by '%.*s', which is no variant or family of "
                                "the lab\n", lab->program, param->name, (int)length, name);
                return ML_EXIT_LAB_ERROR;
            }
            name += length;
            name += (*name == ',');
        }
    }
    return ML_EXIT_OK;
}
