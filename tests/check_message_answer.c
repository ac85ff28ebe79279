/* A message's answer (world_internal.h): it goes back the way the message came, keeps the
 * message's identity, and can be built over the message itself. */
#include <check.h>
#include <stdlib.h>

#include "world_internal.h"

static Message a_request(void)
{
    return (Message){
        .kind = MESSAGE_REQUEST,
        .hop = HOP_REQUEST,
        .source = 3,
        .target = 8,
        .click = 2,
        .attempt = 4,
        .operation = 77,
        .lineage = 5,
        .reply_to = {REPLY_TO_JOB, 6, 9},
    };
}

static void assert_answers(const Message *answer, const Message *request)
{
    ck_assert_int_eq(answer->kind, MESSAGE_RESPONSE);
    ck_assert_int_eq(answer->hop, HOP_RESPONSE);
    ck_assert_uint_eq(answer->source, request->target);
    ck_assert_uint_eq(answer->target, request->source);
    ck_assert_int_eq(answer->status, 409);
    ck_assert_uint_eq(answer->response_of, 76);
    ck_assert_uint_eq(answer->operation, request->operation);
    ck_assert_uint_eq(answer->click, request->click);
    ck_assert_uint_eq(answer->attempt, request->attempt);
    ck_assert_uint_eq(answer->lineage, request->lineage);
    ck_assert_int_eq(answer->reply_to.kind, request->reply_to.kind);
    ck_assert_uint_eq(answer->reply_to.serial, request->reply_to.serial);
}

START_TEST(test_an_answer_goes_back_the_way_its_message_came)
{
    Message request = a_request();
    Message answer = message_answer(&request, HOP_RESPONSE, 409, 76);
    assert_answers(&answer, &request);
    Message into;
    message_answer_into(&into, &request, HOP_RESPONSE, 409, 76);
    assert_answers(&into, &request);
}
END_TEST

/* Built over its own message (a handler answering in place): both ends still swap, where
 * writing the source first made both ends the answerer. */
START_TEST(test_an_answer_built_over_its_message_swaps_the_ends)
{
    Message request = a_request();
    Message message = request;
    message_answer_into(&message, &message, HOP_RESPONSE, 409, 76);
    assert_answers(&message, &request);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("message_answer");
    TCase *tcase = tcase_create("core");
    tcase_add_test(tcase, test_an_answer_goes_back_the_way_its_message_came);
    tcase_add_test(tcase, test_an_answer_built_over_its_message_swaps_the_ends);
    suite_add_tcase(suite, tcase);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
