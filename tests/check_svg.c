/* idemsim run --svg: the sequence diagram is well-formed XML (every element closed, in
 * order), deterministic (same run, same bytes), shows what the run did (the lost answers and
 * the second charges of C1 at-least-once, the replays of C1 idempotent), leaves the trace
 * untouched, and refuses bad options before running. With --svg-outcome it draws only the
 * operations that ended so, and agrees with the model's own count of each outcome. */
#include <check.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diagram.h"
#include "test_cli.h"
#include "test_world.h"

#define LOST_ANSWER "scenarios/01_lost_answer.json"
#define KEY_REUSE "scenarios/08_key_reuse_fingerprint.json"
#define ARROW "\xe2\x86\x92"

static const char *const OUTCOMES[] = {"ok", "double", "lost", "phantom", "mismatch"};

static void setup(void)
{
    test_cli_make_scratch("svg");
}

static void teardown(void)
{
    test_cli_remove_scratch();
}

static char *draw(const char *scenario, const char *mode, const char *name)
{
    char path[512];
    test_cli_in_scratch(path, name);
    const char *arguments[] = {"run", scenario, "--svg", path, "--svg-mode", mode, "-q", NULL};
    ck_assert_int_eq(test_cli_run(arguments, NULL, NULL), 0);
    char *svg = test_cli_read_all(path, NULL);
    ck_assert_ptr_nonnull(svg);
    return svg;
}

/* Draws mode's first operations that ended outcome; returns the exit code, and the SVG (or
 * NULL when no file was written) in *svg. */
static int draw_outcome(const char *scenario, const char *mode, const char *outcome,
                        const char *operations, const char *name, char **svg)
{
    char path[512], errors[512];
    test_cli_in_scratch(path, name);
    test_cli_in_scratch(errors, "stderr.txt");
    unlink(path); /* what an earlier call wrote */
    const char *arguments[] = {
        "run",           scenario, "--svg",     path,       "--svg-mode", mode,
        "--svg-outcome", outcome,  "--svg-ops", operations, "-q",         NULL};
    int status = test_cli_run(arguments, NULL, errors);
    *svg = test_cli_read_all(path, NULL);
    return status;
}

static int occurrences(const char *text, const char *needle)
{
    int count = 0;
    for (const char *at = strstr(text, needle); at != NULL; at = strstr(at + 1, needle))
        count++;
    return count;
}

/* Every element is closed, in the order opened: a stack of element names. Enough of XML
 * for what the writer emits (no CDATA, comments only in <!...>, text escaped). */
static bool balanced(const char *text, char *problem, size_t size)
{
    char stack[64][32];
    int depth = 0;
    for (const char *at = strchr(text, '<'); at != NULL; at = strchr(at + 1, '<')) {
        const char *end = strchr(at, '>');
        if (end == NULL) {
            snprintf(problem, size, "unterminated tag at byte %ld", (long)(at - text));
            return false;
        }
        if (at[1] == '?' || at[1] == '!' || end[-1] == '/')
            continue;
        bool closing = at[1] == '/';
        const char *name = at + 1 + closing;
        int length = (int)strcspn(name, " \t\n/>");
        if (!closing) {
            if (depth == 64 || length >= 32) {
                snprintf(problem, size, "nesting too deep or name too long");
                return false;
            }
            snprintf(stack[depth++], 32, "%.*s", length, name);
        } else if (depth == 0 || strncmp(stack[depth - 1], name, (size_t)length) != 0 ||
                   stack[depth - 1][length] != '\0') {
            snprintf(problem, size, "</%.*s> closes <%s>", length, name,
                     depth ? stack[depth - 1] : "nothing");
            return false;
        } else {
            depth--;
        }
    }
    if (depth != 0)
        snprintf(problem, size, "<%s> is never closed", stack[depth - 1]);
    return depth == 0;
}

/* ------------------------------------------------------------------ Core */

START_TEST(test_svg_is_well_formed_and_byte_identical_for_the_same_run)
{
    char *first = draw(LOST_ANSWER, "at-least-once", "first.svg");
    char *second = draw(LOST_ANSWER, "at-least-once", "second.svg");
    ck_assert_str_eq(first, second);
    ck_assert_msg(strncmp(first, "<svg ", 5) == 0, "starts with %.20s", first);
    size_t length = strlen(first);
    ck_assert(length > 7 && strcmp(first + length - 7, "</svg>\n") == 0);
    char problem[128] = "";
    ck_assert_msg(balanced(first, problem, sizeof problem), "%s", problem);
    free(first);
    free(second);
}
END_TEST

START_TEST(test_at_least_once_diagram_shows_lost_answers_and_second_charges)
{
    /* C1: each of the three answers is lost in the outage, each retry charges again. */
    char *svg = draw(LOST_ANSWER, "at-least-once", "c1.svg");
    ck_assert_int_eq(occurrences(svg, "200 OK, lost"), 3);
    ck_assert_int_ge(occurrences(svg, "class=\"cross\""), 3);
    ck_assert_int_eq(occurrences(svg, "no answer: timeout"), 3);
    ck_assert_int_eq(occurrences(svg, "retry (attempt 2)"), 3);
    ck_assert_int_eq(occurrences(svg, "charges "
                                      "\xe2\x86\x92"
                                      " 200"),
                     6);
    ck_assert_int_eq(occurrences(svg, " AGAIN<"), 3); /* the ledger's second charges */
    ck_assert_int_eq(occurrences(svg, ">double<"), 3);
    ck_assert_int_eq(occurrences(svg, "key free"), 0); /* no key store in this mode */
    for (int lane = 0; lane < 3; lane++) {
        char name[32];
        snprintf(name, sizeof name, ">web[%d]<", lane);
        ck_assert_msg(strstr(svg, name) != NULL, "lane %s missing", name);
    }
    ck_assert_ptr_nonnull(strstr(svg, ">server<"));
    ck_assert_ptr_nonnull(strstr(svg, ">ledger<"));
    free(svg);
}
END_TEST

START_TEST(test_idempotent_diagram_shows_reservations_and_replays_not_charges)
{
    char *svg = draw(LOST_ANSWER, "idempotent", "c1-keyed.svg");
    ck_assert_int_eq(occurrences(svg, "key free "
                                      "\xe2\x86\x92"
                                      " reserved"),
                     3);
    ck_assert_int_eq(occurrences(svg, "key done "
                                      "\xe2\x86\x92"
                                      " replay 200"),
                     3);
    ck_assert_int_eq(occurrences(svg, "charges "
                                      "\xe2\x86\x92"
                                      " 200"),
                     3);
    ck_assert_int_eq(occurrences(svg, " AGAIN<"), 0);
    ck_assert_int_eq(occurrences(svg, ">ok<"), 3);
    free(svg);
}
END_TEST

/* The first double of workers_dedupe_store_down starts while its Redis is down (its own crash,
 * C38, at 110 s): the diagram draws that crash before the first click, and the restart at
 * 120 s, in Redis's lane, which stands after the services although it is met first. */
START_TEST(test_an_outage_under_way_is_drawn_before_the_first_request)
{
    char *svg = NULL;
    ck_assert_int_eq(draw_outcome("scenarios/architectures/workers_dedupe_store_down.json",
                                  "idempotent", "double", "1", "outage.svg", &svg),
                     0);
    const char *crash = strstr(svg, "CRASH (keys kept)");
    const char *click = strstr(svg, "presses Pay");
    ck_assert_msg(crash != NULL && click != NULL && crash < click, "no outage drawn first");
    ck_assert_int_eq(occurrences(svg, "110.000 s"), 1);
    ck_assert_int_eq(occurrences(svg, "120.000 s"), 1);
    const char *redis = strstr(svg, ">redis<");
    const char *workers = strstr(svg, ">workers#2<");
    ck_assert_msg(redis != NULL && workers != NULL && workers < redis, "redis's lane first");
    free(svg);
}
END_TEST

/* A crash of a key store with no persistence (durable false) wipes its keys: one that held
 * none when it crashed kept none either. The collectors' store of
 * orders_and_invoices_two_groups goes down 1 ms into the run, before any key, for a minute:
 * the invoices drawn meet it down, and its crash says it held no keys, not "keys kept" (the
 * words of a durable store, as workers_dedupe_store_down's Redis above). */
START_TEST(test_a_store_without_persistence_that_held_no_keys_kept_none)
{
    char path[512];
    test_cli_in_scratch(path, "no_keys_held.svg");
    const char *arguments[] = {
        "run",
        "scenarios/architectures/orders_and_invoices_two_groups.json",
        "--set",
        ("services.collector-keys.crash={\"every_ms\": {\"dist\": \"const\", \"value\": 1}, "
         "\"restart_ms\": 60000, \"max_crashes\": 1}"),
        "--svg",
        path,
        "--svg-mode",
        "idempotent",
        "--svg-ops",
        "20",
        "-q",
        NULL};
    ck_assert_int_eq(test_cli_run(arguments, NULL, NULL), 0);
    char *svg = test_cli_read_all(path, NULL);
    ck_assert_int_eq(occurrences(svg, "CRASH (no keys held)"), 1);
    ck_assert_int_eq(occurrences(svg, "kept"), 0);
    free(svg);
}
END_TEST

/* A fanout exchange hands the two copies of one publish out at one instant, each with its
 * ack timer: the two bars stand side by side (the diagram model's slot), not one over the
 * other. In the portrait SVG a span is <rect x=ACROSS y=START ... class="span">. */
START_TEST(test_an_operations_overlapping_ack_timers_stand_apart)
{
    char *svg = draw("scenarios/architectures/orders_fanout_charge_and_confirm.json",
                     "at-least-once", "fanout.svg");
    double across[64], start[64];
    int spans = 0;
    for (const char *at = strstr(svg, "<rect x=\""); at != NULL && spans < 64;
         at = strstr(at + 1, "<rect x=\"")) {
        const char *end = strchr(at, '>');
        if (end == NULL || strstr(at, "class=\"span\"") == NULL ||
            strstr(at, "class=\"span\"") > end)
            continue;
        ck_assert_int_eq(sscanf(at, "<rect x=\"%lf\" y=\"%lf\"", &across[spans], &start[spans]), 2);
        spans++;
    }
    int side_by_side = 0, on_top = 0;
    for (int i = 0; i < spans; i++) {
        for (int j = i + 1; j < spans; j++) {
            if (start[i] != start[j])
                continue;
            side_by_side += across[i] != across[j];
            on_top += across[i] == across[j];
        }
    }
    ck_assert_int_gt(side_by_side, 0);
    ck_assert_int_eq(on_top, 0);
    free(svg);
}
END_TEST

