/* json_text on its own: strict JSON with a line and column for each refusal, number texts
 * kept beside the tree (not inside it) for every number of several trees, and the size bound
 * refusing a text before its tree is built. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "json_text.h"

static cJSON *parse(const char *text, JsonNumbers *numbers, char *message, size_t size)
{
    return json_text_parse(text, strlen(text), numbers, message, size);
}

START_TEST(test_every_number_keeps_its_source_text_beside_the_tree)
{
    JsonNumbers *numbers = json_numbers_create();
    char message[200] = "";
    cJSON *root = parse("{\"a\": 1e400, \"b\": [\"9\", -0.50, 2.0000000000000000000000001],"
                        " \"c\": {\"d\": 9007199254740993}}",
                        numbers, message, sizeof message);
    ck_assert_ptr_nonnull(root);
    ck_assert_str_eq(json_text_number(numbers, cJSON_GetObjectItem(root, "a")), "1e400");
    const cJSON *b = cJSON_GetObjectItem(root, "b");
    ck_assert_ptr_null(json_text_number(numbers, cJSON_GetArrayItem(b, 0))); /* a string */
    ck_assert_str_eq(json_text_number(numbers, cJSON_GetArrayItem(b, 1)), "-0.50");
    ck_assert_str_eq(json_text_number(numbers, cJSON_GetArrayItem(b, 2)),
                     "2.0000000000000000000000001");
    const cJSON *d = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "c"), "d");
    ck_assert_str_eq(json_text_number(numbers, d), "9007199254740993");
    /* The tree is cJSON's own: a number node's valuestring stays untouched. */
    ck_assert_ptr_null(d->valuestring);
    cJSON_Delete(root);
    json_numbers_destroy(numbers);
}
END_TEST

START_TEST(test_one_side_table_serves_several_trees_and_no_table_is_fine)
{
    JsonNumbers *numbers = json_numbers_create();
    char message[200] = "";
    cJSON *first = parse("[1.10, 2]", numbers, message, sizeof message);
    cJSON *second = parse("3.30", numbers, message, sizeof message);
    ck_assert_str_eq(json_text_number(numbers, cJSON_GetArrayItem(first, 0)), "1.10");
    ck_assert_str_eq(json_text_number(numbers, second), "3.30");
    ck_assert_str_eq(json_text_number(numbers, cJSON_GetArrayItem(first, 1)), "2");
    /* Numbers built by hand, or a parse without a table, have no text. */
    cJSON *made = cJSON_CreateNumber(4);
    ck_assert_ptr_null(json_text_number(numbers, made));
    cJSON *untracked = parse("5", NULL, message, sizeof message);
    ck_assert_ptr_nonnull(untracked);
    ck_assert_ptr_null(json_text_number(NULL, untracked));
    cJSON_Delete(made);
    cJSON_Delete(untracked);
    cJSON_Delete(first);
    cJSON_Delete(second);
    json_numbers_destroy(numbers);
    json_numbers_destroy(NULL);
}
END_TEST

START_TEST(test_invalid_text_is_refused_with_its_line_and_column)
{
    char message[200] = "";
    ck_assert_ptr_null(parse("{\"a\": 1,\n  }", NULL, message, sizeof message));
    ck_assert_str_eq(message, "invalid JSON at line 1, column 8: trailing comma before '}'");
    ck_assert_ptr_null(parse("[0x1F]", NULL, message, sizeof message));
    ck_assert_str_eq(message, "invalid JSON at line 1, column 2: invalid number '0x1F'");
    ck_assert_ptr_null(parse("\"\\u0000\"", NULL, message, sizeof message));
    ck_assert_str_eq(message,
                     "invalid JSON at line 1, column 2: escape \\u0000 (NUL) is not allowed in "
                     "strings");
    ck_assert_ptr_null(parse("  ", NULL, message, sizeof message));
    ck_assert_str_eq(message, "empty file (only whitespace)");
    ck_assert_ptr_null(json_text_parse("\"\xC0\xAF\"", 4, NULL, message, sizeof message));
    ck_assert_str_eq(message, "invalid UTF-8 at line 1, column 2");
}
END_TEST

START_TEST(test_nesting_past_the_depth_bound_is_refused)
{
    char text[JSON_TEXT_DEPTH_MAX + 2];
    memset(text, '[', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    char message[200] = "";
    ck_assert_ptr_null(parse(text, NULL, message, sizeof message));
    ck_assert_ptr_nonnull(strstr(message, "nesting deeper than 32 levels"));
}
END_TEST

/* A text under the byte cap whose tree would not fit the memory bound is refused after the
 * scan, before cJSON allocates a node: 2 bytes per value ("0,") against ~80 per node. */
START_TEST(test_a_text_whose_tree_would_be_too_large_is_refused_before_it_is_built)
{
    size_t values = JSON_TEXT_TREE_BYTES_MAX / 80 + 1;
    size_t length = 2 * values + 1;
    char *text = malloc(length + 1);
    ck_assert_ptr_nonnull(text);
    text[0] = '[';
    for (size_t i = 0; i < values; i++) {
        text[1 + 2 * i] = '0';
        text[2 + 2 * i] = ',';
    }
    text[length - 1] = ']';
    text[length] = '\0';
    char message[200] = "";
    JsonNumbers *numbers = json_numbers_create();
    ck_assert_ptr_null(json_text_parse(text, length, numbers, message, sizeof message));
    ck_assert_msg(strncmp(message, "too large: ", 11) == 0, "got: %s", message);
    ck_assert_ptr_nonnull(strstr(message, "(at most 256 MiB)"));
    free(text);
    json_numbers_destroy(numbers);
}
END_TEST

START_TEST(test_positions_count_characters_not_bytes)
{
    unsigned long line = 0;
    unsigned long column = 0;
    const char *text = "a\n\xC3\xA9x";
    json_text_position(text, 4, &line, &column); /* at 'x', after a two-byte character */
    ck_assert_uint_eq(line, 2);
    ck_assert_uint_eq(column, 2);
    ck_assert(json_text_is_utf8(text, strlen(text)));
    ck_assert(!json_text_is_utf8("\xED\xA0\x80", 3)); /* a surrogate */
}
END_TEST

static Suite *json_text_test_suite(void)
{
    Suite *suite = suite_create("json_text");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_every_number_keeps_its_source_text_beside_the_tree);
    tcase_add_test(core, test_one_side_table_serves_several_trees_and_no_table_is_fine);
    tcase_add_test(core, test_invalid_text_is_refused_with_its_line_and_column);
    tcase_add_test(core, test_positions_count_characters_not_bytes);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_nesting_past_the_depth_bound_is_refused);
    tcase_add_test(limits, test_a_text_whose_tree_would_be_too_large_is_refused_before_it_is_built);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(json_text_test_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
