/* A log consumer's session (session_timeout_ms, Kafka's session.timeout.ms): a crashed
 * instance leaves the group only when its session ends, and the group rebalances then, not
 * at the crash. Meanwhile its partitions are handed to nobody while the other instances go on
 * with theirs; an instance that comes back before then joins a rebalance that waits for the
 * session's end, handing nothing out. The worlds are small and deterministic: no loss,
 * constant delays. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "scenario_inert.h"
#include "test_world.h"
#include "world.h"

/* One client per partition publishes a payment every 10 ms (at 0, 10, ..., 190 ms); every
 * link takes 1 ms and a record takes 4 ms to process: record k of a partition is handed out
 * at 10k + 1 and processed from 10k + 2 to 10k + 6. The first client's first record (its
 * partition is the first instance's) crashes that instance right after its effect, at 6 ms
 * (a forced fault, its delivery's first copy: no other crash); the instance is back 25 ms
 * later, at 31 ms. */
#define LOG_WORLD(instances, clients)                                                              \
    "{\"name\": \"log_session\", \"seed\": 1, \"duration_ms\": 200,"                               \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"                                      \
    " \"services\": ["                                                                             \
    "   {\"id\": \"log\", \"kind\": \"broker\", \"family\": \"log\", \"partitions\": " clients     \
    ", \"commit\": \"after\"},"                                                                    \
    "   {\"id\": \"workers\", \"kind\": \"consumers\", \"consumes\": \"log\","                     \
    "    \"instances\": " instances ", \"key_store\": \"keys\","                                   \
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 4},"                                     \
    "    \"crash\": {\"point\": \"after-effect\", \"prob\": 0.5, \"max_crashes\": 1,"              \
    "               \"restart_ms\": 25}},"                                                         \
    "   {\"id\": \"keys\", \"kind\": \"key_store\", \"lock_timeout_ms\": 5}],"                     \
    " \"clients\": [{\"id\": \"shop\", \"count\": " clients ", \"publishes\": \"log\","            \
    "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"           \
    "   \"workload\": {\"at_ms\": [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130,"     \
    "                          140, 150, 160, 170, 180, 190]}}],"                                  \
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}},"            \
    " \"faults\": [{\"fault\": \"consumer-crash\", \"operation\": 0, \"attempt\": 1,"              \
    "   \"copy\": 258}]}"

#define CRASH_US 6000
#define RESTART_US 31000
#define EVENTS_MAX 256

typedef struct {
    uint32_t commits;
    SimTimeUs committed_at[EVENTS_MAX];
    uint32_t rebalances;
    SimTimeUs rebalanced_at[EVENTS_MAX];
    int64_t replays[EVENTS_MAX];
    uint32_t deliveries;
    SimTimeUs delivered_at[EVENTS_MAX];
    char delivered_to[EVENTS_MAX][16]; /* the instance, "workers#1" */
} LogTimes;

static void note(void *context, const TraceRecord *record)
{
    LogTimes *times = context;
    if (record->event == TRACE_OFFSET_COMMIT && times->commits < EVENTS_MAX)
        times->committed_at[times->commits++] = record->t_us;
    if (record->event == TRACE_REBALANCE && times->rebalances < EVENTS_MAX) {
        times->rebalanced_at[times->rebalances] = record->t_us;
        times->replays[times->rebalances++] = record->value;
    }
    if (record->event == TRACE_TRANSMIT && record->message == MESSAGE_DELIVERY &&
        times->deliveries < EVENTS_MAX) {
        times->delivered_at[times->deliveries] = record->t_us;
        snprintf(times->delivered_to[times->deliveries++], sizeof times->delivered_to[0], "%s",
                 record->peer_name);
    }
}

static LogTimes run_with(const char *json, const char *const *overrides, uint32_t count, Mode mode)
{
    Scenario *scenario = test_load(json, overrides, count);
    LogTimes *times = calloc(1, sizeof *times);
    ck_assert_ptr_nonnull(times);
    World *world = world_create(scenario, mode, scenario->seed,
                                (TraceSink){.write = note, .context = times}, (WorldLimits){0});
    world_run(world);
    world_destroy(world);
    free(scenario);
    LogTimes copy = *times;
    free(times);
    return copy;
}

static LogTimes run_times(const char *json, double session_ms, Mode mode)
{
    char setting[64];
    snprintf(setting, sizeof setting, "services.workers.session_timeout_ms=%g", session_ms);
    const char *const overrides[] = {setting};
    return run_with(json, overrides, 1, mode);
}