/* A reset (a server's outage closed its port) is a failed try: its arrow and word are drawn
 * in the failures' red, not the green the legend gives a 2xx answer. The checkout is down
 * from 1 ms to 50 s: the first operation lost meets only resets. */
START_TEST(test_a_reset_is_drawn_as_a_failure)
{
    char path[512];
    test_cli_in_scratch(path, "reset.svg");
    const char *arguments[] = {"run",
                               "scenarios/architectures/checkout_payments_service.json",
                               "--set",
                               "services.checkout.outage={\"from_ms\": 1, \"to_ms\": 50000}",
                               "--svg",
                               path,
                               "--svg-mode",
                               "idempotent",
                               "--svg-outcome",
                               "lost",
                               "--svg-ops",
                               "1",
                               "-q",
                               NULL};
    ck_assert_int_eq(test_cli_run(arguments, NULL, NULL), 0);
    char *svg = test_cli_read_all(path, NULL);
    ck_assert_int_gt(occurrences(svg, "fill=\"#dc2626\">reset<"), 0);
    ck_assert_int_eq(occurrences(svg, "fill=\"#059669\">reset<"), 0);
    free(svg);
}
END_TEST

/* Seven doubles drawn fall in three of Redis's outages, each begun while no drawn click was
 * open: each is drawn as the first operation in it starts (the first draw told only the
 * outage the first operation started in). */
START_TEST(test_each_outage_a_drawn_operation_starts_in_is_drawn)
{
    char *svg = NULL;
    ck_assert_int_eq(draw_outcome("scenarios/architectures/workers_dedupe_store_down.json",
                                  "idempotent", "double", "7", "outages.svg", &svg),
                     0);
    ck_assert_int_eq(occurrences(svg, "CRASH (keys kept)"), 3);
    free(svg);
}
END_TEST

START_TEST(test_svg_ops_limits_the_operations_drawn)
{
    char path[512];
    test_cli_in_scratch(path, "one.svg");
    const char *arguments[] = {"run", LOST_ANSWER, "--svg", path, "--svg-ops", "1", "-q", NULL};
    ck_assert_int_eq(test_cli_run(arguments, NULL, NULL), 0);
    char *svg = test_cli_read_all(path, NULL);
    ck_assert_ptr_nonnull(svg);
    ck_assert_int_eq(occurrences(svg, ">web["), 1);        /* one lane: one client's operation */
    ck_assert_ptr_nonnull(strstr(svg, "mode idempotent")); /* the last mode by default */
    free(svg);
}
END_TEST

START_TEST(test_drawing_leaves_the_trace_byte_identical)
{
    char plain[512], with_svg[512], svg[512];
    test_cli_in_scratch(plain, "plain.trace");
    test_cli_in_scratch(with_svg, "with-svg.trace");
    test_cli_in_scratch(svg, "d.svg");
    const char *without[] = {"run", LOST_ANSWER, "--trace", plain, "-q", NULL};
    const char *with[] = {"run", LOST_ANSWER, "--trace", with_svg, "--svg", svg, "-q", NULL};
    ck_assert_int_eq(test_cli_run(without, NULL, NULL), 0);
    ck_assert_int_eq(test_cli_run(with, NULL, NULL), 0);
    size_t plain_length = 0, with_length = 0;
    char *a = test_cli_read_all(plain, &plain_length),
         *b = test_cli_read_all(with_svg, &with_length);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_gt(plain_length, 1000);
    ck_assert_uint_eq(plain_length, with_length);
    ck_assert_int_eq(memcmp(a, b, plain_length), 0);
    free(a);
    free(b);
}
END_TEST

/* ------------------------------------------------------------------ Outcome */

/* The outcome badges of the "What happened" list, in order, as a space-separated string. */
static void summary_outcomes(const char *svg, char *list, size_t size)
{
    list[0] = '\0';
    const char *at = strstr(svg, ">What happened<");
    ck_assert_ptr_nonnull(at);
    for (at = strstr(at, "class=\"badge\""); at != NULL; at = strstr(at + 1, "class=\"badge\"")) {
        const char *text = strchr(at, '>') + 1;
        int length = (int)strcspn(text, "<");
        for (size_t o = 0; o < sizeof OUTCOMES / sizeof OUTCOMES[0]; o++) {
            if ((int)strlen(OUTCOMES[o]) == length && strncmp(text, OUTCOMES[o], length) == 0)
                snprintf(list + strlen(list), size - strlen(list), "%s%s", list[0] ? " " : "",
                         OUTCOMES[o]);
        }
    }
}

/* The operations of the "What happened" list ("op 7: ..."), in order; returns how many. */
static int summary_operations(const char *svg, uint64_t *operations, int max)
{
    int count = 0;
    const char *at = strstr(svg, ">What happened<");
    ck_assert_ptr_nonnull(at);
    for (at = strstr(at, "class=\"line\">op "); at != NULL && count < max;
         at = strstr(at + 1, "class=\"line\">op "))
        operations[count++] = strtoull(at + strlen("class=\"line\">op "), NULL, 10);
    return count;
}

START_TEST(test_svg_outcome_names_the_payment_whose_key_was_replayed)
{
    /* C8 without a fingerprint: the reused key is found completed and the other payment's
     * answer replayed; the badge says whose key it was. */
    char *svg = NULL;
    ck_assert_int_eq(draw_outcome("scenarios/08_key_reuse_no_fingerprint.json", "idempotent",
                                  "mismatch", "3", "c8.svg", &svg),
                     0);
    ck_assert_ptr_nonnull(svg);
    uint64_t operations[3];
    ck_assert_int_eq(summary_operations(svg, operations, 3), 3);
    for (int i = 0; i < 3; i++) {
        char owned[64];
        snprintf(owned, sizeof owned, ">key of op %" PRIu64 " " ARROW " replay 200<",
                 operations[i] - 1);
        ck_assert_msg(occurrences(svg, owned) == 1, "op %" PRIu64 ": no '%s'", operations[i],
                      owned);
    }
    ck_assert_int_eq(occurrences(svg, "key done " ARROW " replay"), 0);
    free(svg);
}
END_TEST

START_TEST(test_double_click_says_which_click_presses_pay)
{
    /* C13: a second click is a second press, with its own key: the badge says it is click 2. */
    char *svg = draw("scenarios/13_double_click_per_click.json", "idempotent", "c13.svg");
    int operations = occurrences(svg, "class=\"line\">op ");
    int double_clicks = occurrences(svg, ": 2 clicks,");
    ck_assert_int_ge(double_clicks, 1);
    ck_assert_int_eq(occurrences(svg, ">presses Pay<"), operations);
    ck_assert_int_eq(occurrences(svg, ">presses Pay again (click 2)<"), double_clicks);
    free(svg);
}
END_TEST

START_TEST(test_svg_outcome_draws_only_operations_that_ended_so)
{
    /* C1 at-least-once: every payment is charged twice. */
    char *svg = NULL;
    ck_assert_int_eq(draw_outcome(LOST_ANSWER, "at-least-once", "double", "3", "d.svg", &svg), 0);
    ck_assert_ptr_nonnull(svg);
    char list[256];
    summary_outcomes(svg, list, sizeof list);
    ck_assert_str_eq(list, "double double double");
    ck_assert_ptr_nonnull(strstr(svg, "the first 3 operations that ended \xe2\x80\x9c"
                                      "double\xe2\x80\x9d"));
    ck_assert_int_eq(occurrences(svg, " AGAIN<"), 3);
    char problem[128] = "";
    ck_assert_msg(balanced(svg, problem, sizeof problem), "%s", problem);
    free(svg);
}
END_TEST

START_TEST(test_svg_outcome_shows_the_422_of_a_reused_key)
{
    /* C8: the first operations are ordinary payments; the lost ones meet the fingerprint. */
    char *svg = NULL;
    ck_assert_int_eq(draw_outcome(KEY_REUSE, "idempotent", "lost", "3", "c8.svg", &svg), 0);
    ck_assert_ptr_nonnull(svg);
    char list[256];
    summary_outcomes(svg, list, sizeof list);
    ck_assert_str_eq(list, "lost lost lost");
    /* Each reused the key of the customer's previous payment (the app's bug): the key
     * store's badge names that payment. */
    uint64_t operations[3];
    ck_assert_int_eq(summary_operations(svg, operations, 3), 3);
    for (int i = 0; i < 3; i++) {
        char owned[96];
        snprintf(owned, sizeof owned, ">key of op %" PRIu64 ", body differs " ARROW " 422<",
                 operations[i] - 1);
        ck_assert_msg(occurrences(svg, owned) == 1, "op %" PRIu64 ": no '%s'", operations[i],
                      owned);
    }
    ck_assert_int_eq(occurrences(svg, "same key, other body"), 0);
    ck_assert_int_eq(occurrences(svg, ">422 other body<"), 3);
    ck_assert_int_eq(occurrences(svg, "told: failed"), 3);
    ck_assert_int_eq(occurrences(svg, "charges " ARROW), 0);
    free(svg);
}
END_TEST

/* The value of metric for mode in a --csv file, or -1. */
static long csv_value(const char *csv, const char *mode, const char *metric)
{
    char needle[128];
    snprintf(needle, sizeof needle, ",%s,%s,", mode, metric);
    const char *at = strstr(csv, needle);
    return at != NULL ? strtol(at + strlen(needle), NULL, 10) : -1;
}

START_TEST(test_svg_outcome_agrees_with_the_models_outcomes)
{
    /* Every outcome of every mode: as many drawn as the model counted (up to 20), each one
     * ending so, or exit 2 and no file when none did. Among them: the mismatches of a key
     * reused without fingerprint, and the broker's confirmed but never run messages (lost,
     * not mismatch: the confirm was their own answer). */
    const char *scenarios[] = {LOST_ANSWER,
                               KEY_REUSE,
                               "scenarios/08_key_reuse_no_fingerprint.json",
                               "scenarios/03_broker_slow_consumers.json",
                               "scenarios/10_failure_recorded.json",
                               "scenarios/13_double_click_per_click.json"};
    const char *modes[] = {"at-most-once", "at-least-once", "idempotent"};
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
        char csv_path[512];
        test_cli_in_scratch(csv_path, "m.csv");
        const char *plain[] = {"run", scenarios[i], "--csv", csv_path, "-q", NULL};
        ck_assert_int_eq(test_cli_run(plain, NULL, NULL), 0);
        char *csv = test_cli_read_all(csv_path, NULL);
        ck_assert_ptr_nonnull(csv);
        for (size_t m = 0; m < 3; m++) {
            for (size_t o = 0; o < sizeof OUTCOMES / sizeof OUTCOMES[0]; o++) {
                long count = csv_value(csv, modes[m], OUTCOMES[o]);
                if (count < 0)
                    continue; /* a mode this scenario does not run */
                char *svg = NULL;
                int status = draw_outcome(scenarios[i], modes[m], OUTCOMES[o], "20", "a.svg", &svg);
                if (count == 0) {
                    ck_assert_msg(status == 2 && svg == NULL, "%s %s %s: exit %d", scenarios[i],
                                  modes[m], OUTCOMES[o], status);
                    continue;
                }
                ck_assert_msg(status == 0 && svg != NULL, "%s %s %s: model %ld, exit %d",
                              scenarios[i], modes[m], OUTCOMES[o], count, status);
                char list[512], expected[512] = "";
                summary_outcomes(svg, list, sizeof list);
                for (long k = 0; k < (count < 20 ? count : 20); k++)
                    snprintf(expected + strlen(expected), sizeof expected - strlen(expected),
                             "%s%s", k ? " " : "", OUTCOMES[o]);
                ck_assert_msg(strcmp(list, expected) == 0, "%s %s %s: model %ld, drawn '%s'",
                              scenarios[i], modes[m], OUTCOMES[o], count, list);
                free(svg);
            }
        }
        free(csv);
    }
}
END_TEST

