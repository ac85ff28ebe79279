/* The event loop: clock movement, FIFO for "now", run_until boundaries, cancellation of a
 * timer, event limits, and the past-scheduling assert. */
#include <check.h>
#include <signal.h>
#include <stdlib.h>

#include "sim.h"

enum {
    KIND_RECORD,        /* only recorded */
    KIND_SCHEDULE_NOW,  /* recorded, then schedules a KIND_RECORD for now (target + 100) */
    KIND_SEND,          /* client sends: arms a retry timeout */
    KIND_ANSWER,        /* the answer arrives: cancels the timeout */
    KIND_RETRY_TIMEOUT, /* must not fire once answered */
};

#define RECORDED_MAX 64
#define TIMEOUT_US 1000

typedef struct {
    Sim *sim;
    Event events[RECORDED_MAX];
    SimTimeUs now_us[RECORDED_MAX]; /* the clock as the handler saw it */
    int count;
    EventId timeout;
    bool answer_cancelled_timeout;
} Recorder;

static void record(void *context, const Event *event)
{
    Recorder *recorder = context;
    ck_assert_int_lt(recorder->count, RECORDED_MAX);
    recorder->events[recorder->count] = *event;
    recorder->now_us[recorder->count] = sim_now(recorder->sim);
    recorder->count++;
    switch (event->kind) {
    case KIND_SCHEDULE_NOW:
        sim_schedule_in(recorder->sim, 0, KIND_RECORD, event->target + 100, 0);
        break;
    case KIND_SEND:
        recorder->timeout = sim_schedule_in(recorder->sim, TIMEOUT_US, KIND_RETRY_TIMEOUT, 0, 0);
        break;
    case KIND_ANSWER:
        recorder->answer_cancelled_timeout = sim_cancel(recorder->sim, recorder->timeout);
        break;
    default:
        break;
    }
}

static Recorder *recorder_create(void)
{
    Recorder *recorder = calloc(1, sizeof(Recorder));
    recorder->sim = sim_create(record, recorder);
    recorder->timeout = EVENT_ID_NONE;
    return recorder;
}

static void recorder_destroy(Recorder *recorder)
{
    sim_destroy(recorder->sim);
    free(recorder);
}

/* ---------------------------------------------------------------- Core */

START_TEST(test_sim_clock_advances_to_each_event_time)
{
    Recorder *recorder = recorder_create();
    Sim *sim = recorder->sim;
    ck_assert_uint_eq(sim_now(sim), 0);
    sim_schedule_at(sim, 300, KIND_RECORD, 3, 0);
    sim_schedule_at(sim, 100, KIND_RECORD, 1, 0);
    sim_schedule_at(sim, 200, KIND_RECORD, 2, 0);
    ck_assert_uint_eq(sim_pending(sim), 3);
    ck_assert_uint_eq(sim_run(sim, 0), 3);
    ck_assert_int_eq(recorder->count, 3);
    for (int i = 0; i < 3; i++) {
        ck_assert_uint_eq(recorder->events[i].target, (uint32_t)i + 1);
        ck_assert_uint_eq(recorder->now_us[i], 100 * ((SimTimeUs)i + 1));
    }
    ck_assert_uint_eq(sim_now(sim), 300);
    ck_assert_uint_eq(sim_events_processed(sim), 3);
    ck_assert_uint_eq(sim_peak_pending(sim), 3);
    recorder_destroy(recorder);
}
END_TEST

START_TEST(test_sim_event_scheduled_for_now_runs_after_current_one)
{
    Recorder *recorder = recorder_create();
    Sim *sim = recorder->sim;
    sim_schedule_at(sim, 10, KIND_SCHEDULE_NOW, 1, 0);
    sim_schedule_at(sim, 10, KIND_RECORD, 2, 0);
    sim_run(sim, 0);
    ck_assert_int_eq(recorder->count, 3);
    ck_assert_uint_eq(recorder->events[0].target, 1);
    ck_assert_uint_eq(recorder->events[1].target, 2);   /* already queued for 10: first */
    ck_assert_uint_eq(recorder->events[2].target, 101); /* scheduled during 1: last */
    ck_assert_uint_eq(recorder->now_us[2], 10);
    recorder_destroy(recorder);
}
END_TEST

START_TEST(test_sim_schedule_in_adds_delay_to_now)
{
    Recorder *recorder = recorder_create();
    Sim *sim = recorder->sim;
    sim_run_until(sim, 500);
    sim_schedule_in(sim, 25, KIND_RECORD, 0, 0);
    ck_assert_uint_eq(sim_next_time(sim), 525);
    recorder_destroy(recorder);
}
END_TEST

START_TEST(test_sim_run_until_runs_exactly_events_up_to_time_and_sets_clock)
{
    Recorder *recorder = recorder_create();
    Sim *sim = recorder->sim;
    SimTimeUs times_us[] = {10, 20, 30, 30, 31};
    for (int i = 0; i < 5; i++)
        sim_schedule_at(sim, times_us[i], KIND_RECORD, (uint32_t)i, 0);
    ck_assert_uint_eq(sim_run_until(sim, 30), 4);
    ck_assert_uint_eq(sim_now(sim), 30);
    ck_assert_uint_eq(sim_pending(sim), 1);
    ck_assert_uint_eq(sim_next_time(sim), 31);

    ck_assert_uint_eq(sim_run_until(sim, 25), 0); /* an earlier bound never rewinds */
    ck_assert_uint_eq(sim_now(sim), 30);
    ck_assert_uint_eq(sim_run_until(sim, 1000), 1);
    ck_assert_uint_eq(sim_now(sim), 1000); /* idle time still passes */
    recorder_destroy(recorder);
}
END_TEST

