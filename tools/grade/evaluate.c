/* evaluate.c: a rubric case's checks against the lab program's JSON report (see evaluate.h).
 *
 * Every line of a case's output starts with "ok", "FAIL" or "not graded", names the check and
 * the record (variant and sizes), and says what was measured and what was expected, then the
 * rubric's hint when the check failed. A check that cannot be decided on this host (no counters,
 * no reference solution) is "not graded": it never passes.
 */
#define _POSIX_C_SOURCE 200809L /* strsignal */
#include "evaluate.h"
#include "report_data.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_REPORTED_RECORDS 4
#define DASH " \xe2\x80\x94 " /* an em dash between the message and the hint */

/* ---- reading the report: through the one reader of the format, reporting/report_data.h ----- */

static const cJSON *records_of(const lab_run *run)
{
    return run != NULL && run->report != NULL ? rd_records(run->report) : NULL;
}

/* "strided (n=1000003 stride=5 offset=1)" */
static void record_label(const cJSON *record, char *label, size_t size)
{
    size_t used = (size_t)snprintf(label, size, "%s (", rd_variant(record));
    const cJSON *param = NULL;
    int first = 1;
    cJSON_ArrayForEach(param, rd_params(record))
    {
        if (used >= size)
            break;
        used += (size_t)snprintf(label + used, size - used, "%s%s=%.0f", first ? "" : " ",
                                 param->string, rd_value(record, param->string));
        first = 0;
    }
    if (used < size)
        snprintf(label + used, size - used, ")");
}

/* Counts print whole; fractions with four significant digits. */
static void format_value(double value, char *out, size_t size)
{
    if (isnan(value))
        snprintf(out, size, "none");
    else if (value == floor(value) || fabs(value) >= 1e5)
        snprintf(out, size, "%.0f", value);
    else
        snprintf(out, size, "%.4g", value);
}

static const char *profiler_note(const lab_run *run)
{
    return rd_profiler_note(run->report);
}

/* ---- a value of a record ------------------------------------------------------------------- */

typedef struct {
    case_status status;         /* CASE_PASSED: value is there */
    double value;
    const char *unit;
    char why[512];              /* otherwise: why not */
} reading;

/* Values of the record that are no counter: what the kernel costs the SM, and the cycles a
 * self-timing kernel's dependent operation took (measured by the kernel, believed only when the
 * launch's own time holds them). */
static const char *const resource_names[] = {"registers_per_thread", "local_bytes_per_thread",
                                             "shared_bytes_per_block", "cycles_per_op"};

static int is_resource(const char *quantity)
{
    for (size_t i = 0; i < sizeof resource_names / sizeof resource_names[0]; i++)
        if (strcmp(quantity, resource_names[i]) == 0)
            return 1;
    return 0;
}

/* A measured metric or resource of one record. `field` is "measured" or "predicted". */
static reading read_quantity(const lab_run *run, const cJSON *record, const char *quantity,
                             const char *field)
{
    reading result = {CASE_PASSED, NAN, "", ""};
    if (is_resource(quantity)) {
        result.value = rd_value(record, quantity);
        int latency = strcmp(quantity, "cycles_per_op") == 0;
        result.unit = latency ? "cycles" : strstr(quantity, "bytes") != NULL ? "bytes" : "registers";
        if (isnan(result.value) && latency) {
            /* The kernel's clock was missing or not believed: the record failed its check. */
            result.status = CASE_FAILED;
            snprintf(result.why, sizeof result.why,
                     "the report gives no cycles per operation: the kernel's clock was missing or "
                     "longer than its launch");
        } else if (isnan(result.value)) {
            result.status = CASE_NOT_GRADED;
            snprintf(result.why, sizeof result.why,
                     "the report does not give %s (the variant has no kernel of its own)", quantity);
        }
        return result;
    }
    const cJSON *metric = rd_metric(record, quantity);
    if (metric == NULL) {
        result.status = CASE_FAILED;
        snprintf(result.why, sizeof result.why,
                 "the report has no metric %s (the case's --metrics must name it)", quantity);
        return result;
    }
    const char *unit = rd_metric_text(metric, "unit");
    result.unit = unit != NULL ? unit : "";
    result.value = rd_metric_number(metric, field);
    if (!isnan(result.value))
        return result;
    if (strcmp(field, "predicted") == 0) {
        result.status = CASE_NOT_GRADED;
        snprintf(result.why, sizeof result.why,
                 "the access model makes no prediction of %s here (a rubric problem)", quantity);
    } else if (profiler_note(run) != NULL) {
        result.status = CASE_NOT_GRADED;
        snprintf(result.why, sizeof result.why,
                 EVALUATE_COUNTERS_NOT_READ " (%s)", profiler_note(run));
    } else {
        result.status = CASE_FAILED;
        snprintf(result.why, sizeof result.why,
                 "%s could not be computed: its denominator was 0 (did the kernel make no such "
                 "access at all?)", quantity);
    }
    return result;
}