/* The operations drawn are the first ones the model settled with that outcome: the first two
 * "settled ... ok" records of C1's idempotent mode in the trace. */
START_TEST(test_svg_outcome_picks_the_first_operations_to_end_so)
{
    char trace[512];
    test_cli_in_scratch(trace, "c1.jsonl");
    const char *arguments[] = {"run",     LOST_ANSWER, "--mode", "idempotent",
                               "--trace", trace,       "-q",     NULL};
    ck_assert_int_eq(test_cli_run(arguments, NULL, NULL), 0);
    char *lines = test_cli_read_all(trace, NULL);
    long first_settled[2];
    const char *at = lines;
    for (int k = 0; k < 2; k++) {
        at = strstr(at, "\"event\": \"settled\"");
        ck_assert_ptr_nonnull(at);
        ck_assert_ptr_nonnull(strstr(at, "\"detail\": \"ok\""));
        first_settled[k] = strtol(strstr(at, "\"op\": ") + 6, NULL, 10);
        at++;
    }
    free(lines);
    char *ok = NULL;
    ck_assert_int_eq(draw_outcome(LOST_ANSWER, "idempotent", "ok", "2", "ok.svg", &ok), 0);
    ck_assert_ptr_nonnull(ok);
    const char *summary = strstr(ok, ">What happened<");
    ck_assert_ptr_nonnull(summary);
    long drawn[2];
    for (int k = 0; k < 2; k++) {
        summary = strstr(summary, "class=\"line\">op ");
        ck_assert_ptr_nonnull(summary);
        drawn[k] = strtol(summary + 16, NULL, 10);
        summary++;
    }
    ck_assert_ptr_null(strstr(summary, "class=\"line\">op "));
    /* The diagram lists them in the order they started. */
    ck_assert((drawn[0] == first_settled[0] && drawn[1] == first_settled[1]) ||
              (drawn[0] == first_settled[1] && drawn[1] == first_settled[0]));
    free(ok);
}
END_TEST

START_TEST(test_svg_outcome_is_byte_identical_for_the_same_run)
{
    char *first = NULL, *second = NULL;
    ck_assert_int_eq(draw_outcome(KEY_REUSE, "idempotent", "lost", "5", "1.svg", &first), 0);
    ck_assert_int_eq(draw_outcome(KEY_REUSE, "idempotent", "lost", "5", "2.svg", &second), 0);
    ck_assert_ptr_nonnull(first);
    ck_assert_ptr_nonnull(second);
    ck_assert_str_eq(first, second);
    free(first);
    free(second);
}
END_TEST

START_TEST(test_svg_outcome_that_never_happens_exits_2_and_writes_nothing)
{
    char path[512], json[512], errors[512];
    test_cli_in_scratch(path, "none.svg");
    test_cli_in_scratch(json, "none.json");
    test_cli_in_scratch(errors, "stderr.txt");
    const char *arguments[] = {"run", LOST_ANSWER,     "--svg",  path, "--json",
                               json,  "--svg-outcome", "double", "-q", NULL};
    ck_assert_int_eq(test_cli_run(arguments, NULL, errors), 2);
    ck_assert_int_ne(access(path, F_OK), 0);
    ck_assert_int_ne(access(json, F_OK), 0);
    char *said = test_cli_read_all(errors, NULL);
    ck_assert_ptr_nonnull(said);
    ck_assert_msg(strstr(said, "no operation ended 'double' in mode idempotent (seed 1)") != NULL,
                  "stderr: %s", said);
    free(said);
}
END_TEST

/* ------------------------------------------------------------------ Limits */

