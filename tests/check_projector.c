/* The projector preset, checked from outside as a room would see it: every curriculum
 * scenario rendered at 1920x1080 with --projector, its diagrams' words read back through
 * --labels-json (each string as drawn, with its box and type size). Every word is at least
 * 18 px, no two words overlap, and every column shares one time axis. The same holds in a
 * real window under Xvfb when xvfb-run is installed. */
#include <check.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_cli.h"

#define LABEL_PX_MIN 18

typedef struct {
    int x, y, w, h;
} Box;

static Box box_of(const cJSON *object)
{
    return (Box){
        cJSON_GetObjectItem(object, "x")->valueint, cJSON_GetObjectItem(object, "y")->valueint,
        cJSON_GetObjectItem(object, "w")->valueint, cJSON_GetObjectItem(object, "h")->valueint};
}

static bool overlap(Box a, Box b)
{
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

static cJSON *read_labels(const char *path)
{
    char *text = test_cli_read_all(path, NULL);
    ck_assert_msg(text != NULL, "no labels file %s", path);
    cJSON *labels = cJSON_Parse(text);
    free(text);
    ck_assert_msg(labels != NULL, "labels file %s is not JSON", path);
    return labels;
}

/* Every word of every column: large enough (a string cut by the diagram's edge shows only in
 * part, its type is still checked) and clear of every other word. Returns the words seen. */
static int check_words(const cJSON *labels, const char *what)
{
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(labels, "projector")));
    ck_assert_int_eq(cJSON_GetObjectItem(labels, "width")->valueint, 1920);
    ck_assert_int_eq(cJSON_GetObjectItem(labels, "height")->valueint, 1080);
    int seen = 0;
    const cJSON *pane;
    cJSON_ArrayForEach(pane, cJSON_GetObjectItem(labels, "panes"))
    {
        const cJSON *texts = cJSON_GetObjectItem(pane, "texts");
        int count = cJSON_GetArraySize(texts);
        for (int i = 0; i < count; i++) {
            const cJSON *text = cJSON_GetArrayItem(texts, i);
            const char *words = cJSON_GetObjectItem(text, "text")->valuestring;
            int px = cJSON_GetObjectItem(text, "px")->valueint;
            Box box = box_of(text);
            ck_assert_msg(px >= LABEL_PX_MIN, "%s: '%s' is %d px", what, words, px);
            ck_assert_msg(cJSON_IsTrue(cJSON_GetObjectItem(text, "clipped")) ||
                              box.h >= LABEL_PX_MIN,
                          "%s: '%s' is %d px tall", what, words, box.h);
            for (int j = i + 1; j < count; j++) {
                const cJSON *other = cJSON_GetArrayItem(texts, j);
                ck_assert_msg(!overlap(box, box_of(other)), "%s: '%s' overlaps '%s'", what, words,
                              cJSON_GetObjectItem(other, "text")->valuestring);
            }
        }
        seen += count;
    }
    return seen;
}

static void render(const char *scenario, const char *at_ms, const char *labels_path)
{
    char png[512];
    test_cli_in_scratch(png, "frame.png");
    const char *arguments[] = {"view",    scenario, "--headless",    "--projector", "--png", png,
                               "--at-ms", at_ms,    "--labels-json", labels_path,   NULL};
    ck_assert_msg(test_cli_run(arguments, NULL, NULL) == 0, "view %s --at-ms %s failed", scenario,
                  at_ms);
}

/* Scenario files of the library, sorted, so the loop's index picks one. */
static int library(char names[][256], int room)
{
    DIR *dir = opendir("scenarios");
    ck_assert_ptr_nonnull(dir);
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL && count < room) {
        size_t length = strlen(entry->d_name);
        if (length > 5 && strcmp(entry->d_name + length - 5, ".json") == 0)
            snprintf(names[count++], 256, "scenarios/%.200s", entry->d_name);
    }
    closedir(dir);
    qsort(names, (size_t)count, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    return count;
}

