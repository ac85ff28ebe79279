/* idemsim merge: shard CSVs of one sweep back into the CSV and chart a single run writes.
 * Shards carry every run's values (not means), so the merged statistics are computed from
 * the same numbers in the same order as an unsharded sweep: the bytes agree. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_sweep.h"

const char *const merge_usage =
    "usage: idemsim merge SHARD.csv... [--csv FILE] [--svg FILE]\n"
    "\n"
    "Combines the CSVs written by `idemsim sweep ... --shard I/N --csv SHARD.csv` into the\n"
    "CSV (and chart) that the sweep without --shard writes, byte for byte. Every run of the\n"
    "grid must be in exactly one shard; shards may come in any order.\n"
    "\n"
    "options:\n"
    "  --csv FILE   write the merged CSV here (default: standard output)\n"
    "  --svg FILE   write the line chart\n";

/* Reads one shard into results; prints "FILE: line N: reason" on failure. */
static bool merge_file(const char *path, SweepResults *results)
{
    FILE *stream = fopen(path, "rb");
    if (stream == NULL) {
        fprintf(stderr, "idemsim: %s: cannot read: %s\n", path, strerror(errno));
        return false;
    }
    struct stat info;
    if (fstat(fileno(stream), &info) == 0 && S_ISDIR(info.st_mode)) {
        /* A directory opens for reading; only reading it fails, and not as "empty". */
        fprintf(stderr, "idemsim: %s: is a directory, not a shard CSV\n", path);
        fclose(stream);
        return false;
    }
    char error[512];
    bool ok = sweep_report_read_shard(stream, results, error, sizeof error);
    fclose(stream);
    if (!ok)
        fprintf(stderr, "idemsim: %s: %s\n", path, error);
    return ok;
}

/* Every run present, or the first missing one named with the shard that should have it. */
static bool complete(const SweepResults *results, uint32_t shard_count)
{
    uint32_t runs = sweep_report_run_count(results), missing = 0, first = 0;
    for (uint32_t run = runs; run-- > 0;) {
        if (!results->present[run]) {
            missing++;
            first = run;
        }
    }
    if (missing == 0)
        return true;
    fprintf(stderr,
            "idemsim: merge: %u of %u runs are missing; the first is point %u seed index %u, "
            "in shard %u/%u\n",
            missing, runs, first / results->seed_count, first % results->seed_count,
            first % shard_count + 1, shard_count);
    return false;
}

/* The shard count the first file names, to say which shard a missing run belongs to. */
static uint32_t first_shard_count(const char *path)
{
    FILE *stream = fopen(path, "rb");
    unsigned index = 1, count = 1;
    if (stream != NULL) {
        if (fscanf(stream, "# idemsim sweep shard %u/%u", &index, &count) != 2 || count == 0)
            count = 1;
        fclose(stream);
    }
    return count;
}

int command_merge(int argc, char **argv)
{
    const char *csv_path = NULL, *svg_path = NULL;
    const char *files[256];
    uint32_t file_count = 0;
    for (int i = 0; i < argc; i++) {
        bool takes_value = strcmp(argv[i], "--csv") == 0 || strcmp(argv[i], "--svg") == 0;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(merge_usage, stdout);
            return EXIT_SUCCESS;
        } else if (takes_value && i + 1 >= argc) {
            return cli_usage_error(merge_usage, "option %s needs a value", argv[i]);
        } else if (takes_value) {
            const char **path = strcmp(argv[i], "--csv") == 0 ? &csv_path : &svg_path;
            if (*path != NULL)
                return cli_usage_error(merge_usage, "option %s given twice (it takes one value)",
                                       argv[i]);
            *path = argv[i + 1];
            i++;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage_error(merge_usage, "unknown option '%s'", argv[i]);
        } else if (file_count == sizeof files / sizeof files[0]) {
            return cli_usage_error(merge_usage, "too many shard files (at most 256)%s", "");
        } else {
            files[file_count++] = argv[i];
        }
    }
    if (file_count == 0)
        return cli_usage_error(merge_usage, "merge expects at least one SHARD.csv%s", "");
    SweepResults *results = calloc(1, sizeof *results);
    SweepOutputs *outputs = calloc(1, sizeof *outputs);
    OutputRole shards[sizeof files / sizeof files[0]];
    for (uint32_t f = 0; f < file_count; f++)
        shards[f] = (OutputRole){"shard", files[f], false, false};
    bool ok = results != NULL && outputs != NULL &&
              cli_sweep_open_outputs(outputs, csv_path, svg_path, shards, file_count);
    for (uint32_t f = 0; f < file_count && ok; f++)
        ok = merge_file(files[f], results);
    ok = ok && complete(results, first_shard_count(files[0]));
    ok = ok && cli_sweep_write_outputs(outputs, results, false);
    if (outputs != NULL)
        cli_sweep_abandon_outputs(outputs);
    if (results != NULL)
        sweep_report_release(results);
    free(results);
    free(outputs);
    return ok ? EXIT_SUCCESS : EXIT_USAGE;
}