START_TEST(test_bad_svg_options_exit_2_and_write_nothing)
{
    char path[512];
    test_cli_in_scratch(path, "bad.svg");
    const char *not_run[] = {"run", LOST_ANSWER,  "--mode",       "idempotent", "--svg",
                             path,  "--svg-mode", "at-most-once", "-q",         NULL};
    const char *zero_ops[] = {"run", LOST_ANSWER, "--svg", path, "--svg-ops", "0", "-q", NULL};
    const char *many_ops[] = {"run", LOST_ANSWER, "--svg", path, "--svg-ops", "21", "-q", NULL};
    const char *no_file[] = {"run", LOST_ANSWER, "--svg-mode", "idempotent", "-q", NULL};
    const char *no_value[] = {"run", LOST_ANSWER, "--svg", NULL};
    ck_assert_int_eq(test_cli_run(not_run, NULL, NULL), 2);
    ck_assert_int_eq(test_cli_run(zero_ops, NULL, NULL), 2);
    ck_assert_int_eq(test_cli_run(many_ops, NULL, NULL), 2);
    ck_assert_int_eq(test_cli_run(no_file, NULL, NULL), 2);
    ck_assert_int_eq(test_cli_run(no_value, NULL, NULL), 2);
    ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

START_TEST(test_bad_svg_outcome_is_a_usage_error_listing_the_outcomes)
{
    char path[512], errors[512];
    test_cli_in_scratch(path, "bad.svg");
    test_cli_in_scratch(errors, "stderr.txt");
    const char *unknown[] = {"run", LOST_ANSWER, "--svg", path, "--svg-outcome", "twice", NULL};
    const char *no_file[] = {"run", LOST_ANSWER, "--svg-outcome", "double", "-q", NULL};
    const char *no_value[] = {"run", LOST_ANSWER, "--svg", path, "--svg-outcome", NULL};
    ck_assert_int_eq(test_cli_run(unknown, NULL, errors), 2);
    char *said = test_cli_read_all(errors, NULL);
    ck_assert_ptr_nonnull(said);
    ck_assert_msg(strstr(said, "--svg-outcome expects ok, double, lost, phantom or mismatch, "
                               "got 'twice'") != NULL,
                  "stderr: %s", said);
    free(said);
    ck_assert_int_eq(test_cli_run(no_file, NULL, errors), 2);
    said = test_cli_read_all(errors, NULL);
    ck_assert_ptr_nonnull(strstr(said, "--svg-outcome needs --svg FILE"));
    free(said);
    ck_assert_int_eq(test_cli_run(no_value, NULL, NULL), 2);
    ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

START_TEST(test_unwritable_svg_path_exits_2_and_leaves_no_file)
{
    const char *arguments[] = {"run", LOST_ANSWER, "--svg", "/dev/null/d.svg", "-q", NULL};
    ck_assert_int_eq(test_cli_run(arguments, NULL, NULL), 2);
}
END_TEST

START_TEST(test_every_scenario_draws_a_balanced_diagram)
{
    /* Events the diagram does not know (broker, consumers) still make a well-formed picture. */
    const char *scenarios[] = {"scenarios/default.json",
                               "scenarios/checkout-day.json",
                               "scenarios/11_crash_after_charge.json",
                               "scenarios/02_offline_ttl_too_short.json",
                               "scenarios/14_broker_dedup_window.json",
                               "scenarios/03_broker_slow_consumers.json"};
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
        if (access(scenarios[i], R_OK) != 0)
            continue;
        char path[512];
        test_cli_in_scratch(path, "any.svg");
        const char *arguments[] = {"run",       scenarios[i], "--svg", path,
                                   "--svg-ops", "20",         "-q",    NULL};
        ck_assert_int_eq(test_cli_run(arguments, NULL, NULL), 0);
        char *svg = test_cli_read_all(path, NULL);
        char problem[128] = "";
        ck_assert_msg(balanced(svg, problem, sizeof problem), "%s: %s", scenarios[i], problem);
        free(svg);
    }
}
END_TEST

/* Draws one mode of scenario with overrides (sets, NULL-ended), its first 20 operations or
 * those that ended outcome (NULL: any). */
static char *draw_with(const char *scenario, const char *mode, const char *outcome,
                       const char *const *sets)
{
    char path[512];
    test_cli_in_scratch(path, "with.svg");
    const char *arguments[32] = {"run", scenario, "--svg",     path, "--svg-mode",
                                 mode,  "-q",     "--svg-ops", "20"};
    int count = 9;
    if (outcome != NULL) {
        arguments[count++] = "--svg-outcome";
        arguments[count++] = outcome;
    }
    for (; *sets != NULL && count < 30; sets++) {
        arguments[count++] = "--set";
        arguments[count++] = *sets;
    }
    arguments[count] = NULL;
    ck_assert_int_eq(test_cli_run(arguments, NULL, NULL), 0);
    char *svg = test_cli_read_all(path, NULL);
    ck_assert_ptr_nonnull(svg);
    return svg;
}

/* An order API's failures say what went out before its 500 (every request fails after its
 * publish here): the order, published directly; through the outbox, nothing yet. */
START_TEST(test_svg_says_what_an_order_api_published_before_its_500)
{
    const char *direct[] = {"services.order-api.fail_after_effect=1", NULL};
    char *svg =
        draw_with("tests/good_scenarios/order_api_publishes.json", "at-least-once", NULL, direct);
    ck_assert_int_ge(occurrences(svg, ">fails after publishing the order " ARROW " 500<"), 3);
    ck_assert_int_eq(occurrences(svg, "fails after the effect"), 0);
    free(svg);
    const char *outbox[] = {"services.order-api.fail_after_effect=1",
                            "services.order-api.steps[0].via=\"outbox\"", NULL};
    svg = draw_with("tests/good_scenarios/order_api_publishes.json", "at-least-once", NULL, outbox);
    ck_assert_int_ge(
        occurrences(svg, ">fails before its commit: no order in the outbox " ARROW " 500<"), 3);
    ck_assert_int_eq(occurrences(svg, "fails after"), 0);
    free(svg);
}
END_TEST

/* A crash of a process holding a drawn operation's job is drawn with its restart, though no
 * click waits for an answer by then (the broker confirmed the publish): the log's consumers
 * die while they hold the first operations' redelivered records, which is why those come
 * back a third time. A crash after the drawn operations settled is not drawn (C25's
 * at-most-once consumers, their first three orders charged long before). */
START_TEST(test_svg_draws_a_crash_that_holds_a_drawn_job)
{
    char *svg = draw("scenarios/37_kafka_no_transactions.json", "at-least-once", "kafka.svg");
    ck_assert_int_eq(occurrences(svg, ">CRASH (after-effect)<"), 1);
    ck_assert_int_eq(occurrences(svg, ">restarted<"), 1);
    free(svg);
    svg = draw("scenarios/25_consumer_charges_card.json", "at-most-once", "c25.svg");
    ck_assert_int_eq(occurrences(svg, "CRASH"), 0);
    free(svg);
}
END_TEST

/* Two consumer groups on two queues of one broker, each with its key store: the chargers
 * take shop's orders, the collectors billing's invoices; the collectors' store is a process
 * of its own that goes down at 0.5 s for 20 s (C38). */
#define TWO_GROUPS "scenarios/architectures/orders_and_invoices_two_groups.json"
#define COLLECTOR_KEYS_DOWN                                                                        \
    ("services.collector-keys.crash={\"every_ms\": {\"dist\": \"const\", \"value\": 500}, "        \
     "\"restart_ms\": 20000}")
/* billing publishes to the orders queue too: nothing reaches the collectors or their store */
#define BILLING_TO_ORDERS "clients[1].queue=\"orders\""

/* The first operations of the idempotent mode of TWO_GROUPS with the collectors' store down,
 * and billing's invoices on the orders queue where billing_to_orders. */
static char *draw_two_groups(bool billing_to_orders, const char *operations, const char *name)
{
    char path[512];
    test_cli_in_scratch(path, name);
    const char *arguments[] = {
        "run",        TWO_GROUPS,
        "--set",      COLLECTOR_KEYS_DOWN,
        "--set",      billing_to_orders ? BILLING_TO_ORDERS : "clients[1].queue=\"invoices\"",
        "--svg",      path,
        "--svg-mode", "idempotent",
        "--svg-ops",  operations,
        "-q",         NULL};
    ck_assert_int_eq(test_cli_run(arguments, NULL, NULL), 0);
    char *svg = test_cli_read_all(path, NULL);
    ck_assert_ptr_nonnull(svg);
    return svg;
}

/* The role written under a lane's name, or "" when the SVG has no such lane. */
static const char *role_of(const char *svg, const char *lane, char *role, size_t size)
{
    char head[96];
    snprintf(head, sizeof head, "class=\"head\">%s<", lane);
    const char *at = strstr(svg, head);
    role[0] = '\0';
    if (at == NULL || (at = strstr(at, "class=\"role\">")) == NULL)
        return role;
    at += strlen("class=\"role\">");
    snprintf(role, size, "%.*s", (int)strcspn(at, "<"), at);
    return role;
}

/* A key store of its own is drawn with the operations that meet it: the first operations of
 * TWO_GROUPS start within the collectors' store's outage, but where billing's invoices go to
 * the chargers no operation meets that store, and its crash, restart and lane would show
 * nothing of theirs (they were drawn: the outage "under way" as a shop order started). */
START_TEST(test_svg_draws_a_key_stores_crash_only_with_operations_that_meet_it)
{
    char *svg = draw_two_groups(true, "3", "unmet.svg");
    ck_assert_int_eq(occurrences(svg, ">collector-keys<"), 0);
    ck_assert_int_eq(occurrences(svg, "CRASH"), 0);
    ck_assert_int_eq(occurrences(svg, ">restarted<"), 0);
    ck_assert_int_gt(occurrences(svg, ">chargers<"), 0);
    free(svg);
    /* billing's invoices to the collectors: their operations meet it, its lane is drawn */
    svg = draw_two_groups(false, "4", "met.svg");
    ck_assert_int_eq(occurrences(svg, ">collector-keys<"), 1);
    ck_assert_int_eq(occurrences(svg, ">CRASH: 1 key lost<"), 1);
    ck_assert_int_eq(occurrences(svg, ">restarted<"), 1);
    free(svg);
}
END_TEST

/* A service's lane says "+ key store" where its keys are kept out of sight: a store of its own
 * drawn in its own lane (C38) leaves the lane of the service that uses it its bare role, for a
 * consumer group as for a server; a group whose store has no lane keeps the words. */
START_TEST(test_a_lane_says_key_store_only_where_its_store_has_no_lane_of_its_own)
{
    char role[64];
    char *svg = draw_two_groups(false, "4", "roles.svg");
    ck_assert_str_eq(role_of(svg, "collector-keys", role, sizeof role), "key store");
    ck_assert_str_eq(role_of(svg, "collectors", role, sizeof role), "workers");
    ck_assert_str_eq(role_of(svg, "chargers", role, sizeof role), "workers + key store");
    free(svg);
    /* workers_dedupe_store_down's first double starts while Redis is down */
    ck_assert_int_eq(draw_outcome("scenarios/architectures/workers_dedupe_store_down.json",
                                  "idempotent", "double", "1", "redis.svg", &svg),
                     0);
    ck_assert_str_eq(role_of(svg, "redis", role, sizeof role), "key store");
    ck_assert_str_eq(role_of(svg, "workers#2", role, sizeof role), "workers");
    free(svg);
    ck_assert_int_eq(draw_outcome("scenarios/38_key_store_down_fail_open.json", "idempotent",
                                  "double", "1", "c38.svg", &svg),
                     0);
    ck_assert_str_eq(role_of(svg, "redis", role, sizeof role), "key store");
    ck_assert_str_eq(role_of(svg, "checkout", role, sizeof role), "handler");
    free(svg);
    /* no lane of the store: its operation started before the outage */
    svg = draw("scenarios/38_key_store_down_fail_open.json", "idempotent", "c38_first.svg");
    ck_assert_str_eq(role_of(svg, "redis", role, sizeof role), "");
    ck_assert_str_eq(role_of(svg, "checkout", role, sizeof role), "handler + key store");
    free(svg);
}
END_TEST

/* Which key stores a client group's operations meet, by the graph of services: the chargers'
 * and not the collectors' for shop's orders; the collectors' for billing's invoices, until they
 * go to the orders queue; the API's own and, past the log, the consumers' inbox for an order
 * API's browsers; the called payments service's for a checkout's clients. A key store of its
 * own gets a lane of the view only where a group with clients meets it. */
START_TEST(test_a_group_meets_the_key_stores_on_its_way)
{
    const char *crash[] = {COLLECTOR_KEYS_DOWN};
    Scenario *scenario = test_load_source_file(TWO_GROUPS, crash, 1);
    ck_assert(diagram_group_meets_store(scenario, 0, "charger-keys"));
    ck_assert(!diagram_group_meets_store(scenario, 0, "collector-keys"));
    ck_assert(diagram_group_meets_store(scenario, 1, "collector-keys"));
    ck_assert(!diagram_group_meets_store(scenario, 1, "charger-keys"));
    ck_assert(!diagram_group_meets_store(scenario, 2, "collector-keys")); /* no such group */
    ck_assert(diagram_node_drawn(scenario, NODE_KEY_STORE, "collector-keys", true));
    ck_assert(!diagram_node_drawn(scenario, NODE_KEY_STORE, "collector-keys", false));
    free(scenario);
    const char *unmet[] = {COLLECTOR_KEYS_DOWN, BILLING_TO_ORDERS};
    scenario = test_load_source_file(TWO_GROUPS, unmet, 2);
    ck_assert(!diagram_group_meets_store(scenario, 1, "collector-keys"));
    ck_assert(diagram_group_meets_store(scenario, 1, "charger-keys"));
    ck_assert(!diagram_node_drawn(scenario, NODE_KEY_STORE, "collector-keys", true));
    ck_assert(diagram_node_drawn(scenario, NODE_CONSUMERS, "collectors", true)); /* as before */
    free(scenario);
    scenario =
        test_load_source_file("scenarios/architectures/order_api_kafka_charging.json", NULL, 0);
    ck_assert(diagram_group_meets_store(scenario, 0, "api-keys"));
    ck_assert(diagram_group_meets_store(scenario, 0, "charger-inbox"));
    free(scenario);
    scenario =
        test_load_source_file("scenarios/architectures/checkout_payments_service.json", NULL, 0);
    ck_assert(diagram_group_meets_store(scenario, 0, "checkout-keys"));
    ck_assert(diagram_group_meets_store(scenario, 0, "payments-keys"));
    ck_assert(!diagram_group_meets_store(scenario, 0, "nobody-keys"));
    free(scenario);
}
END_TEST

/* With several gateways, checkout's reconciliations name the wallet they asked (its answers
 * lost, every try of a double ends with one). */
START_TEST(test_svg_names_the_gateway_a_reconciliation_asked)
{
    const char *at_wallet[] = {"services.checkout.steps[0].call=\"wallet\"",
                               "services.checkout.steps[0].reconcile_ms=1000",
                               "services.checkout.steps[0].retry.max_attempts=1",
                               "services.billing.steps[0].call=\"cards\"", NULL};
    char *svg =
        draw_with("tests/good_scenarios/two_gateways.json", "idempotent", "double", at_wallet);
    ck_assert_int_ge(occurrences(svg, ">asked wallet " ARROW " 200<"), 1);
    ck_assert_int_eq(occurrences(svg, "asked the gateway"), 0);
    free(svg);
}
END_TEST

/* The proxy of C15 is drawn from the node table like any node: its lane between the client
 * and the server, its own timeout and retry as badges on it, both charges on the ledger. */
START_TEST(test_svg_draws_the_proxy_lane_between_client_and_server)
{
    char path[512];
    test_cli_in_scratch(path, "proxy.svg");
    const char *arguments[] = {"run",
                               "scenarios/15_proxy_retries.json",
                               "--svg",
                               path,
                               "--svg-mode",
                               "at-least-once",
                               "--svg-outcome",
                               "double",
                               "--svg-ops",
                               "1",
                               "-q",
                               NULL};
    ck_assert_int_eq(test_cli_run(arguments, NULL, NULL), 0);
    char *svg = test_cli_read_all(path, NULL);
    ck_assert_ptr_nonnull(svg);
    const char *client = strstr(svg, "class=\"head\">app[");
    const char *proxy = strstr(svg, "class=\"head\">proxy<");
    const char *server = strstr(svg, "class=\"head\">server<");
    ck_assert_ptr_nonnull(client);
    ck_assert_ptr_nonnull(proxy);
    ck_assert_ptr_nonnull(server);
    ck_assert(client < proxy);
    ck_assert(proxy < server);
    ck_assert_ptr_nonnull(strstr(svg, ">try 1 unanswered: timeout<"));
    ck_assert_ptr_nonnull(strstr(svg, ">sends it again (try 2)<"));
    ck_assert_int_eq(occurrences(svg, "AGAIN</text>"), 1);
    free(svg);
}
END_TEST

/* A chain of five services, one of them a server of two instances: every node has its lane,
 * in the order a request meets them, the second instance beside the first although the
 * first records name it after the provider and the broker (it opens on sight). */
START_TEST(test_svg_lanes_of_a_long_graph_follow_the_request)
{
    char path[512];
    test_cli_in_scratch(path, "chain.svg");
    const char *arguments[] = {"run",        "tests/view/five_service_chain.json",
                               "--svg",      path,
                               "--svg-mode", "at-least-once",
                               "-q",         NULL};
    ck_assert_int_eq(test_cli_run(arguments, NULL, NULL), 0);
    char *svg = test_cli_read_all(path, NULL);
    ck_assert_ptr_nonnull(svg);
    const char *order[] = {"app[",      "mesh<",     "checkout#1<", "checkout#2<",
                           "provider<", "receipts<", "mailer<",     "ledger<"};
    const char *previous = svg;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        char head[64];
        snprintf(head, sizeof head, "class=\"head\">%s", order[i]);
        const char *at = strstr(svg, head);
        ck_assert_msg(at != NULL, "no lane %s", order[i]);
        ck_assert_msg(at > previous, "lane %s out of order", order[i]);
        previous = at;
    }
    free(svg);
}
END_TEST