START_TEST(test_every_scenario_reads_from_the_back_row)
{
    test_cli_make_scratch("projector");
    static char names[128][256];
    int count = library(names, 128);
    ck_assert_int_ge(count, 40);
    char labels_path[512];
    test_cli_in_scratch(labels_path, "labels.json");
    int words = 0;
    for (int s = 0; s < count; s++) {
        const char *times[] = {"1400", "6000"};
        for (int t = 0; t < 2; t++) {
            render(names[s], times[t], labels_path);
            cJSON *labels = read_labels(labels_path);
            char what[300];
            snprintf(what, sizeof what, "%.250s at %s ms", names[s], times[t]);
            words += check_words(labels, what);
            cJSON_Delete(labels);
        }
    }
    ck_assert_int_ge(words, count * 2 * 10); /* not vacuous: headings, times, arrows' words */
    test_cli_remove_scratch();
}
END_TEST

/* The y of the first string with these words in a column; -1 when absent. */
static int y_of_words(const cJSON *pane, const char *words)
{
    const cJSON *text;
    cJSON_ArrayForEach(text, cJSON_GetObjectItem(pane, "texts"))
    {
        if (strcmp(cJSON_GetObjectItem(text, "text")->valuestring, words) == 0)
            return cJSON_GetObjectItem(text, "y")->valueint;
    }
    return -1;
}

/* C1 at 1.4 s: the request at 0 s and the retry at 1.2 s are on screen in every column, at
 * the same heights; the wait between them is squeezed and says so. */
START_TEST(test_the_lost_answer_shares_one_time_axis)
{
    test_cli_make_scratch("projector-c1");
    char labels_path[512];
    test_cli_in_scratch(labels_path, "labels.json");
    render("scenarios/01_lost_answer.json", "1400", labels_path);
    cJSON *labels = read_labels(labels_path);
    check_words(labels, "C1 at 1400 ms");
    const cJSON *panes = cJSON_GetObjectItem(labels, "panes");
    ck_assert_int_eq(cJSON_GetArraySize(panes), 3);
    const char *ticks[] = {"0.0 s", "1.2 s"};
    for (int t = 0; t < 2; t++) {
        int first = y_of_words(cJSON_GetArrayItem(panes, 0), ticks[t]);
        ck_assert_msg(first >= 0, "no '%s' in the first column", ticks[t]);
        for (int p = 1; p < 3; p++)
            ck_assert_int_eq(y_of_words(cJSON_GetArrayItem(panes, p), ticks[t]), first);
    }
    int retry = y_of_words(cJSON_GetArrayItem(panes, 1), "retry #2");
    ck_assert_int_ge(retry, 0);
    ck_assert_int_eq(y_of_words(cJSON_GetArrayItem(panes, 2), "retry #2"), retry);
    ck_assert_int_ge(y_of_words(cJSON_GetArrayItem(panes, 0), "gave up"), 0);
    int quiet = -1; /* the wait for the timeout, squeezed and marked, at one height */
    for (int p = 0; p < 3; p++) {
        const cJSON *text;
        int found = -1;
        cJSON_ArrayForEach(text, cJSON_GetObjectItem(cJSON_GetArrayItem(panes, p), "texts"))
        {
            const char *words = cJSON_GetObjectItem(text, "text")->valuestring;
            if (strstr(words, " s quiet") != NULL)
                found = cJSON_GetObjectItem(text, "y")->valueint;
        }
        ck_assert_int_ge(found, 0);
        if (p == 0)
            quiet = found;
        ck_assert_int_eq(found, quiet);
    }
    cJSON_Delete(labels);
    test_cli_remove_scratch();
}
END_TEST

START_TEST(test_a_fixed_window_is_refused_backwards_and_drawn_forwards)
{
    test_cli_make_scratch("projector-window");
    char labels_path[512], png[512];
    test_cli_in_scratch(labels_path, "labels.json");
    test_cli_in_scratch(png, "frame.png");
    const char *backwards[] = {
        "view", "scenarios/01_lost_answer.json", "--headless", "--png", png, "--window", "900:100",
        NULL};
    ck_assert_int_eq(test_cli_run(backwards, NULL, NULL), 2);
    const char *window[] = {"view",
                            "scenarios/01_lost_answer.json",
                            "--headless",
                            "--projector",
                            "--png",
                            png,
                            "--at-ms",
                            "4000",
                            "--window",
                            "900:1400",
                            "--labels-json",
                            labels_path,
                            NULL};
    ck_assert_int_eq(test_cli_run(window, NULL, NULL), 0);
    cJSON *labels = read_labels(labels_path);
    check_words(labels, "C1 in 900:1400");
    const cJSON *pane = cJSON_GetArrayItem(cJSON_GetObjectItem(labels, "panes"), 1);
    ck_assert_int_ge(y_of_words(pane, "retry #2"), 0);
    ck_assert_int_eq(y_of_words(pane, "0.0 s"), -1); /* before the window */
    cJSON_Delete(labels);
    test_cli_remove_scratch();
}
END_TEST

