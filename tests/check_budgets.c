/* Budgets that bound a run and the process (issue 16, classes 1, 2, 4, 5 and 8):
 * - the regression corpus tests/budget_cases/<case>.{json,args,expected}: each case runs the
 *   program (address space capped at 1 GiB outside the sanitizer build, as `prlimit --as`
 *   does) and must exit with the expected code and print each expected line on stderr;
 * - a world in a livelock, a run whose repeated debits near the money bound, a simulated-time
 *   budget past 2^62 us, and a memory budget that is each world's own;
 * - a generator of valid scenarios with extreme values (fixed seeds) whose every mode must end,
 *   by itself or at a budget, within its events and memory. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "memory_account.h"
#include "rng.h"
#include "test_cli.h"
#include "test_world.h"

#if defined(__SANITIZE_ADDRESS__)
#define ADDRESS_SPACE_CAPPED 0 /* ASan reserves terabytes of shadow: no cap possible */
#else
#define ADDRESS_SPACE_CAPPED 1
#endif
#define ADDRESS_SPACE_BYTES (1ull << 30)

/* ------------------------------------------------------------------ the corpus */

#define CASES_DIR IDEMSIM_SOURCE_DIR "/tests/budget_cases"
#define CASE_ARGUMENTS_MAX 16

/* A run with the address space capped: one that would need more than the cap fails to
 * allocate and dies, so passing proves the budget held. */
static int run_capped(const char *const *arguments, const char *stderr_path)
{
    return test_cli_run_capped(arguments, NULL, stderr_path,
                               ADDRESS_SPACE_CAPPED ? ADDRESS_SPACE_BYTES : 0);
}

/* Lines of a small file, newline removed, in lines[] (pointing into *text; free it). */
static int read_lines(const char *path, char **text, char **lines, int capacity)
{
    size_t length = 0;
    *text = test_cli_read_all(path, &length);
    ck_assert_msg(*text != NULL, "cannot read %s", path);
    int count = 0;
    for (char *line = strtok(*text, "\n"); line != NULL && count < capacity;
         line = strtok(NULL, "\n"))
        lines[count++] = line;
    return count;
}