/* ------------------------------------------------------------------ the diagram model */

/* A small world written by hand: a client group "web" (node 0), the server (node 1), the
 * gateway (node 2, which no test lane holds) and a proxy (node 5) between them. */
enum { WEB = 0, SERVER = 1, GATEWAY = 2, PROXY = 5 };

static const char *node_name_of(uint32_t node)
{
    return node == WEB ? "web[0]" : node == SERVER ? "server" : node == PROXY ? "proxy" : "gateway";
}

static NodeKind kind_of(uint32_t node)
{
    return node == WEB      ? NODE_CLIENT_GROUP
           : node == SERVER ? NODE_SERVER
           : node == PROXY  ? NODE_PROXY
                            : NODE_GATEWAY;
}

static TraceRecord record_at(SimTimeUs t_us, TraceEvent event, uint32_t actor)
{
    return (TraceRecord){.t_us = t_us,
                         .mode = MODE_AT_LEAST_ONCE,
                         .event = event,
                         .actor = actor,
                         .actor_client = actor == WEB ? 0 : TRACE_NO_CLIENT,
                         .peer = TRACE_NO_NODE,
                         .peer_client = TRACE_NO_CLIENT,
                         .actor_kind = kind_of(actor),
                         .actor_name = node_name_of(actor),
                         .operation = 7,
                         .attempt = 1};
}

/* A copy on the wire: transmit (or lost) at the source, deliver at the target. */
static void feed_copy(Diagram *diagram, SimTimeUs t_us, TraceEvent event, uint32_t actor,
                      uint32_t peer, MessageKind message, uint32_t click, uint32_t copy)
{
    TraceRecord record = record_at(t_us, event, actor);
    record.peer = peer;
    record.peer_client = peer == WEB ? 0 : TRACE_NO_CLIENT;
    record.peer_kind = kind_of(peer);
    record.peer_name = node_name_of(peer);
    record.message = message;
    record.click = click;
    record.copy = copy;
    record.value = message == MESSAGE_RESPONSE ? 200 : 0;
    diagram_add(diagram, &record, 0);
}

static const DiagramItem *find_message(const Diagram *diagram, uint32_t click, uint32_t copy,
                                       int from)
{
    for (uint64_t s = diagram_first_serial(diagram); s < diagram_next_serial(diagram); s++) {
        const DiagramItem *item = diagram_item(diagram, s);
        if (item->kind == DIAGRAM_MESSAGE && item->click == click && item->copy == copy &&
            item->from == from)
            return item;
    }
    return NULL;
}

START_TEST(test_diagram_pairs_each_copy_with_its_own_delivery)
{
    Diagram *diagram = diagram_create(MODE_AT_LEAST_ONCE, 64, 64);
    diagram_open_lanes(diagram, true);
    /* Two clicks' first attempts share operation, attempt and lineage: only the click tells
     * them apart; the first click's copy arrives first, then the second's. */
    feed_copy(diagram, 1000, TRACE_TRANSMIT, WEB, SERVER, MESSAGE_REQUEST, 0, 2);
    feed_copy(diagram, 2000, TRACE_TRANSMIT, WEB, SERVER, MESSAGE_REQUEST, 1, 2);
    feed_copy(diagram, 5000, TRACE_DELIVER, SERVER, WEB, MESSAGE_REQUEST, 0, 2);
    feed_copy(diagram, 9000, TRACE_DELIVER, SERVER, WEB, MESSAGE_REQUEST, 1, 2);
    feed_copy(diagram, 9500, TRACE_LOST, SERVER, WEB, MESSAGE_RESPONSE, 0, 4);
    int web = diagram_lane_of(diagram, WEB, 0), server = diagram_lane_of(diagram, SERVER, 0);
    const DiagramItem *first = find_message(diagram, 0, 2, web);
    const DiagramItem *second = find_message(diagram, 1, 2, web);
    ck_assert_ptr_nonnull(first);
    ck_assert_ptr_nonnull(second);
    ck_assert_uint_eq(first->end_us, 5000);
    ck_assert_uint_eq(second->end_us, 9000);
    ck_assert_int_eq(first->end_event, TRACE_DELIVER);
    ck_assert_int_eq(first->to, server);
    /* Rows: a copy starts and ends on the rows of its records. */
    ck_assert_uint_eq(diagram_row_count(diagram), 5);
    ck_assert_uint_eq(diagram_row(diagram, first->end_row)->t_us, 5000);
    ck_assert_uint_eq(diagram_row(diagram, second->start_row)->t_us, 2000);
    /* A lost answer ends where it was sent, and closes the job it answers. */
    const DiagramItem *answer = find_message(diagram, 0, 4, server);
    ck_assert_int_eq(answer->end_event, TRACE_LOST);
    ck_assert_uint_eq(answer->end_us, 9500);
    diagram_destroy(diagram);
}
END_TEST

START_TEST(test_diagram_marks_a_network_duplicate_and_boxes_a_job)
{
    Diagram *diagram = diagram_create(MODE_AT_LEAST_ONCE, 64, 0);
    diagram_open_lanes(diagram, true);
    feed_copy(diagram, 1000, TRACE_TRANSMIT, WEB, SERVER, MESSAGE_REQUEST, 0, 2);
    TraceRecord duplicate = record_at(1000, TRACE_DUPLICATE, WEB);
    duplicate.copy = 3;
    diagram_add(diagram, &duplicate, 0);
    feed_copy(diagram, 1000, TRACE_TRANSMIT, WEB, SERVER, MESSAGE_REQUEST, 0, 3);
    feed_copy(diagram, 3000, TRACE_DELIVER, SERVER, WEB, MESSAGE_REQUEST, 0, 2);
    TraceRecord execute = record_at(4000, TRACE_EXECUTE, SERVER);
    execute.copy = 2;
    execute.value = 200;
    diagram_add(diagram, &execute, 1);
    feed_copy(diagram, 4000, TRACE_TRANSMIT, SERVER, WEB, MESSAGE_RESPONSE, 0, 4);
    int web = diagram_lane_of(diagram, WEB, 0), server = diagram_lane_of(diagram, SERVER, 0);
    ck_assert(!find_message(diagram, 0, 2, web)->duplicate);
    ck_assert(find_message(diagram, 0, 3, web)->duplicate);
    ck_assert_int_eq(find_message(diagram, 0, 2, web)->event, TRACE_EXECUTE);
    const DiagramItem *box = NULL;
    for (uint64_t s = diagram_first_serial(diagram); s < diagram_next_serial(diagram); s++) {
        if (diagram_item(diagram, s)->kind == DIAGRAM_ACTIVATION)
            box = diagram_item(diagram, s);
    }
    ck_assert_ptr_nonnull(box);
    ck_assert_int_eq(box->from, server);
    ck_assert_uint_eq(box->start_us, 3000);
    ck_assert_uint_eq(box->end_us, 4000); /* closed by its answer */
    ck_assert_int_eq(box->event, TRACE_EXECUTE);
    /* The first effect opened the ledger, a drawing lane that is no node. */
    ck_assert_int_ne(diagram_ledger(diagram), DIAGRAM_NO_LANE);
    ck_assert(diagram_lane(diagram, diagram_ledger(diagram))->ledger);
    diagram_destroy(diagram);
}
END_TEST

/* Lanes added from a node table (as the view does): the proxy's lane order puts it between
 * the clients and the server, whatever order the lanes were added in; a node with no lane
 * (the gateway here) draws nothing; a proxy's job is boxed like any service's. */
