/* Event queue: ordering by (at_us, seq), FIFO ties, cancellation with stale ids, growth,
 * and a randomised comparison against a sorted-array reference. */
#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "event_queue.h"
#include "rng.h"

static Event pop_or_die(EventQueue *queue)
{
    Event event;
    ck_assert(event_queue_pop(queue, &event));
    return event;
}

/* ---------------------------------------------------------------- Core */

START_TEST(test_event_queue_pops_random_times_in_nondecreasing_order)
{
    enum { EVENTS = 100000 };
    EventQueue *queue = event_queue_create(16);
    Rng rng;
    rng_init(&rng, 1);
    for (uint32_t i = 0; i < EVENTS; i++)
        event_queue_push(queue, rng_below(&rng, 1000000), 0, i, 0);
    SimTimeUs previous_us = 0;
    uint64_t previous_seq = 0;
    for (uint32_t i = 0; i < EVENTS; i++) {
        Event event = pop_or_die(queue);
        ck_assert_uint_ge(event.at_us, previous_us);
        if (event.at_us == previous_us)
            ck_assert_uint_gt(event.seq, previous_seq);
        previous_us = event.at_us;
        previous_seq = event.seq;
    }
    Event none;
    ck_assert(!event_queue_pop(queue, &none));
    event_queue_destroy(queue);
}
END_TEST

START_TEST(test_event_queue_pops_ties_in_insertion_order)
{
    EventQueue *queue = event_queue_create(4);
    for (uint32_t i = 0; i < 1000; i++)
        event_queue_push(queue, i % 2 == 0 ? 50 : 40, 0, i, 0);
    for (uint32_t i = 1; i < 1000; i += 2) /* all odd targets (time 40) first, in order */
        ck_assert_uint_eq(pop_or_die(queue).target, i);
    for (uint32_t i = 0; i < 1000; i += 2)
        ck_assert_uint_eq(pop_or_die(queue).target, i);
    event_queue_destroy(queue);
}
END_TEST

START_TEST(test_event_queue_returns_the_payload_it_was_given)
{
    EventQueue *queue = event_queue_create(1);
    EventId id = event_queue_push(queue, 77, 5, 9, UINT64_MAX - 3);
    Event event = pop_or_die(queue);
    ck_assert_uint_eq(event.at_us, 77);
    ck_assert_uint_eq(event.seq, id.seq);
    ck_assert_uint_eq(event.kind, 5);
    ck_assert_uint_eq(event.target, 9);
    ck_assert_uint_eq(event.arg, UINT64_MAX - 3);
    event_queue_destroy(queue);
}
END_TEST

START_TEST(test_event_queue_cancelled_event_never_pops)
{
    EventQueue *queue = event_queue_create(8);
    event_queue_push(queue, 10, 0, 1, 0);
    EventId doomed = event_queue_push(queue, 20, 0, 2, 0);
    event_queue_push(queue, 30, 0, 3, 0);
    ck_assert(event_queue_cancel(queue, doomed));
    ck_assert_uint_eq(pop_or_die(queue).target, 1);
    ck_assert_uint_eq(pop_or_die(queue).target, 3);
    Event none;
    ck_assert(!event_queue_pop(queue, &none));
    event_queue_destroy(queue);
}
END_TEST

START_TEST(test_event_queue_cancel_twice_returns_false)
{
    EventQueue *queue = event_queue_create(8);
    EventId id = event_queue_push(queue, 10, 0, 0, 0);
    ck_assert(event_queue_cancel(queue, id));
    ck_assert(!event_queue_cancel(queue, id));
    ck_assert_uint_eq(event_queue_size(queue), 0);
    event_queue_destroy(queue);
}
END_TEST

START_TEST(test_event_queue_cancel_after_pop_returns_false)
{
    EventQueue *queue = event_queue_create(8);
    EventId id = event_queue_push(queue, 10, 0, 0, 0);
    pop_or_die(queue);
    ck_assert(!event_queue_cancel(queue, id));
    event_queue_destroy(queue);
}
END_TEST

