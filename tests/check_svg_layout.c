/* idemsim run --svg-layout: the landscape slide is well-formed, wider than tall (16:9),
 * deterministic, says every word the portrait handout says, and puts time left to right;
 * portrait stays the default; a bad layout is a usage error that writes nothing. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_cli.h"

#define LOST_ANSWER "scenarios/01_lost_answer.json"

/* Scenarios whose diagrams hold every kind of lane: clients, server, gateway, broker,
 * consumers, a proxy, a crash. */
static const char *const SCENARIOS[] = {
    LOST_ANSWER,
    "scenarios/13_double_click_per_click.json",
    "scenarios/11_crash_after_charge.json",
    "scenarios/03_broker_slow_consumers.json",
    "scenarios/15_proxy_retries.json",
    "scenarios/02_offline_ttl_too_short.json",
};

static void setup(void)
{
    test_cli_make_scratch("svg_layout");
}

static void teardown(void)
{
    test_cli_remove_scratch();
}

/* Runs scenario with --svg and the extra options (NULL-terminated, at most 4), returns the file. */
static char *draw(const char *scenario, const char *name, const char *const *extra)
{
    char path[512];
    test_cli_in_scratch(path, name);
    const char *arguments[12] = {"run", scenario, "--svg", path, "-q"};
    int count = 5;
    for (; extra != NULL && *extra != NULL; extra++)
        arguments[count++] = *extra;
    arguments[count] = NULL;
    ck_assert_int_eq(test_cli_run(arguments, NULL, NULL), 0);
    char *svg = test_cli_read_all(path, NULL);
    ck_assert_ptr_nonnull(svg);
    return svg;
}

static char *draw_landscape(const char *scenario, const char *name)
{
    const char *extra[] = {"--svg-layout", "landscape", NULL};
    return draw(scenario, name, extra);
}

/* Every element is closed in the order opened (enough XML for what the writer emits). */
static bool balanced(const char *text)
{
    char stack[64][32];
    int depth = 0;
    for (const char *at = strchr(text, '<'); at != NULL; at = strchr(at + 1, '<')) {
        const char *end = strchr(at, '>');
        if (end == NULL)
            return false;
        if (at[1] == '?' || at[1] == '!' || end[-1] == '/')
            continue;
        bool closing = at[1] == '/';
        const char *name = at + 1 + closing;
        int length = (int)strcspn(name, " \t\n/>");
        if (!closing) {
            if (depth == 64 || length >= 32)
                return false;
            snprintf(stack[depth++], 32, "%.*s", length, name);
        } else if (depth == 0 || strncmp(stack[depth - 1], name, (size_t)length) != 0 ||
                   stack[depth - 1][length] != '\0') {
            return false;
        } else {
            depth--;
        }
    }
    return depth == 0;
}

/* The texts of every <text> of a class, each on its own line, in document order. */
static char *texts_of_class(const char *svg, const char *class)
{
    char needle[64];
    snprintf(needle, sizeof needle, "class=\"%s\"", class);
    size_t size = strlen(svg) + 1, used = 0;
    char *list = calloc(size, 1);
    ck_assert_ptr_nonnull(list);
    for (const char *at = strstr(svg, needle); at != NULL; at = strstr(at + 1, needle)) {
        const char *open = strchr(at, '>'), *close = open ? strchr(open, '<') : NULL;
        if (close == NULL)
            break;
        used +=
            (size_t)snprintf(list + used, size - used, "%.*s\n", (int)(close - open - 1), open + 1);
    }
    return list;
}

/* How many lines of list are exactly line. */
static int count_lines(const char *list, const char *line)
{
    int count = 0;
    size_t length = strlen(line);
    for (const char *at = list; *at != '\0'; at = strchr(at, '\n') + 1) {
        if (strncmp(at, line, length) == 0 && at[length] == '\n')
            count++;
    }
    return count;
}

static void picture_size(const char *svg, double *width, double *height)
{
    ck_assert_int_eq(sscanf(svg,
                            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%lf\" "
                            "height=\"%lf\"",
                            width, height),
                     2);
}

/* ------------------------------------------------------------------ Core */