START_TEST(test_diagram_lanes_from_a_node_table_hold_a_proxy_between_client_and_server)
{
    Diagram *diagram = diagram_create(MODE_AT_LEAST_ONCE, 64, 0);
    int server = diagram_add_lane(diagram, NODE_SERVER, SERVER, TRACE_NO_CLIENT, "server", 2);
    int proxy = diagram_add_lane(diagram, NODE_PROXY, PROXY, TRACE_NO_CLIENT, "proxy", 1);
    int web = diagram_add_lane(diagram, NODE_CLIENT_GROUP, WEB, 0, "web", 0);
    int ledger = diagram_add_ledger(diagram);
    ck_assert_uint_eq(diagram_lane_count(diagram), 4);
    ck_assert_int_eq(diagram_lane_at(diagram, 0), web);
    ck_assert_int_eq(diagram_lane_at(diagram, 1), proxy);
    ck_assert_int_eq(diagram_lane_at(diagram, 2), server);
    ck_assert_int_eq(diagram_lane_at(diagram, 3), ledger);
    ck_assert_str_eq(diagram_lane(diagram, web)->name, "web[0]");
    ck_assert_str_eq(diagram_lane(diagram, proxy)->name, "proxy");
    ck_assert_str_eq(diagram_lane_role(diagram, proxy, NULL), "retries on its own");
    /* client -> proxy, two tries proxy -> server, answers back. */
    feed_copy(diagram, 1000, TRACE_TRANSMIT, WEB, PROXY, MESSAGE_REQUEST, 0, 2);
    feed_copy(diagram, 2000, TRACE_DELIVER, PROXY, WEB, MESSAGE_REQUEST, 0, 2);
    feed_copy(diagram, 2000, TRACE_TRANSMIT, PROXY, SERVER, MESSAGE_REQUEST, 0, 4);
    feed_copy(diagram, 2500, TRACE_TRANSMIT, PROXY, SERVER, MESSAGE_REQUEST, 0, 6);
    feed_copy(diagram, 2600, TRACE_TRANSMIT, SERVER, GATEWAY, MESSAGE_CHARGE, 0, 256);
    feed_copy(diagram, 3000, TRACE_DELIVER, SERVER, PROXY, MESSAGE_REQUEST, 0, 6);
    feed_copy(diagram, 4000, TRACE_TRANSMIT, PROXY, WEB, MESSAGE_RESPONSE, 0, 4);
    ck_assert_ptr_nonnull(find_message(diagram, 0, 4, proxy));
    ck_assert_uint_eq(find_message(diagram, 0, 4, proxy)->end_us, SIM_TIME_NEVER);
    ck_assert_uint_eq(find_message(diagram, 0, 6, proxy)->end_us, 3000);
    ck_assert_int_eq(find_message(diagram, 0, 6, proxy)->to, server);
    ck_assert_ptr_null(find_message(diagram, 0, 256, server)); /* no lane for the gateway */
    uint32_t boxes = 0;
    for (uint64_t s = diagram_first_serial(diagram); s < diagram_next_serial(diagram); s++) {
        const DiagramItem *item = diagram_item(diagram, s);
        if (item->kind == DIAGRAM_ACTIVATION && item->from == proxy) {
            boxes++;
            ck_assert_uint_eq(item->end_us, 4000); /* the proxy's answer closes it */
        }
    }
    ck_assert_uint_eq(boxes, 1);
    diagram_destroy(diagram);
}
END_TEST

/* Lanes opened as the trace names nodes (as the SVG does): clients first, then the services
 * in the order the work reaches them, the ledger last. */
START_TEST(test_diagram_open_lanes_follow_the_work)
{
    Diagram *diagram = diagram_create(MODE_AT_LEAST_ONCE, 64, 64);
    diagram_open_lanes(diagram, true);
    feed_copy(diagram, 1000, TRACE_TRANSMIT, PROXY, SERVER, MESSAGE_REQUEST, 0, 4);
    TraceRecord send = record_at(500, TRACE_SEND, WEB);
    diagram_add(diagram, &send, 0);
    TraceRecord execute = record_at(2000, TRACE_EXECUTE, SERVER);
    diagram_add(diagram, &execute, 1);
    ck_assert_uint_eq(diagram_lane_count(diagram), 4);
    ck_assert_str_eq(diagram_lane(diagram, diagram_lane_at(diagram, 0))->name, "web[0]");
    ck_assert_str_eq(diagram_lane(diagram, diagram_lane_at(diagram, 0))->node_name, "web");
    ck_assert_str_eq(diagram_lane(diagram, diagram_lane_at(diagram, 1))->name, "proxy");
    ck_assert_str_eq(diagram_lane(diagram, diagram_lane_at(diagram, 2))->name, "server");
    ck_assert_int_eq(diagram_lane_at(diagram, 3), diagram_ledger(diagram));
    diagram_destroy(diagram);
}
END_TEST

/* A followed operation's outcome counts every record of it, also past the rows a diagram
 * keeps: the summary of a cut diagram stays true. */
START_TEST(test_diagram_follows_an_outcome_past_its_last_row)
{
    Diagram *diagram = diagram_create(MODE_AT_LEAST_ONCE, 64, 3);
    diagram_open_lanes(diagram, true);
    ck_assert(diagram_follow(diagram, 7));
    TraceRecord send = record_at(100, TRACE_SEND, WEB);
    diagram_add(diagram, &send, 0);
    feed_copy(diagram, 200, TRACE_TRANSMIT, WEB, SERVER, MESSAGE_REQUEST, 0, 2);
    feed_copy(diagram, 300, TRACE_DELIVER, SERVER, WEB, MESSAGE_REQUEST, 0, 2);
    TraceRecord execute = record_at(400, TRACE_EXECUTE, SERVER);
    diagram_add(diagram, &execute, 0);
    TraceRecord retry = record_at(500, TRACE_RETRY, WEB);
    retry.attempt = 2;
    diagram_add(diagram, &retry, 0);
    diagram_add(diagram, &execute, 0);
    TraceRecord settled = record_at(600, TRACE_SETTLED, WEB);
    settled.detail = OUTCOME_DOUBLE;
    diagram_add(diagram, &settled, 0);
    ck_assert(diagram_truncated(diagram));
    ck_assert_uint_eq(diagram_row_count(diagram), 3);
    const DiagramOutcome *outcome = diagram_outcome(diagram, 7);
    ck_assert_ptr_nonnull(outcome);
    ck_assert_uint_eq(outcome->clicks, 1);
    ck_assert_uint_eq(outcome->attempts, 2);
    ck_assert_uint_eq(outcome->effects, 2);
    ck_assert(outcome->settled);
    ck_assert_int_eq(outcome->outcome, OUTCOME_DOUBLE);
    ck_assert_ptr_null(diagram_outcome(diagram, 8));
    diagram_destroy(diagram);
}
END_TEST

/* Within one instant: the server's rows together, its arrival before its decision before what
 * it sends, although the model reported them otherwise; the client's rows stay after the
 * server's, which appeared first. */
START_TEST(test_diagram_reads_an_instant_arrival_decision_send)
{
    Diagram *diagram = diagram_create(MODE_AT_LEAST_ONCE, 64, 64);
    diagram_open_lanes(diagram, true);
    feed_copy(diagram, 1000, TRACE_TRANSMIT, SERVER, WEB, MESSAGE_RESPONSE, 0, 4); /* row 0 */
    TraceRecord send = record_at(1000, TRACE_SEND, WEB);                           /* row 1 */
    diagram_add(diagram, &send, 0);
    TraceRecord replay = record_at(1000, TRACE_REPLAY, SERVER); /* row 2 */
    diagram_add(diagram, &replay, 0);
    feed_copy(diagram, 1000, TRACE_DELIVER, SERVER, WEB, MESSAGE_REQUEST, 0, 2);  /* row 3 */
    feed_copy(diagram, 2000, TRACE_DELIVER, WEB, SERVER, MESSAGE_RESPONSE, 0, 4); /* row 4 */
    uint32_t order[5];
    ck_assert_uint_eq(diagram_row_count(diagram), 5);
    diagram_row_order(diagram, order);
    const uint32_t expected[5] = {3, 2, 0, 1, 4};
    for (int i = 0; i < 5; i++)
        ck_assert_uint_eq(order[i], expected[i]);
    diagram_destroy(diagram);
}
END_TEST

START_TEST(test_diagram_words_come_from_one_table)
{
    DiagramItem mark = {.kind = DIAGRAM_MARK, .event = TRACE_REPLAY, .value = 200};
    DiagramOperationWords payment = {.debit = true};
    char label[96], buffer[32];
    DiagramTone tone = diagram_mark_badge(&mark, NODE_SERVER, payment, label, sizeof label);
    ck_assert_str_eq(label, "key done " ARROW " replay 200");
    ck_assert_int_eq(tone, DIAGRAM_TONE_STORE);
    ck_assert_str_eq(diagram_mark_word(&mark, payment, buffer, sizeof buffer, &tone), "replay");
    ck_assert_int_eq(tone, DIAGRAM_TONE_GOOD);
    mark.value = 0; /* the consumers record no status */
    diagram_mark_badge(&mark, NODE_CONSUMERS, payment, label, sizeof label);
    ck_assert_str_eq(label, "key done: not run again");
    mark = (DiagramItem){.kind = DIAGRAM_MARK, .event = TRACE_EXECUTE, .value = 201, .effects = 2};
    ck_assert_int_eq(diagram_mark_badge(&mark, NODE_SERVER, payment, label, sizeof label),
                     DIAGRAM_TONE_WORK);
    ck_assert_str_eq(label, "charges " ARROW " 201");
    diagram_mark_badge(&mark, NODE_GATEWAY, payment, label, sizeof label);
    ck_assert_str_eq(label, "charges the card");
    ck_assert_str_eq(diagram_mark_word(&mark, payment, buffer, sizeof buffer, &tone), "charge x2");
    ck_assert_int_eq(tone, DIAGRAM_TONE_DOUBLE);
    mark = (DiagramItem){.kind = DIAGRAM_MARK, .event = TRACE_TIMEOUT, .click = 1};
    diagram_mark_badge(&mark, NODE_CLIENT_GROUP, payment, label, sizeof label);
    ck_assert_str_eq(label, "no answer: timeout (click 2)");
    DiagramItem copy = {.kind = DIAGRAM_MESSAGE, .message = MESSAGE_REQUEST, .attempt = 2};
    ck_assert(diagram_message_tag(&copy, NODE_CLIENT_GROUP, payment, label, sizeof label));
    ck_assert_str_eq(label, "retry #2");
    ck_assert(!diagram_message_tag(&copy, NODE_PROXY, payment, label, sizeof label));
    /* C34: a scheduler's second run is its second instance's, not a second click */
    DiagramOperationWords scheduled = {.debit = true, .scheduled = true};
    copy = (DiagramItem){
        .kind = DIAGRAM_MESSAGE, .message = MESSAGE_REQUEST, .attempt = 1, .click = 1};
    ck_assert(diagram_message_tag(&copy, NODE_CLIENT_GROUP, payment, label, sizeof label));
    ck_assert_str_eq(label, "2nd click");
    ck_assert(diagram_message_tag(&copy, NODE_CLIENT_GROUP, scheduled, label, sizeof label));
    ck_assert_str_eq(label, "2nd instance");
    mark = (DiagramItem){.kind = DIAGRAM_MARK, .event = TRACE_SEND, .click = 1};
    diagram_mark_badge(&mark, NODE_CLIENT_GROUP, scheduled, label, sizeof label);
    ck_assert_str_eq(label, "2nd instance fires it too (run 2)");
    /* a proxy's second try of the client's copy 2, doubled on the wire */
    copy = (DiagramItem){.kind = DIAGRAM_MESSAGE,
                         .message = MESSAGE_REQUEST,
                         .attempt = 1,
                         .copy = 2 * (2 * 64 + 2)};
    ck_assert(diagram_message_tag(&copy, NODE_PROXY, payment, label, sizeof label));
    ck_assert_str_eq(label, "try #2");
    ck_assert(!diagram_message_tag(&copy, NODE_CLIENT_GROUP, payment, label, sizeof label));
    mark = (DiagramItem){.kind = DIAGRAM_MARK, .event = TRACE_PROXY_RETRY, .value = 2};
    diagram_mark_badge(&mark, NODE_PROXY, payment, label, sizeof label);
    ck_assert_str_eq(label, "sends it again (try 2)");
    /* publish lineage 2, its 33rd delivery, doubled on the wire */
    copy = (DiagramItem){
        .kind = DIAGRAM_MESSAGE, .message = MESSAGE_DELIVERY, .copy = 2 * (2 * 64 + 33)};
    ck_assert_uint_eq(diagram_repeat_number(&copy, NODE_BROKER), 33);
    ck_assert(diagram_message_tag(&copy, NODE_BROKER, payment, label, sizeof label));
    ck_assert_str_eq(label, "delivery #33");
    copy = (DiagramItem){
        .kind = DIAGRAM_MESSAGE, .message = MESSAGE_RESPONSE, .value = 409, .copy = 5};
    diagram_message_label(&copy, label, sizeof label);
    ck_assert_str_eq(label, "409 conflict (network copy)");
}
END_TEST