/* ---- one check ------------------------------------------------------------------------------- */

static case_status worse(case_status a, case_status b)
{
    if (a == CASE_FAILED || b == CASE_FAILED)
        return CASE_FAILED;
    if (a == CASE_NOT_GRADED || b == CASE_NOT_GRADED)
        return CASE_NOT_GRADED;
    return CASE_PASSED;
}

static const char *status_word(case_status status)
{
    return status == CASE_PASSED ? "ok    " : status == CASE_FAILED ? "FAIL  " : "not graded  ";
}

static void append_hint(text_buffer *output, const grading_check *check, case_status status)
{
    if (status == CASE_FAILED && check->hint[0] != '\0')
        text_append(output, DASH "%s", check->hint);
    text_append(output, "\n");
}

static int compare(double value, check_op op, double bound)
{
    switch (op) {
    case OP_LT: return value < bound;
    case OP_LE: return value <= bound;
    case OP_GT: return value > bound;
    case OP_GE: return value >= bound;
    case OP_EQ: return value == bound;
    }
    return 0;
}

static case_status check_correct(const grading_check *check, const lab_run *run, text_buffer *output)
{
    const cJSON *record = NULL;
    int wrong = 0, records = 0;
    cJSON_ArrayForEach(record, records_of(run))
    {
        records++;
        if (rd_value(record, "correct") == 1)
            continue;
        if (++wrong > MAX_REPORTED_RECORDS)
            continue;
        char label[256], mismatches[32], error[32];
        record_label(record, label, sizeof label);
        format_value(rd_value(record, "mismatches"), mismatches, sizeof mismatches);
        format_value(rd_value(record, "max_rel_error"), error, sizeof error);
        text_append(output, "FAIL  correct, %s: %s elements differ from the CPU reference "
                            "(largest relative error %s), expected none", label, mismatches, error);
        append_hint(output, check, CASE_FAILED);
    }
    if (records == 0) {
        text_append(output, "FAIL  correct: the report has no record");
        append_hint(output, check, CASE_FAILED);
        return CASE_FAILED;
    }
    if (wrong > MAX_REPORTED_RECORDS)
        text_append(output, "FAIL  correct: %d more records differ\n", wrong - MAX_REPORTED_RECORDS);
    if (wrong == 0)
        text_append(output, "ok    correct: %d of %d records match the CPU reference\n", records,
                    records);
    return wrong == 0 ? CASE_PASSED : CASE_FAILED;
}

/* The record of `other` that stands beside record `index` of the submission, or NULL with the
 * reason in output. */
