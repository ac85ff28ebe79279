/* The diagrams' shared time axis (src/view/view_timeline.c): a quiet stretch is squeezed,
 * busy stretches keep their scale, positions run monotonically from top to bottom, the
 * squeeze grows in without a jump, and time_at inverts position. */
#include <check.h>
#include <stdlib.h>

#include "view_timeline.h"

#define MS 1000u

static double scale_between(const ViewTimeline *timeline, SimTimeUs a, SimTimeUs b)
{
    return (view_timeline_position(timeline, b) - view_timeline_position(timeline, a)) /
           ((double)(b - a) / (double)timeline->drawn_us);
}

START_TEST(test_a_clock_without_events_is_one_quiet_stretch)
{
    ViewTimeline timeline;
    view_timeline_follow(&timeline, NULL, 0, 5000 * MS, 1200 * MS);
    ck_assert_uint_eq(timeline.from_us, 0);
    ck_assert_int_eq(timeline.quiet_count, 1);
    ck_assert_uint_eq(timeline.quiet[0].from_us, 225 * MS);
    ck_assert_uint_eq(timeline.quiet[0].to_us, 4775 * MS);
    ck_assert_double_eq_tol(view_timeline_position(&timeline, 5000 * MS), 1.0, 1e-9);
}
END_TEST

START_TEST(test_a_busy_clock_keeps_the_plain_window)
{
    SimTimeUs busy[40];
    for (int i = 0; i < 40; i++)
        busy[i] = (SimTimeUs)i * 125 * MS; /* every 125 ms up to 4.875 s */
    ViewTimeline timeline;
    view_timeline_follow(&timeline, busy, 40, 5000 * MS, 1200 * MS);
    ck_assert_uint_eq(timeline.from_us, 3800 * MS);
    ck_assert_int_eq(timeline.quiet_count, 0);
    ck_assert_double_eq_tol(view_timeline_position(&timeline, 3800 * MS), 0.0, 1e-9);
    ck_assert_double_eq_tol(view_timeline_position(&timeline, 4400 * MS), 0.5, 1e-9);
}
END_TEST

START_TEST(test_early_clock_leaves_the_top_empty)
{
    ViewTimeline timeline;
    SimTimeUs busy[] = {0, 100 * MS, 200 * MS};
    view_timeline_follow(&timeline, busy, 3, 300 * MS, 1200 * MS);
    ck_assert_uint_eq(timeline.from_us, 0);
    ck_assert_double_eq_tol(view_timeline_position(&timeline, 0), 0.75, 1e-9);
}
END_TEST

/* The lost answer of C1: requests at once, timeouts at 1.0 s, retries answered by 1.3 s. At
 * 1.4 s with a 1.2 s window the request at 0 and the retry both show, the wait between them
 * squeezed, the busy stretches at the one scale of a plain window. */
START_TEST(test_a_request_and_its_retry_share_the_window)
{
    SimTimeUs busy[] = {1280 * MS, 0, 50 * MS, 100 * MS, 1000 * MS, 1200 * MS, 3000 * MS};
    ViewTimeline timeline;
    view_timeline_follow(&timeline, busy, 7, 1400 * MS, 1200 * MS);
    ck_assert_uint_eq(timeline.from_us, 0);
    ck_assert_int_eq(timeline.quiet_count, 1);
    ck_assert_uint_eq(timeline.quiet[0].from_us, 100 * MS + 225 * MS);
    ck_assert_uint_eq(timeline.quiet[0].to_us, 1000 * MS - 225 * MS);
    ck_assert_double_ge(view_timeline_position(&timeline, 0), 0.0);
    ck_assert_double_eq_tol(scale_between(&timeline, 1000 * MS, 1200 * MS), 1.0, 1e-9);
    ck_assert_double_eq_tol(scale_between(&timeline, 0, 100 * MS), 1.0, 1e-9);
    /* the squeezed stretch is drawn at its fixed height */
    double squeezed = view_timeline_position(&timeline, timeline.quiet[0].to_us) -
                      view_timeline_position(&timeline, timeline.quiet[0].from_us);
    ck_assert_double_eq_tol(squeezed, (double)timeline.squeezed_us / (double)timeline.drawn_us,
                            1e-9);
    ck_assert_ptr_nonnull(view_timeline_quiet_at(&timeline, 500 * MS));
    ck_assert_ptr_null(view_timeline_quiet_at(&timeline, 1100 * MS));
}
END_TEST