/* The words of a lane depend on what the scenario says of it: at an order API a failure
 * after its "effect" says what went out (the order, published directly; nothing through the
 * outbox, whose row is written with the commit a 500 never makes), on any of its instances
 * (direct: the loader keeps an outbox to one), in the SVG's badge and in the view's short word
 * alike. Other lanes keep the table's words ("500 after charge"). */
START_TEST(test_diagram_words_of_an_order_api_say_what_went_out)
{
    DiagramOperationWords payment = {.debit = true};
    DiagramItem failed = {.kind = DIAGRAM_MARK, .event = TRACE_FAIL_AFTER_EFFECT, .value = 500};
    char label[128];
    const char *vias[] = {"direct", "outbox"};
    const char *expected[] = {"fails after publishing the order " ARROW " 500",
                              "fails before its commit: no order in the outbox " ARROW " 500"};
    const char *expected_words[] = {"500 after publish", "500, no order written"}; /* the view's */
    for (int v = 0; v < 2; v++) {
        char via[64];
        snprintf(via, sizeof via, "services.order-api.steps[0].via=\"%s\"", vias[v]);
        const char *sets[] = {via, "services.order-api.instances=2"};
        for (uint32_t count = 1; count <= (v == 0 ? 2u : 1u); count++) { /* outbox: 1 instance */
            Scenario *scenario =
                test_load_source_file("tests/good_scenarios/order_api_publishes.json", sets, count);
            DiagramLane api = {.kind = NODE_SERVER};
            snprintf(api.node_name, sizeof api.node_name, count == 1 ? "order-api" : "order-api#2");
            DiagramOperationWords words = diagram_lane_words(scenario, &api, payment);
            ck_assert_int_eq(diagram_mark_badge(&failed, NODE_SERVER, words, label, sizeof label),
                             DIAGRAM_TONE_BAD);
            ck_assert_str_eq(label, expected[v]);
            DiagramTone tone;
            ck_assert_str_eq(diagram_mark_word(&failed, words, label, sizeof label, &tone),
                             expected_words[v]);
            ck_assert_int_eq(tone, DIAGRAM_TONE_WARN);
            DiagramLane charger = {.kind = NODE_CONSUMERS, .node_name = "charger"};
            words = diagram_lane_words(scenario, &charger, payment);
            diagram_mark_badge(&failed, NODE_CONSUMERS, words, label, sizeof label);
            ck_assert_str_eq(label, "fails after the effect " ARROW " 500");
            ck_assert_str_eq(diagram_mark_word(&failed, words, label, sizeof label, &tone),
                             "500 after charge");
            free(scenario);
        }
    }
    Scenario *scenario = test_load_source_file(LOST_ANSWER, NULL, 0);
    DiagramLane server = {.kind = NODE_SERVER, .node_name = "server"};
    diagram_mark_badge(&failed, NODE_SERVER, diagram_lane_words(scenario, &server, payment), label,
                       sizeof label);
    ck_assert_str_eq(label, "fails after the effect " ARROW " 500");
    DiagramTone tone;
    ck_assert_str_eq(diagram_mark_word(&failed, diagram_lane_words(scenario, &server, payment),
                                       label, sizeof label, &tone),
                     "500 after charge");
    free(scenario);
}
END_TEST

/* With several gateways a reconciliation names the gateway it asked (the one the first
 * server's call step charges at), the first one too; a world of one gateway keeps "the
 * gateway", and a lane other than the first server's the table's words. */
START_TEST(test_diagram_words_of_a_reconciliation_name_the_gateway_among_several)
{
    DiagramOperationWords payment = {.debit = true};
    char label[128];
    DiagramItem reconciled = {.kind = DIAGRAM_MARK, .event = TRACE_RECONCILED, .value = 404};
    const char *at_wallet[] = {"services.checkout.steps[0].call=\"wallet\"",
                               "services.checkout.steps[0].reconcile_ms=1000",
                               "services.billing.steps[0].call=\"cards\""};
    Scenario *scenario =
        test_load_source_file("tests/good_scenarios/two_gateways.json", at_wallet, 3);
    DiagramLane checkout = {.kind = NODE_SERVER, .node_name = "checkout"};
    ck_assert_int_eq(diagram_mark_badge(&reconciled, NODE_SERVER,
                                        diagram_lane_words(scenario, &checkout, payment), label,
                                        sizeof label),
                     DIAGRAM_TONE_STORE);
    ck_assert_str_eq(label, "asked wallet " ARROW " 404");
    free(scenario);
    scenario = test_load_source_file("tests/good_scenarios/two_gateways.json", at_wallet + 1, 1);
    diagram_mark_badge(&reconciled, NODE_SERVER, diagram_lane_words(scenario, &checkout, payment),
                       label, sizeof label);
    ck_assert_str_eq(label, "asked cards " ARROW " 404"); /* the first of two, named too */
    DiagramLane billing = {.kind = NODE_CONSUMERS, .node_name = "billing"};
    diagram_mark_badge(&reconciled, NODE_CONSUMERS, diagram_lane_words(scenario, &billing, payment),
                       label, sizeof label);
    ck_assert_str_eq(label, "asked the gateway " ARROW " 404");
    free(scenario);
    scenario = test_load_source_file("scenarios/11_gateway_reconcile.json", NULL, 0);
    DiagramLane server = {.kind = NODE_SERVER, .node_name = "server"};
    diagram_mark_badge(&reconciled, NODE_SERVER, diagram_lane_words(scenario, &server, payment),
                       label, sizeof label);
    ck_assert_str_eq(label, "asked the gateway " ARROW " 404");
    free(scenario);
}
END_TEST

/* ------------------------------------------------------------------ spans */

/* One phone pays once, goes offline for a second right after sending, and retries with the
 * same key when back: with a 200 ms TTL counted from the reservation, the key has expired. */
static const char *const OFFLINE_WORLD =
    "{\"name\": \"ttl\", \"seed\": 5, \"duration_ms\": 10000, \"modes\": [\"idempotent\"],"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000}],"
    " \"clients\": [{\"id\": \"phone\", \"count\": 1, \"account\": \"a\","
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 1, \"interval_ms\": {\"dist\": \"const\", \"value\": 10}},"
    "   \"retry\": {\"timeout_ms\": 5000, \"max_attempts\": 3},"
    "   \"key\": \"per-click\","
    "   \"offline\": {\"prob\": 1, \"duration_ms\": {\"dist\": \"const\", \"value\": 1000}}}],"
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": {\"dist\": \"const\", \"value\": "
    "10}}},"
    " \"server\": {\"workers\": 1, \"service_ms\": {\"dist\": \"const\", \"value\": 5},"
    "   \"idempotency\": {\"ttl_ms\": 200}}}";

static void feed_diagram(void *context, const TraceRecord *record)
{
    diagram_add(context, record, 0);
}

static Diagram *run_with_spans(const char *const *overrides, uint32_t override_count)
{
    Scenario *scenario = test_load(OFFLINE_WORLD, overrides, override_count);
    Diagram *diagram = diagram_create(MODE_IDEMPOTENT, 4096, 0);
    ck_assert_ptr_nonnull(diagram);
    diagram_open_lanes(diagram, true);
    DiagramWindows windows = diagram_windows_of(scenario, MODE_IDEMPOTENT);
    ck_assert(windows.server_key_ttl_ms == 200.0);
    diagram_set_windows(diagram, &windows);
    World *world = world_create(scenario, MODE_IDEMPOTENT, scenario->seed,
                                (TraceSink){feed_diagram, diagram}, (WorldLimits){0});
    world_run(world);
    world_destroy(world);
    free(scenario);
    return diagram;
}

/* The spans of one kind, in the order made; returns how many (at most max). */
static int spans_of(const Diagram *diagram, DiagramSpanKind kind, const DiagramItem **spans,
                    int max)
{
    int count = 0;
    for (uint64_t s = diagram_first_serial(diagram); s < diagram_next_serial(diagram); s++) {
        const DiagramItem *item = diagram_item(diagram, s);
        if (item->kind == DIAGRAM_SPAN && item->detail == (uint32_t)kind && count < max)
            spans[count++] = item;
    }
    return count;
}

START_TEST(test_key_spans_end_at_the_ttl_and_the_retry_comes_after)
{
    Diagram *diagram = run_with_spans(NULL, 0);
    const DiagramItem *reserved[4], *stored[4];
    /* The first attempt reserves and completes; the retry, a second later, reserves again. */
    ck_assert_int_eq(spans_of(diagram, DIAGRAM_SPAN_KEY_RESERVED, reserved, 4), 2);
    ck_assert_int_eq(spans_of(diagram, DIAGRAM_SPAN_KEY_STORED, stored, 4), 2);
    ck_assert_uint_eq(stored[0]->start_us, reserved[0]->end_us);
    /* The TTL counts from the reservation (the default): 200 ms after it. */
    ck_assert_uint_eq(stored[0]->end_us, reserved[0]->start_us + 200000);
    ck_assert_int_eq(stored[0]->value, 200);
    ck_assert_uint_gt(reserved[1]->start_us, stored[0]->end_us); /* the retry came after it */
    ck_assert_uint_eq(reserved[1]->attempt, 2);
    char label[64];
    diagram_span_label(stored[0], label, sizeof label);
    ck_assert_str_eq(label, "key ttl 200 ms");
    diagram_destroy(diagram);
}
END_TEST