static const cJSON *matching_record(const lab_run *other, const cJSON *record, int index,
                                    const char *whose, const grading_check *check, text_buffer *output)
{
    if (records_of(other) == NULL) {
        char line[512];
        text_last_line(other->stderr_tail, line, sizeof line);
        text_append(output, "not graded  %s: the %s's run gave no report (%s)\n", check->quantity,
                    whose, line[0] != '\0' ? line : "no message");
        return NULL;
    }
    const cJSON *match = cJSON_GetArrayItem(records_of(other), index);
    if (match == NULL || strcmp(rd_variant(match), rd_variant(record)) != 0) {
        text_append(output, "not graded  %s: the %s's records do not match the submission's "
                            "(the same program gave other records for the same arguments)\n",
                    check->quantity, whose);
        return NULL;
    }
    return match;
}

/* quantity OP bound, quantity ~ predicted, quantity ~ reference: one line per record. */
/* The variant of a record if it is the lab's FLOP/s ceiling (cuBLAS), which runs beside every
 * variant a case names: the lab's yardstick, not the student's work. */
static int is_ceiling_record(const lab_run *run, const cJSON *record)
{
    const char *ceiling = rd_report_text(run->report, "flops_ceiling_variant");
    return ceiling != NULL && strcmp(rd_variant(record), ceiling) == 0;
}

/* 1 if every record of the run is the ceiling's: the case asked for the ceiling itself. */
static int only_ceiling_records(const lab_run *run)
{
    const cJSON *record = NULL;
    cJSON_ArrayForEach(record, records_of(run))
    {
        if (!is_ceiling_record(run, record))
            return 0;
    }
    return 1;
}

static case_status check_quantity(const grading_check *check, const lab_run *submission,
                                  const lab_run *reference, const lab_run *model, text_buffer *output)
{
    case_status status = CASE_PASSED;
    int index = 0, records = 0;
    int judge_ceiling = only_ceiling_records(submission);
    const cJSON *record = NULL;
    cJSON_ArrayForEach(record, records_of(submission))
    {
        /* The ceiling's counters and bounds say nothing of the submission: only its time. */
        if (!judge_ceiling && is_ceiling_record(submission, record) &&
            strcmp(check->quantity, "time_ratio") != 0) {
            index++;
            continue;
        }
        records++;
        char label[256], measured_text[32], expected_text[32];
        record_label(record, label, sizeof label);
        reading measured;
        const char *expectation = "";
        double expected = NAN;

        if (strcmp(check->quantity, "time_ratio") == 0) {
            const cJSON *match = matching_record(reference, record, index, "reference solution",
                                                 check, output);
            if (match == NULL)
                return worse(status, CASE_NOT_GRADED);
            double mine = rd_value(record, "median_ms");
            double theirs = rd_value(match, "median_ms");
            measured = (reading){CASE_PASSED, mine / theirs, "", ""};
            if (isnan(measured.value) || theirs <= 0) {
                text_append(output, "not graded  time_ratio, %s: no median time to compare\n", label);
                status = worse(status, CASE_NOT_GRADED);
                index++;
                continue;
            }
            char mine_text[32], theirs_text[32];
            snprintf(mine_text, sizeof mine_text, "%.4g", mine);
            snprintf(theirs_text, sizeof theirs_text, "%.4g", theirs);
            int ok = compare(measured.value, check->op, check->bound);
            text_append(output, "%stime_ratio, %s: %s ms / the reference solution's %s ms = %.3g, "
                                "expected %s %g", status_word(ok ? CASE_PASSED : CASE_FAILED),
                        label, mine_text, theirs_text, measured.value, rubric_op_text(check->op),
                        check->bound);
            append_hint(output, check, ok ? CASE_PASSED : CASE_FAILED);
            status = worse(status, ok ? CASE_PASSED : CASE_FAILED);
            index++;
            continue;
        }

        measured = read_quantity(submission, record, check->quantity, "measured");
        if (measured.status != CASE_PASSED) {
            text_append(output, "%s%s, %s: %s", status_word(measured.status), check->quantity,
                        label, measured.why);
            append_hint(output, check, measured.status);
            status = worse(status, measured.status);
            index++;
            continue;
        }

        if (check->kind == CHECK_BOUND) {
            expected = check->bound;
            expectation = rubric_op_text(check->op);
        } else {
            /* The model's prediction comes from the reference's --model run where there is one,
             * so a submission cannot move it; the reference's measurement from its real run. */
            const lab_run *source = check->kind == CHECK_PREDICTED
                                        ? (model != NULL && model->ran ? model : submission)
                                        : reference;
            const char *whose = check->kind == CHECK_PREDICTED ? "access model" : "reference solution";
            const cJSON *match = source == submission
                                     ? record
                                     : matching_record(source, record, index, whose, check, output);
            if (match == NULL)
                return worse(status, CASE_NOT_GRADED);
            reading other = read_quantity(source, match, check->quantity,
                                          check->kind == CHECK_PREDICTED ? "predicted" : "measured");
            if (other.status != CASE_PASSED) {
                text_append(output, "not graded  %s, %s: %s\n", check->quantity, label, other.why);
                status = worse(status, CASE_NOT_GRADED);
                index++;
                continue;
            }
            expected = other.value;
        }

        int ok;
        format_value(measured.value, measured_text, sizeof measured_text);
        format_value(expected, expected_text, sizeof expected_text);
        const char *unit_space = measured.unit[0] != '\0' ? " " : "";
        if (check->kind == CHECK_BOUND) {
            ok = compare(measured.value, check->op, check->bound);
            text_append(output, "%s%s, %s: measured %s%s%s, expected %s %g",
                        status_word(ok ? CASE_PASSED : CASE_FAILED), check->quantity, label,
                        measured_text, unit_space, measured.unit, expectation, check->bound);
        } else {
            /* Within tolerance_pct of the expected value (of 1 when it is 0). */
            double scale = expected != 0 ? fabs(expected) : 1.0;
            ok = fabs(measured.value - expected) <= check->tolerance_pct / 100.0 * scale;
            text_append(output, "%s%s, %s: measured %s%s%s, expected %s \xc2\xb1 %g%% (%s)",
                        status_word(ok ? CASE_PASSED : CASE_FAILED), check->quantity, label,
                        measured_text, unit_space, measured.unit, expected_text,
                        check->tolerance_pct,
                        check->kind == CHECK_PREDICTED ? "the access model's prediction"
                                                       : "the reference solution's measurement");
        }
        append_hint(output, check, ok ? CASE_PASSED : CASE_FAILED);
        status = worse(status, ok ? CASE_PASSED : CASE_FAILED);
        index++;
    }
    if (records == 0) {
        text_append(output, "FAIL  %s: the report has no record\n", check->quantity);
        return CASE_FAILED;
    }
    return status;
}

