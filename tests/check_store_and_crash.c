/* The server's key store across crashes (durable or in memory, each crash point, in every
 * mode), the key's TTL (counted from the reservation or from completion, expired at lookup
 * with no sweep), and the distributions of the retry jitters. Every world is scenario JSON
 * text, as a user would write it. */
#include "test_world.h"

#define SET(...)                                                                                   \
    ((const char *const[]){__VA_ARGS__}),                                                          \
        (uint32_t)(sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))
#define NO_SET NULL, 0

/* ------------------------------------------------------------------ trace helpers */

enum { EVENTS_KEPT_MAX = 64 };

typedef struct {
    SimTimeUs t_us;
    char event[32];
    char detail[32];
    uint32_t attempt;
} KeptEvent;

/* Keeps the server's "reserve" and "replay" records and every "crash", in order. */
typedef struct {
    uint32_t count;
    KeptEvent events[EVENTS_KEPT_MAX];
} ServerEvents;

static void keep_server_event(void *context, const TraceRecord *record)
{
    ServerEvents *kept = context;
    if (record->event != TRACE_RESERVE && record->event != TRACE_REPLAY &&
        record->event != TRACE_CRASH)
        return;
    ck_assert_uint_lt(kept->count, EVENTS_KEPT_MAX);
    KeptEvent *event = &kept->events[kept->count++];
    event->t_us = record->t_us;
    event->attempt = record->attempt;
    const char *detail = trace_detail_text(record);
    snprintf(event->event, sizeof event->event, "%s", trace_event_name(record->event));
    snprintf(event->detail, sizeof event->detail, "%s", detail != NULL ? detail : "");
}

static const KeptEvent *find_event(const ServerEvents *kept, const char *event, const char *detail)
{
    for (uint32_t i = 0; i < kept->count; i++) {
        if (strcmp(kept->events[i].event, event) == 0 &&
            (detail == NULL || strcmp(kept->events[i].detail, detail) == 0))
            return &kept->events[i];
    }
    return NULL;
}

/* Runs the idempotent mode of json with a sink that keeps the server's key events. */
static Metrics run_keeping_server_events(const char *json, const char *const *overrides,
                                         uint32_t override_count, ServerEvents *kept)
{
    Scenario *scenario = test_load(json, overrides, override_count);
    World *world = world_create(scenario, MODE_IDEMPOTENT, scenario->seed,
                                (TraceSink){keep_server_event, kept}, (WorldLimits){0});
    world_run(world);
    ck_assert_msg(world_stop(world).kind == WORLD_STOP_NONE, "run stopped by a budget");
    Metrics metrics = *world_metrics(world);
    world_destroy(world);
    free(scenario);
    return metrics;
}

/* ------------------------------------------------------------------ crashes */

/* One payment of 1500. Its first execution crashes the server at the point named, once;
 * the server is down 500 ms. The client retries 1000 ms after sending (timeout) plus a
 * 100 ms backoff, and 300 ms after a 409.
 *   t = 0 send, 10 arrives (key reserved), 15 execution ends: the crash; 515 restart;
 *   t = 1100 the retry is sent, 1110 it arrives. */
static const char *const crash_world =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 10000}],"
    " \"clients\": [{\"id\": \"web\", \"operation\": {\"kind\": \"debit\", \"amount\": 1500},"
    "   \"workload\": {\"at_ms\": [0]},"
    "   \"retry\": {\"timeout_ms\": 1000, \"max_attempts\": 8, \"conflict_delay_ms\": 300,"
    "             \"backoff\": {\"base_ms\": 100, \"jitter\": \"none\"}}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 10}}},"
    " \"server\": {\"service_ms\": {\"dist\": \"const\", \"value\": 5},"
    "   \"crash\": {\"point\": \"after-completion\", \"prob\": 1.0, \"max_crashes\": 1,"
    "             \"restart_ms\": 500}}}";

/* Rows in the server's key store while it is down after the crash (t = 300 ms), and the
 * metrics of the whole run. */
static Metrics run_idempotent_with_rows_while_down(const char *const *overrides,
                                                   uint32_t override_count, uint64_t *rows_down)
{
    Scenario *scenario = test_load(crash_world, overrides, override_count);
    World *world =
        world_create(scenario, MODE_IDEMPOTENT, scenario->seed, (TraceSink){0}, (WorldLimits){0});
    world_run_until(world, 300000);
    ck_assert_uint_eq(world_metrics(world)->crashes, 1);
    *rows_down = world_key_store_rows(world);
    world_run(world);
    ck_assert_msg(world_stop(world).kind == WORLD_STOP_NONE, "run stopped by a budget");
    Metrics metrics = *world_metrics(world);
    world_destroy(world);
    free(scenario);
    return metrics;
}