START_TEST(test_key_ttl_from_completion_counts_from_the_answer)
{
    const char *overrides[] = {"server.idempotency.ttl_from=completion"};
    Diagram *diagram = run_with_spans(overrides, 1);
    const DiagramItem *reserved[4], *stored[4];
    ck_assert_int_ge(spans_of(diagram, DIAGRAM_SPAN_KEY_RESERVED, reserved, 4), 1);
    ck_assert_int_ge(spans_of(diagram, DIAGRAM_SPAN_KEY_STORED, stored, 4), 1);
    ck_assert_uint_gt(reserved[0]->end_us, reserved[0]->start_us); /* 5 ms of service */
    ck_assert_uint_eq(stored[0]->end_us, stored[0]->start_us + 200000);
    diagram_destroy(diagram);
}
END_TEST

START_TEST(test_a_diagram_without_windows_makes_no_spans)
{
    Scenario *scenario = test_load(OFFLINE_WORLD, NULL, 0);
    Diagram *diagram = diagram_create(MODE_IDEMPOTENT, 4096, 0);
    diagram_open_lanes(diagram, true);
    World *world = world_create(scenario, MODE_IDEMPOTENT, scenario->seed,
                                (TraceSink){feed_diagram, diagram}, (WorldLimits){0});
    world_run(world);
    const DiagramItem *spans[4];
    for (int kind = DIAGRAM_SPAN_KEY_RESERVED; kind <= DIAGRAM_SPAN_DEDUP_WINDOW; kind++)
        ck_assert_int_eq(spans_of(diagram, (DiagramSpanKind)kind, spans, 4), 0);
    world_destroy(world);
    diagram_destroy(diagram);
    free(scenario);
}
END_TEST

START_TEST(test_svg_draws_the_ttl_that_ended_before_the_retry)
{
    char *svg = draw("scenarios/02_offline_ttl_too_short.json", "idempotent", "c2.svg");
    ck_assert_int_ge(occurrences(svg, ">key ttl 90 s<"), 1);
    ck_assert_int_ge(occurrences(svg, ">key reserved<"), 1);
    free(svg);
    svg = draw("scenarios/14_broker_dedup_window.json", "at-least-once", "c14.svg");
    ck_assert_int_ge(occurrences(svg, ">ack timer "), 1);
    ck_assert_int_ge(occurrences(svg, ">dedup "), 1);
    free(svg);
}
END_TEST

/* The lowest y of a row's time on the axis (portrait: time flows down). */
static double last_time_y(const char *svg)
{
    double last = 0;
    for (const char *at = strstr(svg, "class=\"time\""); at != NULL;
         at = strstr(at + 1, "class=\"time\"")) {
        const char *tag = at;
        while (tag > svg && strncmp(tag, "<text ", 6) != 0)
            tag--;
        double x = 0, y = 0;
        if (sscanf(tag, "<text x=\"%lf\" y=\"%lf\"", &x, &y) == 2 && y > last)
            last = y;
    }
    return last;
}

/* C3: a channel broker's consumer timeout (30 min by default here) ends at the ack that
 * reaches the broker, the delivery acknowledged: each of the three drawn deliveries' timer
 * bars ends at its ack with a tick, above the last row. They ran on, untouched by the ack, to
 * below the last row (30 min is long past the picture), one over the other. */
START_TEST(test_svg_ends_a_channels_ack_timer_at_the_ack)
{
    char *svg = draw("scenarios/architectures/charging_consumers_rabbitmq.json", "at-least-once",
                     "rabbitmq.svg");
    const char *bar = "fill=\"#0891b2\" class=\"span\"";
    double bottom_row = last_time_y(svg);
    ck_assert_double_gt(bottom_row, 0);
    int bars = 0;
    for (const char *at = strstr(svg, bar); at != NULL; at = strstr(at + 1, bar)) {
        const char *tag = at;
        while (tag > svg && strncmp(tag, "<rect ", 6) != 0)
            tag--;
        double x = 0, y = 0, width = 0, height = 0;
        ck_assert_int_eq(sscanf(tag, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &x,
                                &y, &width, &height),
                         4);
        ck_assert_msg(y + height <= bottom_row,
                      "a timer bar ends at %.1f, below the last row at %.1f", y + height,
                      bottom_row);
        bars++;
    }
    ck_assert_int_eq(bars, 3);
    ck_assert_int_eq(occurrences(svg, "h10\" stroke=\"#0891b2\""), 3);
    ck_assert_int_eq(occurrences(svg, ">ack timer 30 min<"), 3);
    free(svg);
}
END_TEST

/* A fanout exchange on a channel broker hands a publish's copies to the chargers and to the
 * mailers at once, under one lineage: each copy's ack timer ends at its own group's ack. It
 * ended at the other copy's delivery, the same instant, a 2-pixel bar (10 of 42 here). */
START_TEST(test_svg_ends_each_fanout_copys_ack_timer_at_its_own_ack)
{
    const char *channel[] = {
        "services[0]={\"id\": \"events\", \"kind\": \"broker\", \"family\": \"channel\","
        " \"max_deliveries\": 5, \"queues\": [{\"name\": \"payments\"},"
        " {\"name\": \"confirmations\"}], \"exchanges\": [{\"name\": \"orders\","
        " \"queues\": [\"payments\", \"confirmations\"]}]}",
        NULL};
    char *svg = draw_with("scenarios/architectures/orders_fanout_charge_and_confirm.json",
                          "at-least-once", NULL, channel);
    const char *bar = "fill=\"#0891b2\" class=\"span\"";
    int bars = 0;
    for (const char *at = strstr(svg, bar); at != NULL; at = strstr(at + 1, bar)) {
        const char *tag = at;
        while (tag > svg && strncmp(tag, "<rect ", 6) != 0)
            tag--;
        double x = 0, y = 0, width = 0, height = 0;
        ck_assert_int_eq(sscanf(tag, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &x,
                                &y, &width, &height),
                         4);
        ck_assert_msg(height > 10, "a timer bar at y %.1f ends %.1f below its start", y, height);
        bars++;
    }
    ck_assert_int_gt(bars, 20);
    free(svg);
}
END_TEST

static Suite *svg_suite(void)
{
    Suite *suite = suite_create("svg");
    TCase *core = tcase_create("Core");
    tcase_add_checked_fixture(core, setup, teardown);
    tcase_set_timeout(core, 120);
    tcase_add_test(core, test_svg_is_well_formed_and_byte_identical_for_the_same_run);
    tcase_add_test(core, test_at_least_once_diagram_shows_lost_answers_and_second_charges);
    tcase_add_test(core, test_idempotent_diagram_shows_reservations_and_replays_not_charges);
    tcase_add_test(core, test_svg_ops_limits_the_operations_drawn);
    tcase_add_test(core, test_an_outage_under_way_is_drawn_before_the_first_request);
    tcase_add_test(core, test_each_outage_a_drawn_operation_starts_in_is_drawn);
    tcase_add_test(core, test_a_store_without_persistence_that_held_no_keys_kept_none);
    tcase_add_test(core, test_a_reset_is_drawn_as_a_failure);
    tcase_add_test(core, test_an_operations_overlapping_ack_timers_stand_apart);
    tcase_add_test(core, test_drawing_leaves_the_trace_byte_identical);
    tcase_add_test(core, test_svg_draws_the_proxy_lane_between_client_and_server);
    tcase_add_test(core, test_svg_lanes_of_a_long_graph_follow_the_request);
    tcase_add_test(core, test_svg_draws_the_ttl_that_ended_before_the_retry);
    tcase_add_test(core, test_svg_ends_a_channels_ack_timer_at_the_ack);
    tcase_add_test(core, test_svg_ends_each_fanout_copys_ack_timer_at_its_own_ack);
    tcase_add_test(core, test_svg_says_what_an_order_api_published_before_its_500);
    tcase_add_test(core, test_svg_names_the_gateway_a_reconciliation_asked);
    tcase_add_test(core, test_svg_draws_a_crash_that_holds_a_drawn_job);
    tcase_add_test(core, test_svg_draws_a_key_stores_crash_only_with_operations_that_meet_it);
    tcase_add_test(core, test_a_lane_says_key_store_only_where_its_store_has_no_lane_of_its_own);
    suite_add_tcase(suite, core);
    TCase *outcome = tcase_create("Outcome");
    tcase_add_checked_fixture(outcome, setup, teardown);
    tcase_set_timeout(outcome, 120);
    tcase_add_test(outcome, test_svg_outcome_draws_only_operations_that_ended_so);
    tcase_add_test(outcome, test_svg_outcome_shows_the_422_of_a_reused_key);
    tcase_add_test(outcome, test_svg_outcome_names_the_payment_whose_key_was_replayed);
    tcase_add_test(outcome, test_double_click_says_which_click_presses_pay);
    tcase_add_test(outcome, test_svg_outcome_agrees_with_the_models_outcomes);
    tcase_add_test(outcome, test_svg_outcome_picks_the_first_operations_to_end_so);
    tcase_add_test(outcome, test_svg_outcome_is_byte_identical_for_the_same_run);
    tcase_add_test(outcome, test_svg_outcome_that_never_happens_exits_2_and_writes_nothing);
    suite_add_tcase(suite, outcome);
    TCase *limits = tcase_create("Limits");
    tcase_add_checked_fixture(limits, setup, teardown);
    tcase_set_timeout(limits, 120);
    tcase_add_test(limits, test_bad_svg_options_exit_2_and_write_nothing);
    tcase_add_test(limits, test_bad_svg_outcome_is_a_usage_error_listing_the_outcomes);
    tcase_add_test(limits, test_unwritable_svg_path_exits_2_and_leaves_no_file);
    tcase_add_test(limits, test_every_scenario_draws_a_balanced_diagram);
    suite_add_tcase(suite, limits);
    TCase *model = tcase_create("Model");
    tcase_add_test(model, test_diagram_pairs_each_copy_with_its_own_delivery);
    tcase_add_test(model, test_diagram_marks_a_network_duplicate_and_boxes_a_job);
    tcase_add_test(model,
                   test_diagram_lanes_from_a_node_table_hold_a_proxy_between_client_and_server);
    tcase_add_test(model, test_diagram_open_lanes_follow_the_work);
    tcase_add_test(model, test_diagram_follows_an_outcome_past_its_last_row);
    tcase_add_test(model, test_diagram_reads_an_instant_arrival_decision_send);
    tcase_add_test(model, test_diagram_words_come_from_one_table);
    tcase_add_test(model, test_diagram_words_of_an_order_api_say_what_went_out);
    tcase_add_test(model, test_diagram_words_of_a_reconciliation_name_the_gateway_among_several);
    tcase_add_test(model, test_key_spans_end_at_the_ttl_and_the_retry_comes_after);
    tcase_add_test(model, test_key_ttl_from_completion_counts_from_the_answer);
    tcase_add_test(model, test_a_diagram_without_windows_makes_no_spans);
    tcase_add_test(model, test_a_group_meets_the_key_stores_on_its_way);
    suite_add_tcase(suite, model);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(svg_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