static uint32_t deliveries_within(const LogTimes *times, SimTimeUs from_us, SimTimeUs to_us,
                                  const char *to)
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < times->deliveries; i++) {
        bool named = to == NULL || strcmp(times->delivered_to[i], to) == 0;
        count += named && times->delivered_at[i] > from_us && times->delivered_at[i] < to_us;
    }
    return count;
}

/* One instance: without a session the group rebalances at the crash and the instance takes
 * the partition back at its restart; with a session of S ms it rebalances at 6 + S ms, and
 * the same records go back (the dead instance committed nothing in between). Nothing is
 * handed out until both the session is over and the instance is back: a session shorter
 * than the restart ends with nobody to take the partition, a longer one keeps the restarted
 * instance waiting. */
START_TEST(test_one_instance_waits_for_its_session_to_end)
{
    const char *json = LOG_WORLD("1", "1");
    LogTimes at_once = run_times(json, 0, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(at_once.rebalances, 1);
    ck_assert_int_eq(at_once.rebalanced_at[0], CRASH_US);
    ck_assert_uint_gt(deliveries_within(&at_once, CRASH_US, RESTART_US + 1, NULL), 0);
    static const double sessions_ms[] = {20, 50, 100};
    for (size_t i = 0; i < sizeof sessions_ms / sizeof sessions_ms[0]; i++) {
        SimTimeUs end_us = CRASH_US + (SimTimeUs)(sessions_ms[i] * 1000);
        LogTimes times = run_times(json, sessions_ms[i], MODE_AT_LEAST_ONCE);
        ck_assert_uint_eq(times.rebalances, 1);
        ck_assert_int_eq(times.rebalanced_at[0], end_us);
        ck_assert_int_eq(times.replays[0], at_once.replays[0]);
        /* taken again once the session is over and the instance is back */
        SimTimeUs resumed_us = end_us > RESTART_US ? end_us : RESTART_US;
        ck_assert_uint_eq(deliveries_within(&times, CRASH_US, resumed_us, NULL), 0);
        ck_assert_uint_gt(deliveries_within(&times, resumed_us - 1, resumed_us + 1, NULL), 0);
    }
}
END_TEST

/* Two instances, one partition each: the survivor goes on with its own partition until the
 * crashed one comes back (its join starts the rebalance, which waits for the session's end:
 * nothing is handed out then), and after the rebalance both take records again. */
START_TEST(test_the_others_go_on_until_a_rejoin_waits_for_the_session)
{
    const char *json = LOG_WORLD("2", "2");
    SimTimeUs end_us = CRASH_US + 50000;
    LogTimes times = run_times(json, 50, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(times.rebalances, 1);
    ck_assert_int_eq(times.rebalanced_at[0], end_us);
    ck_assert_uint_gt(deliveries_within(&times, CRASH_US, RESTART_US, "workers#2"), 0);
    ck_assert_uint_eq(deliveries_within(&times, CRASH_US, RESTART_US, "workers#1"), 0);
    ck_assert_uint_eq(deliveries_within(&times, RESTART_US, end_us, NULL), 0);
    ck_assert_uint_gt(deliveries_within(&times, end_us - 1, 200000, "workers#1"), 0);
    ck_assert_uint_gt(deliveries_within(&times, end_us - 1, 200000, "workers#2"), 0);
}
END_TEST

/* The wait delays the work, it does not change what happens to it: every record is taken,
 * with the outcomes of the group that rebalanced at once, and the records the wait held back
 * raise the backlog. */
START_TEST(test_the_session_delays_records_without_losing_them)
{
    Scenario *scenario = test_load(LOG_WORLD("2", "2"), NULL, 0);
    const char *const with_session[] = {"services.workers.session_timeout_ms=50"};
    Scenario *waiting = test_load(LOG_WORLD("2", "2"), with_session, 1);
    for (int mode = 0; mode < MODE_COUNT; mode++) {
        Metrics metrics = test_run_mode(waiting, (Mode)mode, waiting->seed);
        Metrics plain = test_run_mode(scenario, (Mode)mode, scenario->seed);
        for (int outcome = 0; outcome < OUTCOME_COUNT; outcome++)
            ck_assert_uint_eq(metrics.outcomes[outcome], plain.outcomes[outcome]);
        double waited = 0, went_on = 0;
        ck_assert(metrics_value(&metrics, "queue_depth_peak", &waited));
        ck_assert(metrics_value(&plain, "queue_depth_peak", &went_on));
        ck_assert_double_gt(waited, went_on);
    }
    free(waiting);
    free(scenario);
}
END_TEST

/* A rebalance's commit waits for the record a member is processing: it finishes it, then
 * commits in its join (onJoinPrepare), whatever the auto-commit interval. Auto-commit every
 * second: the survivor takes both partitions at the crash; at the crashed instance's restart
 * (34 ms) it is processing a record of each, and each is committed as it reports (37 and
 * 41 ms), not at the next tick (1 s), when it may be another owner's to replay. */
START_TEST(test_a_rebalance_commits_the_record_a_member_finishes)
{
    const char *const overrides[] = {"services.log.commit_interval_ms=1000",
                                     "services.workers.crash.restart_ms=28"};
    LogTimes times = run_with(LOG_WORLD("2", "2"), overrides, 2, MODE_AT_LEAST_ONCE);
    uint32_t on_report = 0;
    for (uint32_t i = 0; i < times.commits; i++)
        on_report += times.committed_at[i] > 34000 && times.committed_at[i] < 1000000;
    ck_assert_uint_eq(on_report, 2);
}
END_TEST

/* The same world rebalanced every 33 ms (rebalance_every_ms: the owners lose their partitions
 * without committing): at 33 ms the survivor's two records out go stale, and at the restart
 * (34 ms) they are still out. Their reports are refused (37, 41 ms); the join's commit waits
 * for no record of the new generation, so the records handed out after them are committed at
 * the 1 s tick, not as they report (before the rebalance at 66 ms rewinds them again). */
START_TEST(test_a_stale_record_out_at_a_join_commits_nothing_on_report)
{
    const char *const overrides[] = {"services.log.commit_interval_ms=1000",
                                     "services.log.rebalance_every_ms=33",
                                     "services.workers.crash.restart_ms=28"};
    LogTimes times = run_with(LOG_WORLD("2", "2"), overrides, 3, MODE_AT_LEAST_ONCE);
    ck_assert_uint_ge(times.rebalances, 3);
    ck_assert_int_eq(times.rebalanced_at[1], 33000);
    uint32_t between = 0;
    for (uint32_t i = 0; i < times.commits; i++)
        between += times.committed_at[i] > 33000 && times.committed_at[i] < 66000;
    ck_assert_uint_eq(between, 0);
}
END_TEST

/* Three instances, one partition each, the second and third partitions' records 3 ms after
 * the first's: the first instance crashes at 6 ms, and its rebalance deals the second
 * partition to the third instance while the second instance runs its record (processed 5 to
 * 9 ms, reported at 10), which it commits as it reports. The third instance crashes at 9 ms,
 * after its own record's effect, before that report: the second partition, its own for 3 ms,
 * was never handed to it, so the rebalance replays only the record that died with it, and the
 * second instance's report is not refused (Kafka's member finished the record and committed
 * it in its join, before the first rebalance was over). */
#define NEW_OWNER_WORLD                                                                            \
    "{\"name\": \"log_new_owner\", \"seed\": 1, \"duration_ms\": 60,"                              \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"                                      \
    " \"services\": ["                                                                             \
    "   {\"id\": \"log\", \"kind\": \"broker\", \"family\": \"log\", \"partitions\": 3,"           \
    "    \"commit\": \"after\", \"commit_interval_ms\": 1000},"                                    \
    "   {\"id\": \"workers\", \"kind\": \"consumers\", \"consumes\": \"log\","                     \
    "    \"instances\": 3, \"key_store\": \"keys\","                                               \
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 4},"                                     \
    "    \"crash\": {\"point\": \"after-effect\", \"prob\": 0.5, \"max_crashes\": 1,"              \
    "               \"restart_ms\": 1000}},"                                                       \
    "   {\"id\": \"keys\", \"kind\": \"key_store\", \"lock_timeout_ms\": 5}],"                     \
    " \"clients\": [{\"id\": \"shop\", \"count\": 1, \"publishes\": \"log\","                      \
    "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"           \
    "   \"workload\": {\"at_ms\": [0, 10, 20, 30]}},"                                              \
    "  {\"id\": \"late\", \"count\": 2, \"publishes\": \"log\","                                   \
    "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"           \
    "   \"workload\": {\"at_ms\": [3, 13, 23, 33]}}],"                                             \
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}},"            \
    " \"faults\": [{\"fault\": \"consumer-crash\", \"operation\": 0, \"attempt\": 1,"              \
    "   \"copy\": 258},"                                                                           \
    "  {\"fault\": \"consumer-crash\", \"operation\": 8, \"attempt\": 1, \"copy\": 258}]}"