START_TEST(test_event_queue_stale_id_cannot_cancel_event_in_reused_slot)
{
    EventQueue *queue = event_queue_create(8);
    EventId stale = event_queue_push(queue, 10, 0, 1, 0);
    ck_assert(event_queue_cancel(queue, stale));
    SimTimeUs at_us;
    ck_assert(!event_queue_peek_time(queue, &at_us)); /* meets the cancelled key, frees its slot */
    EventId fresh = event_queue_push(queue, 20, 0, 2, 0);
    ck_assert_uint_eq(fresh.slot, stale.slot); /* the freed slot was reused */
    ck_assert(!event_queue_cancel(queue, stale));
    ck_assert_uint_eq(event_queue_size(queue), 1);
    Event event = pop_or_die(queue);
    ck_assert_uint_eq(event.target, 2);
    ck_assert_uint_eq(event.at_us, 20);
    event_queue_destroy(queue);
}
END_TEST

START_TEST(test_event_queue_cancel_of_none_or_foreign_id_returns_false)
{
    EventQueue *queue = event_queue_create(8);
    event_queue_push(queue, 10, 0, 0, 0);
    ck_assert(!event_queue_cancel(queue, EVENT_ID_NONE));
    ck_assert(!event_queue_cancel(queue, (EventId){.seq = 1, .slot = 1000000}));
    ck_assert(!event_queue_cancel(queue, (EventId){.seq = 999, .slot = 0}));
    ck_assert_uint_eq(event_queue_size(queue), 1);
    event_queue_destroy(queue);
}
END_TEST

START_TEST(test_event_queue_size_counts_only_live_events)
{
    EventQueue *queue = event_queue_create(8);
    EventId ids[10];
    for (uint32_t i = 0; i < 10; i++)
        ids[i] = event_queue_push(queue, 100 - i, 0, i, 0);
    ck_assert_uint_eq(event_queue_size(queue), 10);
    for (int i = 0; i < 10; i += 2)
        ck_assert(event_queue_cancel(queue, ids[i]));
    ck_assert_uint_eq(event_queue_size(queue), 5);
    pop_or_die(queue);
    ck_assert_uint_eq(event_queue_size(queue), 4);
    ck_assert_uint_eq(event_queue_peak_size(queue), 10);
    event_queue_destroy(queue);
}
END_TEST

START_TEST(test_event_queue_peek_time_skips_cancelled_events)
{
    EventQueue *queue = event_queue_create(8);
    SimTimeUs at_us = 0;
    ck_assert(!event_queue_peek_time(queue, &at_us));
    EventId first = event_queue_push(queue, 5, 0, 0, 0);
    event_queue_push(queue, 9, 0, 0, 0);
    ck_assert(event_queue_cancel(queue, first));
    ck_assert(event_queue_peek_time(queue, &at_us));
    ck_assert_uint_eq(at_us, 9);
    ck_assert_uint_eq(event_queue_size(queue), 1); /* peeking removes nothing live */
    event_queue_destroy(queue);
}
END_TEST

/* The engine never schedules before the event it is running; the queue relies on it. */
START_TEST(test_event_queue_refuses_an_event_before_the_last_popped)
{
    EventQueue *queue = event_queue_create(8);
    event_queue_push(queue, 100, 0, 0, 0);
    pop_or_die(queue);
    event_queue_push(queue, 99, 0, 0, 0); /* aborts */
}
END_TEST

START_TEST(test_event_queue_accepts_an_event_at_the_last_popped_time)
{
    EventQueue *queue = event_queue_create(8);
    event_queue_push(queue, 100, 0, 1, 0);
    event_queue_push(queue, 300, 0, 3, 0);
    ck_assert_uint_eq(pop_or_die(queue).target, 1);
    event_queue_push(queue, 100, 0, 2, 0); /* same instant: runs before the later one */
    ck_assert_uint_eq(pop_or_die(queue).target, 2);
    ck_assert_uint_eq(pop_or_die(queue).target, 3);
    event_queue_destroy(queue);
}
END_TEST

START_TEST(test_event_queue_pop_until_takes_only_events_at_or_before_the_bound)
{
    EventQueue *queue = event_queue_create(8);
    event_queue_push(queue, 10, 0, 1, 0);
    EventId doomed = event_queue_push(queue, 20, 0, 0, 0);
    event_queue_push(queue, 30, 0, 3, 0);
    ck_assert(event_queue_cancel(queue, doomed));
    Event event;
    ck_assert(!event_queue_pop_until(queue, 9, &event));
    ck_assert(event_queue_pop_until(queue, 10, &event)); /* the bound is inclusive */
    ck_assert_uint_eq(event.target, 1);
    ck_assert(!event_queue_pop_until(queue, 29, &event)); /* the cancelled 20 is not there */
    ck_assert_uint_eq(event_queue_size(queue), 1);
    ck_assert(event_queue_pop_until(queue, 30, &event));
    ck_assert_uint_eq(event.target, 3);
    ck_assert(!event_queue_pop_until(queue, SIM_TIME_NEVER, &event));
    event_queue_destroy(queue);
}
END_TEST

