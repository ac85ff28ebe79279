/* The sequence diagram's words never cover one another (issue 21): for every scenario of the
 * library and of the architectures, in each of its modes, on the portrait page and on the
 * landscape slides, no two words' boxes overlap, boxes as the writer itself reckons them when
 * it places a word (report_svg_write_words), not as a pattern would find them in the text.
 * Before the portrait page placed its arrows' labels, architectures' mesh checkout drew
 * "200 OK" over "charges the card" where two charges landed 2 ms apart. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_svg.h"
#include "test_cli.h"
#include "test_world.h"

#define MESH_CHECKOUT "scenarios/architectures/mesh_two_instances_checkout.json"

typedef struct {
    unsigned pictures;
    unsigned words;
} Tally;

static bool overlap(const SvgWordBox *a, const SvgWordBox *b)
{
    return a->surface == b->surface && a->x < b->x + b->width && b->x < a->x + a->width &&
           a->y < b->y + b->height && b->y < a->y + a->height;
}

/* Runs mode of scenario with a diagram of its first operations, as `idemsim run --svg` does. */
static SvgDiagram *diagram_of(const Scenario *scenario, Mode mode, uint32_t operations)
{
    SvgDiagram *diagram = report_svg_create(mode, operations, NULL);
    ck_assert_ptr_nonnull(diagram);
    report_svg_show_windows(diagram, scenario);
    World *world =
        world_create(scenario, mode, scenario->seed, report_svg_sink(diagram), (WorldLimits){0});
    ck_assert_ptr_nonnull(world);
    world_run(world);
    world_destroy(world);
    return diagram;
}

/* The words of the picture in layout, in *count; the caller frees them. */
static SvgWordBox *words_of(const SvgDiagram *diagram, const Scenario *scenario, SvgLayout layout,
                            uint32_t *count)
{
    FILE *sink = tmpfile();
    ck_assert_ptr_nonnull(sink);
    SvgWordBox *words = NULL;
    ck_assert(
        report_svg_write_words(sink, diagram, scenario, scenario->seed, layout, &words, count));
    fclose(sink);
    ck_assert_ptr_nonnull(words);
    return words;
}

/* Fails on the first two words that overlap. (Check notes where every ck_assert is, so the
 * million pairs are compared with a plain if.) */
static void assert_no_overlap(const char *path, Mode mode, SvgLayout layout,
                              const SvgWordBox *words, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        for (uint32_t j = i + 1; j < count; j++) {
            const SvgWordBox *a = &words[i], *b = &words[j];
            if (overlap(a, b))
                ck_abort_msg("%s, %s, %s: '%s' (%.1f, %.1f, %.1f x %.1f) and '%s' (%.1f, %.1f, "
                             "%.1f x %.1f) overlap",
                             path, mode_name(mode),
                             layout == REPORT_SVG_PORTRAIT ? "portrait" : "landscape", a->text,
                             a->x, a->y, a->width, a->height, b->text, b->x, b->y, b->width,
                             b->height);
        }
    }
}

static void check_every_mode_and_layout(const char *path, void *context)
{
    Tally *tally = context;
    Scenario *scenario = test_load_source_file(path, NULL, 0);
    for (uint32_t m = 0; m < scenario->mode_count; m++) {
        SvgDiagram *diagram = diagram_of(scenario, scenario->modes[m], 3);
        for (uint32_t l = 0; l < REPORT_SVG_LAYOUT_COUNT; l++) {
            uint32_t count = 0;
            SvgWordBox *words = words_of(diagram, scenario, (SvgLayout)l, &count);
            ck_assert_msg(count >= 10, "%s: %u words", path, count);
            assert_no_overlap(path, scenario->modes[m], (SvgLayout)l, words, count);
            tally->pictures++;
            tally->words += count;
            free(words);
        }
        report_svg_destroy(diagram);
    }
    free(scenario);
}

/* ------------------------------------------------------------------ Core */

START_TEST(test_no_two_words_overlap_in_any_scenario_mode_or_layout)
{
    Tally tally = {0};
    ck_assert_int_eq(chdir(IDEMSIM_SOURCE_DIR), 0); /* the folders' paths are relative to it */
    unsigned files = test_for_each_scenario_file("scenarios", check_every_mode_and_layout, &tally);
    files +=
        test_for_each_scenario_file("scenarios/architectures", check_every_mode_and_layout, &tally);
    ck_assert_uint_ge(files, 100);
    ck_assert_uint_ge(tally.pictures, 2 * files);
    ck_assert_uint_ge(tally.words, 50 * tally.pictures);
}
END_TEST

/* The case of the issue, at its place: each "200 OK" leaving the payment provider is written
 * clear of both "charges the card" badges, as a word (not left out). */
START_TEST(test_mesh_checkout_answer_clears_the_charges)
{
    Scenario *scenario = test_load_source_file(MESH_CHECKOUT, NULL, 0);
    SvgDiagram *diagram = diagram_of(scenario, MODE_AT_LEAST_ONCE, 3);
    uint32_t count = 0;
    SvgWordBox *words = words_of(diagram, scenario, REPORT_SVG_PORTRAIT, &count);
    int answers = 0, charges = 0;
    for (uint32_t i = 0; i < count; i++) {
        answers += strcmp(words[i].text, "200 OK") == 0 && !words[i].ring;
        charges += strcmp(words[i].text, "charges the card") == 0;
    }
    ck_assert_int_ge(charges, 3);
    ck_assert_int_ge(answers, 3);
    assert_no_overlap(MESH_CHECKOUT, MODE_AT_LEAST_ONCE, REPORT_SVG_PORTRAIT, words, count);
    free(words);
    report_svg_destroy(diagram);
    free(scenario);
}
END_TEST

/* A word that covers another is caught: the rule the library test relies on can fail. */
START_TEST(test_overlap_is_seen)
{
    SvgWordBox a = {.x = 10, .y = 10, .width = 40, .height = 12, .surface = 0};
    SvgWordBox b = {.x = 45, .y = 20, .width = 40, .height = 12, .surface = 0};
    SvgWordBox beside = {.x = 50, .y = 10, .width = 40, .height = 12, .surface = 0};
    SvgWordBox elsewhere = b;
    elsewhere.surface = 1;
    ck_assert(overlap(&a, &b));
    ck_assert(!overlap(&a, &beside)); /* touching is not covering */
    ck_assert(!overlap(&a, &elsewhere));
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("svg_words");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_overlap_is_seen);
    tcase_add_test(core, test_mesh_checkout_answer_clears_the_charges);
    tcase_add_test(core, test_no_two_words_overlap_in_any_scenario_mode_or_layout);
    suite_add_tcase(suite, core);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