/* A clock far past the run (the browser edition opens a link at the end of time so): drawn
 * as fast as any frame (a squeezed band's grid and traffic are not walked tick by tick), each
 * finished column tells its most telling operation's story where its diagram was, since the
 * diagram then holds only the last quiet exchange: the first payment never charged in
 * at-most-once, the first charged twice in at-least-once, the first retry a key store
 * answered in the idempotent column, each with its outcome. */
START_TEST(test_a_clock_far_past_the_run_tells_each_column_story)
{
    test_cli_make_scratch("projector-far");
    char labels_path[512];
    test_cli_in_scratch(labels_path, "labels.json");
    render("scenarios/default.json", "1000000000000", labels_path);
    cJSON *labels = read_labels(labels_path);
    check_words(labels, "default at the end of time");
    const char *headlines[] = {"the first operation never applied",
                               "the first operation applied twice",
                               "the first duplicate caught before it ran again"};
    const char *outcomes[] = {"outcome: lost", "outcome: double", "outcome: ok"};
    int p = 0;
    const cJSON *pane;
    cJSON_ArrayForEach(pane, cJSON_GetObjectItem(labels, "panes"))
    {
        bool title = false, headline = false, outcome = false;
        const cJSON *text;
        cJSON_ArrayForEach(text, cJSON_GetObjectItem(pane, "texts"))
        {
            const char *words = cJSON_GetObjectItem(text, "text")->valuestring;
            title = title || strncmp(words, "THE STORY OF OPERATION ", 23) == 0;
            headline = headline || strcmp(words, headlines[p]) == 0;
            outcome = outcome || strncmp(words, outcomes[p], strlen(outcomes[p])) == 0;
        }
        ck_assert_msg(title && headline && outcome, "column %d tells no story of '%s'", p,
                      headlines[p]);
        p++;
    }
    ck_assert_int_eq(p, 3);
    cJSON_Delete(labels);
    test_cli_remove_scratch();
}
END_TEST

/* The words of a column's lane headings: the texts above its diagram's body (two rows). */
static bool heading_has(const cJSON *pane, const char *words, int *x)
{
    const cJSON *sequence = cJSON_GetObjectItem(pane, "sequence");
    int top = cJSON_GetObjectItem(sequence, "y")->valueint;
    const cJSON *text;
    cJSON_ArrayForEach(text, cJSON_GetObjectItem(pane, "texts"))
    {
        int y = cJSON_GetObjectItem(text, "y")->valueint;
        if (y < top + 2 * 30 &&
            strcmp(cJSON_GetObjectItem(text, "text")->valuestring, words) == 0) {
            *x = cJSON_GetObjectItem(text, "x")->valueint;
            return true;
        }
    }
    return false;
}

/* Every node of a long graph has its lane, named in full, in its own column and in the node
 * table's order (the order a request meets them), beside at least one client's lane: a
 * proxy, a server's two instances (one name, a marker each), a gateway, a broker and its
 * consumers, at 1920x1080 with three columns. */
static void check_lanes(const char *scenario, const char *at_ms, const char *const *names,
                        int name_count)
{
    char labels_path[512];
    test_cli_in_scratch(labels_path, "labels.json");
    render(scenario, at_ms, labels_path);
    cJSON *labels = read_labels(labels_path);
    check_words(labels, scenario);
    const cJSON *pane;
    int panes = 0;
    cJSON_ArrayForEach(pane, cJSON_GetObjectItem(labels, "panes"))
    {
        const cJSON *sequence = cJSON_GetObjectItem(pane, "sequence");
        int left = cJSON_GetObjectItem(sequence, "x")->valueint;
        int right = left + cJSON_GetObjectItem(sequence, "w")->valueint;
        int previous = left, x = 0;
        ck_assert_msg(heading_has(pane, "0", &x), "%s: no client lane", scenario);
        for (int n = 0; n < name_count; n++) {
            ck_assert_msg(heading_has(pane, names[n], &x), "%s: no lane '%s'", scenario, names[n]);
            ck_assert_msg(x >= left && x < right, "%s: '%s' outside its column", scenario,
                          names[n]);
            if (names[n][0] != '#') /* a marker sits under its service's name */
                ck_assert_msg(x > previous, "%s: '%s' out of order", scenario, names[n]);
            previous = names[n][0] != '#' ? x : previous;
        }
        panes++;
    }
    ck_assert_int_eq(panes, 3);
    cJSON_Delete(labels);
}

