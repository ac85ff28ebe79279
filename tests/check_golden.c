/* Golden traces: a few small scenarios must reproduce, with their own seed, exactly the
 * trace pinned in tests/golden/, so an unintended change of behaviour is noticed. A
 * NAME.trace file holds the whole trace of scenarios/NAME.json (small ones: a failure shows
 * the first line that differs); a NAME.fnv64 file holds the FNV-1a 64 hash and length of a
 * larger one. IDEMSIM_REPIN=1 rewrites the pinned files instead of comparing (docs/golden.md). */
#include <check.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_cli.h"

#define GOLDEN_DIRECTORY "tests/golden"
#define GOLDEN_MAX 64
#define REPORT_MAX 8192

static void setup(void)
{
    test_cli_make_scratch("golden");
}

static void teardown(void)
{
    test_cli_remove_scratch();
}

/* Writes the trace of every mode of scenarios/NAME.json, with its own seed, to path. */
static int write_trace(const char *name, const char *path)
{
    char scenario[512];
    snprintf(scenario, sizeof scenario, "scenarios/%s.json", name);
    const char *arguments[] = {"run", scenario, "--trace", path, "-q", NULL};
    return test_cli_run(arguments, NULL, NULL);
}

static bool write_all(const char *path, const char *text, size_t length)
{
    FILE *file = fopen(path, "wb");
    if (file == NULL)
        return false;
    bool ok = fwrite(text, 1, length, file) == length;
    return fclose(file) == 0 && ok;
}

static uint64_t fnv1a64(const char *bytes, size_t length)
{
    uint64_t hash = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < length; i++) {
        hash ^= (unsigned char)bytes[i];
        hash *= 0x100000001b3ull;
    }
    return hash;
}

/* "line 12: expected ... / got ..." for the first line that differs. */
static void describe_difference(char *buffer, size_t size, const char *expected, const char *got)
{
    size_t line = 1, at = 0;
    while (expected[at] != '\0' && expected[at] == got[at]) {
        line += expected[at] == '\n';
        at++;
    }
    while (at > 0 && expected[at - 1] != '\n')
        at--; /* back to the start of the line, which both texts share */
    int expected_length = (int)strcspn(expected + at, "\n");
    int got_length = (int)strcspn(got + at, "\n");
    snprintf(buffer, size, "first difference at line %zu:\n    expected: %.*s\n    got:      %.*s",
             line, expected_length > 300 ? 300 : expected_length, expected + at,
             got_length > 300 ? 300 : got_length, got + at);
}

/* ------------------------------------------------------------------ one pinned trace */

typedef enum { PIN_TRACE, PIN_HASH } PinKind;

/* Compares (or, when repinning, rewrites) one golden file; appends any mismatch to report. */
static void check_pin(const char *file_name, PinKind kind, bool repin, char *report)
{
    char name[256], golden[512], trace[1024];
    size_t stem = strlen(file_name) - (kind == PIN_TRACE ? strlen(".trace") : strlen(".fnv64"));
    snprintf(name, sizeof name, "%.*s", (int)stem, file_name);
    snprintf(golden, sizeof golden, "%s/%s", GOLDEN_DIRECTORY, file_name);
    snprintf(trace, sizeof trace, "%s/%s.trace", test_scratch, name);
    char problem[1024] = "";
    size_t length = 0, pinned_length = 0;
    char *text = NULL, *pinned = NULL;
    if (write_trace(name, trace) != 0 || (text = test_cli_read_all(trace, &length)) == NULL) {
        snprintf(problem, sizeof problem, "idemsim run scenarios/%s.json failed", name);
    } else if (kind == PIN_TRACE) {
        if (repin) {
            ck_assert(write_all(golden, text, length));
        } else if ((pinned = test_cli_read_all(golden, &pinned_length)) == NULL ||
                   pinned_length != length || memcmp(pinned, text, length) != 0) {
            describe_difference(problem, sizeof problem, pinned ? pinned : "", text);
        }
    } else {
        char line[128];
        snprintf(line, sizeof line, "fnv1a64 %016" PRIx64 " bytes %zu\n", fnv1a64(text, length),
                 length);
        if (repin)
            ck_assert(write_all(golden, line, strlen(line)));
        else if ((pinned = test_cli_read_all(golden, &pinned_length)) == NULL ||
                 strcmp(pinned, line) != 0)
            snprintf(problem, sizeof problem, "pinned '%.*s', got '%.*s'",
                     pinned ? (int)strcspn(pinned, "\n") : 0, pinned ? pinned : "",
                     (int)strcspn(line, "\n"), line);
    }
    if (problem[0] != '\0') {
        size_t used = strlen(report);
        snprintf(report + used, REPORT_MAX - used, "\n%s: %s", golden, problem);
    }
    free(text);
    free(pinned);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *name, const char *suffix)
{
    size_t length = strlen(name), suffix_length = strlen(suffix);
    return length > suffix_length && strcmp(name + length - suffix_length, suffix) == 0;
}

/* ------------------------------------------------------------------ tests */

START_TEST(test_pinned_scenarios_reproduce_their_golden_traces)
{
    const char *repin_variable = getenv("IDEMSIM_REPIN");
    bool repin = repin_variable != NULL && strcmp(repin_variable, "1") == 0;
    DIR *dir = opendir(GOLDEN_DIRECTORY);
    ck_assert_ptr_nonnull(dir);
    char *names[GOLDEN_MAX];
    size_t count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL && count < GOLDEN_MAX) {
        if (has_suffix(entry->d_name, ".trace") || has_suffix(entry->d_name, ".fnv64"))
            names[count++] = strdup(entry->d_name);
    }
    closedir(dir);
    qsort(names, count, sizeof names[0], compare_names);
    ck_assert_msg(count >= 3, "expected at least 3 pinned traces in %s, found %zu",
                  GOLDEN_DIRECTORY, count);
    static char report[REPORT_MAX];
    report[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        check_pin(names[i], has_suffix(names[i], ".trace") ? PIN_TRACE : PIN_HASH, repin, report);
        free(names[i]);
    }
    ck_assert_msg(report[0] == '\0',
                  "traces differ from the pinned ones:%s\nIf the change is intended, re-pin: "
                  "IDEMSIM_REPIN=1 ctest --test-dir build -R check_golden (docs/golden.md)",
                  report);
}
END_TEST

START_TEST(test_fnv1a64_matches_its_published_test_vectors)
{
    /* Fowler, Noll, Vo: the 64-bit FNV-1a of "" and of "a". */
    ck_assert_uint_eq(fnv1a64("", 0), 0xcbf29ce484222325ull);
    ck_assert_uint_eq(fnv1a64("a", 1), 0xaf63dc4c8601ec8cull);
    ck_assert_uint_eq(fnv1a64("foobar", 6), 0x85944171f73967e8ull);
}
END_TEST

static Suite *golden_suite(void)
{
    Suite *suite = suite_create("golden");
    TCase *core = tcase_create("Core");
    tcase_add_checked_fixture(core, setup, teardown);
    tcase_set_timeout(core, 120);
    tcase_add_test(core, test_pinned_scenarios_reproduce_their_golden_traces);
    tcase_add_test(core, test_fnv1a64_matches_its_published_test_vectors);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(golden_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