/* The smallest type the file sets, in its own units. */
static double smallest_type(const char *svg)
{
    double smallest = 1e9;
    for (const char *at = strstr(svg, "font-size: "); at != NULL;
         at = strstr(at + 1, "font-size: ")) {
        double size = 0;
        if (sscanf(at, "font-size: %lfpx", &size) == 1 && size < smallest)
            smallest = size;
    }
    return smallest;
}

/* Slides: 16:9 pages stacked in one file, each a view of its own (#page-N), the last one
 * what happened and the legend; the smallest type is 18 px or more on a 1920 x 1080
 * projector showing one page; a long story (C11's) takes several pages. */
START_TEST(test_landscape_is_16_9_pages_readable_at_1080p_and_byte_identical)
{
    for (size_t s = 0; s < sizeof SCENARIOS / sizeof SCENARIOS[0]; s++) {
        char *first = draw_landscape(SCENARIOS[s], "first.svg");
        char *second = draw_landscape(SCENARIOS[s], "second.svg");
        ck_assert_msg(strcmp(first, second) == 0, "%s differs between two runs", SCENARIOS[s]);
        ck_assert_msg(balanced(first), "%s: unbalanced", SCENARIOS[s]);
        double width = 0, height = 0;
        picture_size(first, &width, &height);
        int pages = (int)(height * 16.0 / (width * 9.0) + 0.5);
        ck_assert_msg(pages >= 2 && height * 16.0 == width * 9.0 * pages,
                      "%s: %.0f x %.0f is not a stack of 16:9 pages", SCENARIOS[s], width, height);
        for (int p = 1; p <= pages; p++) {
            char view[64];
            snprintf(view, sizeof view, "<view id=\"page-%d\" viewBox=\"0 %.0f %.0f %.0f\"/>", p,
                     height / pages * (p - 1), width, height / pages);
            ck_assert_msg(strstr(first, view) != NULL, "%s: no %s", SCENARIOS[s], view);
        }
        ck_assert_msg(smallest_type(first) * 1920.0 / width >= 18.0,
                      "%s: %.1f px type on a %.0f wide page is under 18 px at 1920", SCENARIOS[s],
                      smallest_type(first), width);
        if (strstr(SCENARIOS[s], "11_crash") != NULL)
            ck_assert_msg(pages >= 3, "C11's story on %d pages", pages);
        ck_assert_ptr_nonnull(strstr(first, "Time flows right"));
        free(first);
        free(second);
    }
}
END_TEST

/* A word's box on the slides' strip: a badge's rectangle, or an arrow's label (its width
 * as the drawing reckons it: 6.4 units a character at 11 px, the label's type is 10.5 px). */
typedef struct {
    double x, y, w, h;
} WordBox;

static int strip_words(const char *svg, WordBox *boxes, int room)
{
    const char *rows = strstr(svg, "<g id=\"slide-rows\">");
    const char *end = strstr(svg, "</defs>");
    ck_assert_ptr_nonnull(rows);
    ck_assert_ptr_nonnull(end);
    int count = 0;
    for (const char *at = strstr(rows, "<rect x=\""); at != NULL && at < end && count < room;
         at = strstr(at + 1, "<rect x=\"")) {
        WordBox box;
        int matched = 0; /* sscanf counts conversions, not the words after the last one */
        if (sscanf(at, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"17.0\" rx=\"4\"%n", &box.x,
                   &box.y, &box.w, &matched) == 3 &&
            matched > 0) {
            box.h = 17.0;
            boxes[count++] = box;
        }
    }
    for (const char *at = strstr(rows, "class=\"msg\""); at != NULL && at < end && count < room;
         at = strstr(at + 1, "class=\"msg\"")) {
        const char *tag = at;
        while (strncmp(tag, "<text x=\"", 9) != 0)
            tag--;
        WordBox box;
        ck_assert_int_eq(sscanf(tag, "<text x=\"%lf\" y=\"%lf\"", &box.x, &box.y), 2);
        int characters = 0;
        for (const char *c = strchr(at, '>') + 1; *c != '<'; c++)
            characters += ((unsigned char)*c & 0xC0) != 0x80;
        box = (WordBox){box.x - 1.0, box.y - 10.0, characters * 6.4 * 10.5 / 11.0 + 2.0, 13.0};
        boxes[count++] = box;
    }
    return count;
}