/* ---- how the run ended ----------------------------------------------------------------------- */

/* Whether the run got as far as writing its report; if not, says why. */
static case_status run_outcome(const lab_run *run, const char *whose, text_buffer *output)
{
    char line[1024];
    text_last_line(run->stderr_tail, line, sizeof line);
    if (run->timed_out) {
        text_append(output, "FAIL  the %s ran past the case's time limit (%d s) and was stopped"
                            DASH "an endless loop, or a kernel far slower than it should be?\n",
                    whose, run->time_limit_s);
        return CASE_FAILED;
    }
    if (run->signal != 0) {
        text_append(output, "FAIL  the %s crashed: killed by signal %d (%s)%s%s\n", whose,
                    run->signal, strsignal(run->signal), line[0] != '\0' ? "; last message: " : "",
                    line);
        return CASE_FAILED;
    }
    switch (run->exit_status) {
    case LAB_EXIT_OK:
    case LAB_EXIT_INCORRECT:
        /* The program stops before its report when the kernels lack one it needs ("your
         * kernels.cu defines no kernel 'copy_strided' ..."): that line is the reason. */
        if (run->report == NULL) {
            text_append(output, "FAIL  the %s wrote no JSON report (exit status %d)%s%s\n", whose,
                        run->exit_status, line[0] != '\0' ? ": " : "", line);
            return CASE_FAILED;
        }
        return CASE_PASSED;
    case LAB_EXIT_NO_DEVICE:
        text_append(output, "not graded  no usable CUDA device on the grading host: %s\n", line);
        return CASE_NOT_GRADED;
    case LAB_EXIT_CUDA_ERROR:
        text_append(output, "FAIL  a CUDA error stopped the %s: %s", whose, line);
        if (strstr(line, "illegal") != NULL || strstr(line, "misaligned") != NULL ||
            strstr(line, "out of bounds") != NULL)
            text_append(output, DASH "an access outside an array? (a memcheck case shows where)");
        text_append(output, "\n");
        return CASE_FAILED;
    case LAB_EXIT_USAGE:
        text_append(output, "FAIL  the %s refused the case's arguments: %s\n", whose, line);
        return CASE_FAILED;
    default:
        text_append(output, "FAIL  the %s exited with status %d: %s\n", whose, run->exit_status,
                    line);
        return CASE_FAILED;
    }
}

