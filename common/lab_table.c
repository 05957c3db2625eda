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
}

void ml_predict(ml_prediction *prediction, const char *alias, double value)
{
    ml_predict_range(prediction, alias, value, value, NULL);
}

void ml_predict_dram_writes(ml_prediction *prediction, double output_bytes)
{
    double low = output_bytes - ml_model_gpu()->l2_bytes;
    ml_predict_range(prediction, "dram_write_bytes", low > 0 ? low : 0, output_bytes,
                     "the L2 writes a line back to DRAM when it evicts it, so up to the L2's size "
                     "of the output may still be in the L2 when the kernel ends");
}

unsigned ml_threads_per_block(const ml_variant *variant)
{
    return variant->block.x * (variant->block.y > 0 ? variant->block.y : 1);
}

int ml_variant_uses(const ml_variant *variant, const char *param_name)
{
    if (variant->uses == NULL)
        return 1;
    size_t length = strlen(param_name);
    for (const char *name = variant->uses; *name != '\0';) {
        size_t name_length = strcspn(name, ",");
        if (name_length == length && strncmp(name, param_name, length) == 0)
            return 1;
        name += name_length;
        name += (*name == ',');
    }
    return 0;
}

/* The table's own mistakes, caught before anything runs: a parameter named like a column of the
 * report, too many variants, a kernel without a block, a `uses` naming no parameter. */
int ml_check_lab_table(const ml_lab *lab)
{
    for (int i = 0; i < lab->num_params; i++) {
        if (rd_is_record_column(lab->params[i].name)) {
            fprintf(stderr, "%s: parameter '%s' has the name of a column of every record: name it "
                            "otherwise\n", lab->program, lab->params[i].name);
            return ML_EXIT_LAB_ERROR;
        }
    }
    if (lab->setup != NULL && (lab->fill_inputs == NULL || lab->reference_at == NULL)) {
        fprintf(stderr, "%s: a lab that runs kernels needs fill_inputs and reference_at: every "
                        "timed launch gets new inputs, checked at positions drawn at run time\n",
                lab->program);
        return ML_EXIT_LAB_ERROR;
    }
    if (lab->num_variants > ML_MAX_VARIANTS) {
        fprintf(stderr, "%s: %d variants; a lab has at most %d\n", lab->program, lab->num_variants,
                ML_MAX_VARIANTS);
        return ML_EXIT_LAB_ERROR;
    }
    for (int v = 0; v < lab->num_variants; v++) {
        const ml_variant *variant = &lab->variants[v];
        if (variant->launch == NULL || (variant->kernel != NULL && variant->block.x == 0)) {
            fprintf(stderr, "%s: variant %s: a kernel needs a block and every variant a launch\n",
                    lab->program, variant->name);
            return ML_EXIT_LAB_ERROR;
        }
        for (const char *name = variant->uses; name != NULL && *name != '\0';) {
            size_t name_length = strcspn(name, ",");
            int found = 0;
            for (int i = 0; i < lab->num_params; i++)
                found |= strlen(lab->params[i].name) == name_length &&
                         strncmp(lab->params[i].name, name, name_length) == 0;
            if (!found) {
                fprintf(stderr, "%s: variant %s uses '%.*s', which is no parameter of the lab\n",
                        lab->program, variant->name, (int)name_length, name);
                return ML_EXIT_LAB_ERROR;
            }
            name += name_length;
            name += (*name == ',');
        }
    }
    return ML_EXIT_OK;
}
