/* The JSON-lines trace writer: the exact bytes of a line, strings escaped as JSON wants,
 * extreme numbers whole, an absurdly long string cut without overflowing the line, and
 * every line of a trace much bigger than the writer's chunks arriving whole and in order. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Runs records through a writer into a temporary file; returns its bytes (free them). */
static char *written(const TraceRecord *records, size_t count, size_t *length)
{
    FILE *file = tmpfile();
    ck_assert_ptr_nonnull(file);
    TraceJsonl *writer = trace_jsonl_open(file);
    ck_assert_ptr_nonnull(writer);
    TraceSink sink = trace_jsonl_sink(writer);
    for (size_t i = 0; i < count; i++)
        sink.write(sink.context, &records[i]);
    ck_assert(trace_jsonl_close(writer));
    long size = ftell(file);
    ck_assert_int_ge(size, 0);
    rewind(file);
    char *text = calloc(1, (size_t)size + 1);
    ck_assert_uint_eq(fread(text, 1, (size_t)size, file), (size_t)size);
    fclose(file);
    *length = (size_t)size;
    return text;
}

START_TEST(test_a_line_has_every_field_in_order)
{
    TraceRecord record = {.t_us = 1294476,
                          .mode = MODE_AT_LEAST_ONCE,
                          .event = TRACE_TRANSMIT,
                          .actor_name = "server",
                          .peer_name = "web[1]",
                          .operation = 1,
                          .attempt = 2,
                          .click = 0,
                          .copy = 4,
                          .value = 200,
                          .message = MESSAGE_RESPONSE};
    size_t length = 0;
    char *text = written(&record, 1, &length);
    ck_assert_str_eq(text,
                     "{\"t_us\": 1294476, \"mode\": \"at-least-once\", \"actor\": \"server\", "
                     "\"event\": \"transmit\", \"peer\": \"web[1]\", \"op\": 1, \"click\": "
                     "0, \"attempt\": 2, \"copy\": 4, \"value\": 200, \"detail\": "
                     "\"response\"}\n");
    free(text);
}
END_TEST

/* Issue 24: operation ids start at 0, so a record of no operation (a restart) says null,
 * and operation 0's own records say 0. */
START_TEST(test_a_record_of_no_operation_is_told_from_operation_zero)
{
    TraceRecord records[] = {
        {.t_us = 5, .event = TRACE_RESTART, .actor_name = "server", .no_operation = true},
        {.t_us = 6, .event = TRACE_CRASH, .actor_name = "server", .operation = 0},
    };
    size_t length = 0;
    char *text = written(records, 2, &length);
    ck_assert_str_eq(text, "{\"t_us\": 5, \"mode\": \"at-most-once\", \"actor\": \"server\", "
                           "\"event\": \"restart\", \"op\": null, \"click\": 0, \"attempt\": 0, "
                           "\"copy\": 0, \"value\": 0}\n"
                           "{\"t_us\": 6, \"mode\": \"at-most-once\", \"actor\": \"server\", "
                           "\"event\": \"crash\", \"op\": 0, \"click\": 0, \"attempt\": 0, "
                           "\"copy\": 0, \"value\": 0, \"detail\": \"none\"}\n");
    free(text);
}
END_TEST

START_TEST(test_strings_are_escaped_and_numbers_are_whole)
{
    TraceRecord record = {.t_us = UINT64_MAX,
                          .mode = MODE_AT_MOST_ONCE,
                          .event = TRACE_ENQUEUE,
                          .actor_name = "say \"hi\"\\",
                          .queue = "tab\there",
                          .operation = 10,
                          .attempt = 99,
                          .copy = 100,
                          .value = INT64_MIN};
    size_t length = 0;
    char *text = written(&record, 1, &length);
    ck_assert_str_eq(text, "{\"t_us\": 18446744073709551615, \"mode\": \"at-most-once\", "
                           "\"actor\": \"say \\\"hi\\\"\\\\\", \"event\": \"enqueue\", \"op\": 10, "
                           "\"click\": 0, \"attempt\": 99, \"copy\": 100, \"value\": "
                           "-9223372036854775808, \"detail\": \"tab\\u0009here\"}\n");
    free(text);
}
END_TEST

/* The typed detail is worded by the model's tables: a settled record names its outcome, a
 * crash its crash point, a reserve its reason, a broker record its queue. */
START_TEST(test_the_detail_is_worded_from_the_typed_fields)
{
    TraceRecord records[] = {
        {.mode = MODE_IDEMPOTENT,
         .event = TRACE_SETTLED,
         .actor_name = "web[0]",
         .detail = OUTCOME_PHANTOM},
        {.mode = MODE_IDEMPOTENT,
         .event = TRACE_CRASH,
         .actor_name = "server",
         .detail = CRASH_AFTER_EFFECT},
        {.mode = MODE_IDEMPOTENT,
         .event = TRACE_RESERVE,
         .actor_name = "server",
         .detail = RESERVE_REASON_TAKEOVER},
        {.mode = MODE_IDEMPOTENT,
         .event = TRACE_LOST_OFFLINE,
         .actor_name = "app[2]",
         .detail = MESSAGE_RESPONSE},
        {.mode = MODE_IDEMPOTENT,
         .event = TRACE_ENQUEUE,
         .actor_name = "broker",
         .queue = "receipts"},
        {.mode = MODE_IDEMPOTENT, .event = TRACE_SEND, .actor_name = "web[0]"},
    };
    const char *const details[] = {"\"phantom\"",  "\"after-effect\"", "\"takeover\"",
                                   "\"response\"", "\"receipts\"",     NULL};
    for (size_t i = 0; i < sizeof records / sizeof records[0]; i++) {
        size_t length = 0;
        char *text = written(&records[i], 1, &length);
        const char *detail = strstr(text, "\"detail\": ");
        if (details[i] == NULL) {
            ck_assert_ptr_null(detail);
        } else {
            ck_assert_ptr_nonnull(detail);
            ck_assert_msg(strncmp(detail + 10, details[i], strlen(details[i])) == 0, "%s", text);
        }
        free(text);
    }
}
END_TEST