/* What a sanitizer tool finds, one and many ("race hazard", "race hazards"). */
static const char *finding(const char *tool, int many)
{
    if (strcmp(tool, "racecheck") == 0)
        return many ? "race hazards" : "race hazard";
    if (strcmp(tool, "synccheck") == 0)
        return many ? "synchronization errors" : "synchronization error";
    return many ? "memory errors" : "memory error";
}

/* The count of the tool's summary, if `line` is it: "========= ERROR SUMMARY: 3 errors",
 * "========= RACECHECK SUMMARY: 3 hazards displayed (2 errors, 1 warning)" (the errors count);
 * else -1. */
static int summary_count(const char *tool, const char *line)
{
    const char *summary = strcmp(tool, "racecheck") == 0 ? "========= RACECHECK SUMMARY: "
                                                         : "========= ERROR SUMMARY: ";
    if (strncmp(line, summary, strlen(summary)) != 0)
        return -1;
    const char *count = line + strlen(summary);
    if (strcmp(tool, "racecheck") == 0) {
        count = strchr(count, '(');
        if (count == NULL)
            return -1;
        count++;
    }
    int errors = -1;
    return sscanf(count, "%d", &errors) == 1 ? errors : -1;
}

void evaluate_sanitizer_verdict(lab_run *run, const char *log)
{
    snprintf(run->sanitizer_log, sizeof run->sanitizer_log, "%s", log);
    run->sanitizer_uncounted = 0;
    if (run->exit_status != SANITIZER_EXIT_FOUND) {
        run->sanitizer_errors = 0;
        return;
    }
    char last[512];
    text_last_line(log, last, sizeof last);
    int count = summary_count(run->sanitizer, last);
    run->sanitizer_errors = count > 0 ? count : 1;
    run->sanitizer_uncounted = count <= 0;
}

/* The sanitizer's verdict, before anything else the run says. */
static case_status sanitizer_outcome(const grading_case *rubric_case, const lab_run *run,
                                     text_buffer *output)
{
    const grading_check *check = NULL;
    for (int i = 0; i < rubric_case->check_count && check == NULL; i++)
        if (rubric_check_tool(rubric_case->check[i].kind) != NULL)
            check = &rubric_case->check[i];
    if (run->timed_out || run->signal != 0)
        return run_outcome(run, "program (under compute-sanitizer)", output);
    if (run->sanitizer_errors < 0) {
        text_append(output, "not graded  compute-sanitizer %s did not finish on the grading host: %s\n",
                    run->sanitizer, run->sanitizer_log[0] != '\0' ? run->sanitizer_log
                                                                  : run->stderr_tail);
        return CASE_NOT_GRADED;
    }
    if (run->sanitizer_errors > 0) {
        if (run->sanitizer_uncounted)
            text_append(output, "FAIL  compute-sanitizer %s found %s, expected none",
                        run->sanitizer, finding(run->sanitizer, 1));
        else
            text_append(output, "FAIL  compute-sanitizer %s: %d %s, expected none",
                        run->sanitizer, run->sanitizer_errors,
                        finding(run->sanitizer, run->sanitizer_errors > 1));
        append_hint(output, check, CASE_FAILED);
        text_append(output, "%s\n", run->sanitizer_log);
        return CASE_FAILED;
    }
    text_append(output, "ok    compute-sanitizer %s: no %s\n", run->sanitizer,
                finding(run->sanitizer, 0));
    return CASE_PASSED;
}

