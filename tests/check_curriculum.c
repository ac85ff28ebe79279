/* The curriculum cases of DESIGN §1 that check_world.c does not cover, each in the smallest
 * world that shows it, asserting the teaching outcome; plus closed forms for the network
 * and the retry policy. */
#include <dirent.h>

#include "test_world.h"

#define SET(...)                                                                                   \
    ((const char *const[]){__VA_ARGS__}),                                                          \
        (uint32_t)(sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))
#define NO_SET NULL, 0

/* The modes whose server has no key store. */
static const Mode keyless_modes[] = {MODE_AT_MOST_ONCE, MODE_AT_LEAST_ONCE};

/* One payment whose first answer is lost in an outage of the response link. */
static const char *const lost_answer =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 10000}],"
    " \"clients\": [{\"id\": \"web\", \"workload\": {\"at_ms\": [0]},"
    "   \"retry\": {\"timeout_ms\": 1000, \"max_attempts\": 3, \"conflict_delay_ms\": 300}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 10}},"
    "   \"outages\": [{\"from_ms\": 0, \"to_ms\": 500, \"link\": \"server->web\"}]},"
    " \"server\": {\"service_ms\": {\"dist\": \"const\", \"value\": 5}}}";

/* ------------------------------------------------------------------ C2 */

/* The phone goes offline right after sending (the payment is charged, its answer lost) and
 * reconnects 60 s later, then retries at once with the same key. */
static const char *const offline =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 10000}],"
    " \"clients\": [{\"id\": \"app\", \"workload\": {\"at_ms\": [0]},"
    "   \"offline\": {\"prob\": 1.0, \"duration_ms\": {\"dist\": \"const\", \"value\": 60000}}}],"
    " \"server\": {\"service_ms\": {\"dist\": \"const\", \"value\": 5},"
    "   \"idempotency\": {\"ttl_ms\": 3600000, \"cleanup_interval_ms\": 1000}}}";