/* Words never overlap on a slide (the view's rule): an arrow's label takes the first place
 * along its arrow that covers no badge and no other label. */
START_TEST(test_landscape_words_never_overlap)
{
    static WordBox boxes[4096];
    for (size_t s = 0; s < sizeof SCENARIOS / sizeof SCENARIOS[0]; s++) {
        char *svg = draw_landscape(SCENARIOS[s], "words.svg");
        int count = strip_words(svg, boxes, 4096);
        ck_assert_int_ge(count, 10);
        for (int i = 0; i < count; i++) {
            for (int j = i + 1; j < count; j++) {
                const WordBox *a = &boxes[i], *b = &boxes[j];
                bool overlap = a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h &&
                               b->y < a->y + a->h;
                ck_assert_msg(!overlap, "%s: words at (%.1f, %.1f) and (%.1f, %.1f) overlap",
                              SCENARIOS[s], a->x, a->y, b->x, b->y);
            }
        }
        free(svg);
    }
}
END_TEST

START_TEST(test_portrait_is_the_default_and_stays_taller_than_wide)
{
    const char *portrait[] = {"--svg-layout", "portrait", NULL};
    char *plain = draw(LOST_ANSWER, "plain.svg", NULL);
    char *asked = draw(LOST_ANSWER, "asked.svg", portrait);
    ck_assert_str_eq(plain, asked);
    double width = 0, height = 0;
    picture_size(plain, &width, &height);
    ck_assert_msg(height > width, "%.0f x %.0f", width, height);
    ck_assert_ptr_nonnull(strstr(plain, "Time flows down"));
    free(plain);
    free(asked);
}
END_TEST

/* Same words: every message label and every badge, as many times in both layouts. */
START_TEST(test_landscape_says_every_word_the_portrait_says)
{
    static const char *const classes[] = {"msg", "badge", "head", "role", "line"};
    for (size_t s = 0; s < sizeof SCENARIOS / sizeof SCENARIOS[0]; s++) {
        char *portrait = draw(SCENARIOS[s], "portrait.svg", NULL);
        char *landscape = draw_landscape(SCENARIOS[s], "landscape.svg");
        for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++) {
            char *wanted = texts_of_class(portrait, classes[c]);
            char *found = texts_of_class(landscape, classes[c]);
            ck_assert_msg(wanted[0] != '\0' || c > 1, "%s: no %s text", SCENARIOS[s], classes[c]);
            for (char *line = wanted; *line != '\0'; line = strchr(line, '\n') + 1) {
                char text[256];
                snprintf(text, sizeof text, "%.*s", (int)strcspn(line, "\n"), line);
                ck_assert_msg(count_lines(found, text) == count_lines(wanted, text),
                              "%s: %s '%s' %d times in portrait, %d in landscape", SCENARIOS[s],
                              classes[c], text, count_lines(wanted, text),
                              count_lines(found, text));
            }
            free(wanted);
            free(found);
        }
        free(portrait);
        free(landscape);
    }
}
END_TEST

