/* C20: 16-bit keys looked up globally collide across accounts and replay another account's
 * answer (a leak); scoped per account, no leak; 64-bit keys, no collision at all. */
#include "test_world.h"

START_TEST(test_a_global_scope_and_a_small_key_space_leak)
{
    const char *const scoped[] = {"server.idempotency.scope=\"account\""};
    const char *const large[] = {"server.idempotency.scope=\"account\"", "clients[0].key_bits=64",
                                 "clients[1].key_bits=64"};
    Scenario *global = test_load_source_file("scenarios/20_key_scope.json", NULL, 0);
    Scenario *per_account = test_load_source_file("scenarios/20_key_scope.json", scoped, 1);
    Scenario *uuid = test_load_source_file("scenarios/20_key_scope.json", large, 3);
    Metrics leaky = test_run_mode(global, MODE_IDEMPOTENT, global->seed);
    Metrics contained = test_run_mode(per_account, MODE_IDEMPOTENT, per_account->seed);
    Metrics clean = test_run_mode(uuid, MODE_IDEMPOTENT, uuid->seed);
    ck_assert_uint_gt(leaky.leaks, 0);
    ck_assert_uint_ge(leaky.outcomes[OUTCOME_MISMATCH], leaky.leaks);
    ck_assert_uint_eq(contained.leaks, 0);
    ck_assert_uint_gt(contained.outcomes[OUTCOME_MISMATCH], 0);
    ck_assert_uint_eq(clean.outcomes[OUTCOME_MISMATCH], 0);
    ck_assert_uint_eq(clean.leaks, 0);
    free(global);
    free(per_account);
    free(uuid);
}
END_TEST

static Suite *key_scope_suite(void)
{
    Suite *suite = suite_create("key_scope");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_a_global_scope_and_a_small_key_space_leak);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(key_scope_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