/* Send arms a timeout at 0 + TIMEOUT_US; the answer at 300 cancels it. */
START_TEST(test_sim_cancelled_retry_timeout_does_not_fire)
{
    Recorder *recorder = recorder_create();
    Sim *sim = recorder->sim;
    sim_schedule_at(sim, 0, KIND_SEND, 0, 0);
    sim_schedule_at(sim, 300, KIND_ANSWER, 0, 0);
    sim_run(sim, 0);
    ck_assert(recorder->answer_cancelled_timeout);
    ck_assert_int_eq(recorder->count, 2);
    for (int i = 0; i < recorder->count; i++)
        ck_assert_uint_ne(recorder->events[i].kind, KIND_RETRY_TIMEOUT);
    ck_assert_uint_eq(sim_now(sim), 300);
    ck_assert(!sim_cancel(sim, recorder->timeout)); /* already cancelled */
    recorder_destroy(recorder);
}
END_TEST

START_TEST(test_sim_uncancelled_retry_timeout_fires)
{
    Recorder *recorder = recorder_create();
    Sim *sim = recorder->sim;
    sim_schedule_at(sim, 0, KIND_SEND, 0, 0);
    sim_run(sim, 0);
    ck_assert_int_eq(recorder->count, 2);
    ck_assert_uint_eq(recorder->events[1].kind, KIND_RETRY_TIMEOUT);
    ck_assert_uint_eq(recorder->now_us[1], TIMEOUT_US);
    recorder_destroy(recorder);
}
END_TEST

START_TEST(test_sim_run_stops_after_max_events)
{
    Recorder *recorder = recorder_create();
    Sim *sim = recorder->sim;
    for (uint32_t i = 0; i < 10; i++)
        sim_schedule_at(sim, i, KIND_RECORD, i, 0);
    ck_assert_uint_eq(sim_run(sim, 4), 4);
    ck_assert_uint_eq(sim_events_processed(sim), 4);
    ck_assert_uint_eq(sim_now(sim), 3);
    ck_assert_uint_eq(sim_pending(sim), 6);
    ck_assert_uint_eq(sim_run(sim, 100), 6); /* fewer than the limit: stops when empty */
    ck_assert_uint_eq(sim_run(sim, 0), 0);
    recorder_destroy(recorder);
}
END_TEST

START_TEST(test_sim_step_and_next_time_report_an_empty_queue)
{
    Recorder *recorder = recorder_create();
    Sim *sim = recorder->sim;
    ck_assert_uint_eq(sim_next_time(sim), SIM_TIME_NEVER);
    ck_assert(!sim_step(sim));
    EventId id = sim_schedule_at(sim, 5, KIND_RECORD, 0, 0);
    ck_assert(sim_cancel(sim, id));
    ck_assert_uint_eq(sim_next_time(sim), SIM_TIME_NEVER);
    ck_assert(!sim_step(sim));
    ck_assert_uint_eq(sim_now(sim), 0);
    recorder_destroy(recorder);
}
END_TEST

/* ---------------------------------------------------------------- Limits */

START_TEST(test_sim_scheduling_in_the_past_aborts)
{
    Recorder *recorder = recorder_create();
    sim_run_until(recorder->sim, 100);
    sim_schedule_at(recorder->sim, 99, KIND_RECORD, 0, 0);
}
END_TEST

START_TEST(test_sim_schedule_in_past_the_end_of_time_aborts)
{
    Recorder *recorder = recorder_create();
    sim_run_until(recorder->sim, 100);
    sim_schedule_in(recorder->sim, SIM_TIME_NEVER - 50, KIND_RECORD, 0, 0);
}
END_TEST

START_TEST(test_sim_destroy_of_null_is_a_no_op)
{
    sim_destroy(NULL);
}
END_TEST

static Suite *sim_suite(void)
{
    Suite *suite = suite_create("sim");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_sim_clock_advances_to_each_event_time);
    tcase_add_test(core, test_sim_event_scheduled_for_now_runs_after_current_one);
    tcase_add_test(core, test_sim_schedule_in_adds_delay_to_now);
    tcase_add_test(core, test_sim_run_until_runs_exactly_events_up_to_time_and_sets_clock);
    tcase_add_test(core, test_sim_cancelled_retry_timeout_does_not_fire);
    tcase_add_test(core, test_sim_uncancelled_retry_timeout_fires);
    tcase_add_test(core, test_sim_run_stops_after_max_events);
    tcase_add_test(core, test_sim_step_and_next_time_report_an_empty_queue);
    suite_add_tcase(suite, core);

    TCase *limits = tcase_create("Limits");
    tcase_add_test_raise_signal(limits, test_sim_scheduling_in_the_past_aborts, SIGABRT);
    tcase_add_test_raise_signal(limits, test_sim_schedule_in_past_the_end_of_time_aborts, SIGABRT);
    tcase_add_test(limits, test_sim_destroy_of_null_is_a_no_op);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(sim_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