static void note_refused(void *context, const TraceRecord *record)
{
    *(uint32_t *)context += record->event == TRACE_COMMIT_REFUSED;
}

START_TEST(test_a_new_owners_crash_spares_the_record_a_member_finishes)
{
    LogTimes times = run_times(NEW_OWNER_WORLD, 0, MODE_AT_LEAST_ONCE);
    ck_assert_uint_ge(times.rebalances, 2);
    ck_assert_int_eq(times.rebalanced_at[1], 9000);
    ck_assert_int_eq(times.replays[1], 1); /* the third instance's own record */
    Scenario *scenario = test_load(NEW_OWNER_WORLD, NULL, 0);
    uint32_t refused = 0;
    World *world =
        world_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed,
                     (TraceSink){.write = note_refused, .context = &refused}, (WorldLimits){0});
    world_run(world);
    world_destroy(world);
    free(scenario);
    ck_assert_uint_eq(refused, 0);
}
END_TEST

/* The same world with the first instance back at 8 ms, before the second and third
 * instances' records report (10 ms): its join is a second rebalance while those records still
 * run, at the instances the first rebalance took their partitions from. Each still commits its
 * record as it reports, the first rebalance's commit not undone by the second. */
START_TEST(test_a_second_rebalance_keeps_the_commit_a_member_owes)
{
    const char *const overrides[] = {"services.workers.session_timeout_ms=0",
                                     "services.workers.crash.restart_ms=2",
                                     ("faults=[{\"fault\": \"consumer-crash\", \"operation\": 0,"
                                      " \"attempt\": 1, \"copy\": 258}]")};
    LogTimes times = run_with(NEW_OWNER_WORLD, overrides, 3, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(times.rebalances, 2);
    ck_assert_int_eq(times.rebalanced_at[1], 8000);
    uint32_t on_report = 0;
    for (uint32_t i = 0; i < times.commits; i++)
        on_report += times.committed_at[i] == 10000;
    ck_assert_uint_eq(on_report, 2);
}
END_TEST

/* Three instances, one partition each, committing every second (no auto-commit tick in the
 * run): the first instance crashes at 6 ms as above, the second right after its third
 * record's effect (26 ms), so its partition has two records processed and none committed.
 * The first session ends at 56 ms while the second's is pending: that rebalance waits for it
 * and must not hand the dead second instance's partition, with its uncommitted progress, to
 * the survivor, whose commit would then save what the dead member processed. At 76 ms the
 * second partition goes back to offset 0 and its three records are handed out again. (A
 * group that rebalances at once replays two: at the first crash's rebalance the second
 * instance, a member then, commits its first record as it reports, in its join.) */
#define TWO_CRASHES_WORLD                                                                          \
    "{\"name\": \"log_sessions\", \"seed\": 1, \"duration_ms\": 200,"                              \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"                                      \
    " \"services\": ["                                                                             \
    "   {\"id\": \"log\", \"kind\": \"broker\", \"family\": \"log\", \"partitions\": 3,"           \
    "    \"commit\": \"after\", \"commit_interval_ms\": 1000},"                                    \
    "   {\"id\": \"workers\", \"kind\": \"consumers\", \"consumes\": \"log\","                     \
    "    \"instances\": 3, \"key_store\": \"keys\","                                               \
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 4},"                                     \
    "    \"crash\": {\"point\": \"after-effect\", \"prob\": 0.5, \"max_crashes\": 1,"              \
    "               \"restart_ms\": 1000}},"                                                       \
    "   {\"id\": \"keys\", \"kind\": \"key_store\", \"lock_timeout_ms\": 5}],"                     \
    " \"clients\": [{\"id\": \"shop\", \"count\": 3, \"publishes\": \"log\","                      \
    "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"           \
    "   \"workload\": {\"at_ms\": [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130,"     \
    "                          140, 150, 160, 170, 180, 190]}}],"                                  \
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}},"            \
    " \"faults\": [{\"fault\": \"consumer-crash\", \"operation\": 0, \"attempt\": 1,"              \
    "   \"copy\": 258},"                                                                           \
    "  {\"fault\": \"consumer-crash\", \"operation\": 22, \"attempt\": 1, \"copy\": 258}]}"