static void run_case(const char *name)
{
    char path[600];
    char *args_text = NULL;
    char *arguments[CASE_ARGUMENTS_MAX + 1] = {0};
    snprintf(path, sizeof path, "%s/%s.args", CASES_DIR, name);
    int argument_count = read_lines(path, &args_text, arguments, CASE_ARGUMENTS_MAX);
    char scenario[600];
    snprintf(scenario, sizeof scenario, "tests/budget_cases/%s.json", name);
    for (int i = 0; i < argument_count; i++) {
        if (strcmp(arguments[i], "SCENARIO") == 0)
            arguments[i] = scenario;
    }
    char *expected_text = NULL;
    char *expected[16] = {0};
    snprintf(path, sizeof path, "%s/%s.expected", CASES_DIR, name);
    int expected_count = read_lines(path, &expected_text, expected, 16);
    ck_assert_int_ge(expected_count, 1);
    char stderr_path[512];
    int code =
        run_capped((const char *const *)arguments, test_cli_in_scratch(stderr_path, "stderr.txt"));
    size_t length = 0;
    char *printed = test_cli_read_all(stderr_path, &length);
    ck_assert_msg(code == atoi(expected[0]), "%s: exit %d, expected %s; stderr:\n%s", name, code,
                  expected[0], printed);
    for (int i = 1; i < expected_count; i++)
        ck_assert_msg(strstr(printed, expected[i]) != NULL, "%s: stderr lacks '%s'; got:\n%s", name,
                      expected[i], printed);
    free(printed);
    free(args_text);
    free(expected_text);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

START_TEST(test_every_case_of_the_corpus_exits_as_expected_with_its_message)
{
    test_cli_make_scratch("budgets");
    DIR *directory = opendir(CASES_DIR);
    ck_assert_ptr_nonnull(directory);
    char *names[64];
    int count = 0;
    for (struct dirent *entry = readdir(directory); entry != NULL; entry = readdir(directory)) {
        size_t length = strlen(entry->d_name);
        if (length > 5 && strcmp(entry->d_name + length - 5, ".args") == 0 && count < 64)
            names[count++] = strndup(entry->d_name, length - 5);
    }
    closedir(directory);
    qsort(names, (size_t)count, sizeof names[0], compare_names);
    ck_assert_int_ge(count, 10);
    for (int i = 0; i < count; i++) {
        run_case(names[i]);
        free(names[i]);
    }
    test_cli_remove_scratch();
}
END_TEST

/* A 63 MiB file of zeros is under the 64 MiB byte cap, but its tree would take gigabytes: it
 * is refused after the scan, within the capped address space. */
START_TEST(test_a_63_mib_file_is_refused_by_its_tree_size_not_after_building_it)
{
    test_cli_make_scratch("budgets-json");
    char path[512];
    test_cli_in_scratch(path, "zeros.json");
    FILE *file = fopen(path, "wb");
    ck_assert_ptr_nonnull(file);
    size_t values = (63u << 20) / 2 - 2;
    fputs("{\"a\":[", file);
    for (size_t i = 0; i < values; i++)
        fputs(i + 1 < values ? "0," : "0", file);
    fputs("]}", file);
    ck_assert_int_eq(fclose(file), 0);
    char stderr_path[512];
    const char *arguments[] = {"validate", path, NULL};
    ck_assert_int_eq(run_capped(arguments, test_cli_in_scratch(stderr_path, "stderr.txt")), 2);
    size_t length = 0;
    char *printed = test_cli_read_all(stderr_path, &length);
    ck_assert_msg(strstr(printed, "too large: 33030144 values would take about") != NULL, "got %s",
                  printed);
    ck_assert_ptr_nonnull(strstr(printed, "(at most 256 MiB)"));
    free(printed);
    test_cli_remove_scratch();
}
END_TEST

/* ------------------------------------------------------------------ worlds */

static const char *const crowd_json =
    "{\"duration_ms\": 1000, \"modes\": [\"at-least-once\"],"
    " \"accounts\": [{\"id\": \"a\"}],"
    " \"clients\": [{\"id\": \"c\", \"count\": 1000, \"account\": \"a\","
    "   \"workload\": {\"ops\": 1, \"interval_ms\": {\"dist\": \"const\", \"value\": 0}}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 0}}},"
    " \"server\": {\"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 0}}}";

/* A thousand payments, every one at instant 0: more than 100 events at one instant. */
START_TEST(test_too_many_events_at_one_instant_stop_the_run_as_no_progress)
{
    Scenario *scenario = test_load(crowd_json, NULL, 0);
    World *world = world_create(scenario, MODE_AT_LEAST_ONCE, 1, (TraceSink){0},
                                (WorldLimits){.max_events_per_instant = 100});
    world_run(world);
    WorldStop stop = world_stop(world);
    ck_assert_int_eq(stop.kind, WORLD_STOP_NO_PROGRESS);
    ck_assert_uint_eq(stop.limit, 100);
    ck_assert_uint_eq(stop.at_us, 0);
    ck_assert_uint_lt(world_metrics(world)->events, 100 + 4096 + 1); /* within one batch */
    world_destroy(world);
    /* The default allows 64 events per client at one instant on top of 10^7: this ends. */
    Metrics metrics = test_run_mode(scenario, MODE_AT_LEAST_ONCE, 1);
    ck_assert_uint_eq(metrics.operations, 1000);
    free(scenario);
}
END_TEST

/* 511 debits of 2^53 pass the load bound (2^62); retries over a lossy network execute some
 * twice, and the run stops before the money moved could pass 2^62, with no overflow. */
START_TEST(test_repeated_debits_near_the_money_bound_stop_before_overflow)
{
    const char *json = "{\"duration_ms\": 100000000, \"modes\": [\"at-least-once\"],"
                       " \"accounts\": [{\"id\": \"a\"}],"
                       " \"clients\": [{\"id\": \"c\", \"account\": \"a\","
                       "   \"operation\": {\"kind\": \"debit\", \"amount\": 9007199254740992},"
                       "   \"workload\": {\"ops\": 511,"
                       "                  \"interval_ms\": {\"dist\": \"const\", \"value\": 1}}}],"
                       " \"network\": {\"default\": {\"loss\": 0.3}}}";
    Scenario *scenario = test_load(json, NULL, 0);
    World *world = world_create(scenario, MODE_AT_LEAST_ONCE, 1, (TraceSink){0}, (WorldLimits){0});
    world_run(world);
    ck_assert_int_eq(world_stop(world).kind, WORLD_STOP_MONEY);
    ck_assert_uint_eq(world_stop(world).limit, (uint64_t)WORLD_MONEY_MAX);
    const Metrics *metrics = world_metrics(world);
    ck_assert_int_ge(metrics->balances[0].actual, -WORLD_MONEY_MAX);
    ck_assert_int_ge(metrics->double_amount, 0);
    world_destroy(world);
    /* At most once never repeats a debit: the same scenario runs to its end. */
    Metrics once = test_run_mode(scenario, MODE_AT_MOST_ONCE, 1);
    ck_assert_uint_eq(once.operations, 511);
    free(scenario);
}
END_TEST

/* --max-sim-time 18446744073709551 ms is 1.8e19 us: accepted, and capped at 2^62 us so that
 * no event time can overflow. */
START_TEST(test_a_simulated_time_budget_past_2_62_us_is_capped_not_an_abort)
{
    Scenario *scenario = test_load_source_file("scenarios/01_lost_answer.json", NULL, 0);
    World *world = world_create(scenario, MODE_AT_LEAST_ONCE, 1, (TraceSink){0},
                                (WorldLimits){.max_sim_time_us = 18446744073709551000ull});
    world_run(world);
    ck_assert_int_eq(world_stop(world).kind, WORLD_STOP_NONE);
    world_destroy(world);
    free(scenario);
}
END_TEST

/* The budget is the world's own (issue 24): a sibling holding memory in the same process
 * changes nothing, neither whether it stops nor anything it measured; every charge still
 * goes to the process-wide account. Alone, with a budget of 8 MiB, a run stops and never
 * held more than the budget (no doubling past it). */
START_TEST(test_the_memory_budget_bounds_each_world_alone)
{
    const char *big[] = {"clients[0].count=20000", "clients[0].workload.ops=20"};
    Scenario *scenario = test_load(crowd_json, big, 2);
    const WorldLimits limits = {.max_memory_bytes = 6u << 20};
    World *lone = world_create(scenario, MODE_AT_LEAST_ONCE, 1, (TraceSink){0}, limits);
    world_run(lone);
    ck_assert_int_eq(world_stop(lone).kind, WORLD_STOP_MEMORY);
    World *first = world_create(scenario, MODE_AT_LEAST_ONCE, 1, (TraceSink){0}, (WorldLimits){0});
    world_run_events(first, 50000);
    uint64_t held = memory_account_used();
    ck_assert_uint_ge(held, world_memory_bytes(first)); /* charged to the account */
    World *beside = world_create(scenario, MODE_AT_LEAST_ONCE, 1, (TraceSink){0}, limits);
    world_run(beside);
    ck_assert_int_eq(world_stop(beside).kind, world_stop(lone).kind);
    ck_assert_uint_eq(world_stop(beside).at_us, world_stop(lone).at_us);
    ck_assert_uint_eq(world_metrics(beside)->events, world_metrics(lone)->events);
    ck_assert_uint_eq(world_metrics(beside)->attempts, world_metrics(lone)->attempts);
    world_destroy(beside);
    world_destroy(first);
    world_destroy(lone);
    ck_assert_uint_eq(memory_account_used(), 0); /* every charge released */
    World *alone = world_create(scenario, MODE_AT_LEAST_ONCE, 1, (TraceSink){0},
                                (WorldLimits){.max_memory_bytes = 8u << 20});
    world_run(alone);
    ck_assert_int_eq(world_stop(alone).kind, WORLD_STOP_MEMORY);
    ck_assert_uint_le(world_memory_bytes(alone), 8u << 20);
    world_destroy(alone);
    free(scenario);
}
END_TEST

/* One payment at 10^12 ms with a sweep every microsecond: the idle stretch costs no sweeps. */
START_TEST(test_an_idle_stretch_costs_no_sweeps)
{
    const char *json = "{\"duration_ms\": 1000000000000, \"modes\": [\"idempotent\"],"
                       " \"accounts\": [{\"id\": \"a\"}],"
                       " \"clients\": [{\"id\": \"c\", \"account\": \"a\","
                       "   \"workload\": {\"at_ms\": [1000000000000]}}],"
                       " \"server\": {\"idempotency\": {\"ttl_ms\": 1,"
                       "                                \"cleanup_interval_ms\": 0.001}}}";
    Scenario *scenario = test_load(json, NULL, 0);
    Metrics metrics = test_run_mode(scenario, MODE_IDEMPOTENT, 1);
    ck_assert_uint_eq(metrics.operations, 1);
    ck_assert_uint_lt(metrics.events, 100);
    ck_assert_uint_eq(metrics.key_store_rows, 0); /* the row expired and was swept */
    free(scenario);
}
END_TEST

/* ------------------------------------------------------------------ the generator */

#define GENERATED_SCENARIOS 40
#define GENERATED_MAX_EVENTS 100000

static Rng generator;

static const char *pick(const char *const *choices, size_t count)
{
    return choices[rng_below(&generator, count)];
}
#define PICK(array) pick(array, sizeof array / sizeof array[0])

static const char *const times_ms[] = {"0.001", "0.0005", "1", "1000", "1000000000000"};
static const char *const positive_times_ms[] = {"0.001", "0.0005", "1000", "1000000000000"};
static const char *const distributions[] = {
    "{\"dist\": \"const\", \"value\": 0}",
    "{\"dist\": \"const\", \"value\": 1000000000000}",
    "{\"dist\": \"exp\", \"mean\": 0.001}",
    "{\"dist\": \"uniform\", \"min\": 0, \"max\": 1000000000000}",
    "{\"dist\": \"pareto\", \"alpha\": 0.01, \"scale\": 0.001}",
    "{\"dist\": \"lognormal\", \"median\": 0.001, \"p99\": 1000000000000}",
    "{\"dist\": \"normal\", \"mean\": -1000, \"sd\": 1000000000000}",
};
static const char *const probabilities[] = {"0", "1", "0.5", "0.000001"};
static const char *const keys[] = {"none", "per-attempt", "server-generated", "per-click",
                                   "business-hash"};
static const char *const reserves[] = {"atomic", "check-then-insert", "execute-then-save"};
static const char *const kinds[] = {"debit",  "set-status", "delete",
                                    "insert", "send-email", "increment"};

/* A valid scenario with each field at an extreme of its range, or ordinary. */
static void generate(char *json, size_t size)
{
    static const char *const counts[] = {"1", "2", "1000"};
    static const char *const ops[] = {"1", "3", "40"};
    static const char *const attempts[] = {"1", "2", "1000"};
    static const char *const workers[] = {"0", "1", "100000"};
    static const char *const deliveries[] = {"0", "1", "1000000"};
    const char *count = PICK(counts);
    const char *op_count = PICK(ops);
    /* The largest amount the money bound allows for this many debits. */
    unsigned long long debits = strtoull(count, NULL, 10) * strtoull(op_count, NULL, 10);
    unsigned long long amount = (1ull << 62) / debits;
    if (amount > (1ull << 53))
        amount = 1ull << 53;
    if (rng_below(&generator, 3) == 0)
        amount = 1;
    bool broker = rng_below(&generator, 3) == 0;
    const char *base = PICK(times_ms);
    snprintf(
        json, size,
        "{\"duration_ms\": %s, \"seed\": %llu,"
        " \"accounts\": [{\"id\": \"a\", \"balance\": 9007199254740992}],"
        " \"clients\": [{\"id\": \"c\", \"count\": %s, \"account\": \"a\"%s,"
        "   \"operation\": {\"kind\": \"%s\", \"amount\": %llu},"
        "   \"workload\": {\"ops\": %s, \"interval_ms\": %s, \"loop\": \"%s\"},"
        "   \"retry\": {\"timeout_ms\": %s, \"max_attempts\": %s,"
        "             \"backoff\": {\"base_ms\": %s, \"factor\": %s, \"max_ms\": 1000000000000}},"
        "   \"key\": \"%s\","
        "   \"double_click\": {\"prob\": %s, \"delay_ms\": %s},"
        "   \"offline\": {\"prob\": %s, \"duration_ms\": %s}}],"
        " \"network\": {\"default\": {\"loss\": %s, \"duplicate\": %s, \"delay_ms\": %s}},"
        " \"server\": {\"workers\": %s, \"service_ms\": %s,"
        "   \"idempotency\": {\"reserve\": \"%s\", \"ttl_ms\": %s, \"cleanup_interval_ms\": %s}},"
        " \"broker\": {\"ack_timeout_ms\": %s, \"max_deliveries\": %s,"
        "   \"consumers\": {\"workers\": %s, \"service_ms\": %s}}}",
        PICK(positive_times_ms), (unsigned long long)rng_below(&generator, 1ull << 53), count,
        broker ? ", \"target\": \"broker\"" : "", PICK(kinds), amount, op_count,
        PICK(distributions), rng_below(&generator, 2) ? "open" : "closed", PICK(positive_times_ms),
        PICK(attempts), base, rng_below(&generator, 2) ? "1000" : "1", PICK(keys),
        PICK(probabilities), PICK(distributions), PICK(probabilities), PICK(distributions),
        PICK(probabilities), PICK(probabilities), PICK(distributions), PICK(workers),
        PICK(distributions), PICK(reserves), PICK(times_ms), PICK(times_ms),
        PICK(positive_times_ms), PICK(deliveries), PICK(workers), PICK(distributions));
}

/* Every mode of every generated scenario ends, by itself or at a budget, within the event
 * budget and the memory budget; the model's invariants (checked at every end) hold. */
START_TEST(test_generated_valid_scenarios_with_extreme_values_end_within_their_budgets)
{
    rng_init(&generator, 16);
    const WorldLimits limits = {.max_events = GENERATED_MAX_EVENTS, .max_memory_bytes = 64u << 20};
    uint32_t stopped = 0;
    uint32_t ended = 0;
    for (int i = 0; i < GENERATED_SCENARIOS; i++) {
        char json[4096];
        generate(json, sizeof json);
        Scenario *scenario = calloc(1, sizeof *scenario);
        LoadErrors errors = {0};
        if (!scenario_load_text(json, strlen(json), NULL, 0, scenario, &errors)) {
            scenario_print_errors(stderr, "<generated>", &errors);
            ck_abort_msg("generated scenario %d does not load:\n%s", i, json);
        }
        for (uint32_t m = 0; m < scenario->mode_count; m++) {
            World *world =
                world_create(scenario, scenario->modes[m], scenario->seed, (TraceSink){0}, limits);
            world_run(world);
            ck_assert(world_finished(world));
            ck_assert_uint_le(world_metrics(world)->events, GENERATED_MAX_EVENTS);
            if (world_stop(world).kind == WORLD_STOP_NONE)
                ended++;
            else
                stopped++;
            world_destroy(world);
        }
        free(scenario);
    }
    ck_assert_uint_eq(memory_account_used(), 0);
    /* Both ways of ending occur, or the generator is not exercising the budgets. */
    ck_assert_uint_gt(stopped, 0);
    ck_assert_uint_gt(ended, 0);
}
END_TEST

static Suite *budgets_suite(void)
{
    Suite *suite = suite_create("budgets");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_too_many_events_at_one_instant_stop_the_run_as_no_progress);
    tcase_add_test(core, test_repeated_debits_near_the_money_bound_stop_before_overflow);
    tcase_add_test(core, test_a_simulated_time_budget_past_2_62_us_is_capped_not_an_abort);
    tcase_add_test(core, test_the_memory_budget_bounds_each_world_alone);
    tcase_add_test(core, test_an_idle_stretch_costs_no_sweeps);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_every_case_of_the_corpus_exits_as_expected_with_its_message);
    tcase_add_test(limits, test_a_63_mib_file_is_refused_by_its_tree_size_not_after_building_it);
    tcase_add_test(limits,
                   test_generated_valid_scenarios_with_extreme_values_end_within_their_budgets);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(budgets_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