/* A peek may look past cancelled keys; a push after it, still not before the last pop,
 * must come out first. */
START_TEST(test_event_queue_push_after_peek_past_cancelled_keys_pops_first)
{
    EventQueue *queue = event_queue_create(8);
    event_queue_push(queue, 100, 0, 1, 0);
    EventId doomed = event_queue_push(queue, 500, 0, 0, 0);
    event_queue_push(queue, 900, 0, 3, 0);
    ck_assert_uint_eq(pop_or_die(queue).target, 1);
    ck_assert(event_queue_cancel(queue, doomed));
    SimTimeUs next_us;
    ck_assert(event_queue_peek_time(queue, &next_us));
    ck_assert_uint_eq(next_us, 900);
    event_queue_push(queue, 200, 0, 2, 0);
    ck_assert(event_queue_peek_time(queue, &next_us));
    ck_assert_uint_eq(next_us, 200);
    ck_assert_uint_eq(pop_or_die(queue).target, 2);
    ck_assert_uint_eq(pop_or_die(queue).target, 3);
    event_queue_destroy(queue);
}
END_TEST

/* A sorted-array reference: entries kept in descending (at_us, seq) order, the earliest at
 * the end, so pop is a decrement. Slow, obviously right. */
typedef struct {
    SimTimeUs at_us;
    uint64_t seq;
    uint64_t arg;
} Reference;

static bool reference_before(const Reference *a, const Reference *b)
{
    return a->at_us < b->at_us || (a->at_us == b->at_us && a->seq < b->seq);
}

static void reference_insert(Reference *items, size_t *count, Reference item)
{
    size_t at = *count;
    while (at > 0 && reference_before(&items[at - 1], &item))
        at--;
    memmove(&items[at + 1], &items[at], (*count - at) * sizeof(Reference));
    items[at] = item;
    (*count)++;
}

static bool reference_remove_seq(Reference *items, size_t *count, uint64_t seq)
{
    for (size_t i = 0; i < *count; i++) {
        if (items[i].seq == seq) {
            memmove(&items[i], &items[i + 1], (*count - i - 1) * sizeof(Reference));
            (*count)--;
            return true;
        }
    }
    return false;
}

START_TEST(test_event_queue_matches_reference_model_under_random_operations)
{
    enum { OPERATIONS = 200000, REMEMBERED_IDS = 256 };
    EventQueue *queue = event_queue_create(1);
    Reference *reference = malloc(OPERATIONS * sizeof(Reference));
    EventId remembered[REMEMBERED_IDS];
    size_t reference_count = 0, remembered_count = 0;
    SimTimeUs now_us = 0; /* of the last event popped: the queue is monotone */
    Rng rng;
    rng_init(&rng, 7);
    for (uint64_t op = 0; op < OPERATIONS; op++) {
        uint64_t choice = rng_below(&rng, 100);
        if (choice < 45) { /* half near (plenty of ties), half up to 2^40 us ahead */
            SimTimeUs ahead_us = choice % 2 == 0 ? rng_below(&rng, 500)
                                                 : rng_next(&rng) >> (24 + rng_below(&rng, 40));
            SimTimeUs at_us = now_us + ahead_us;
            EventId id = event_queue_push(queue, at_us, 0, 0, op);
            reference_insert(reference, &reference_count,
                             (Reference){.at_us = at_us, .seq = id.seq, .arg = op});
            remembered[remembered_count++ % REMEMBERED_IDS] = id;
        } else if (choice < 80) {
            Event event;
            bool popped = event_queue_pop(queue, &event);
            ck_assert_int_eq(popped, reference_count > 0);
            if (popped) {
                Reference expected = reference[--reference_count];
                ck_assert_uint_eq(event.at_us, expected.at_us);
                ck_assert_uint_eq(event.seq, expected.seq);
                ck_assert_uint_eq(event.arg, expected.arg);
                now_us = event.at_us;
            }
        } else if (remembered_count > 0) { /* may be live, popped or already cancelled */
            size_t known = remembered_count < REMEMBERED_IDS ? remembered_count : REMEMBERED_IDS;
            EventId id = remembered[rng_below(&rng, known)];
            bool expected = reference_remove_seq(reference, &reference_count, id.seq);
            ck_assert_int_eq(event_queue_cancel(queue, id), expected);
        }
        ck_assert_uint_eq(event_queue_size(queue), reference_count);
    }
    free(reference);
    event_queue_destroy(queue);
}
END_TEST