static case_status evaluate_checks(const grading_case *rubric_case, const lab_run *submission,
                                   const lab_run *reference, const lab_run *model,
                                   text_buffer *output)
{
    const char *tool = NULL;
    case_status status = CASE_PASSED;
    if (rubric_case_sanitizer(rubric_case, &tool)) {
        status = sanitizer_outcome(rubric_case, submission, output);
        if (status != CASE_PASSED)
            return status;
    }
    status = run_outcome(submission, "program", output);
    if (status != CASE_PASSED)
        return status;

    if (rubric_case_needs_reference(rubric_case)) {
        if (reference == NULL || !reference->ran) {
            text_append(output, "not graded  this case compares with the reference solution, "
                                "which this tree does not hold (a student pack: its lab programs "
                                "carry the student version of the kernels): the course's grader "
                                "runs it\n");
            return CASE_NOT_GRADED;
        }
        text_buffer outcome = {0};
        case_status reference_status = run_outcome(reference, "reference solution", &outcome);
        if (reference_status != CASE_PASSED) {
            text_append(output, "not graded  the reference solution failed this case on the "
                                "grading host, so nothing can be compared with it:\n      %s",
                        outcome.data != NULL ? outcome.data : "\n");
            text_free(&outcome);
            return CASE_NOT_GRADED;
        }
        text_free(&outcome);
        /* The reference is the program's own kernels: a program built with the student version
         * (MEMLAB_STUDENT=ON) has none to compare with. */
        const cJSON *record = NULL;
        cJSON_ArrayForEach(record, records_of(reference))
        {
            if (rd_value(record, "correct") != 1) {
                text_append(output, "not graded  the lab program's own kernels fail their check "
                                    "here, so they are no reference solution to compare with (a "
                                    "program built with the student version, MEMLAB_STUDENT=ON?)\n");
                return CASE_NOT_GRADED;
            }
        }
    }

    for (int i = 0; i < rubric_case->check_count; i++) {
        const grading_check *check = &rubric_case->check[i];
        switch (check->kind) {
        case CHECK_CORRECT:
            status = worse(status, check_correct(check, submission, output));
            break;
        case CHECK_BOUND:
        case CHECK_PREDICTED:
        case CHECK_REFERENCE:
            status = worse(status, check_quantity(check, submission, reference, model, output));
            break;
        case CHECK_MEMCHECK:
        case CHECK_RACECHECK:
        case CHECK_SYNCCHECK:
            break;              /* decided above */
        }
    }
    return status;
}

/* A run whose output passed the grader's cap: the case is graded on its report all the same;
 * this says so, with the last line the program printed. */
static void output_note(const lab_run *run, text_buffer *output)
{
    if (run->output_cut_bytes <= 0)
        return;
    text_append(output, "note  the program printed more than the grader keeps (%lld bytes of "
                        "stdout and of stderr): %lld bytes were dropped (a printf in a kernel?); "
                        "the case is graded on the program's report all the same\n",
                run->output_cap_bytes, run->output_cut_bytes);
    char line[512];
    text_last_line(run->stdout_tail, line, sizeof line);
    if (line[0] != '\0')
        text_append(output, "      its last line on stdout: %.200s\n", line);
}

case_status evaluate_case(const grading_case *rubric_case, const lab_run *submission,
                          const lab_run *reference, const lab_run *model, text_buffer *output)
{
    case_status status = evaluate_checks(rubric_case, submission, reference, model, output);
    output_note(submission, output);
    return status;
}