START_TEST(test_every_node_of_a_long_graph_has_its_lane)
{
    test_cli_make_scratch("projector-lanes");
    const char *chain[] = {"mesh",     "checkout", "#1",     "#2",
                           "provider", "receipts", "mailer", "ledger"};
    check_lanes("tests/view/five_service_chain.json", "1708", chain, 8);
    const char *mesh[] = {"mesh", "checkout", "#1", "#2", "provider", "ledger"};
    check_lanes("scenarios/architectures/mesh_two_instances_checkout.json", "20000", mesh, 6);
    test_cli_remove_scratch();
}
END_TEST

/* C13 at its first double: five of its ten clients have a lane of their own, the other
 * sampled ones share one ("+3"), so the second charge has the request that made it. */
START_TEST(test_sampled_clients_without_a_lane_share_one)
{
    test_cli_make_scratch("projector-grouped");
    char labels_path[512];
    test_cli_in_scratch(labels_path, "labels.json");
    render("scenarios/13_double_click_per_click.json", "800", labels_path);
    cJSON *labels = read_labels(labels_path);
    check_words(labels, "C13 at 800 ms");
    const cJSON *pane;
    cJSON_ArrayForEach(pane, cJSON_GetObjectItem(labels, "panes"))
    {
        int x = 0;
        ck_assert(heading_has(pane, "+3", &x));
        ck_assert(heading_has(pane, "4", &x));
        ck_assert(heading_has(pane, "server", &x));
    }
    cJSON_Delete(labels);
    test_cli_remove_scratch();
}
END_TEST

static bool have_xvfb(void)
{
    return system("command -v xvfb-run >/dev/null 2>&1") == 0;
}

/* A real window on an X server of projector size, at whatever moment the clock reached when
 * it closed: the same rules hold. */
START_TEST(test_the_window_under_xvfb_reads_from_the_back_row)
{
    test_cli_make_scratch("projector-xvfb");
    char labels_path[512];
    test_cli_in_scratch(labels_path, "labels.json");
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        /* Under AddressSanitizer, libX11 and Mesa leak a few blocks of their own; the headless
         * tests above keep leak checking on for the view's code. */
        setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
        execlp("xvfb-run", "xvfb-run", "-a", "-s", "-screen 0 1920x1080x24", IDEMSIM_BINARY, "view",
               "scenarios/01_lost_answer.json", "--projector", "--speed", "1", "--quit-after-ms",
               "2000", "--labels-json", labels_path, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
    cJSON *labels = read_labels(labels_path);
    ck_assert_int_ge(check_words(labels, "C1 in a window under Xvfb"), 10);
    cJSON_Delete(labels);
    test_cli_remove_scratch();
}
END_TEST

static Suite *projector_suite(void)
{
    Suite *suite = suite_create("projector");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_every_scenario_reads_from_the_back_row);
    tcase_add_test(tc, test_the_lost_answer_shares_one_time_axis);
    tcase_add_test(tc, test_a_fixed_window_is_refused_backwards_and_drawn_forwards);
    tcase_add_test(tc, test_a_clock_far_past_the_run_tells_each_column_story);
    tcase_add_test(tc, test_every_node_of_a_long_graph_has_its_lane);
    tcase_add_test(tc, test_sampled_clients_without_a_lane_share_one);
    suite_add_tcase(suite, tc);
    return suite;
}

/* The real-window test is CTest's check_projector_real_window (tests/CMakeLists.txt). */
static Suite *real_window_suite(void)
{
    Suite *suite = suite_create("projector_real_window");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_the_window_under_xvfb_reads_from_the_back_row);
    suite_add_tcase(suite, tc);
    return suite;
}

#define EXIT_SKIPPED 77 /* CTest's SKIP_RETURN_CODE for this test */

int main(int argc, char **argv)
{
    bool real_window = argc > 1 && strcmp(argv[1], "--real-window") == 0;
    if (real_window && !have_xvfb()) {
        printf("check_projector: xvfb-run is not installed: the real-window test is skipped\n");
        return EXIT_SKIPPED;
    }
    SRunner *runner = srunner_create(real_window ? real_window_suite() : projector_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