START_TEST(test_a_pending_session_keeps_its_partition_from_the_survivors)
{
    LogTimes at_once = run_times(TWO_CRASHES_WORLD, 0, MODE_AT_LEAST_ONCE);
    ck_assert_uint_ge(at_once.rebalances, 2);
    ck_assert_int_eq(at_once.rebalanced_at[1], 26000);
    ck_assert_int_eq(at_once.replays[1], 2);
    LogTimes times = run_times(TWO_CRASHES_WORLD, 50, MODE_AT_LEAST_ONCE);
    /* the rebalance the first session's end starts (56 ms) completes at the second's: one,
     * traced then with the first member's record too, taken back at 56 ms and held since */
    ck_assert_uint_ge(times.rebalances, 1);
    ck_assert_int_eq(times.rebalanced_at[0], 76000);
    ck_assert_int_eq(times.replays[0], 4);
    ck_assert_uint_eq(deliveries_within(&times, 56000, 76000, NULL), 0);
}
END_TEST

/* Two instances, one partition each, the crashed one back only after a second, rebalanced
 * every 33 ms (rebalance_every_ms): the rebalance at 33 ms falls inside the crashed
 * instance's session (6 to 56 ms). Kafka's coordinator waits for every known member to
 * rejoin, the dead one included until its session expires, so that rebalance deals nothing
 * before 56 ms: the survivor gives its partition up without committing (its record out goes
 * stale, 1 replayed) and takes no record meanwhile, and the dead member's partition, with
 * the record it processed and never committed, stays its own until the session's end, whose
 * rebalance takes it back (1 replayed) and deals both partitions to the survivor. */