START_TEST(test_positions_rise_monotonically_and_time_at_inverts_them)
{
    SimTimeUs busy[] = {0, 20 * MS, 900 * MS, 2500 * MS, 2600 * MS, 7000 * MS, 7010 * MS};
    ViewTimeline timeline;
    view_timeline_follow(&timeline, busy, 7, 9000 * MS, 1200 * MS);
    ck_assert_int_ge(timeline.quiet_count, 2);
    double last = -1e9;
    for (SimTimeUs t = timeline.from_us; t <= 9000 * MS; t += 7 * MS) {
        double position = view_timeline_position(&timeline, t);
        ck_assert_double_gt(position, last);
        last = position;
    }
    for (int i = 0; i <= 100; i++) {
        double position = i / 100.0;
        SimTimeUs t = view_timeline_time_at(&timeline, position);
        if (t >= timeline.from_us)
            ck_assert_double_eq_tol(view_timeline_position(&timeline, t), position, 1e-4);
    }
}
END_TEST

/* A gap just under the squeeze threshold and one just over it draw the events around them
 * almost alike: the squeeze grows in as the clock runs on, the picture does not jump. */
START_TEST(test_the_squeeze_grows_in_without_a_jump)
{
    SimTimeUs window = 1200 * MS, threshold = window * 3 / 8 + window / 16;
    double positions[2];
    for (int side = 0; side < 2; side++) {
        SimTimeUs now = threshold + 300 * MS; /* the stretch before the event stays short */
        SimTimeUs event = side ? now - threshold - 2 * MS : now - threshold + 2 * MS;
        SimTimeUs busy[] = {event, 0};
        ViewTimeline timeline;
        view_timeline_follow(&timeline, busy, 2, now, window);
        ck_assert_int_eq(timeline.quiet_count, side);
        positions[side] = view_timeline_position(&timeline, event);
    }
    ck_assert_double_eq_tol(positions[0], positions[1], 0.01);
}
END_TEST

START_TEST(test_events_after_the_clock_do_not_count)
{
    SimTimeUs busy[] = {100 * MS, 4000 * MS};
    ViewTimeline with_future, without;
    view_timeline_follow(&with_future, busy, 2, 2000 * MS, 1200 * MS);
    view_timeline_follow(&without, busy, 1, 2000 * MS, 1200 * MS);
    ck_assert_uint_eq(with_future.from_us, without.from_us);
    ck_assert_int_eq(with_future.quiet_count, without.quiet_count);
}
END_TEST

START_TEST(test_a_fixed_window_spans_the_strip)
{
    SimTimeUs busy[] = {1000 * MS, 1100 * MS, 4000 * MS};
    ViewTimeline timeline;
    view_timeline_fixed(&timeline, busy, 3, 800 * MS, 4200 * MS);
    ck_assert_uint_eq(timeline.from_us, 800 * MS);
    ck_assert_double_eq_tol(view_timeline_position(&timeline, 800 * MS), 0.0, 1e-6);
    ck_assert_double_eq_tol(view_timeline_position(&timeline, 4200 * MS), 1.0, 1e-9);
    ck_assert_int_eq(timeline.quiet_count, 1); /* 1.1 s to 4.0 s */
    ck_assert_ptr_nonnull(view_timeline_quiet_at(&timeline, 2500 * MS));
}
END_TEST

static Suite *timeline_suite(void)
{
    Suite *suite = suite_create("timeline");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_a_clock_without_events_is_one_quiet_stretch);
    tcase_add_test(tc, test_a_busy_clock_keeps_the_plain_window);
    tcase_add_test(tc, test_early_clock_leaves_the_top_empty);
    tcase_add_test(tc, test_a_request_and_its_retry_share_the_window);
    tcase_add_test(tc, test_positions_rise_monotonically_and_time_at_inverts_them);
    tcase_add_test(tc, test_the_squeeze_grows_in_without_a_jump);
    tcase_add_test(tc, test_events_after_the_clock_do_not_count);
    tcase_add_test(tc, test_a_fixed_window_spans_the_strip);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(timeline_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