/* The time labels along the top read in order, left to right; so do a client's badges. */
START_TEST(test_landscape_time_increases_left_to_right)
{
    char *svg = draw_landscape(LOST_ANSWER, "time.svg");
    int labels = 0;
    double last_x = -1, last_seconds = -1;
    for (const char *at = strstr(svg, "class=\"time\">"); at != NULL;
         at = strstr(at + 1, "class=\"time\">")) {
        double seconds = 0;
        if (sscanf(strchr(at, '>') + 1, "%lf s<", &seconds) != 1)
            continue; /* the axis' name */
        const char *tag = at;
        while (tag > svg && strncmp(tag, "<text x=\"", 9) != 0)
            tag--;
        double x = 0;
        ck_assert_int_eq(sscanf(tag, "<text x=\"%lf\"", &x), 1);
        ck_assert_msg(x > last_x && seconds > last_seconds, "%.3f s at x %.1f after %.3f s at %.1f",
                      seconds, x, last_seconds, last_x);
        last_x = x;
        last_seconds = seconds;
        labels++;
    }
    ck_assert_int_ge(labels, 5);
    /* web[0] presses Pay, times out, then is told success: in that order along x. */
    const char *press = strstr(svg, ">presses Pay<"),
               *timeout = strstr(svg, ">no answer: timeout<"),
               *told = strstr(svg, ">told: success<");
    ck_assert_ptr_nonnull(press);
    ck_assert_ptr_nonnull(timeout);
    ck_assert_ptr_nonnull(told);
    double x_press = 0, x_timeout = 0, x_told = 0;
    const char *tags[] = {press, timeout, told};
    double *xs[] = {&x_press, &x_timeout, &x_told};
    for (int i = 0; i < 3; i++) {
        const char *tag = tags[i];
        while (strncmp(tag, "<text x=\"", 9) != 0)
            tag--;
        ck_assert_int_eq(sscanf(tag, "<text x=\"%lf\"", xs[i]), 1);
    }
    ck_assert_msg(x_press < x_timeout && x_timeout < x_told, "%.1f %.1f %.1f", x_press, x_timeout,
                  x_told);
    free(svg);
}
END_TEST

/* ------------------------------------------------------------------ Limits */

START_TEST(test_bad_svg_layout_exits_2_says_why_and_writes_nothing)
{
    char path[512], errors[512];
    test_cli_in_scratch(path, "bad.svg");
    test_cli_in_scratch(errors, "stderr.txt");
    const char *unknown[] = {"run", LOST_ANSWER, "--svg", path, "--svg-layout", "sideways", NULL};
    const char *no_file[] = {"run", LOST_ANSWER, "--svg-layout", "landscape", "-q", NULL};
    const char *no_value[] = {"run", LOST_ANSWER, "--svg", path, "--svg-layout", NULL};
    ck_assert_int_eq(test_cli_run(unknown, NULL, errors), 2);
    char *said = test_cli_read_all(errors, NULL);
    ck_assert_ptr_nonnull(said);
    ck_assert_msg(strstr(said, "--svg-layout expects portrait or landscape, got 'sideways'"),
                  "stderr: %s", said);
    free(said);
    ck_assert_int_eq(test_cli_run(no_file, NULL, errors), 2);
    said = test_cli_read_all(errors, NULL);
    ck_assert_msg(strstr(said, "--svg-layout needs --svg FILE"), "stderr: %s", said);
    free(said);
    ck_assert_int_eq(test_cli_run(no_value, NULL, NULL), 2);
    ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

START_TEST(test_run_help_names_the_layouts)
{
    char out[512];
    test_cli_in_scratch(out, "help.txt");
    const char *arguments[] = {"help", "run", NULL};
    ck_assert_int_eq(test_cli_run(arguments, out, NULL), 0);
    char *help = test_cli_read_all(out, NULL);
    ck_assert_ptr_nonnull(help);
    ck_assert_ptr_nonnull(strstr(help, "--svg-layout L"));
    ck_assert_ptr_nonnull(strstr(help, "landscape"));
    free(help);
}
END_TEST

static Suite *svg_layout_suite(void)
{
    Suite *suite = suite_create("svg_layout");
    TCase *core = tcase_create("Core");
    tcase_add_checked_fixture(core, setup, teardown);
    tcase_set_timeout(core, 120);
    tcase_add_test(core, test_landscape_is_16_9_pages_readable_at_1080p_and_byte_identical);
    tcase_add_test(core, test_landscape_words_never_overlap);
    tcase_add_test(core, test_portrait_is_the_default_and_stays_taller_than_wide);
    tcase_add_test(core, test_landscape_says_every_word_the_portrait_says);
    tcase_add_test(core, test_landscape_time_increases_left_to_right);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_checked_fixture(limits, setup, teardown);
    tcase_add_test(limits, test_bad_svg_layout_exits_2_says_why_and_writes_nothing);
    tcase_add_test(limits, test_run_help_names_the_layouts);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(svg_layout_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