START_TEST(test_a_periodic_rebalance_waits_for_a_pending_session)
{
    const char *const overrides[] = {"services.workers.session_timeout_ms=50",
                                     "services.log.rebalance_every_ms=33",
                                     "services.workers.crash.restart_ms=1000"};
    LogTimes times = run_with(LOG_WORLD("2", "2"), overrides, 3, MODE_AT_LEAST_ONCE);
    ck_assert_uint_gt(deliveries_within(&times, CRASH_US, 33000, "workers#2"), 0);
    ck_assert_uint_eq(deliveries_within(&times, 33000, 56000, NULL), 0);
    ck_assert_uint_gt(deliveries_within(&times, 55999, 56001, "workers#2"), 1); /* both */
}
END_TEST

/* The same world: the rebalance that starts at 33 ms and the dead member's removal at 56 ms
 * are one rebalance, one generation, which the coordinator completes when the session ends.
 * It is counted and traced once, then, with every record it hands out again: the survivor's
 * stale one (given up at 33 ms) and the dead member's (taken back at 56 ms). */
START_TEST(test_a_periodic_rebalance_that_waits_is_counted_once)
{
    const char *const overrides[] = {"services.workers.session_timeout_ms=50",
                                     "services.log.rebalance_every_ms=33",
                                     "services.workers.crash.restart_ms=1000"};
    LogTimes times = run_with(LOG_WORLD("2", "2"), overrides, 3, MODE_AT_LEAST_ONCE);
    uint32_t before_the_next = 0; /* the next periodic one is at 66 ms */
    for (uint32_t i = 0; i < times.rebalances; i++)
        before_the_next += times.rebalanced_at[i] < 66000;
    ck_assert_uint_eq(before_the_next, 1);
    ck_assert_int_eq(times.rebalanced_at[0], 56000);
    ck_assert_int_eq(times.replays[0], 2);
    ck_assert_int_eq(times.rebalanced_at[1], 66000);
    Metrics run = test_run_json(LOG_WORLD("2", "2"), overrides, 3, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(run.rebalances, times.rebalances);
}
END_TEST

/* One instance with retry topics: its first record's run fails at 6 ms and goes to the
 * first retry topic, due 20 ms later; its second record crashes the instance at 16 ms, which
 * is back at 21 ms, before its session ends at 66 ms. The rejoin's rebalance waits for the
 * session: the retry copy that comes due meanwhile waits with the partitions, as the copies
 * held at the restart do, and goes out at the session's end. */
#define RETRY_WORLD                                                                                \
    "{\"name\": \"log_session_retry\", \"seed\": 1, \"duration_ms\": 200,"                         \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"                                      \
    " \"services\": ["                                                                             \
    "   {\"id\": \"log\", \"kind\": \"broker\", \"family\": \"log\", \"partitions\": 1,"           \
    "    \"commit\": \"after\"},"                                                                  \
    "   {\"id\": \"workers\", \"kind\": \"consumers\", \"consumes\": \"log\", \"key_store\": "     \
    "\"keys\","                                                                                    \
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 4},"                                     \
    "    \"retryable_topic\": {\"attempts\": 3, \"delay_ms\": 20},"                                \
    "    \"crash\": {\"point\": \"after-effect\", \"prob\": 0.5, \"max_crashes\": 1,"              \
    "               \"restart_ms\": 5}},"                                                          \
    "   {\"id\": \"keys\", \"kind\": \"key_store\", \"lock_timeout_ms\": 5}],"                     \
    " \"clients\": [{\"id\": \"shop\", \"count\": 1, \"publishes\": \"log\","                      \
    "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"           \
    "   \"workload\": {\"at_ms\": [0, 10, 20, 30, 40, 50, 60, 70, 80, 90]}}],"                     \
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}},"            \
    " \"faults\": [{\"fault\": \"fail-before-effect\", \"operation\": 0, \"attempt\": 1,"          \
    "   \"copy\": 258},"                                                                           \
    "  {\"fault\": \"consumer-crash\", \"operation\": 1, \"attempt\": 1, \"copy\": 258}]}"