START_TEST(test_durable_store_replays_a_retry_after_a_crash_and_an_in_memory_one_charges_again)
{
    uint64_t rows_durable = 0, rows_in_memory = 0;
    Metrics durable = run_idempotent_with_rows_while_down(NO_SET, &rows_durable);
    Metrics in_memory = run_idempotent_with_rows_while_down(SET("server.idempotency.durable=false"),
                                                            &rows_in_memory);

    /* The key row was completed before the crash: a durable store still holds it. */
    ck_assert_uint_eq(rows_durable, 1);
    ck_assert_uint_eq(durable.crashes, 1);
    ck_assert_uint_eq(durable.attempts, 2);
    ck_assert_uint_eq(durable.executions, 1);
    ck_assert_uint_eq(durable.replayed, 1);
    ck_assert_uint_eq(durable.outcomes[OUTCOME_OK], 1);
    ck_assert_uint_eq(durable.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_int_eq(durable.balances[0].actual, 10000 - 1500);

    /* An in-memory store restarts empty: the retry is a new payment. */
    ck_assert_uint_eq(rows_in_memory, 0);
    ck_assert_uint_eq(in_memory.crashes, 1);
    ck_assert_uint_eq(in_memory.attempts, 2);
    ck_assert_uint_eq(in_memory.executions, 2);
    ck_assert_uint_eq(in_memory.replayed, 0);
    ck_assert_uint_eq(in_memory.outcomes[OUTCOME_DOUBLE], 1);
    ck_assert_int_eq(in_memory.double_amount, 1500);
    ck_assert_int_eq(in_memory.balances[0].actual, 10000 - 3000);
}
END_TEST

START_TEST(test_an_in_memory_store_also_forgets_a_processing_row_a_crash_left)
{
    /* after-effect: charged, key still processing. Durable, the row outlives the crash and
     * (no lock timeout) every retry is refused 409: no second charge, the client never
     * learns. In memory, the row is gone and the retry charges again. */
    const char *after_effect = "server.crash.point=after-effect";
    ServerEvents kept = {0};
    Metrics durable = run_keeping_server_events(crash_world, SET(after_effect), &kept);
    ck_assert_uint_eq(durable.effects, 1);
    ck_assert_uint_eq(durable.status_409, 7); /* attempts 2..8 */
    ck_assert_uint_eq(durable.client_unknown, 1);
    ck_assert_uint_eq(durable.outcomes[OUTCOME_PHANTOM], 1);
    ck_assert_uint_eq(kept.count, 2); /* the one reservation and the crash */

    Metrics in_memory = test_run_json(
        crash_world, SET(after_effect, "server.idempotency.durable=false"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(in_memory.status_409, 0);
    ck_assert_uint_eq(in_memory.effects, 2);
    ck_assert_uint_eq(in_memory.outcomes[OUTCOME_DOUBLE], 1);
}
END_TEST

START_TEST(test_crash_after_completion_hides_the_answer_and_only_a_key_saves_the_retry)
{
    /* The charge and the key row are committed; only the answer is lost with the process. */
    Metrics at_most_once = test_run_json(crash_world, NO_SET, MODE_AT_MOST_ONCE);
    Metrics at_least_once = test_run_json(crash_world, NO_SET, MODE_AT_LEAST_ONCE);
    Metrics idempotent = test_run_json(crash_world, NO_SET, MODE_IDEMPOTENT);

    ck_assert_uint_eq(at_most_once.crashes, 1);
    ck_assert_uint_eq(at_most_once.attempts, 1);
    ck_assert_uint_eq(at_most_once.effects, 1);
    ck_assert_uint_eq(at_most_once.client_unknown, 1);
    ck_assert_uint_eq(at_most_once.outcomes[OUTCOME_PHANTOM], 1); /* charged, never told */

    ck_assert_uint_eq(at_least_once.crashes, 1);
    ck_assert_uint_eq(at_least_once.attempts, 2);
    ck_assert_uint_eq(at_least_once.effects, 2);
    ck_assert_uint_eq(at_least_once.outcomes[OUTCOME_DOUBLE], 1);
    ck_assert_int_eq(at_least_once.balances[0].actual, 10000 - 3000);

    ck_assert_uint_eq(idempotent.crashes, 1);
    ck_assert_uint_eq(idempotent.attempts, 2);
    ck_assert_uint_eq(idempotent.effects, 1);
    ck_assert_uint_eq(idempotent.replayed, 1);
    ck_assert_uint_eq(idempotent.outcomes[OUTCOME_OK], 1);
    ck_assert_int_eq(idempotent.balances[0].actual, 10000 - 1500);
}
END_TEST

START_TEST(test_crash_before_the_effect_loses_nothing_a_retry_cannot_redo)
{
    const char *before = "server.crash.point=before-effect";
    Metrics at_most_once = test_run_json(crash_world, SET(before), MODE_AT_MOST_ONCE);
    Metrics at_least_once = test_run_json(crash_world, SET(before), MODE_AT_LEAST_ONCE);

    /* No retry: the request died with the process, nothing was charged. */
    ck_assert_uint_eq(at_most_once.crashes, 1);
    ck_assert_uint_eq(at_most_once.effects, 0);
    ck_assert_uint_eq(at_most_once.client_unknown, 1);
    ck_assert_uint_eq(at_most_once.outcomes[OUTCOME_LOST], 1);
    ck_assert_int_eq(at_most_once.balances[0].actual, 10000);

    /* The retry is the first charge: one effect, no double, even without a key. */
    ck_assert_uint_eq(at_least_once.crashes, 1);
    ck_assert_uint_eq(at_least_once.attempts, 2);
    ck_assert_uint_eq(at_least_once.effects, 1);
    ck_assert_uint_eq(at_least_once.outcomes[OUTCOME_OK], 1);
    ck_assert_int_eq(at_least_once.balances[0].actual, 10000 - 1500);
}
END_TEST

START_TEST(test_crash_before_the_effect_leaves_a_processing_key_taken_over_after_the_lock_timeout)
{
    const char *before = "server.crash.point=before-effect";

    /* A durable store keeps the reservation the crash abandoned: without a lock timeout it
     * answers 409 to every retry and the payment never happens. */
    Metrics stuck = test_run_json(crash_world, SET(before), MODE_IDEMPOTENT);
    ck_assert_uint_eq(stuck.effects, 0);
    ck_assert_uint_eq(stuck.attempts, 8);
    ck_assert_uint_eq(stuck.status_409, 7);
    ck_assert_uint_eq(stuck.client_unknown, 1);
    ck_assert_uint_eq(stuck.outcomes[OUTCOME_LOST], 1);

    /* With a lock timeout of 2000 ms, the first request arriving 2000 ms or more after the
     * reservation (t = 10 ms) takes the key over and charges once. The retries arrive at
     * 1110, 1430, 1750 (409 each) and 2070 ms. */
    ServerEvents kept = {0};
    Metrics recovered = run_keeping_server_events(
        crash_world, SET(before, "server.idempotency.lock_timeout_ms=2000"), &kept);
    ck_assert_uint_eq(recovered.effects, 1);
    ck_assert_uint_eq(recovered.status_409, 3);
    ck_assert_uint_eq(recovered.attempts, 5);
    ck_assert_uint_eq(recovered.outcomes[OUTCOME_OK], 1);
    ck_assert_int_eq(recovered.balances[0].actual, 10000 - 1500);
    const KeptEvent *first = find_event(&kept, "reserve", "new");
    const KeptEvent *takeover = find_event(&kept, "reserve", "takeover");
    ck_assert_ptr_nonnull(first);
    ck_assert_ptr_nonnull(takeover);
    ck_assert_uint_eq(first->t_us, 10000);
    ck_assert_uint_ge(takeover->t_us, first->t_us + 2000000);
    ck_assert_uint_eq(takeover->t_us, 2070000);
    ck_assert_uint_eq(takeover->attempt, 5);

    /* An in-memory store lost the reservation with the crash: the first retry charges. */
    Metrics in_memory = test_run_json(crash_world, SET(before, "server.idempotency.durable=false"),
                                      MODE_IDEMPOTENT);
    ck_assert_uint_eq(in_memory.status_409, 0);
    ck_assert_uint_eq(in_memory.attempts, 2);
    ck_assert_uint_eq(in_memory.effects, 1);
    ck_assert_uint_eq(in_memory.outcomes[OUTCOME_OK], 1);
}
END_TEST

/* ------------------------------------------------------------------ TTL */

/* One payment whose answer is lost in an outage; its retry reaches the server late.
 *   t = 10 the key is reserved; t = 10 + service the execution completes;
 *   t = 1000 timeout, backoff 200: the retry is sent at 1200 and arrives at 1210. */
static const char *const late_retry_world =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 10000}],"
    " \"clients\": [{\"id\": \"web\", \"workload\": {\"at_ms\": [0]},"
    "   \"retry\": {\"timeout_ms\": 1000, \"max_attempts\": 3,"
    "             \"backoff\": {\"base_ms\": 200, \"jitter\": \"none\"}}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 10}},"
    "   \"outages\": [{\"from_ms\": 0, \"to_ms\": 600, \"link\": \"server->web\"}]},"
    " \"server\": {\"service_ms\": {\"dist\": \"const\", \"value\": 5},"
    "   \"idempotency\": {\"ttl_ms\": 1000, \"cleanup_interval_ms\": 0}}}";

START_TEST(test_ttl_from_completion_outlives_a_retry_that_the_ttl_from_reservation_does_not)
{
    /* Service 500 ms: reserved at 10, completed at 510. A TTL of 1000 ms from the
     * reservation ends at 1010, from completion at 1510; the retry arrives at 1210. */
    const char *slow = "server.service_ms={\"dist\": \"const\", \"value\": 500}";
    ServerEvents from_reservation_events = {0}, from_completion_events = {0};
    Metrics from_reservation = run_keeping_server_events(
        late_retry_world, SET(slow, "server.idempotency.ttl_from=reservation"),
        &from_reservation_events);
    Metrics from_completion = run_keeping_server_events(
        late_retry_world, SET(slow, "server.idempotency.ttl_from=completion"),
        &from_completion_events);

    ck_assert_uint_eq(from_reservation.attempts, 2);
    ck_assert_uint_eq(from_reservation.executions, 2);
    ck_assert_uint_eq(from_reservation.replayed, 0);
    ck_assert_uint_eq(from_reservation.outcomes[OUTCOME_DOUBLE], 1);
    const KeptEvent *expired = find_event(&from_reservation_events, "reserve", "expired");
    ck_assert_ptr_nonnull(expired);
    ck_assert_uint_eq(expired->t_us, 1210000);

    ck_assert_uint_eq(from_completion.attempts, 2);
    ck_assert_uint_eq(from_completion.executions, 1);
    ck_assert_uint_eq(from_completion.replayed, 1);
    ck_assert_uint_eq(from_completion.outcomes[OUTCOME_OK], 1);
    ck_assert_ptr_null(find_event(&from_completion_events, "reserve", "expired"));
    ck_assert_ptr_nonnull(find_event(&from_completion_events, "replay", NULL));

    /* The default is the reservation. */
    Metrics by_default = test_run_json(late_retry_world, SET(slow), MODE_IDEMPOTENT);
    ck_assert_uint_eq(by_default.outcomes[OUTCOME_DOUBLE], 1);
}
END_TEST

/* A key whose TTL runs out while its own request is still executing: completing it must not
 * give the key a new life, unless the TTL counts from completion. Reserved at 10, expired
 * at 1510, completed at 2010; the answer is lost in the outage; the retry arrives at 3210. */
START_TEST(test_a_key_that_expires_while_its_request_runs_stays_expired_after_completion)
{
    const char *long_run[] = {"server.service_ms={\"dist\": \"const\", \"value\": 2000}",
                              "server.idempotency.ttl_ms=1500", "clients[0].retry.timeout_ms=3000",
                              "network.outages[0].to_ms=2100"};
    Metrics from_reservation = test_run_json(late_retry_world, long_run, 4, MODE_IDEMPOTENT);
    ck_assert_uint_eq(from_reservation.executions, 2);
    ck_assert_uint_eq(from_reservation.replayed, 0);
    ck_assert_uint_eq(from_reservation.outcomes[OUTCOME_DOUBLE], 1);
    const char *from_completion_too[] = {long_run[0], long_run[1], long_run[2], long_run[3],
                                         "server.idempotency.ttl_from=completion"};
    Metrics from_completion =
        test_run_json(late_retry_world, from_completion_too, 5, MODE_IDEMPOTENT);
    ck_assert_uint_eq(from_completion.executions, 1);
    ck_assert_uint_eq(from_completion.replayed, 1);
    ck_assert_uint_eq(from_completion.outcomes[OUTCOME_OK], 1);
}
END_TEST

typedef struct {
    uint32_t rows;
    uint32_t expired;
    SimTimeUs now_us;
} RowCount;

static void count_row(void *context, const KeyRow *row)
{
    RowCount *count = context;
    count->rows++;
    count->expired += row->expires_us <= count->now_us;
}

START_TEST(test_a_key_past_its_ttl_counts_as_absent_at_lookup_although_never_swept)
{
    /* No sweep (cleanup_interval_ms 0): the row reserved at 10 ms and expired at 1010 ms is
     * still in the table when the retry arrives at 1210 ms, and the retry executes again. */
    Scenario *scenario = test_load(late_retry_world, NO_SET);
    ServerEvents kept = {0};
    World *world = world_create(scenario, MODE_IDEMPOTENT, scenario->seed,
                                (TraceSink){keep_server_event, &kept}, (WorldLimits){0});
    world_run_until(world, 1200000);
    RowCount before_retry = {.now_us = world_now(world)};
    world_visit_key_rows(world, count_row, &before_retry);
    ck_assert_uint_eq(world_key_store_rows(world), 1);
    ck_assert_uint_eq(before_retry.rows, 1);
    ck_assert_uint_eq(before_retry.expired, 1);
    ck_assert_uint_eq(world_metrics(world)->executions, 1);
    world_run(world);
    const Metrics *metrics = world_metrics(world);
    ck_assert_uint_eq(metrics->executions, 2);
    ck_assert_uint_eq(metrics->replayed, 0);
    ck_assert_uint_eq(metrics->outcomes[OUTCOME_DOUBLE], 1);
    ck_assert_uint_eq(metrics->key_store_peak, 1); /* the retry's reservation replaced it */
    const KeptEvent *expired = find_event(&kept, "reserve", "expired");
    ck_assert_ptr_nonnull(expired);
    ck_assert_uint_eq(expired->t_us, 1210000);
    world_destroy(world);
    free(scenario);

    /* The same world with a TTL that covers the retry, or none: replayed. */
    Metrics longer =
        test_run_json(late_retry_world, SET("server.idempotency.ttl_ms=1300"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(longer.replayed, 1);
    ck_assert_uint_eq(longer.outcomes[OUTCOME_OK], 1);
    Metrics forever =
        test_run_json(late_retry_world, SET("server.idempotency.ttl_ms=0"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(forever.replayed, 1);
    ck_assert_uint_eq(forever.outcomes[OUTCOME_OK], 1);
}
END_TEST

/* ------------------------------------------------------------------ retry jitter */

/* 2000 clients each send one payment at t = 0 into a network that loses every message:
 * every attempt times out after T = 100 ms and is retried after its backoff, so the wait
 * before retry k is  t(send of attempt k+1) - t(send of attempt k) - T. */
enum { JITTER_OPERATIONS = 2000, JITTER_RETRIES = 4 };

static const char *const jitter_world_format =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 0}],"
    " \"clients\": [{\"id\": \"web\", \"count\": 2000, \"workload\": {\"at_ms\": [0]},"
    "   \"retry\": {\"timeout_ms\": 100, \"max_attempts\": 5,"
    "             \"backoff\": {\"base_ms\": 100, \"factor\": 2, \"max_ms\": %g,"
    "                          \"jitter\": \"%s\"}}}],"
    " \"network\": {\"default\": {\"loss\": 1.0}}}";

typedef struct {
    SimTimeUs last_send_us[JITTER_OPERATIONS];
    double wait_ms[JITTER_OPERATIONS][JITTER_RETRIES]; /* [operation][retry - 1] */
    uint32_t waits;
} RetryWaits;

static void record_wait(void *context, const TraceRecord *record)
{
    RetryWaits *waits = context;
    bool first = record->event == TRACE_SEND;
    if (!first && record->event != TRACE_RETRY)
        return;
    ck_assert_uint_lt(record->operation, JITTER_OPERATIONS);
    if (!first) {
        ck_assert_uint_ge(record->attempt, 2);
        ck_assert_uint_le(record->attempt, JITTER_RETRIES + 1);
        SimTimeUs since = record->t_us - waits->last_send_us[record->operation];
        ck_assert_uint_ge(since, 100000);
        waits->wait_ms[record->operation][record->attempt - 2] = (double)(since - 100000) / 1000.0;
        waits->waits++;
    }
    waits->last_send_us[record->operation] = record->t_us;
}

static RetryWaits *measure_waits(const char *jitter, double max_ms)
{
    char json[2048];
    snprintf(json, sizeof json, jitter_world_format, max_ms, jitter);
    Scenario *scenario = test_load(json, NO_SET);
    RetryWaits *waits = calloc(1, sizeof *waits);
    World *world = world_create(scenario, MODE_AT_LEAST_ONCE, 21, (TraceSink){record_wait, waits},
                                (WorldLimits){0});
    world_run(world);
    ck_assert_msg(world_stop(world).kind == WORLD_STOP_NONE, "run stopped by a budget");
    ck_assert_uint_eq(world_metrics(world)->client_unknown, JITTER_OPERATIONS);
    world_destroy(world);
    free(scenario);
    ck_assert_uint_eq(waits->waits, JITTER_OPERATIONS * JITTER_RETRIES);
    return waits;
}

/* The capped exponential before retry k (1-based): min(base * factor^(k-1), max). */
static double ceiling_ms(int retry, double max_ms)
{
    return fmin(100.0 * pow(2.0, retry - 1), max_ms);
}

/* u values that should be U[0, 1): each quarter of [0, 1) holds a quarter of them. */
static void assert_uniform_quarters(const double *u, uint32_t n, const char *what)
{
    uint32_t quarters[4] = {0};
    for (uint32_t i = 0; i < n; i++) {
        ck_assert_msg(u[i] >= 0.0 && u[i] < 1.0, "%s: u %f outside [0, 1)", what, u[i]);
        quarters[(int)(u[i] * 4.0)]++;
    }
    for (int q = 0; q < 4; q++) {
        double share = quarters[q] / (double)n;
        ck_assert_msg(fabs(share - 0.25) < test_binomial_tolerance(0.25, n),
                      "%s: quarter %d holds %f of the waits", what, q, share);
    }
}

/* For none, full and equal: wait = low + width * U[0, 1), with low and width fractions of
 * the ceiling c. Checks every wait's bounds, each retry's mean against low + width / 2
 * (standard deviation width * c / sqrt(12)), and the shape over all retries. */
static void assert_ceiling_jitter(const char *jitter, double low, double width, double max_ms)
{
    RetryWaits *waits = measure_waits(jitter, max_ms);
    double *u = calloc(JITTER_OPERATIONS * JITTER_RETRIES, sizeof *u);
    uint32_t n_u = 0;
    for (int k = 1; k <= JITTER_RETRIES; k++) {
        double c = ceiling_ms(k, max_ms);
        double sum = 0;
        for (uint32_t op = 0; op < JITTER_OPERATIONS; op++) {
            double wait = waits->wait_ms[op][k - 1];
            sum += wait;
            if (width == 0) {
                ck_assert_msg(fabs(wait - low * c) < 1e-9, "%s retry %d: wait %f, expected %f",
                              jitter, k, wait, low * c);
            } else {
                ck_assert_msg(wait >= low * c - 1e-3 && wait <= (low + width) * c + 1e-3,
                              "%s retry %d: wait %f outside [%f, %f)", jitter, k, wait, low * c,
                              (low + width) * c);
                u[n_u++] = fmin((wait - low * c) / (width * c), 1.0 - 1e-12);
            }
        }
        double mean = sum / JITTER_OPERATIONS;
        double expected = (low + width / 2) * c;
        double tolerance = 5.0 * width * c / sqrt(12.0) / sqrt(JITTER_OPERATIONS) + 1e-9;
        ck_assert_msg(fabs(mean - expected) <= tolerance,
                      "%s retry %d: mean wait %f ms, expected %f +- %f", jitter, k, mean, expected,
                      tolerance);
    }
    if (width > 0)
        assert_uniform_quarters(u, n_u, jitter);
    free(u);
    free(waits);
}

START_TEST(test_no_jitter_waits_exactly_the_capped_exponential)
{
    assert_ceiling_jitter("none", 1.0, 0.0, 500); /* 100, 200, 400, 500 */
}
END_TEST

START_TEST(test_full_jitter_waits_uniformly_between_zero_and_the_ceiling)
{
    assert_ceiling_jitter("full", 0.0, 1.0, 500); /* means 50, 100, 200, 250 */
}
END_TEST

START_TEST(test_equal_jitter_waits_uniformly_in_the_upper_half_of_the_ceiling)
{
    assert_ceiling_jitter("equal", 0.5, 0.5, 500); /* means 75, 150, 300, 375 */
}
END_TEST

START_TEST(test_decorrelated_jitter_draws_each_wait_from_three_times_the_previous)
{
    /* AWS's decorrelated jitter: w_k = min(max, U[base, 3 w_{k-1})), w_0 = base. With a cap
     * out of reach (3^4 * 100 < 10^5), w_k = b + (3 w_{k-1} - b) U, so
     *   E[w_k] = b/2 + 3/2 E[w_{k-1}],
     *   E[w_k^2] = b^2 + b (3 E[w_{k-1}] - b) + E[(3 w_{k-1} - b)^2] / 3,
     * and (w_k - b) / (3 w_{k-1} - b) is U[0, 1) whatever w_{k-1} was. */
    const double b = 100.0;
    RetryWaits *waits = measure_waits("decorrelated", 100000);
    double *u = calloc(JITTER_OPERATIONS * JITTER_RETRIES, sizeof *u);
    uint32_t n_u = 0;
    double m1 = b, m2 = b * b; /* moments of w_0 */
    for (int k = 1; k <= JITTER_RETRIES; k++) {
        double sum = 0;
        for (uint32_t op = 0; op < JITTER_OPERATIONS; op++) {
            double previous = k == 1 ? b : waits->wait_ms[op][k - 2];
            double wait = waits->wait_ms[op][k - 1];
            ck_assert_msg(wait >= b - 1e-3 && wait <= 3 * previous + 1e-3,
                          "retry %d: wait %f outside [%f, %f)", k, wait, b, 3 * previous);
            u[n_u++] = fmin(fmax((wait - b) / (3 * previous - b), 0.0), 1.0 - 1e-12);
            sum += wait;
        }
        double next_m1 = b / 2 + 1.5 * m1;
        double next_m2 = b * b + b * (3 * m1 - b) + (9 * m2 - 6 * b * m1 + b * b) / 3;
        m1 = next_m1;
        m2 = next_m2;
        double mean = sum / JITTER_OPERATIONS;
        double tolerance = 5.0 * sqrt(m2 - m1 * m1) / sqrt(JITTER_OPERATIONS);
        ck_assert_msg(fabs(mean - m1) < tolerance, "retry %d: mean wait %f ms, expected %f +- %f",
                      k, mean, m1, tolerance);
    }
    assert_uniform_quarters(u, n_u, "decorrelated");
    free(u);
    free(waits);

    /* With max 250, the first wait U[100, 300) is cut to 250 a quarter of the time, and no
     * wait ever passes the cap. */
    waits = measure_waits("decorrelated", 250);
    uint32_t capped = 0;
    for (uint32_t op = 0; op < JITTER_OPERATIONS; op++) {
        for (int k = 0; k < JITTER_RETRIES; k++)
            ck_assert_msg(waits->wait_ms[op][k] <= 250 + 1e-9, "wait %f past the cap",
                          waits->wait_ms[op][k]);
        capped += fabs(waits->wait_ms[op][0] - 250) < 1e-9;
    }
    double share = capped / (double)JITTER_OPERATIONS;
    ck_assert_msg(fabs(share - 0.25) < test_binomial_tolerance(0.25, JITTER_OPERATIONS),
                  "first wait capped %f of the time, expected 0.25", share);
    free(waits);
}
END_TEST

/* ------------------------------------------------------------------ memory */

/* The outbox of 11_outbox over a long day: charges relayed, some crashes (the relays resume
 * after each restart), keys short-lived. Ten times as many payments take about the same
 * memory: an entry's slot is reused once its payment has settled. */
static uint64_t outbox_memory_after(uint32_t operations_per_client)
{
    char workload[160];
    snprintf(workload, sizeof workload,
             "clients[0].workload={\"ops\": %u, \"interval_ms\": {\"dist\": \"exp\", "
             "\"mean\": 1000}}",
             operations_per_client);
    const char *overrides[] = {workload,
                               "duration_ms=100000000",
                               "server.crash.max_crashes=20",
                               "server.crash.prob=0.01",
                               "server.idempotency.ttl_ms=10000",
                               "server.idempotency.cleanup_interval_ms=5000",
                               "gateway.honours_key=false"};
    Scenario *scenario = test_load_source_file("scenarios/11_outbox.json", overrides, 7);
    Metrics metrics;
    uint64_t bytes = test_memory_after_run(scenario, MODE_IDEMPOTENT, scenario->seed, &metrics);
    ck_assert_uint_eq(metrics.operations, 10 * operations_per_client);
    ck_assert_uint_gt(metrics.crashes, 1);
    free(scenario);
    return bytes;
}

START_TEST(test_outbox_memory_follows_the_charges_in_progress)
{
    uint64_t few = outbox_memory_after(100);   /* 1,000 payments */
    uint64_t many = outbox_memory_after(1000); /* 10,000 payments */
    ck_assert_msg(many < few + few / 2, "%llu bytes for 10,000 payments, %llu for 1,000",
                  (unsigned long long)many, (unsigned long long)few);
}
END_TEST

/* Issue 24: a relay answered with a charge writes the receipt to the outbox, which grows the
 * outbox the relay's own entry lives in; the receipt was built from the entry after the move
 * (a use-after-free that crashed most seeds, and changed results between builds). 200 clients
 * make the outbox pass its first 64 slots; debug builds move the array on every growth, so a
 * stale read aborts there (the sanitizer build names it). */
static Metrics receipts_outbox_run(Mode mode)
{
    const char *overrides[] = {"server.use_gateway=true", "server.outbox=true",
                               "server.receipts_via=\"outbox\"", "clients[0].count=200"};
    Scenario *scenario = test_load_source_file("scenarios/11_receipts_outbox.json", overrides, 4);
    Metrics metrics = test_run_mode(scenario, mode, scenario->seed);
    free(scenario);
    return metrics;
}

START_TEST(test_receipts_through_a_growing_outbox_are_written_once_per_charge)
{
    Metrics keyed = receipts_outbox_run(MODE_IDEMPOTENT);
    ck_assert_uint_eq(keyed.operations, 1000);
    ck_assert_uint_eq(keyed.receipts_sent, 1000);
    ck_assert_uint_eq(keyed.receipts_duplicated, 0);
    ck_assert_uint_eq(keyed.receipts_missing, 0);
    ck_assert_uint_eq(keyed.receipts_orphaned, 0);
    Metrics again = receipts_outbox_run(MODE_IDEMPOTENT);
    ck_assert_uint_eq(again.receipts_sent, keyed.receipts_sent);
    ck_assert_uint_eq(again.executions, keyed.executions);
    Metrics retried = receipts_outbox_run(MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(retried.receipts_orphaned, 0); /* written with the commit only */
    ck_assert_uint_gt(retried.receipts_sent, 0);
}
END_TEST

static Suite *store_and_crash_suite(void)
{
    Suite *suite = suite_create("store_and_crash");
    TCase *core = tcase_create("Core");
    tcase_add_test(
        core, test_durable_store_replays_a_retry_after_a_crash_and_an_in_memory_one_charges_again);
    tcase_add_test(core, test_an_in_memory_store_also_forgets_a_processing_row_a_crash_left);
    tcase_add_test(core,
                   test_crash_after_completion_hides_the_answer_and_only_a_key_saves_the_retry);
    tcase_add_test(core, test_crash_before_the_effect_loses_nothing_a_retry_cannot_redo);
    tcase_add_test(
        core,
        test_crash_before_the_effect_leaves_a_processing_key_taken_over_after_the_lock_timeout);
    tcase_add_test(
        core, test_ttl_from_completion_outlives_a_retry_that_the_ttl_from_reservation_does_not);
    tcase_add_test(core, test_a_key_past_its_ttl_counts_as_absent_at_lookup_although_never_swept);
    tcase_add_test(core,
                   test_a_key_that_expires_while_its_request_runs_stays_expired_after_completion);
    suite_add_tcase(suite, core);
    TCase *jitter = tcase_create("Jitter");
    tcase_add_test(jitter, test_no_jitter_waits_exactly_the_capped_exponential);
    tcase_add_test(jitter, test_full_jitter_waits_uniformly_between_zero_and_the_ceiling);
    tcase_add_test(jitter, test_equal_jitter_waits_uniformly_in_the_upper_half_of_the_ceiling);
    tcase_add_test(jitter, test_decorrelated_jitter_draws_each_wait_from_three_times_the_previous);
    suite_add_tcase(suite, jitter);
    TCase *memory = tcase_create("Memory");
    tcase_add_test(memory, test_outbox_memory_follows_the_charges_in_progress);
    tcase_add_test(memory, test_receipts_through_a_growing_outbox_are_written_once_per_charge);
    suite_add_tcase(suite, memory);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(store_and_crash_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