/* A dead letter put up for review says what its reviewer looks for: a mailer group's (its
 * step emails) a confirmation, any other group's a charge. The detail still names the queue
 * or the later group, as every broker record's does. */
START_TEST(test_a_review_says_whether_it_is_of_an_email_or_a_charge)
{
    TraceRecord records[] = {
        {.t_us = 7,
         .mode = MODE_IDEMPOTENT,
         .event = TRACE_DEAD_LETTER_REVIEWED,
         .actor_name = "broker",
         .operation = 3,
         .value = 0,
         .detail = REVIEWED_EMAIL,
         .queue = "mailers"},
        {.t_us = 8,
         .mode = MODE_IDEMPOTENT,
         .event = TRACE_DEAD_LETTER_REVIEWED,
         .actor_name = "broker",
         .operation = 4,
         .value = 1,
         .detail = REVIEWED_CHARGE},
    };
    size_t length = 0;
    char *text = written(records, 2, &length);
    ck_assert_str_eq(text, "{\"t_us\": 7, \"mode\": \"idempotent\", \"actor\": \"broker\", "
                           "\"event\": \"dead_letter_reviewed\", \"op\": 3, \"click\": 0, "
                           "\"attempt\": 0, \"copy\": 0, \"value\": 0, \"detail\": \"mailers\", "
                           "\"reviewed\": \"email\"}\n"
                           "{\"t_us\": 8, \"mode\": \"idempotent\", \"actor\": \"broker\", "
                           "\"event\": \"dead_letter_reviewed\", \"op\": 4, \"click\": 0, "
                           "\"attempt\": 0, \"copy\": 0, \"value\": 1, \"reviewed\": "
                           "\"charge\"}\n");
    free(text);
}
END_TEST

/* Strings longer than a line are cut; the line stays within its bounds (AddressSanitizer
 * would see an overflow), keeps every field and still ends in a newline. */
START_TEST(test_a_string_longer_than_a_line_is_cut_inside_it)
{
    char huge[5000];
    memset(huge, '"', sizeof huge - 1); /* each one escaped to two bytes */
    huge[sizeof huge - 1] = '\0';
    TraceRecord record = {
        .mode = MODE_IDEMPOTENT, .event = TRACE_ENQUEUE, .actor_name = huge, .queue = huge};
    size_t length = 0;
    char *text = written(&record, 1, &length);
    ck_assert_uint_le(length, 1024);
    ck_assert_int_eq(text[length - 1], '\n');
    ck_assert_ptr_nonnull(strstr(text, "\", \"event\": \"enqueue\", \"op\": 0"));
    ck_assert_ptr_nonnull(strstr(text, ", \"value\": 0, \"detail\": \"\\\""));
    ck_assert_ptr_nonnull(
        strstr(text, "{\"t_us\": 0, \"mode\": \"idempotent\", \"actor\": \"\\\""));
    free(text);
}
END_TEST

/* 200,000 lines are many chunks handed to the writer thread: all of them, in order. */
START_TEST(test_many_chunks_arrive_whole_and_in_order)
{
    enum { LINES = 200000 };
    TraceRecord *records = calloc(LINES, sizeof *records);
    for (size_t i = 0; i < LINES; i++)
        records[i] = (TraceRecord){.t_us = i,
                                   .mode = MODE_IDEMPOTENT,
                                   .actor_name = "web[7]",
                                   .event = TRACE_SEND,
                                   .operation = i};
    size_t length = 0;
    char *text = written(records, LINES, &length);
    size_t line = 0;
    for (const char *at = text; *at != '\0'; line++) {
        char expected[64];
        int n = snprintf(expected, sizeof expected, "{\"t_us\": %zu, ", line);
        ck_assert_msg(strncmp(at, expected, (size_t)n) == 0, "line %zu out of place", line);
        at = strchr(at, '\n');
        ck_assert_ptr_nonnull(at);
        at++;
    }
    ck_assert_uint_eq(line, LINES);
    free(text);
    free(records);
}
END_TEST

static Suite *trace_jsonl_suite(void)
{
    Suite *suite = suite_create("trace_jsonl");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_a_line_has_every_field_in_order);
    tcase_add_test(core, test_a_record_of_no_operation_is_told_from_operation_zero);
    tcase_add_test(core, test_strings_are_escaped_and_numbers_are_whole);
    tcase_add_test(core, test_the_detail_is_worded_from_the_typed_fields);
    tcase_add_test(core, test_a_review_says_whether_it_is_of_an_email_or_a_charge);
    tcase_add_test(core, test_a_string_longer_than_a_line_is_cut_inside_it);
    tcase_add_test(core, test_many_chunks_arrive_whole_and_in_order);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(trace_jsonl_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