START_TEST(test_a_retry_copy_waits_for_the_rebalance)
{
    LogTimes times = run_times(RETRY_WORLD, 50, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(times.rebalances, 1);
    ck_assert_int_eq(times.rebalanced_at[0], 66000);
    ck_assert_uint_eq(deliveries_within(&times, 16000, 66000, "workers"), 0);
    ck_assert_uint_gt(deliveries_within(&times, 65999, 66001, "workers"), 1); /* both go */
}
END_TEST

/* A member's session is a log's: a queue broker refuses it, with its path; a group that never
 * crashes is warned that it has no effect; show writes it and reads it back. */
START_TEST(test_the_session_is_a_logs_and_is_shown)
{
    const char *const on_a_queue[] = {"services.log.family=\"visibility-timeout\"",
                                      "services.log.partitions=1",
                                      "services.workers.session_timeout_ms=50"};
    test_assert_refused(LOG_WORLD("1", "1"), on_a_queue, 1 + 2, "$.services[1].session_timeout_ms",
                        "expected a broker of family 'log'");
    const char *const session[] = {"services.workers.session_timeout_ms=45000"};
    Scenario *scenario = test_load(LOG_WORLD("1", "1"), session, 1);
    char *shown = NULL;
    Scenario *again = test_show_again(scenario, &shown);
    ck_assert_ptr_nonnull(strstr(shown, "\"session_timeout_ms\": 45000"));
    ck_assert_double_eq(again->broker.consumers.session_timeout_ms, 45000);
    free(again);
    free(shown);
    free(scenario);
    const char *const never[] = {"services.workers.session_timeout_ms=45000",
                                 "services.workers.crash={\"prob\": 0}"};
    scenario = test_load(LOG_WORLD("1", "1"), never, 2);
    LoadErrors *warnings = calloc(1, sizeof *warnings);
    ck_assert_ptr_nonnull(warnings);
    scenario_inert_warnings(scenario, warnings);
    bool warned = false;
    for (uint32_t i = 0; i < warnings->count; i++)
        warned |= strcmp(warnings->items[i].path, "$.services[1].session_timeout_ms") == 0;
    ck_assert(warned);
    free(warnings);
    free(scenario);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("log_session");
    TCase *model = tcase_create("model");
    tcase_add_test(model, test_one_instance_waits_for_its_session_to_end);
    tcase_add_test(model, test_the_others_go_on_until_a_rejoin_waits_for_the_session);
    tcase_add_test(model, test_the_session_delays_records_without_losing_them);
    tcase_add_test(model, test_a_rebalance_commits_the_record_a_member_finishes);
    tcase_add_test(model, test_a_stale_record_out_at_a_join_commits_nothing_on_report);
    tcase_add_test(model, test_a_new_owners_crash_spares_the_record_a_member_finishes);
    tcase_add_test(model, test_a_second_rebalance_keeps_the_commit_a_member_owes);
    tcase_add_test(model, test_a_pending_session_keeps_its_partition_from_the_survivors);
    tcase_add_test(model, test_a_periodic_rebalance_waits_for_a_pending_session);
    tcase_add_test(model, test_a_periodic_rebalance_that_waits_is_counted_once);
    tcase_add_test(model, test_a_retry_copy_waits_for_the_rebalance);
    suite_add_tcase(suite, model);
    TCase *loader = tcase_create("loader");
    tcase_add_test(loader, test_the_session_is_a_logs_and_is_shown);
    suite_add_tcase(suite, loader);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
