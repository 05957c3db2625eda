/* query.c: the options that choose a plot's data, parsed one way (query.h). */
#include "query.h"

#include <stdio.h>
#include <string.h>

/* Splits a comma-separated list in place into names; -1 when it holds more than max. */
static int split_list(char *list, const char **names, int max)
{
    int count = 0;
    for (char *name = strtok(list, ","); name != NULL; name = strtok(NULL, ",")) {
        if (count == max)
            return -1;
        names[count++] = name;
    }
    return count;
}

int rd_parse_query(int argc, char **argv, rd_query *query, const char **out_path, char *error,
                   size_t error_size)
{
    memset(query, 0, sizeof *query);
    *out_path = NULL;
    for (int i = 0; i < argc; i++) {
        const char *option = argv[i];
        if (option[0] != '-')
            return i;
        if (i + 1 == argc)
            return snprintf(error, error_size, "%s needs a value", option), -1;
        char *value = argv[++i];
        if (strcmp(option, "--lab") == 0) {
            query->lab = value;
        } else if (strcmp(option, "--x") == 0) {
            query->x = value;
        } else if (strcmp(option, "--out") == 0) {
            *out_path = value;
        } else if (strcmp(option, "--variant") == 0 || strcmp(option, "--variants") == 0) {
            query->variant_count = split_list(value, query->variant, RD_MAX_VARIANTS);
            if (query->variant_count <= 0)
                return snprintf(error, error_size, "%s: a list of at most 16 variant names",
                                option), -1;
        } else if (strcmp(option, "--columns") == 0) {
            query->column_count = split_list(value, query->column, RD_MAX_COLUMNS);
            if (query->column_count <= 0)
                return snprintf(error, error_size, "--columns: a list of at most 16 names"), -1;
        } else if (strcmp(option, "--where") == 0) {
            char *equals = strchr(value, '=');
            if (equals == NULL || equals == value || equals[1] == '\0')
                return snprintf(error, error_size, "--where takes PARAM=VALUE or PARAM=max, not %s",
                                value), -1;
            if (query->where_count == RD_MAX_WHERE)
                return snprintf(error, error_size, "too many --where"), -1;
            *equals = '\0';
            query->where_param[query->where_count] = value;
            query->where_value[query->where_count] = equals + 1;
            query->where_count++;
        } else {
            return snprintf(error, error_size, "unknown option %s", option), -1;
        }
    }
    return argc;
}