START_TEST(test_offline_retry_is_replayed_only_while_the_server_remembers_the_key)
{
    const char *short_ttl = "server.idempotency.ttl_ms=30000";
    /* at-most-once: the answer went down the tunnel and is never asked for again. */
    Metrics once = test_run_json(offline, NO_SET, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(once.attempts, 1);
    ck_assert_uint_eq(once.effects, 1);
    ck_assert_uint_eq(once.client_unknown, 1);
    ck_assert_uint_eq(once.outcomes[OUTCOME_PHANTOM], 1);
    /* at-least-once: the reconnecting phone is charged again, whatever the TTL. */
    Metrics again = test_run_json(offline, NO_SET, MODE_AT_LEAST_ONCE);
    Metrics again_short = test_run_json(offline, SET(short_ttl), MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(again.attempts, 2);
    ck_assert_uint_eq(again.outcomes[OUTCOME_DOUBLE], 1);
    ck_assert_uint_eq(again_short.outcomes[OUTCOME_DOUBLE], 1);
    /* idempotent: the key outlives the 60 s absence (1 h TTL) and the retry is replayed;
     * with a 30 s TTL the server has forgotten it and charges again. */
    Metrics remembered = test_run_json(offline, NO_SET, MODE_IDEMPOTENT);
    ck_assert_uint_eq(remembered.attempts, 2);
    ck_assert_uint_eq(remembered.executions, 1);
    ck_assert_uint_eq(remembered.replayed, 1);
    ck_assert_uint_eq(remembered.outcomes[OUTCOME_OK], 1);
    Metrics forgotten = test_run_json(offline, SET(short_ttl), MODE_IDEMPOTENT);
    ck_assert_uint_eq(forgotten.attempts, 2);
    ck_assert_uint_eq(forgotten.replayed, 0);
    ck_assert_uint_eq(forgotten.outcomes[OUTCOME_DOUBLE], 1);
    ck_assert_int_eq(forgotten.double_amount, 100);
}
END_TEST

/* ------------------------------------------------------------------ C5 operation catalog */

static Metrics run_kind(const char *kind, Mode mode)
{
    char set_kind[64];
    snprintf(set_kind, sizeof set_kind, "clients[0].operation.kind=%s", kind);
    return test_run_json(lost_answer, SET(set_kind), mode);
}

/* What every mode must show for a kind, in the lost-answer world: the first answer is lost,
 * the retry (at-least-once, idempotent) gets through. */
typedef struct {
    const char *kind;
    uint64_t executions; /* at-least-once */
    uint64_t effects;    /* at-least-once */
    Outcome outcome;     /* at-least-once */
} KindExpectation;

START_TEST(test_operations_idempotent_by_state_survive_a_retry_and_others_do_not)
{
    Metrics set_status = run_kind("set-status", MODE_AT_LEAST_ONCE);
    Metrics insert = run_kind("insert", MODE_AT_LEAST_ONCE);
    Metrics email = run_kind("send-email", MODE_AT_LEAST_ONCE);
    Metrics increment = run_kind("increment", MODE_AT_LEAST_ONCE);
    Metrics unique = run_kind("insert-unique", MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(set_status.executions, 2);
    ck_assert_uint_eq(set_status.outcomes[OUTCOME_OK], 1); /* second run changed nothing */
    ck_assert_uint_eq(insert.outcomes[OUTCOME_DOUBLE], 1);
    ck_assert_uint_eq(email.outcomes[OUTCOME_DOUBLE], 1);
    ck_assert_uint_eq(email.emails_sent, 2);
    ck_assert_uint_eq(increment.outcomes[OUTCOME_DOUBLE], 1);
    /* the unique constraint stops the second row but answers 409: the client never learns */
    ck_assert_uint_eq(unique.effects, 1);
    ck_assert_uint_eq(unique.outcomes[OUTCOME_DOUBLE], 0);

    /* Every kind in every mode. at-least-once: the handler decides. insert-unique answers
     * the retry 409, which the client retries (conflict delay) until max_attempts 3: three
     * runs, one row, never told. */
    static const KindExpectation kinds[] = {
        {"set-status", 2, 1, OUTCOME_OK},     {"delete", 2, 1, OUTCOME_PHANTOM},
        {"insert", 2, 2, OUTCOME_DOUBLE},     {"insert-unique", 3, 1, OUTCOME_PHANTOM},
        {"send-email", 2, 2, OUTCOME_DOUBLE}, {"increment", 2, 2, OUTCOME_DOUBLE},
        {"debit", 2, 2, OUTCOME_DOUBLE},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        const KindExpectation *expect = &kinds[i];
        /* at-most-once never asks again: whatever the kind, one run whose answer was lost,
         * an effect the client was never told of. */
        Metrics once = run_kind(expect->kind, MODE_AT_MOST_ONCE);
        ck_assert_msg(once.attempts == 1 && once.executions == 1 && once.effects == 1,
                      "%s at-most-once: %llu attempts, %llu executions, %llu effects", expect->kind,
                      (unsigned long long)once.attempts, (unsigned long long)once.executions,
                      (unsigned long long)once.effects);
        ck_assert_msg(once.client_unknown == 1 && once.outcomes[OUTCOME_PHANTOM] == 1,
                      "%s at-most-once: not a phantom", expect->kind);

        Metrics again = run_kind(expect->kind, MODE_AT_LEAST_ONCE);
        ck_assert_msg(again.executions == expect->executions && again.effects == expect->effects &&
                          again.outcomes[expect->outcome] == 1,
                      "%s at-least-once: %llu executions, %llu effects, outcome %s missing",
                      expect->kind, (unsigned long long)again.executions,
                      (unsigned long long)again.effects, outcome_name(expect->outcome));

        /* A key works the same for every handler: one run, the retry gets the stored answer. */
        Metrics keyed = run_kind(expect->kind, MODE_IDEMPOTENT);
        ck_assert_msg(keyed.attempts == 2 && keyed.executions == 1 && keyed.effects == 1 &&
                          keyed.replayed == 1 && keyed.outcomes[OUTCOME_OK] == 1,
                      "%s idempotent: %llu executions, %llu replayed, %llu ok", expect->kind,
                      (unsigned long long)keyed.executions, (unsigned long long)keyed.replayed,
                      (unsigned long long)keyed.outcomes[OUTCOME_OK]);
    }
}
END_TEST

START_TEST(test_delete_is_idempotent_by_state_but_not_by_response)
{
    const char *always_204 = "server.delete_always_204=true";
    Metrics delete_404 = run_kind("delete", MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(delete_404.effects, 1);
    ck_assert_uint_eq(delete_404.client_failed, 1); /* the retry was told 404 */
    ck_assert_uint_eq(delete_404.outcomes[OUTCOME_PHANTOM], 1);
    Metrics delete_204 = test_run_json(
        lost_answer, SET("clients[0].operation.kind=delete", always_204), MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(delete_204.effects, 1);
    ck_assert_uint_eq(delete_204.outcomes[OUTCOME_OK], 1);
    Metrics keyed = run_kind("delete", MODE_IDEMPOTENT);
    ck_assert_uint_eq(keyed.executions, 1);
    ck_assert_uint_eq(keyed.outcomes[OUTCOME_OK], 1); /* the stored 204 is replayed */
    ck_assert_uint_eq(keyed.client_failed, 0);
    Metrics keyed_204 = test_run_json(
        lost_answer, SET("clients[0].operation.kind=delete", always_204), MODE_IDEMPOTENT);
    ck_assert_uint_eq(keyed_204.outcomes[OUTCOME_OK], 1);
    /* at-most-once never sends the second DELETE, so the answer never says 404; the lost
     * 204 leaves the client not knowing, whichever answer the server would give. */
    Metrics once = run_kind("delete", MODE_AT_MOST_ONCE);
    Metrics once_204 = test_run_json(
        lost_answer, SET("clients[0].operation.kind=delete", always_204), MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(once.client_failed, 0);
    ck_assert_uint_eq(once.client_unknown, 1);
    ck_assert_uint_eq(once.outcomes[OUTCOME_PHANTOM], 1);
    ck_assert_uint_eq(once_204.outcomes[OUTCOME_PHANTOM], 1);
}
END_TEST

/* ------------------------------------------------------------------ C8 */

/* Two payments of different amounts... the same amount, another order: the second reuses
 * the first one's key because the app never made a new one. */
static const char *const reused_key =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 10000}],"
    " \"clients\": [{\"id\": \"web\", \"workload\": {\"at_ms\": [0, 1000]}, \"key_reuse\": 1.0}],"
    " \"server\": {\"service_ms\": {\"dist\": \"const\", \"value\": 5}}}";

START_TEST(test_reused_key_without_fingerprint_replays_another_requests_answer)
{
    Metrics without =
        test_run_json(reused_key, SET("server.idempotency.fingerprint=false"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(without.outcomes[OUTCOME_MISMATCH], 1);
    ck_assert_uint_eq(without.client_succeeded, 2); /* told success, never charged */
    ck_assert_uint_eq(without.effects, 1);
    Metrics with = test_run_json(reused_key, NO_SET, MODE_IDEMPOTENT);
    ck_assert_uint_eq(with.status_422, 1);
    ck_assert_uint_eq(with.outcomes[OUTCOME_MISMATCH], 0);
    ck_assert_uint_eq(with.client_failed, 1); /* a definite answer the app can act on */
    Metrics stripe =
        test_run_json(reused_key, SET("server.idempotency.profile=stripe"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(stripe.status_400, 1);
    Metrics brandur =
        test_run_json(reused_key, SET("server.idempotency.profile=brandur"), MODE_IDEMPOTENT);
    ck_assert_uint_ge(brandur.status_409, 1);
    /* the key store's answer is the only difference: the same payment is not charged */
    ck_assert_uint_eq(without.outcomes[OUTCOME_OK], 1);
    ck_assert_uint_eq(without.replayed, 1);
    ck_assert_int_eq(metrics_balance_error(&without), 100);
    ck_assert_uint_eq(with.outcomes[OUTCOME_OK], 1);
    ck_assert_uint_eq(with.outcomes[OUTCOME_LOST], 1);
    ck_assert_uint_eq(with.effects, 1);
    ck_assert_uint_eq(with.replayed, 0);
    ck_assert_int_eq(metrics_balance_error(&with), 100);
    ck_assert_uint_eq(stripe.outcomes[OUTCOME_LOST], 1);
    ck_assert_uint_eq(stripe.client_failed, 1);
    /* brandur's 409 means "in progress" to this client, which retries it until its 5
     * attempts run out: the payment is lost and the client never learns why */
    ck_assert_uint_eq(brandur.status_409, 5);
    ck_assert_uint_eq(brandur.client_unknown, 1);
    ck_assert_uint_eq(brandur.outcomes[OUTCOME_LOST], 1);
}
END_TEST

START_TEST(test_a_reused_key_is_harmless_in_the_modes_that_send_no_key)
{
    /* The key is read only by the idempotent mode's store: the two payments are two
     * executions, both charged and both told success, fingerprint or not. A perfect network,
     * so at-least-once has nothing to retry and both modes agree. */
    const char *const fingerprints[] = {"server.idempotency.fingerprint=true",
                                        "server.idempotency.fingerprint=false"};
    for (int f = 0; f < 2; f++) {
        for (int m = 0; m < 2; m++) {
            Metrics metrics = test_run_json(reused_key, SET(fingerprints[f]), keyless_modes[m]);
            ck_assert_uint_eq(metrics.attempts, 2);
            ck_assert_uint_eq(metrics.effects, 2);
            ck_assert_uint_eq(metrics.outcomes[OUTCOME_OK], 2);
            ck_assert_uint_eq(metrics.outcomes[OUTCOME_MISMATCH], 0);
            ck_assert_uint_eq(metrics.replayed, 0);
            ck_assert_uint_eq(metrics.status_422, 0);
            ck_assert_int_eq(metrics_balance_error(&metrics), 0);
        }
    }
}
END_TEST

/* ------------------------------------------------------------------ C9 */

static const char *const slow_duplicate =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 0}],"
    " \"clients\": [{\"id\": \"web\", \"workload\": {\"at_ms\": [0]},"
    "   \"retry\": {\"timeout_ms\": 5000, \"conflict_delay_ms\": 500},"
    "   \"double_click\": {\"prob\": 1.0, \"delay_ms\": {\"dist\": \"const\", \"value\": 50}},"
    "   \"key\": \"business-hash\"}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 10}}},"
    " \"server\": {\"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 200}}}";

START_TEST(test_duplicate_while_the_first_is_processing_gets_409_or_202_not_a_second_run)
{
    Metrics conflict = test_run_json(slow_duplicate, NO_SET, MODE_IDEMPOTENT);
    ck_assert_uint_eq(conflict.executions, 1);
    ck_assert_uint_eq(conflict.status_409, 1);
    ck_assert_uint_eq(conflict.replayed, 1); /* the retry after the conflict delay */
    ck_assert_uint_eq(conflict.outcomes[OUTCOME_OK], 1);
    Metrics accepted = test_run_json(slow_duplicate, SET("server.idempotency.on_in_progress=202"),
                                     MODE_IDEMPOTENT);
    ck_assert_uint_eq(accepted.status_202, 1);
    ck_assert_uint_eq(accepted.executions, 1);
    Metrics unkeyed = test_run_json(slow_duplicate, NO_SET, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(unkeyed.executions, 2);
}
END_TEST

/* ------------------------------------------------------------------ the three columns */

/* Every scenario of the library, loaded as the run command loads it. */
typedef void (*LibraryVisit)(const char *path, Scenario *scenario);

static int for_each_library_scenario(LibraryVisit visit)
{
    char directory[1024];
    snprintf(directory, sizeof directory, "%s/scenarios", IDEMSIM_SOURCE_DIR);
    DIR *dir = opendir(directory);
    ck_assert_msg(dir != NULL, "cannot open %s", directory);
    int visited = 0;
    for (struct dirent *entry = readdir(dir); entry != NULL; entry = readdir(dir)) {
        size_t length = strlen(entry->d_name);
        if (length < 6 || strcmp(entry->d_name + length - 5, ".json") != 0)
            continue;
        char path[1100];
        snprintf(path, sizeof path, "scenarios/%s", entry->d_name);
        Scenario *scenario = test_load_source_file(path, NO_SET);
        visit(path, scenario);
        free(scenario);
        visited++;
    }
    closedir(dir);
    return visited;
}

static void assert_three_modes(const char *path, Scenario *scenario)
{
    /* DESIGN §3: the comparison is the product. A scenario that restricts its modes must say
     * why in its description and its concept page; none in the library does. */
    ck_assert_msg(scenario->mode_count == 3 && scenario->modes[0] == MODE_AT_MOST_ONCE &&
                      scenario->modes[1] == MODE_AT_LEAST_ONCE &&
                      scenario->modes[2] == MODE_IDEMPOTENT,
                  "%s does not list at-most-once, at-least-once and idempotent", path);
}

START_TEST(test_every_library_scenario_runs_the_three_modes)
{
    ck_assert_int_ge(for_each_library_scenario(assert_three_modes), 30);
}
END_TEST

/* Where a duplicate can come from without a retry of the client: a second click, a
 * scheduler's second instance (C34), a network copy, or a proxy that retries on its own
 * (C15). */
static bool has_duplicates_nobody_retried(const Scenario *scenario)
{
    for (uint32_t g = 0; g < scenario->client_group_count; g++)
        if (scenario->client_groups[g].double_click.prob > 0)
            return true;
    /* a scheduler's second instance firing the same period (C34) */
    for (uint32_t g = 0; g < scenario->client_group_count; g++)
        if (scenario->client_groups[g].schedule.instances > 1 &&
            scenario->client_groups[g].schedule.both_fire > 0)
            return true;
    /* a client library's sends after a close that came after the handler (C32) */
    for (uint32_t g = 0; g < scenario->client_group_count; g++)
        if (scenario->client_groups[g].library_retries > 0 &&
            scenario->server.closes_before_answer > 0)
            return true;
    if (scenario_uses_proxy(scenario) && scenario->proxy.retries > 0)
        return true;
    if (scenario->network.default_link.duplicate > 0)
        return true;
    for (uint32_t l = 0; l < scenario->network.link_count; l++)
        if (scenario->network.links[l].spec.duplicate > 0)
            return true;
    return false;
}

static int library_with_duplicates;

static void assert_at_most_once_doubles_only_what_it_did_not_cause(const char *path,
                                                                   Scenario *scenario)
{
    Metrics once = test_run_mode(scenario, MODE_AT_MOST_ONCE, scenario->seed);
    Metrics again = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    uint64_t doubles = once.outcomes[OUTCOME_DOUBLE];
    /* at-most-once sends each click once: its sends are a subset of at-least-once's, with
     * the same fates, so it can never double more. */
    ck_assert_msg(doubles <= again.outcomes[OUTCOME_DOUBLE],
                  "%s: at-most-once %llu double, at-least-once %llu", path,
                  (unsigned long long)doubles, (unsigned long long)again.outcomes[OUTCOME_DOUBLE]);
    /* per operation: with a closed loop and a long outage (C22) at-most-once's clients give
     * up at once and start more operations than at-least-once's, who are busy retrying */
    ck_assert_msg(once.attempts * again.operations <= again.attempts * once.operations,
                  "%s: at-most-once sent more per operation", path);
    ck_assert_msg(once.redeliveries == 0, "%s: at-most-once redelivered", path);
    if (has_duplicates_nobody_retried(scenario)) {
        /* second clicks, network copies, a proxy's tries and a library's replays are not the
         * client's retries: at-most-once charges them too */
        ck_assert_msg(doubles >= 1, "%s: double clicks or duplicates, yet at-most-once 0 double",
                      path);
        library_with_duplicates++;
    } else {
        ck_assert_msg(doubles == 0,
                      "%s: at-most-once %llu double without a second click or a"
                      " network duplicate",
                      path, (unsigned long long)doubles);
    }
}

START_TEST(test_at_most_once_in_the_library_doubles_only_clicks_and_network_copies)
{
    library_with_duplicates = 0;
    for_each_library_scenario(assert_at_most_once_doubles_only_what_it_did_not_cause);
    /* C7's copies, C9's and C13's second clicks, checkout-day's double clicks */
    ck_assert_int_ge(library_with_duplicates, 8);
}
END_TEST

START_TEST(test_at_most_once_charges_a_second_click_and_a_network_copy_twice)
{
    /* The second press 50 ms after the first, both sent once: two charges. Keys per click
     * change nothing (two keys); a key from the order does (C9, C13). */
    Metrics clicks = test_run_json(slow_duplicate, NO_SET, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(clicks.attempts, 2);
    ck_assert_uint_eq(clicks.executions, 2);
    ck_assert_uint_eq(clicks.outcomes[OUTCOME_DOUBLE], 1);
    ck_assert_int_eq(clicks.double_amount, 100);
    Metrics per_click =
        test_run_json(slow_duplicate, SET("clients[0].key=per-click"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(per_click.outcomes[OUTCOME_DOUBLE], 1); /* keyed, not correct */
    Metrics by_order = test_run_json(slow_duplicate, NO_SET, MODE_IDEMPOTENT);
    ck_assert_uint_eq(by_order.outcomes[OUTCOME_DOUBLE], 0);

    /* One press, the network delivers the request twice (C7): the client sent once, the
     * server ran twice; the keyed store's atomic reservation runs it once. */
    const char *copy = "network.links={\"web->server\": {\"duplicate\": 1.0}}";
    const char *single = "clients[0].double_click.prob=0";
    Metrics copied = test_run_json(slow_duplicate, SET(copy, single), MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(copied.attempts, 1);
    ck_assert_uint_eq(copied.executions, 2);
    ck_assert_uint_eq(copied.outcomes[OUTCOME_DOUBLE], 1);
    Metrics keyed_copy = test_run_json(slow_duplicate, SET(copy, single), MODE_IDEMPOTENT);
    ck_assert_uint_eq(keyed_copy.executions, 1);
    ck_assert_uint_eq(keyed_copy.outcomes[OUTCOME_DOUBLE], 0);

    /* Neither: at-most-once is the only mode with no double of its own. */
    Metrics alone = test_run_json(slow_duplicate, SET(single), MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(alone.executions, 1);
    ck_assert_uint_eq(alone.outcomes[OUTCOME_OK], 1);
}
END_TEST

START_TEST(test_with_nothing_to_retry_at_most_once_and_at_least_once_double_alike)
{
    /* C7 and C9 lose nothing and never time out: at-least-once never retries, so its column
     * is at-most-once's, doubles included: the retry policy is not where they come from. */
    const char *const files[] = {"scenarios/07_atomic_reserve.json",
                                 "scenarios/07_check_then_insert.json",
                                 "scenarios/09_in_progress_409.json"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        Scenario *scenario = test_load_source_file(files[f], NO_SET);
        for (uint64_t seed = scenario->seed; seed < scenario->seed + 5; seed++) {
            Metrics once = test_run_mode(scenario, MODE_AT_MOST_ONCE, seed);
            Metrics again = test_run_mode(scenario, MODE_AT_LEAST_ONCE, seed);
            ck_assert_msg(once.attempts == again.attempts && once.executions == again.executions &&
                              once.outcomes[OUTCOME_DOUBLE] == again.outcomes[OUTCOME_DOUBLE],
                          "%s seed %llu: at-most-once %llu attempts %llu double, at-least-once"
                          " %llu attempts %llu double",
                          files[f], (unsigned long long)seed, (unsigned long long)once.attempts,
                          (unsigned long long)once.outcomes[OUTCOME_DOUBLE],
                          (unsigned long long)again.attempts,
                          (unsigned long long)again.outcomes[OUTCOME_DOUBLE]);
            ck_assert_uint_ge(once.outcomes[OUTCOME_DOUBLE], 1);
        }
        free(scenario);
    }
}
END_TEST

/* ------------------------------------------------------------------ C10 */

START_TEST(test_partial_failure_repeats_the_effect_unless_the_failure_is_recorded)
{
    /* Every run charges, then fails with 500; the first 500 is lost in the outage, the later
     * ones are retried as 5xx until max_attempts 3. */
    const char *partial = "server.fail_after_effect=1.0";
    const char *const deletes = "server.idempotency.on_failure=delete";
    const char *const marks = "server.idempotency.on_failure=mark-failed";
    Metrics deleted = test_run_json(lost_answer, SET(partial, deletes), MODE_IDEMPOTENT);
    ck_assert_uint_eq(deleted.outcomes[OUTCOME_DOUBLE], 1); /* key deleted, retry re-runs */
    ck_assert_uint_eq(deleted.effects, 3);
    Metrics marked = test_run_json(lost_answer, SET(partial, marks), MODE_IDEMPOTENT);
    ck_assert_uint_eq(marked.effects, 1);
    ck_assert_uint_eq(marked.replayed, 2); /* the stored 500, to attempts 2 and 3 */
    ck_assert_uint_eq(marked.client_unknown, 1);
    ck_assert_uint_eq(marked.outcomes[OUTCOME_PHANTOM], 1); /* money right, answer not */
    Metrics happy_path = test_run_json(lost_answer,
                                       SET(partial, "server.idempotency.reserve=execute-then-save",
                                           "server.idempotency.on_failure=keep"),
                                       MODE_IDEMPOTENT);
    ck_assert_uint_eq(happy_path.outcomes[OUTCOME_DOUBLE], 1);
    ck_assert_uint_eq(happy_path.effects, 3);

    /* Without a store the failure policy is never consulted. at-least-once: every attempt
     * charges, exactly as the idempotent mode that deletes the key. at-most-once: one charge,
     * its 500 lost: never repeated, never told. */
    const char *const policies[] = {deletes, marks, "server.idempotency.on_failure=keep"};
    for (int p = 0; p < 3; p++) {
        Metrics again = test_run_json(lost_answer, SET(partial, policies[p]), MODE_AT_LEAST_ONCE);
        ck_assert_uint_eq(again.attempts, 3);
        ck_assert_uint_eq(again.effects, deleted.effects);
        ck_assert_uint_eq(again.outcomes[OUTCOME_DOUBLE], 1);
        ck_assert_int_eq(again.double_amount, 2 * 100);
        Metrics once = test_run_json(lost_answer, SET(partial, policies[p]), MODE_AT_MOST_ONCE);
        ck_assert_uint_eq(once.attempts, 1);
        ck_assert_uint_eq(once.effects, 1);
        ck_assert_uint_eq(once.client_unknown, 1);
        ck_assert_uint_eq(once.outcomes[OUTCOME_PHANTOM], 1);
    }
}
END_TEST

/* ------------------------------------------------------------------ C11 */

static const char *const crash_after_charge =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 10000}],"
    " \"clients\": [{\"id\": \"web\", \"workload\": {\"at_ms\": [0]},"
    "   \"retry\": {\"timeout_ms\": 1000, \"max_attempts\": 8, \"conflict_delay_ms\": 500}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 10}}},"
    " \"server\": {\"use_gateway\": true, \"service_ms\": {\"dist\": \"const\", \"value\": 5},"
    "   \"crash\": {\"point\": \"after-effect\", \"prob\": 1.0, \"max_crashes\": 1,"
    "             \"restart_ms\": 500}},"
    " \"gateway\": {\"latency_ms\": {\"dist\": \"const\", \"value\": 50}}}";

START_TEST(test_crash_between_charge_and_record_needs_a_keyed_gateway_or_an_outbox)
{
    Metrics unkeyed = test_run_json(crash_after_charge, NO_SET, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(unkeyed.crashes, 1);
    ck_assert_uint_eq(unkeyed.outcomes[OUTCOME_DOUBLE], 1);

    Metrics stuck = test_run_json(crash_after_charge, NO_SET, MODE_IDEMPOTENT);
    ck_assert_uint_eq(stuck.effects, 1);
    ck_assert_uint_ge(stuck.status_409, 1); /* the key stays in processing */
    ck_assert_uint_eq(stuck.outcomes[OUTCOME_PHANTOM], 1);

    const char *lock = "server.idempotency.lock_timeout_ms=2000";
    Metrics taken_over = test_run_json(crash_after_charge, SET(lock), MODE_IDEMPOTENT);
    ck_assert_uint_eq(taken_over.outcomes[OUTCOME_DOUBLE], 1);

    Metrics gateway_key =
        test_run_json(crash_after_charge, SET(lock, "gateway.honours_key=true"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(gateway_key.outcomes[OUTCOME_OK], 1);

    Metrics outbox = test_run_json(
        crash_after_charge, SET("server.outbox=true", "gateway.honours_key=true"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(outbox.outcomes[OUTCOME_OK], 1);
    ck_assert_uint_eq(outbox.status_409, 0);
}
END_TEST

START_TEST(test_gateway_timeout_hides_a_charge_that_happened)
{
    Metrics hidden = test_run_json(
        crash_after_charge,
        SET("server.crash.point=none", "gateway.timeout=1.0", "clients[0].retry.max_attempts=1"),
        MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(hidden.effects, 1);
    ck_assert_uint_eq(hidden.outcomes[OUTCOME_PHANTOM], 1); /* charged, told 504 */
}
END_TEST

/* ------------------------------------------------------------------ C12 */

START_TEST(test_key_table_grows_without_cleanup_and_stays_bounded_with_it)
{
    const char *world =
        "{\"accounts\": [{\"id\": \"a\", \"balance\": 0}],"
        " \"duration_ms\": 100000,"
        " \"clients\": [{\"id\": \"web\", \"count\": 10, \"workload\": {\"ops\": 100,"
        "   \"loop\": \"open\", \"interval_ms\": {\"dist\": \"const\", \"value\": 500}}}],"
        " \"server\": {\"workers\": 0, \"idempotency\": {\"ttl_ms\": 5000,"
        "   \"cleanup_interval_ms\": 1000}}}";
    Metrics swept = test_run_json(world, NO_SET, MODE_IDEMPOTENT);
    Metrics unswept =
        test_run_json(world, SET("server.idempotency.cleanup_interval_ms=0"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(unswept.key_store_peak, 1000); /* one row per operation, forever */
    const TimeSeries *growth = &unswept.key_store_series;
    for (uint32_t i = 1; i < growth->used; i++)
        ck_assert_uint_ge(growth->max[i], growth->max[i - 1]);
    ck_assert_uint_eq(growth->max[growth->used - 1], 1000);
    const TimeSeries *bounded = &swept.key_store_series;
    ck_assert_uint_lt(bounded->max[bounded->used - 1], 1000 / 4);
    /* 10 clients x one key per 500 ms x a 5 s TTL, plus at most one sweep interval */
    ck_assert_uint_le(swept.key_store_peak, 10 * (5000 + 1000) / 500);
    ck_assert_uint_ge(swept.key_store_peak, 10 * 5000 / 500);
    /* Both serve the clients equally well: the difference is only the storage bill. */
    ck_assert_uint_eq(swept.outcomes[OUTCOME_OK], 1000);
    ck_assert_uint_eq(unswept.outcomes[OUTCOME_OK], 1000);
    /* The modes without a store hold no key at all, whatever the cleanup says. */
    const char *const cleanups[] = {"server.idempotency.cleanup_interval_ms=1000",
                                    "server.idempotency.cleanup_interval_ms=0"};
    for (int c = 0; c < 2; c++) {
        for (int m = 0; m < 2; m++) {
            Metrics keyless = test_run_json(world, SET(cleanups[c]), keyless_modes[m]);
            ck_assert_uint_eq(keyless.operations, 1000);
            ck_assert_uint_eq(keyless.outcomes[OUTCOME_OK], 1000);
            ck_assert_uint_eq(keyless.key_store_peak, 0);
            for (uint32_t i = 0; i < keyless.key_store_series.used; i++)
                ck_assert_uint_eq(keyless.key_store_series.max[i], 0);
        }
    }
}
END_TEST

/* ------------------------------------------------------------------ late answers */

START_TEST(test_late_answer_is_ignored_or_accepted_as_the_retry_policy_says)
{
    const char *slow = "server.service_ms={\"dist\": \"const\", \"value\": 1500}";
    Metrics ignore =
        test_run_json(lost_answer, SET(slow, "network.outages=[]"), MODE_AT_LEAST_ONCE);
    ck_assert_uint_ge(ignore.late_responses_ignored, 1);
    Metrics accept = test_run_json(
        lost_answer,
        SET(slow, "network.outages=[]", "clients[0].retry.late_response=accept",
            "clients[0].retry.backoff.base_ms=2000", "clients[0].retry.backoff.jitter=none"),
        MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(accept.late_responses_ignored, 0);
    ck_assert_uint_eq(accept.attempts, 1); /* the late answer cancelled the scheduled retry */
    ck_assert_uint_eq(accept.outcomes[OUTCOME_OK], 1);
}
END_TEST

/* ------------------------------------------------------------------ closed forms */

START_TEST(test_give_up_time_follows_the_backoff_formula)
{
    /* Every message lost: R attempts, each waits T, with no-jitter backoff b*f^(i-1) capped at
     * m between them; the give-up time is R*T + sum of the backoffs. */
    const double T = 200, b = 100, f = 2, m = 500;
    const int R = 5;
    Metrics metrics = test_run_json(
        lost_answer,
        SET("network.default.loss=1.0", "clients[0].retry.max_attempts=5",
            "clients[0].retry.timeout_ms=200",
            "clients[0].retry.backoff={\"base_ms\": 100, \"factor\": 2, \"max_ms\": 500,"
            " \"jitter\": \"none\"}"),
        MODE_AT_LEAST_ONCE);
    double expected = R * T;
    for (int i = 1; i < R; i++)
        expected += fmin(b * pow(f, i - 1), m);
    double measured = (double)histogram_quantile(&metrics.latency_us, 0.5) / 1000.0;
    ck_assert_msg(fabs(measured - expected) < 1e-6, "gave up after %f ms, expected %f", measured,
                  expected);
}
END_TEST

START_TEST(test_gilbert_elliott_loss_rate_matches_its_stationary_distribution)
{
    /* Stationary P(bad) = p / (p + r); loss = P(good)(1-k) + P(bad)(1-h). Losses are
     * correlated in bursts, so the tolerance uses the effective sample size n(1-λ)/(1+λ),
     * λ = 1 - p - r the chain's autocorrelation. */
    const double p = 0.05, r = 0.25, h = 0.2, k = 0.98;
    Metrics metrics = test_run_json(
        lost_answer,
        SET("network.default.loss={\"model\": \"gilbert-elliott\", \"p\": 0.05, \"r\": 0.25,"
            " \"h\": 0.2, \"k\": 0.98}",
            "network.outages=[]", "clients[0].count=500", "clients[0].workload={\"ops\": 40}",
            "clients[0].retry.max_attempts=1"),
        MODE_AT_MOST_ONCE);
    double bad = p / (p + r);
    double expected = (1 - bad) * (1 - k) + bad * (1 - h);
    double n = (double)metrics.network_sent;
    double lambda = 1 - p - r;
    double effective_n = n * (1 - lambda) / (1 + lambda);
    double measured = metrics.network_dropped / n;
    ck_assert_msg(fabs(measured - expected) < test_binomial_tolerance(expected, effective_n),
                  "loss %f, expected %f (n %f)", measured, expected, n);
}
END_TEST

START_TEST(test_a_required_key_refuses_keyless_requests_with_400)
{
    Metrics metrics =
        test_run_json(lost_answer, SET("clients[0].key=none", "server.idempotency.required=true"),
                      MODE_IDEMPOTENT);
    ck_assert_uint_eq(metrics.status_400, 2); /* the first 400 was lost in the outage */
    ck_assert_uint_eq(metrics.executions, 0);
    ck_assert_uint_eq(metrics.client_failed, 1);
}
END_TEST

START_TEST(test_the_stripe_profile_replays_a_stored_error_whatever_on_failure_says)
{
    Metrics stripe = test_run_json(
        lost_answer, SET("server.fail_after_effect=1.0", "server.idempotency.profile=stripe"),
        MODE_IDEMPOTENT);
    ck_assert_uint_eq(stripe.effects, 1);
    ck_assert_uint_ge(stripe.replayed, 1);
    Metrics ietf = test_run_json(lost_answer, SET("server.fail_after_effect=1.0"), MODE_IDEMPOTENT);
    ck_assert_uint_ge(ietf.effects, 2); /* on_failure delete: the retry runs again */
}
END_TEST

START_TEST(test_business_keys_of_two_client_groups_never_collide)
{
    const char *two_groups =
        "{\"accounts\": [{\"id\": \"a\", \"balance\": 0}],"
        " \"clients\": [{\"id\": \"web\", \"count\": 5, \"key\": \"business-hash\"},"
        "               {\"id\": \"app\", \"count\": 5, \"key\": \"business-hash\"}]}";
    Metrics metrics = test_run_json(two_groups, NO_SET, MODE_IDEMPOTENT);
    ck_assert_uint_eq(metrics.operations, 10);
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_OK], 10);
    ck_assert_uint_eq(metrics.replayed, 0);
}
END_TEST

static Suite *curriculum_suite(void)
{
    Suite *suite = suite_create("curriculum");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_offline_retry_is_replayed_only_while_the_server_remembers_the_key);
    tcase_add_test(core, test_operations_idempotent_by_state_survive_a_retry_and_others_do_not);
    tcase_add_test(core, test_delete_is_idempotent_by_state_but_not_by_response);
    tcase_add_test(core, test_reused_key_without_fingerprint_replays_another_requests_answer);
    tcase_add_test(core, test_a_reused_key_is_harmless_in_the_modes_that_send_no_key);
    tcase_add_test(core,
                   test_duplicate_while_the_first_is_processing_gets_409_or_202_not_a_second_run);
    tcase_add_test(core, test_every_library_scenario_runs_the_three_modes);
    tcase_add_test(core, test_at_most_once_in_the_library_doubles_only_clicks_and_network_copies);
    tcase_add_test(core, test_at_most_once_charges_a_second_click_and_a_network_copy_twice);
    tcase_add_test(core, test_with_nothing_to_retry_at_most_once_and_at_least_once_double_alike);
    tcase_add_test(core, test_partial_failure_repeats_the_effect_unless_the_failure_is_recorded);
    tcase_add_test(core, test_crash_between_charge_and_record_needs_a_keyed_gateway_or_an_outbox);
    tcase_add_test(core, test_gateway_timeout_hides_a_charge_that_happened);
    tcase_add_test(core, test_key_table_grows_without_cleanup_and_stays_bounded_with_it);
    tcase_add_test(core, test_late_answer_is_ignored_or_accepted_as_the_retry_policy_says);
    tcase_add_test(core, test_a_required_key_refuses_keyless_requests_with_400);
    tcase_add_test(core, test_the_stripe_profile_replays_a_stored_error_whatever_on_failure_says);
    tcase_add_test(core, test_business_keys_of_two_client_groups_never_collide);
    suite_add_tcase(suite, core);
    TCase *closed_forms = tcase_create("ClosedForms");
    tcase_add_test(closed_forms, test_give_up_time_follows_the_backoff_formula);
    tcase_add_test(closed_forms,
                   test_gilbert_elliott_loss_rate_matches_its_stationary_distribution);
    suite_add_tcase(suite, closed_forms);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(curriculum_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