/* ---------------------------------------------------------------- Limits */

START_TEST(test_event_queue_grows_from_capacity_one_to_many_events)
{
    enum { EVENTS = 100000 };
    EventQueue *queue = event_queue_create(1);
    size_t initial_bytes = event_queue_memory_bytes(queue);
    for (uint32_t i = 0; i < EVENTS; i++)
        event_queue_push(queue, EVENTS - i, 0, i, 0); /* reverse order */
    ck_assert_uint_eq(event_queue_size(queue), EVENTS);
    ck_assert_uint_gt(event_queue_memory_bytes(queue), initial_bytes);
    for (uint32_t i = 0; i < EVENTS; i++) {
        Event event = pop_or_die(queue);
        ck_assert_uint_eq(event.at_us, i + 1);
        ck_assert_uint_eq(event.target, EVENTS - 1 - i);
    }
    ck_assert_uint_eq(event_queue_peak_size(queue), EVENTS);
    event_queue_destroy(queue);
}
END_TEST

/* A retry timer that is almost always cancelled must not leave the queue growing: a
 * single leaked key per cycle would add megabytes here. */
START_TEST(test_event_queue_memory_stays_bounded_under_cancel_churn)
{
    EventQueue *queue = event_queue_create(1);
    SimTimeUs now_us = 0;
    for (int i = 0; i < 100; i++)
        event_queue_push(queue, (SimTimeUs)1 << 40, 0, 0, 0); /* far future, live */
    size_t settled_bytes = 0;
    for (int i = 0; i < 1000000; i++) {
        EventId timer = event_queue_push(queue, now_us + 1000000, 0, 0, 0);
        ck_assert(event_queue_cancel(queue, timer));
        now_us += 10;
        if (i == 1000)
            settled_bytes = event_queue_memory_bytes(queue);
    }
    ck_assert_uint_eq(event_queue_size(queue), 100);
    ck_assert_uint_le(event_queue_memory_bytes(queue), 2 * settled_bytes);
    event_queue_destroy(queue);
}
END_TEST

START_TEST(test_event_queue_destroy_of_null_is_a_no_op)
{
    event_queue_destroy(NULL);
}
END_TEST

static Suite *event_queue_suite(void)
{
    Suite *suite = suite_create("event_queue");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_event_queue_pops_random_times_in_nondecreasing_order);
    tcase_add_test(core, test_event_queue_pops_ties_in_insertion_order);
    tcase_add_test(core, test_event_queue_returns_the_payload_it_was_given);
    tcase_add_test(core, test_event_queue_cancelled_event_never_pops);
    tcase_add_test(core, test_event_queue_cancel_twice_returns_false);
    tcase_add_test(core, test_event_queue_cancel_after_pop_returns_false);
    tcase_add_test(core, test_event_queue_stale_id_cannot_cancel_event_in_reused_slot);
    tcase_add_test(core, test_event_queue_cancel_of_none_or_foreign_id_returns_false);
    tcase_add_test(core, test_event_queue_size_counts_only_live_events);
    tcase_add_test(core, test_event_queue_peek_time_skips_cancelled_events);
    tcase_add_test(core, test_event_queue_matches_reference_model_under_random_operations);
    tcase_add_test_raise_signal(core, test_event_queue_refuses_an_event_before_the_last_popped,
                                SIGABRT);
    tcase_add_test(core, test_event_queue_accepts_an_event_at_the_last_popped_time);
    tcase_add_test(core, test_event_queue_push_after_peek_past_cancelled_keys_pops_first);
    tcase_add_test(core, test_event_queue_pop_until_takes_only_events_at_or_before_the_bound);
    suite_add_tcase(suite, core);

    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_event_queue_grows_from_capacity_one_to_many_events);
    tcase_add_test(limits, test_event_queue_memory_stays_bounded_under_cancel_churn);
    tcase_add_test(limits, test_event_queue_destroy_of_null_is_a_no_op);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(event_queue_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
