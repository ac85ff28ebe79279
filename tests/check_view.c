/* Tests of the SDL2 view. Headless frames are rendered through view_main (a software
 * renderer on a surface, no display) and read back with SDL_image; the live tallies of a
 * pane are checked against the world's own settled metrics; the window path is opened with
 * SDL's dummy video driver and, when xvfb-run is installed, for real under Xvfb.
 * `check_view --view ARGS...` runs view_main(ARGS) itself: the Xvfb test re-runs this
 * program that way, so it needs nothing but this test binary. */
#include <SDL.h>
#include <SDL_image.h>
#include <SDL_ttf.h>
#include <check.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scenario.h"
#include "view.h"
#include "view_canvas.h"
#include "view_layout.h"
#include "view_moment.h"
#include "view_narration.h"
#include "view_pane.h"
#include "view_quiz.h"
#include "world.h"

/* Small and fixed: 20 shoppers over a network that loses one message in ten, so within 15 s
 * at-least-once has charged someone twice and idempotent has not. */
static const char *const test_scenario =
    "{\"name\": \"view-test\", \"title\": \"View test: a lossy network\", \"seed\": 7,\n"
    " \"duration_ms\": 20000, \"modes\": [\"at-most-once\", \"at-least-once\", \"idempotent\"],\n"
    " \"accounts\": [{\"id\": \"alice\", \"balance\": 1000000}],\n"
    " \"clients\": [{\"id\": \"web\", \"count\": 20, \"account\": \"alice\",\n"
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 1500},\n"
    "   \"workload\": {\"ops\": 10, \"interval_ms\": {\"dist\": \"exp\", \"mean\": 400}},\n"
    "   \"retry\": {\"timeout_ms\": 500, \"max_attempts\": 5,\n"
    "             \"backoff\": {\"base_ms\": 100, \"factor\": 2.0, \"max_ms\": 2000}},\n"
    "   \"key\": \"per-click\"}],\n"
    " \"network\": {\"default\": {\"loss\": 0.1,\n"
    "   \"delay_ms\": {\"dist\": \"uniform\", \"min\": 5, \"max\": 80}}},\n"
    " \"server\": {\"workers\": 4,\n"
    "   \"service_ms\": {\"dist\": \"lognormal\", \"median\": 40, \"p99\": 600}}}\n";

static char work_dir[64];
static char scenario_path[128];

static void write_file(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    ck_assert_int_eq(fputs(text, file) >= 0, 1);
    ck_assert_int_eq(fclose(file), 0);
}

static void setup(void)
{
    snprintf(work_dir, sizeof work_dir, "/tmp/check_view_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(work_dir));
    snprintf(scenario_path, sizeof scenario_path, "%s/view-test.json", work_dir);
    write_file(scenario_path, test_scenario);
    setenv("IDEMSIM_ASSETS_DIR", IDEMSIM_SOURCE_DIR "/assets", 1);
}

static void teardown(void)
{
    char command[256];
    snprintf(command, sizeof command, "rm -rf '%s'", work_dir);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", work_dir);
}

/* ------------------------------------------------------------------ helpers */

static int run_view(const char *const *arguments)
{
    char *argv[32];
    int argc = 0;
    while (arguments[argc] != NULL && argc < 31) {
        argv[argc] = (char *)arguments[argc];
        argc++;
    }
    argv[argc] = NULL;
    return view_main(argc, argv);
}

static int render_png(const char *png, const char *at_ms, const char *width, const char *height)
{
    const char *arguments[] = {scenario_path, "--headless", "--png",    png,    "--at-ms", at_ms,
                               "--width",     width,        "--height", height, NULL};
    return run_view(arguments);
}

static char *read_all(const char *path, long *size)
{
    FILE *file = fopen(path, "rb");
    ck_assert_ptr_nonnull(file);
    fseek(file, 0, SEEK_END);
    *size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *bytes = malloc((size_t)*size + 1);
    ck_assert_ptr_nonnull(bytes);
    ck_assert_int_eq((long)fread(bytes, 1, (size_t)*size, file), *size);
    fclose(file);
    bytes[*size] = '\0'; /* callers search it as a string */
    return bytes;
}

static uint64_t count_rgb(const char *png, ViewRect rect, uint32_t rgb)
{
    SDL_Surface *loaded = IMG_Load(png);
    ck_assert_msg(loaded != NULL, "cannot load %s: %s", png, IMG_GetError());
    SDL_Surface *image = SDL_ConvertSurfaceFormat(loaded, SDL_PIXELFORMAT_RGB888, 0);
    SDL_FreeSurface(loaded);
    ck_assert_ptr_nonnull(image);
    uint64_t count = 0;
    for (int y = rect.y; y < rect.y + rect.h && y < image->h; y++) {
        const Uint32 *row = (const Uint32 *)((const Uint8 *)image->pixels + y * image->pitch);
        for (int x = rect.x; x < rect.x + rect.w && x < image->w; x++)
            count += (row[x] & 0xFFFFFFu) == rgb;
    }
    SDL_FreeSurface(image);
    return count;
}

static Scenario *load_test_scenario(void)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    ck_assert_ptr_nonnull(scenario);
    ck_assert_ptr_nonnull(errors);
    ck_assert_msg(scenario_load_file(scenario_path, NULL, 0, scenario, errors),
                  "test scenario rejected: %s", errors->count ? errors->items[0].message : "");
    free(errors);
    return scenario;
}

/* ------------------------------------------------------------------ Core */

START_TEST(test_view_headless_frame_is_deterministic)
{
    char first[160], second[160];
    snprintf(first, sizeof first, "%s/first.png", work_dir);
    snprintf(second, sizeof second, "%s/second.png", work_dir);
    ck_assert_int_eq(render_png(first, "6000", "1280", "720"), 0);
    ck_assert_int_eq(render_png(second, "6000", "1280", "720"), 0);
    long first_size = 0, second_size = 0;
    char *a = read_all(first, &first_size);
    char *b = read_all(second, &second_size);
    ck_assert_int_gt(first_size, 1000);
    ck_assert_int_eq(first_size, second_size);
    ck_assert_int_eq(memcmp(a, b, (size_t)first_size), 0);
    free(a);
    free(b);
}
END_TEST

static void check_double_red(const char *width, const char *height)
{
    char png[160];
    snprintf(png, sizeof png, "%s/frame-%sx%s.png", work_dir, width, height);
    ck_assert_int_eq(render_png(png, "15000", width, height), 0);
    int w = atoi(width), h = atoi(height);
    uint32_t red = view_palette_rgb(VIEW_COLOR_DOUBLE);
    ViewRect at_least_once, idempotent, frame = {0, 0, w, h};
    ck_assert(view_layout_region(w, h, 3, 1, VIEW_REGION_COUNTER_DOUBLE, &at_least_once));
    ck_assert(view_layout_region(w, h, 3, 2, VIEW_REGION_COUNTER_DOUBLE, &idempotent));
    ck_assert_int_gt(at_least_once.w * at_least_once.h, 0);
    ck_assert_uint_gt(count_rgb(png, at_least_once, red), 100);
    ck_assert_uint_eq(count_rgb(png, idempotent, red), 0);
    ck_assert_uint_gt(count_rgb(png, frame, view_palette_rgb(VIEW_COLOR_BACKGROUND)), 1000);
}

START_TEST(test_view_frame_shows_double_red_at_least_once_only)
{
    check_double_red("1280", "720");
}
END_TEST

START_TEST(test_view_frame_shows_double_red_at_1080p)
{
    check_double_red("1920", "1080");
}
END_TEST

/* The DOUBLE counter is the world's live count: never behind the settled doubles and equal
 * to them (and to their money) at the end, in every mode. */
static void expect_live_doubles_end_as_the_settled_ones(const Scenario *scenario, Mode mode)
{
    ViewPane *pane = view_pane_create(scenario, mode, scenario->seed);
    ck_assert_ptr_nonnull(pane);
    for (SimTimeUs t = 0; !world_finished(pane->world); t += 250000) {
        view_pane_run_until(pane, t);
        ck_assert_uint_ge(pane->tally.outcomes[OUTCOME_DOUBLE],
                          world_metrics(pane->world)->outcomes[OUTCOME_DOUBLE]);
    }
    const Metrics *metrics = world_metrics(pane->world);
    ck_assert(pane->tally.final);
    ck_assert_uint_eq(pane->tally.outcomes[OUTCOME_DOUBLE], metrics->outcomes[OUTCOME_DOUBLE]);
    ck_assert_int_eq(pane->tally.double_amount, metrics->double_amount);
    ck_assert_uint_eq(pane->tally.outcomes[OUTCOME_OK], metrics->outcomes[OUTCOME_OK]);
    ck_assert_int_eq(pane->tally.actual[0], metrics->balances[0].actual);
    if (mode == MODE_AT_LEAST_ONCE)
        ck_assert_uint_gt(pane->tally.outcomes[OUTCOME_DOUBLE], 0);
    else
        ck_assert_uint_eq(pane->tally.outcomes[OUTCOME_DOUBLE], 0);
    view_pane_destroy(pane);
}

START_TEST(test_view_live_doubles_end_equal_to_the_settled_doubles)
{
    Scenario *scenario = load_test_scenario();
    for (int m = 0; m < MODE_COUNT; m++)
        expect_live_doubles_end_as_the_settled_ones(scenario, (Mode)m);
    free(scenario);
}
END_TEST

/* With every client sampled, the diagram holds every copy of every message: each one ends
 * delivered or lost, as many as the trace reported, and the red ledger entries add up to
 * the money charged twice. */
static void expect_diagram_accounts_for_everything(const Scenario *scenario, Mode mode)
{
    ViewPane *pane = view_pane_create(scenario, mode, scenario->seed);
    ck_assert_ptr_nonnull(pane);
    ck_assert_uint_eq(pane->lane_count, pane->clients_total);
    view_pane_run_until(pane, SIM_TIME_NEVER - 1);
    ck_assert(world_finished(pane->world));
    ck_assert_uint_eq(view_pane_first_serial(pane), 1); /* the ring kept everything */
    uint64_t lost = 0, delivered = 0, open = 0, open_jobs = 0;
    int64_t charged_again = 0;
    for (uint64_t serial = 1; serial < view_pane_next_serial(pane); serial++) {
        const DiagramItem *arrow = view_pane_arrow(pane, serial);
        if (arrow->kind == DIAGRAM_MESSAGE) {
            lost += arrow->end_event == TRACE_LOST;
            delivered += arrow->end_event == TRACE_DELIVER;
            open += arrow->end_us == SIM_TIME_NEVER;
        } else if (arrow->kind == DIAGRAM_ACTIVATION) {
            open_jobs += arrow->end_us == SIM_TIME_NEVER;
        } else if (arrow->event == TRACE_EXECUTE && arrow->effects >= 2) {
            charged_again += pane->group_amount[0];
        }
    }
    ck_assert_uint_eq(lost, pane->records_by_event[TRACE_LOST]);
    ck_assert_uint_eq(delivered, pane->records_by_event[TRACE_DELIVER]);
    ck_assert_uint_eq(open, 0);
    ck_assert_uint_eq(open_jobs, 0);
    ck_assert_uint_eq(lost, world_metrics(pane->world)->network_dropped);
    ck_assert_int_eq(charged_again, world_metrics(pane->world)->double_amount);
    view_pane_destroy(pane);
}

START_TEST(test_view_diagram_of_a_small_world_accounts_for_every_message)
{
    const char *overrides[] = {"clients[0].count=6"};
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    ck_assert(scenario_load_file(scenario_path, overrides, 1, scenario, errors));
    for (int m = 0; m < MODE_COUNT; m++)
        expect_diagram_accounts_for_everything(scenario, (Mode)m);
    free(errors);
    free(scenario);
}
END_TEST

/* The diagram's lanes are the node table's: the sampled clients, then every service the
 * scenario uses, named as the table names them and in its lane order, then the ledger; and
 * every arrow runs between two of them. */
static ViewPane *expect_lanes_from_the_node_table(const Scenario *scenario)
{
    ViewPane *pane = view_pane_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    ck_assert_ptr_nonnull(pane);
    view_pane_run_until(pane, 3000000);
    const Diagram *diagram = pane->diagram;
    uint32_t services = 0;
    for (uint32_t n = 0; n < world_node_count(pane->world); n++) {
        const WorldNode *node = world_node(pane->world, n);
        services += node->kind != NODE_CLIENT_GROUP && node->active;
    }
    ck_assert_uint_eq(diagram_lane_count(diagram), pane->lane_count + services + 1);
    uint32_t last_order = 0;
    for (uint32_t position = 0; position < diagram_lane_count(diagram); position++) {
        const DiagramLane *lane = diagram_lane(diagram, diagram_lane_at(diagram, position));
        if (position < pane->lane_count) {
            ck_assert_int_eq(lane->kind, NODE_CLIENT_GROUP);
            char name[80];
            view_narration_client(name, sizeof name, pane, pane->lanes[position].group,
                                  pane->lanes[position].client_in_group);
            ck_assert_str_eq(lane->name, name);
        } else if (position + 1 < diagram_lane_count(diagram)) {
            const WorldNode *node = world_node(pane->world, lane->node);
            ck_assert_int_eq(lane->kind, node->kind);
            ck_assert_str_eq(lane->name, world_node_name(pane->world, lane->node));
            ck_assert(node->active);
            ck_assert_uint_gt(node->lane + 1, last_order);
            last_order = node->lane + 1;
        } else {
            ck_assert(lane->ledger);
        }
    }
    uint64_t between_services = 0;
    for (uint64_t serial = view_pane_first_serial(pane); serial < view_pane_next_serial(pane);
         serial++) {
        const DiagramItem *item = view_pane_arrow(pane, serial);
        ck_assert_ptr_nonnull(diagram_lane(diagram, item->from));
        ck_assert_ptr_nonnull(diagram_lane(diagram, item->to));
        between_services += item->kind == DIAGRAM_MESSAGE &&
                            !view_pane_lane_is_client(pane, item->from) &&
                            !view_pane_lane_is_client(pane, item->to);
    }
    if (services > 1)
        ck_assert_uint_gt(between_services, 0);
    return pane;
}

START_TEST(test_view_diagram_lanes_come_from_the_node_table)
{
    Scenario *scenario = load_test_scenario();
    view_pane_destroy(expect_lanes_from_the_node_table(scenario));
    LoadErrors *errors = calloc(1, sizeof *errors);
    ck_assert(scenario_load_file(IDEMSIM_SOURCE_DIR "/scenarios/03_broker_slow_consumers.json",
                                 NULL, 0, scenario, errors));
    view_pane_destroy(expect_lanes_from_the_node_table(scenario));
    ck_assert(scenario_load_file(IDEMSIM_SOURCE_DIR "/scenarios/11_outbox.json", NULL, 0, scenario,
                                 errors));
    view_pane_destroy(expect_lanes_from_the_node_table(scenario));
    ck_assert(scenario_load_file(IDEMSIM_SOURCE_DIR "/scenarios/15_proxy_retries.json", NULL, 0,
                                 scenario, errors));
    ViewPane *pane = expect_lanes_from_the_node_table(scenario);
    /* the proxy, right after the sampled clients: between them and the server */
    const DiagramLane *proxy =
        diagram_lane(pane->diagram, diagram_lane_at(pane->diagram, pane->lane_count));
    ck_assert_int_eq(proxy->kind, NODE_PROXY);
    ck_assert_str_eq(proxy->name, world_node_name(pane->world, proxy->node));
    view_pane_destroy(pane);
    free(errors);
    free(scenario);
}
END_TEST

/* The first proxy's second instance is a node appended after the second proxy's: its lane
 * still stands beside the first instance's, the mesh's after both (it stood between them,
 * under a second "edge" heading). */
START_TEST(test_view_a_proxys_instances_stand_side_by_side)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    ck_assert_ptr_nonnull(scenario);
    ck_assert_ptr_nonnull(errors);
    const char *const two_edges[] = {"services.edge.instances=2"};
    ck_assert(scenario_load_file(IDEMSIM_SOURCE_DIR "/tests/good_scenarios/two_proxies.json",
                                 two_edges, 1, scenario, errors));
    ViewPane *pane = view_pane_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    ck_assert_ptr_nonnull(pane);
    const char *expected[] = {"edge#1", "edge#2", "mesh", "checkout"};
    for (uint32_t i = 0; i < 4; i++) {
        const DiagramLane *lane =
            diagram_lane(pane->diagram, diagram_lane_at(pane->diagram, pane->lane_count + i));
        ck_assert_str_eq(lane->name, expected[i]);
    }
    view_pane_destroy(pane);
    free(errors);
    free(scenario);
}
END_TEST

/* Whether the idempotent pane of a scenario has a lane whose node is named name. */
static bool idempotent_pane_has_lane(const Scenario *scenario, const char *name)
{
    ViewPane *pane = view_pane_create(scenario, MODE_IDEMPOTENT, scenario->seed);
    ck_assert_ptr_nonnull(pane);
    bool found = false;
    for (uint32_t l = 0; l < diagram_lane_count(pane->diagram); l++)
        found |= strcmp(diagram_lane(pane->diagram, (int)l)->node_name, name) == 0;
    view_pane_destroy(pane);
    return found;
}

/* A key store of its own (C38) has a lane only where the operations of a group with clients
 * meet it: the collectors' store, which crashes, once billing's invoices go to the chargers'
 * queue instead of the collectors' (its lane followed any consumer group that got work); the
 * collectors keep theirs, as every service the node table calls active does. */
START_TEST(test_view_key_store_lane_follows_the_groups_that_use_it)
{
    const char *path =
        IDEMSIM_SOURCE_DIR "/scenarios/architectures/orders_and_invoices_two_groups.json";
    const char *crash = "services.collector-keys.crash={\"every_ms\": {\"dist\": \"const\", "
                        "\"value\": 20000}, \"restart_ms\": 5000}";
    const char *met[] = {crash};
    const char *unmet[] = {crash, "clients[1].queue=\"orders\""};
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    ck_assert(scenario_load_file(path, met, 1, scenario, errors));
    ck_assert(idempotent_pane_has_lane(scenario, "collector-keys"));
    ck_assert(idempotent_pane_has_lane(scenario, "collectors"));
    ck_assert(scenario_load_file(path, unmet, 2, scenario, errors));
    ck_assert(!idempotent_pane_has_lane(scenario, "collector-keys"));
    ck_assert(idempotent_pane_has_lane(scenario, "collectors"));
    ck_assert(scenario_load_file(path, NULL, 0, scenario, errors)); /* no crash: no node */
    ck_assert(!idempotent_pane_has_lane(scenario, "collector-keys"));
    free(errors);
    free(scenario);
}
END_TEST

/* How a pane tells a key store's crash at 20 s: the mechanisms line across the lanes, the
 * narration, and the key-store panel's DOWN (view_pane_key_store_down), read at 20.001 s. */
typedef struct {
    bool line, narrated, down;
} StoreCrashTold;

static uint32_t node_named(const ViewPane *pane, const char *name);

static StoreCrashTold store_crash_told(const Scenario *scenario, const char *store)
{
    ViewPane *pane = view_pane_create(scenario, MODE_IDEMPOTENT, scenario->seed);
    ck_assert_ptr_nonnull(pane);
    view_pane_run_until(pane, 20001000);
    StoreCrashTold told = {0};
    uint32_t node = node_named(pane, store);
    for (uint64_t m = 0; m < pane->mechanism_count && m < VIEW_MECHANISMS_MAX; m++)
        told.line |= pane->mechanisms[m].event == TRACE_CRASH && pane->mechanisms[m].node == node;
    told.narrated = pane->narration.present && pane->narration.event == TRACE_CRASH &&
                    pane->narration.node == node;
    told.down = view_pane_key_store_down(pane, false);
    view_pane_destroy(pane);
    return told;
}

/* A key store's crash is told in the view only where the store has a lane, by the rule of its
 * lane (diagram_node_drawn): the collectors' store of orders_and_invoices_two_groups, down
 * from 20 s, is told by its line, the narration and the panel's DOWN while billing's invoices
 * reach the collectors, and by none of them once they go to the chargers' queue and no
 * operation meets the store (its crash was drawn across lanes that never reach it). */
START_TEST(test_view_tells_a_store_crash_only_where_the_store_is_drawn)
{
    const char *path =
        IDEMSIM_SOURCE_DIR "/scenarios/architectures/orders_and_invoices_two_groups.json";
    const char *crash = "services.collector-keys.crash={\"every_ms\": {\"dist\": \"const\", "
                        "\"value\": 20000}, \"restart_ms\": 5000}";
    const char *met[] = {crash};
    const char *unmet[] = {crash, "clients[1].queue=\"orders\""};
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    ck_assert(scenario_load_file(path, met, 1, scenario, errors));
    StoreCrashTold told = store_crash_told(scenario, "collector-keys");
    ck_assert(told.line && told.narrated && told.down);
    ck_assert(scenario_load_file(path, unmet, 2, scenario, errors));
    told = store_crash_told(scenario, "collector-keys");
    ck_assert_msg(!told.line && !told.narrated && !told.down, "line %d, narrated %d, down %d",
                  told.line, told.narrated, told.down);
    /* nor is it a moment to show: nothing else crashes there (the collectors get no work) */
    Mode idempotent = MODE_IDEMPOTENT, at;
    SimTimeUs at_us;
    ck_assert(!view_moment_find("crash", scenario, &idempotent, 1, scenario->seed, &at_us, &at));
    free(errors);
    free(scenario);
}
END_TEST

static ViewPane *pane_of(const char *path, const char *const *sets, int set_count, Mode mode,
                         Scenario *scenario);

/* Feeds the pane offset commits at t_us by the broker, one per partition name in queues
 * (NULL-terminated), the offset counting up from 10; returns the newest moment's words. */
static const char *commit_words(ViewPane *pane, SimTimeUs t_us, const char *const *queues,
                                char *text, size_t size)
{
    TraceSink sink = view_trace_sink(pane);
    for (int q = 0; queues[q] != NULL; q++) {
        TraceRecord record = {.t_us = t_us + (SimTimeUs)q * 1000,
                              .event = TRACE_OFFSET_COMMIT,
                              .actor = world_node_of_kind(pane->world, NODE_BROKER),
                              .actor_kind = NODE_BROKER,
                              .peer = TRACE_NO_NODE,
                              .no_operation = true,
                              .value = 10 + q,
                              .queue = queues[q]};
        sink.write(sink.context, &record);
    }
    const ViewMechanism *last =
        &pane->mechanisms[(pane->mechanism_count - 1) % VIEW_MECHANISMS_MAX];
    view_mechanism_commit_words(pane, last, text, size);
    return text;
}

/* Offset commits close together are one moment, and its words are true of all of them: the
 * newest offset only where they are all one partition's (named where the log has several
 * partitions or groups), else how many partitions, and whose group, or how many groups,
 * where the log has several ("to 56" named one partition of one group out of twelve). */
START_TEST(test_view_merged_offset_commits_say_where_they_went)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    ck_assert_ptr_nonnull(scenario);
    char text[128];
    ViewPane *pane =
        pane_of(IDEMSIM_SOURCE_DIR "/scenarios/architectures/orders_log_charge_and_confirm.json",
                NULL, 0, MODE_AT_LEAST_ONCE, scenario);
    const char *one[] = {"p3", NULL};
    ck_assert_str_eq(commit_words(pane, 1000000, one, text, sizeof text), "offset commit: 10");
    const char *same[] = {"mailers/p3", "mailers/p3", NULL};
    ck_assert_str_eq(commit_words(pane, 3000000, same, text, sizeof text),
                     "2 offset commits, mailers/p3 to 11");
    const char *first[] = {"p3", "p3", "p3", NULL};
    ck_assert_str_eq(commit_words(pane, 5000000, first, text, sizeof text),
                     "3 offset commits, chargers/p3 to 12");
    const char *group[] = {"p1", "p3", "p1", NULL};
    ck_assert_str_eq(commit_words(pane, 7000000, group, text, sizeof text),
                     "3 offset commits of chargers, 2 partitions");
    const char *both[] = {"p3", "mailers/p3", NULL};
    ck_assert_str_eq(commit_words(pane, 9000000, both, text, sizeof text),
                     "2 offset commits of 2 groups, 1 partition");
    const char *all[] = {"p0", "mailers/p1", "p2", "mailers/p0", NULL};
    ck_assert_str_eq(commit_words(pane, 11000000, all, text, sizeof text),
                     "4 offset commits of 2 groups, 3 partitions");
    view_pane_destroy(pane);

    /* one group of 8 partitions: no group to name */
    pane = pane_of(IDEMSIM_SOURCE_DIR "/scenarios/21_kafka_rebalance_replay.json", NULL, 0,
                   MODE_AT_LEAST_ONCE, scenario);
    const char *eight[] = {"p5", "p5", NULL};
    ck_assert_str_eq(commit_words(pane, 3000000, eight, text, sizeof text),
                     "2 offset commits, p5 to 11");
    const char *spread[] = {"p5", "p6", NULL};
    ck_assert_str_eq(commit_words(pane, 5000000, spread, text, sizeof text),
                     "2 offset commits, 2 partitions");
    view_pane_destroy(pane);

    /* one group, one partition: the offset says it all */
    const char *single[] = {"broker.partitions=1"};
    pane = pane_of(IDEMSIM_SOURCE_DIR "/scenarios/21_kafka_rebalance_replay.json", single, 1,
                   MODE_AT_LEAST_ONCE, scenario);
    const char *zero[] = {"p0", "p0", NULL};
    ck_assert_str_eq(commit_words(pane, 1000000, zero, text, sizeof text),
                     "2 offset commits, to 11");
    view_pane_destroy(pane);
    free(scenario);
}
END_TEST

/* A fanout exchange puts each publish in two queues, and the broker hands both copies out at
 * once, each with its ack timer (orders_fanout_charge_and_confirm: payments to the chargers,
 * confirmations to the mailers, a visibility timeout of 10 s): the two timers of one operation
 * overlap from the same instant, and in one place beside the broker's lane they were one bar.
 * Each open timer of an operation has a place of its own (DiagramItem.slot); timers of other
 * operations still share one, as key lives on a server's lane do. */
START_TEST(test_view_an_operations_overlapping_ack_timers_stand_apart)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    ck_assert_ptr_nonnull(scenario);
    ViewPane *pane =
        pane_of(IDEMSIM_SOURCE_DIR "/scenarios/architectures/orders_fanout_charge_and_confirm.json",
                NULL, 0, MODE_AT_LEAST_ONCE, scenario);
    view_pane_run_until(pane, 3000000);
    uint32_t pairs = 0, apart = 0, timers = 0, moved_alone = 0;
    for (uint64_t b = view_pane_first_serial(pane); b < view_pane_next_serial(pane); b++) {
        const DiagramItem *later = view_pane_arrow(pane, b);
        if (later->kind != DIAGRAM_SPAN || later->detail != DIAGRAM_SPAN_ACK_TIMER)
            continue;
        timers++;
        bool sibling = false; /* an earlier timer of its operation still open at its start */
        for (uint64_t a = view_pane_first_serial(pane); a < b; a++) {
            const DiagramItem *one = view_pane_arrow(pane, a);
            if (one->kind != DIAGRAM_SPAN || one->detail != DIAGRAM_SPAN_ACK_TIMER ||
                one->from != later->from || one->operation != later->operation ||
                one->end_us <= later->start_us)
                continue;
            sibling = true;
            pairs++;
            apart += one->slot != later->slot;
        }
        moved_alone += !sibling && later->slot != 0;
    }
    ck_assert_uint_gt(pairs, 5);
    ck_assert_uint_eq(apart, pairs);
    ck_assert_uint_eq(timers, 2 * pairs); /* every publish has its two copies */
    ck_assert_uint_eq(moved_alone, 0);
    view_pane_destroy(pane);
    free(scenario);
}
END_TEST

static void expect_same_arrow(const DiagramItem *a, const DiagramItem *b)
{
    ck_assert_uint_eq(a->operation, b->operation);
    ck_assert_uint_eq(a->start_us, b->start_us);
    ck_assert_uint_eq(a->end_us, b->end_us);
    ck_assert_uint_eq(a->attempt, b->attempt);
    ck_assert_uint_eq(a->copy, b->copy);
    ck_assert_int_eq(a->value, b->value);
    ck_assert_int_eq(a->effects, b->effects);
    ck_assert_int_eq(a->from, b->from);
    ck_assert_int_eq(a->to, b->to);
    ck_assert_int_eq(a->kind, b->kind);
    ck_assert_int_eq(a->message, b->message);
    ck_assert_int_eq(a->event, b->event);
    ck_assert_int_eq(a->end_event, b->end_event);
    ck_assert_int_eq(a->duplicate, b->duplicate);
}

START_TEST(test_view_pane_state_does_not_depend_on_slicing)
{
    Scenario *scenario = load_test_scenario();
    ViewPane *whole = view_pane_create(scenario, MODE_AT_LEAST_ONCE, 3);
    ViewPane *sliced = view_pane_create(scenario, MODE_AT_LEAST_ONCE, 3);
    view_pane_run_until(whole, 9000000);
    for (SimTimeUs t = 0; t <= 9000000; t += 1237)
        view_pane_run_until(sliced, t);
    view_pane_run_until(sliced, 9000000);
    ck_assert_uint_eq(whole->tally.operations, sliced->tally.operations);
    ck_assert_uint_eq(whole->tally.outcomes[OUTCOME_OK], sliced->tally.outcomes[OUTCOME_OK]);
    ck_assert_uint_eq(whole->tally.outcomes[OUTCOME_DOUBLE],
                      sliced->tally.outcomes[OUTCOME_DOUBLE]);
    ck_assert_int_eq(whole->tally.actual[0], sliced->tally.actual[0]);
    ck_assert_uint_eq(view_pane_next_serial(whole), view_pane_next_serial(sliced));
    for (uint64_t serial = view_pane_first_serial(whole); serial < view_pane_next_serial(whole);
         serial++)
        expect_same_arrow(view_pane_arrow(whole, serial), view_pane_arrow(sliced, serial));
    ck_assert_uint_gt(whole->tally.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_int_eq(whole->narration.event, sliced->narration.event);
    ck_assert_uint_eq(whole->narration.t_us, sliced->narration.t_us);
    ck_assert_uint_eq(whole->narration.operation, sliced->narration.operation);
    view_pane_destroy(whole);
    view_pane_destroy(sliced);
    free(scenario);
}
END_TEST

/* In default.json the idempotent world still has events pending (key-store sweeps) at 25 s,
 * long after its last operation settled, while the other modes' worlds have finished:
 * "finished" must come from the operations, not from an empty event queue. */
START_TEST(test_view_pane_is_done_once_every_operation_settled_while_timers_are_pending)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    ck_assert(scenario_load_file(IDEMSIM_SOURCE_DIR "/scenarios/default.json", NULL, 0, scenario,
                                 errors));
    ViewPane *pane = view_pane_create(scenario, MODE_IDEMPOTENT, scenario->seed);
    ck_assert_ptr_nonnull(pane);
    ck_assert(!pane->tally.done);
    view_pane_run_until(pane, 5000000);
    ck_assert(!pane->tally.done);
    view_pane_run_until(pane, 25000000);
    ck_assert(pane->tally.done);
    const Metrics *metrics = world_metrics(pane->world);
    ck_assert_uint_eq(metrics->operations_settled, metrics->operations);
    ck_assert_uint_eq(world_messages_in_flight(pane->world), 0);
    ck_assert_uint_eq(pane->tally.outcomes[OUTCOME_OK], metrics->operations);
    view_pane_destroy(pane);
    free(errors);
    free(scenario);
}
END_TEST

/* The key-store panel shows rows still processing and the newest completed ones: the
 * sample keeps both lists, each newest first, so a busy store cannot crowd one out. */
START_TEST(test_view_key_sample_keeps_processing_and_completed_rows_apart)
{
    Scenario *scenario = load_test_scenario();
    ViewPane *pane = view_pane_create(scenario, MODE_IDEMPOTENT, scenario->seed);
    ck_assert_ptr_nonnull(pane);
    bool saw_processing = false;
    for (SimTimeUs t = 1000000; t <= 15000000; t += 1000000) {
        view_pane_run_until(pane, t);
        view_pane_sample_keys(pane);
        const ViewKeySample *keys = &pane->keys;
        ck_assert_uint_gt(keys->settled_shown, 0);
        saw_processing = saw_processing || keys->processing_shown > 0;
        for (uint32_t i = 0; i < keys->processing_shown; i++) {
            ck_assert_int_eq(keys->processing_rows[i].status, KEY_STATUS_PROCESSING);
            if (i > 0)
                ck_assert_uint_ge(keys->processing_rows[i - 1].created_us,
                                  keys->processing_rows[i].created_us);
        }
        for (uint32_t i = 0; i < keys->settled_shown; i++) {
            const KeyRow *row = &keys->settled_rows[i];
            ck_assert(row->status != KEY_STATUS_PROCESSING || row->expires_us <= keys->at_us);
            if (i > 0)
                ck_assert_uint_ge(keys->settled_rows[i - 1].created_us, row->created_us);
        }
    }
    ck_assert(saw_processing);
    view_pane_destroy(pane);
    free(scenario);
}
END_TEST

/* C1 at 1.5 s has the longest idempotent narration ("retry #2 of payment 0 with the same
 * key -> stored response replayed, no charge"): its green words stay inside the narration
 * box, none below it over the status bar. */
static void check_narration_inside(const char *width, const char *height)
{
    char png[160];
    snprintf(png, sizeof png, "%s/c1-%sx%s.png", work_dir, width, height);
    const char *arguments[] = {IDEMSIM_SOURCE_DIR "/scenarios/01_lost_answer.json",
                               "--headless",
                               "--png",
                               png,
                               "--at-ms",
                               "1500",
                               "--width",
                               width,
                               "--height",
                               height,
                               NULL};
    ck_assert_int_eq(run_view(arguments), 0);
    int w = atoi(width), h = atoi(height);
    ViewRect narration;
    ck_assert(view_layout_region(w, h, 3, 2, VIEW_REGION_NARRATION, &narration));
    ViewRect below = {narration.x, narration.y + narration.h, narration.w,
                      h - narration.y - narration.h};
    uint32_t green = view_palette_rgb(VIEW_COLOR_OK);
    ck_assert_uint_gt(count_rgb(png, narration, green), 20);
    ck_assert_uint_eq(count_rgb(png, below, green), 0);
}

/* The node of a service by its id, in a pane's world. */
static uint32_t node_named(const ViewPane *pane, const char *name)
{
    for (uint32_t node = 0; node < world_node_count(pane->world); node++) {
        if (strcmp(world_node_name(pane->world, node), name) == 0)
            return node;
    }
    ck_abort_msg("no node '%s'", name);
    return TRACE_NO_NODE;
}

static void expect_narration(const ViewPane *pane, ViewNarration line, const char *expected)
{
    char text[256];
    line.present = true;
    view_narration_line(pane, &line, text, sizeof text);
    ck_assert_msg(strcmp(text, expected) == 0, "narrated '%s', expected '%s'", text, expected);
}

/* An order API charges nothing: a failure after its publish says the order went out (direct)
 * or was never written (outbox), not that anything was charged. */
START_TEST(test_view_narration_an_order_api_publishes_rather_than_charges)
{
    const char *vias[] = {"direct", "outbox"};
    const char *expected[] = {
        "payment 0 published, then the handler failed: 500, the client will retry",
        "the handler failed before its commit: payment 0 not written to the outbox, 500"};
    for (int v = 0; v < 2; v++) {
        char set[64];
        snprintf(set, sizeof set, "services.order-api.steps[0].via=\"%s\"", vias[v]);
        const char *sets[] = {set};
        Scenario *scenario = calloc(1, sizeof *scenario);
        LoadErrors *errors = calloc(1, sizeof *errors);
        ck_assert(scenario_load_file(IDEMSIM_SOURCE_DIR
                                     "/tests/good_scenarios/order_api_publishes.json",
                                     sets, 1, scenario, errors));
        ViewPane *pane = view_pane_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
        ck_assert_ptr_nonnull(pane);
        ViewNarration failed = {.event = TRACE_FAIL_AFTER_EFFECT,
                                .node = node_named(pane, "order-api"),
                                .kind = NODE_SERVER,
                                .peer = TRACE_NO_NODE,
                                .value = 500};
        expect_narration(pane, failed, expected[v]);
        view_pane_destroy(pane);
        free(errors);
        free(scenario);
    }
}
END_TEST

/* Beside an order API's lifeline the view's short word for a failure after its publish says
 * what went out, as explain does: the order (direct), or nothing (outbox); "500 after charge"
 * is no word for a service that charges nothing. At 4.13 s payment 5 of a sampled browser
 * has just failed so at the order API in at-most-once and at-least-once. */
START_TEST(test_view_word_beside_an_order_api_says_what_went_out)
{
    const char *vias[] = {"direct", "outbox"};
    const char *expected[] = {"\"text\": \"500 after publish\"",
                              "\"text\": \"500, no order written\""};
    for (int v = 0; v < 2; v++) {
        char set[64], png[160], labels[160];
        snprintf(set, sizeof set, "services.order-api.steps[0].via=\"%s\"", vias[v]);
        snprintf(png, sizeof png, "%s/order-api-%s.png", work_dir, vias[v]);
        snprintf(labels, sizeof labels, "%s/order-api-%s.json", work_dir, vias[v]);
        const char *arguments[] = {IDEMSIM_SOURCE_DIR
                                   "/scenarios/architectures/order_api_kafka_charging.json",
                                   "--set",
                                   set,
                                   "--headless",
                                   "--png",
                                   png,
                                   "--at-ms",
                                   "4131",
                                   "--width",
                                   "1920",
                                   "--height",
                                   "1080",
                                   "--labels-json",
                                   labels,
                                   NULL};
        ck_assert_int_eq(run_view(arguments), 0);
        long size;
        char *text = read_all(labels, &size);
        ck_assert_msg(strstr(text, expected[v]) != NULL, "via %s: no %s", vias[v], expected[v]);
        ck_assert_msg(strstr(text, "after charge") == NULL, "via %s: a charge at an order API",
                      vias[v]);
        free(text);
    }
}
END_TEST

/* The key store panel lists the servers' rows when the scenario has a server: it says DOWN
 * when one of those stores is down (C38), not when only a consumer group's is. The ledger
 * service's consumers call it; each store in turn crashes at 20 s for 5 s. */
START_TEST(test_view_key_store_panel_says_down_for_the_store_it_lists)
{
    const char *stores[] = {"charger-keys", "ledger-keys"};
    for (int s = 0; s < 2; s++) {
        char set[160], png[160], labels[160];
        snprintf(set, sizeof set,
                 "services.%s.crash={\"every_ms\": {\"dist\": \"const\", \"value\": 20000},"
                 " \"restart_ms\": 5000}",
                 stores[s]);
        snprintf(png, sizeof png, "%s/%s-down.png", work_dir, stores[s]);
        snprintf(labels, sizeof labels, "%s/%s-down.json", work_dir, stores[s]);
        const char *arguments[] = {IDEMSIM_SOURCE_DIR
                                   "/scenarios/architectures/order_queue_ledger_service.json",
                                   "--set",
                                   set,
                                   "--mode",
                                   "idempotent",
                                   "--headless",
                                   "--png",
                                   png,
                                   "--at-ms",
                                   "22000",
                                   "--labels-json",
                                   labels,
                                   NULL};
        ck_assert_int_eq(run_view(arguments), 0);
        long size;
        char *text = read_all(labels, &size);
        bool down = strstr(text, "\"text\": \"DOWN") != NULL;
        ck_assert_msg(down == (s == 1), "%s down: the panel %s DOWN", stores[s],
                      down ? "says" : "does not say");
        free(text);
    }
}
END_TEST

/* A consumer group whose key store is down hands the delivery back (a nack): it answers no
 * 503 to anybody, so the diagram's line says so, as the run table does; Redis is down from
 * 30 s to 40 s and the workers fail closed. The requeue loop goes round the three instances
 * every few ms: its hand-backs are counted in few lines ("25 handed back: ..."), not drawn one
 * line each (a wall of about 100 labels in the second on screen). */
START_TEST(test_view_consumers_hand_back_while_their_store_is_down)
{
    char png[160], labels[160];
    snprintf(png, sizeof png, "%s/workers-store-down.png", work_dir);
    snprintf(labels, sizeof labels, "%s/workers-store-down.json", work_dir);
    const char *arguments[] = {IDEMSIM_SOURCE_DIR
                               "/scenarios/architectures/workers_dedupe_store_down.json",
                               "--set",
                               "services.redis.when_down=refuse",
                               "--mode",
                               "idempotent",
                               "--headless",
                               "--png",
                               png,
                               "--at-ms",
                               "31000",
                               "--labels-json",
                               labels,
                               NULL};
    ck_assert_int_eq(run_view(arguments), 0);
    long size;
    char *text = read_all(labels, &size);
    ck_assert_msg(strstr(text, "handed back: key store down") != NULL, "no hand-back told");
    ck_assert_msg(strstr(text, "refused: key store down") == NULL, "a hand-back told refused");
    int lines = 0;
    for (const char *at = strstr(text, "handed back: key store down"); at != NULL;
         at = strstr(at + 1, "handed back: key store down"))
        lines++;
    ck_assert_int_le(lines, 10);
    ck_assert_msg(strstr(text, " handed back: key store down") != NULL, "no count told");
    free(text);
}
END_TEST

/* A called server's outage that outlasts the run (to_ms past duration_ms) is shaded in the
 * per-second chart up to the chart's end: the frame's right margin, past every panel, stays
 * the background (the band once ran on across the diagram to the window's edge). */
START_TEST(test_view_an_outage_past_the_run_is_shaded_within_the_chart)
{
    char png[160];
    snprintf(png, sizeof png, "%s/outage-past-the-run.png", work_dir);
    const char *arguments[] = {IDEMSIM_SOURCE_DIR
                               "/scenarios/architectures/checkout_payments_service.json",
                               "--set",
                               "services.payments.outage={\"from_ms\": 150000, \"to_ms\": 900000}",
                               "--mode",
                               "idempotent",
                               "--headless",
                               "--png",
                               png,
                               "--width",
                               "1280",
                               "--height",
                               "720",
                               NULL};
    ck_assert_int_eq(run_view(arguments), 0);
    ViewRect margin = {1280 - 4, 720 / 3, 4, 720 / 3};
    ck_assert_uint_eq(count_rgb(png, margin, view_palette_rgb(VIEW_COLOR_BACKGROUND)),
                      (uint64_t)margin.w * (uint64_t)margin.h);
}
END_TEST

static ViewPane *pane_of(const char *path, const char *const *sets, int set_count, Mode mode,
                         Scenario *scenario)
{
    LoadErrors *errors = calloc(1, sizeof *errors);
    ck_assert_ptr_nonnull(errors);
    ck_assert_msg(scenario_load_file(path, sets, set_count, scenario, errors), "%s rejected: %s",
                  path, errors->count ? errors->items[0].message : "");
    free(errors);
    ViewPane *pane = view_pane_create(scenario, mode, scenario->seed);
    ck_assert_ptr_nonnull(pane);
    return pane;
}

/* An outbox relays what its server wrote to it (server_charge.c): a charge intent to the
 * gateway, a receipt or an order API's order to the broker, or, reconciling, a status query
 * to the gateway. The narration says which, by the copy the relay sent (its peer and
 * message), or, before that copy is seen, by what the scenario's outbox can hold. */
START_TEST(test_view_narration_says_what_an_outbox_relays)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    ck_assert_ptr_nonnull(scenario);
    const char *order_outbox[] = {"services.order-api.steps[0].via=\"outbox\""};
    ViewPane *pane = pane_of(IDEMSIM_SOURCE_DIR "/tests/good_scenarios/order_api_publishes.json",
                             order_outbox, 1, MODE_IDEMPOTENT, scenario);
    ViewNarration relay = {.event = TRACE_OUTBOX_RELAY,
                           .node = node_named(pane, "order-api"),
                           .kind = NODE_SERVER,
                           .peer = node_named(pane, "orders"),
                           .message = MESSAGE_REQUEST,
                           .value = 1};
    expect_narration(pane, relay,
                     "the outbox relays the order of payment 0 to the broker orders (try #1)");
    relay.peer = TRACE_NO_NODE; /* an order API's outbox holds nothing else */
    expect_narration(pane, relay,
                     "the outbox relays the order of payment 0 to the broker orders (try #1)");
    view_pane_destroy(pane);

    const char *receipts_outbox[] = {"server.receipts_via=\"outbox\""};
    pane = pane_of(IDEMSIM_SOURCE_DIR "/scenarios/11_receipts_outbox.json", receipts_outbox, 1,
                   MODE_IDEMPOTENT, scenario);
    relay = (ViewNarration){.event = TRACE_OUTBOX_RELAY,
                            .node = node_named(pane, "server"),
                            .kind = NODE_SERVER,
                            .peer = node_named(pane, "broker"),
                            .message = MESSAGE_REQUEST,
                            .value = 2};
    expect_narration(pane, relay,
                     "the outbox relays the receipt of payment 0 to the broker (try #2)");
    relay.peer = TRACE_NO_NODE; /* a local debit: its outbox holds only receipts */
    expect_narration(pane, relay,
                     "the outbox relays the receipt of payment 0 to the broker (try #2)");
    view_pane_destroy(pane);

    pane =
        pane_of(IDEMSIM_SOURCE_DIR "/scenarios/11_outbox.json", NULL, 0, MODE_IDEMPOTENT, scenario);
    relay = (ViewNarration){.event = TRACE_OUTBOX_RELAY,
                            .node = node_named(pane, "server"),
                            .kind = NODE_SERVER,
                            .peer = node_named(pane, "gateway"),
                            .message = MESSAGE_CHARGE,
                            .value = 1};
    expect_narration(pane, relay,
                     "the outbox relays the charge of payment 0 with its key (try #1)");
    view_pane_destroy(pane);

    pane = pane_of(IDEMSIM_SOURCE_DIR "/scenarios/11_gateway_reconcile.json", NULL, 0,
                   MODE_IDEMPOTENT, scenario);
    relay = (ViewNarration){.event = TRACE_OUTBOX_RELAY,
                            .node = node_named(pane, "server"),
                            .kind = NODE_SERVER,
                            .peer = node_named(pane, "gateway"),
                            .message = MESSAGE_STATUS_QUERY,
                            .value = 3};
    expect_narration(pane, relay,
                     "the server asks the gateway what became of payment 0 (query #3)");
    view_pane_destroy(pane);
    free(scenario);
}
END_TEST

/* A key store's crash says what its restart will have: its keys on disk (durable: the Redis
 * of workers_dedupe_store_down), or, with no persistence (the collectors' store of
 * orders_and_invoices_two_groups), the keys it loses, none where it held none: not "on disk". */
START_TEST(test_view_narration_of_a_store_crash_follows_its_persistence)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    ck_assert_ptr_nonnull(scenario);
    const char *crash[] = {"services.collector-keys.crash={\"every_ms\": {\"dist\": \"const\", "
                           "\"value\": 20000}, \"restart_ms\": 5000}"};
    ViewPane *pane =
        pane_of(IDEMSIM_SOURCE_DIR "/scenarios/architectures/orders_and_invoices_two_groups.json",
                crash, 1, MODE_IDEMPOTENT, scenario);
    ViewNarration down = {.event = TRACE_CRASH,
                          .node = node_named(pane, "collector-keys"),
                          .kind = NODE_KEY_STORE,
                          .peer = TRACE_NO_NODE,
                          .operation = TRACE_NO_OPERATION,
                          .value = 0};
    expect_narration(pane, down, "the key store collector-keys crashed: it held no keys");
    down.value = 3;
    expect_narration(pane, down, "the key store collector-keys crashed: 3 keys lost");
    view_pane_destroy(pane);

    pane = pane_of(IDEMSIM_SOURCE_DIR "/scenarios/architectures/workers_dedupe_store_down.json",
                   NULL, 0, MODE_IDEMPOTENT, scenario);
    down.node = node_named(pane, "redis");
    down.value = 0;
    expect_narration(pane, down, "the key store redis crashed: its keys are on disk");
    view_pane_destroy(pane);
    free(scenario);
}
END_TEST

/* A server whose outbox holds both charges and receipts: its relays' records look alike (no
 * detail), so the pane's sink notes the copy each sent. Every relay the narration shows,
 * step by step, names where its copy went, and says a receipt exactly when that was the
 * broker; both kinds are met. */
START_TEST(test_view_narration_of_a_relay_follows_the_copy_it_sent)
{
    const char *both[] = {"server.transaction=false", "server.use_gateway=true",
                          "server.outbox=true", "server.receipts_via=\"outbox\""};
    Scenario *scenario = calloc(1, sizeof *scenario);
    ck_assert_ptr_nonnull(scenario);
    ViewPane *pane = pane_of(IDEMSIM_SOURCE_DIR "/scenarios/11_receipts_outbox.json", both, 4,
                             MODE_IDEMPOTENT, scenario);
    uint32_t broker = node_named(pane, "broker"), gateway = node_named(pane, "gateway");
    int receipts = 0, charges = 0;
    while (view_pane_step(pane, 1000) && pane->narration.t_us < 30000000) {
        const ViewNarration *line = &pane->narration;
        if (!line->present || line->event != TRACE_OUTBOX_RELAY)
            continue;
        ck_assert_msg(line->peer == broker || line->peer == gateway,
                      "a relay at %" PRId64 " us with no copy noted", (int64_t)line->t_us);
        char text[256];
        view_narration_line(pane, line, text, sizeof text);
        bool receipt = strstr(text, "relays the receipt of payment") != NULL;
        ck_assert_msg(receipt == (line->peer == broker), "narrated '%s'", text);
        ck_assert_msg(receipt || strstr(text, "relays the charge of payment") != NULL,
                      "narrated '%s'", text);
        receipts += receipt;
        charges += !receipt;
    }
    ck_assert_int_gt(receipts, 0);
    ck_assert_int_gt(charges, 0);
    view_pane_destroy(pane);
    free(scenario);
}
END_TEST

/* On a log every consumer group rebalances on its own: with two groups the narration says
 * which group went back to its commit (a later group's record names it, the first's none);
 * with one group it needs no name. */
START_TEST(test_view_narration_names_the_group_that_rebalances)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    ck_assert_ptr_nonnull(scenario);
    ViewPane *pane =
        pane_of(IDEMSIM_SOURCE_DIR "/scenarios/architectures/orders_log_charge_and_confirm.json",
                NULL, 0, MODE_AT_LEAST_ONCE, scenario);
    ViewNarration line = {.present = true, .event = TRACE_REBALANCE, .value = 3};
    snprintf(line.queue, sizeof line.queue, "mailers");
    char text[256];
    view_narration_line(pane, &line, text, sizeof text);
    ck_assert_str_eq(text, "the consumer group mailers rebalances: back to the last commit, 3 "
                           "records to process again");
    line.queue[0] = '\0';
    view_narration_line(pane, &line, text, sizeof text);
    ck_assert_str_eq(text, "the consumer group chargers rebalances: back to the last commit, 3 "
                           "records to process again");
    view_pane_destroy(pane);
    pane = pane_of(IDEMSIM_SOURCE_DIR "/scenarios/21_kafka_rebalance_replay.json", NULL, 0,
                   MODE_AT_LEAST_ONCE, scenario);
    view_narration_line(pane, &line, text, sizeof text);
    ck_assert_str_eq(text, "the consumer group rebalances: back to the last commit, 3 records to "
                           "process again");
    view_pane_destroy(pane);
    free(scenario);
}
END_TEST

/* A failed handler is told by what its group does: the chargers' failed before or after
 * charging, the mailers' before or after emailing the order's confirmation. */
START_TEST(test_view_narration_says_what_a_failed_handler_did)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    ck_assert_ptr_nonnull(scenario);
    ViewPane *pane =
        pane_of(IDEMSIM_SOURCE_DIR "/scenarios/architectures/orders_log_charge_and_confirm.json",
                NULL, 0, MODE_AT_LEAST_ONCE, scenario);
    char text[256];
    ViewNarration line = {.present = true,
                          .event = TRACE_HANDLER_FAILED,
                          .kind = NODE_CONSUMERS,
                          .detail = 1,
                          .node = node_named(pane, "mailers")};
    view_narration_line(pane, &line, text, sizeof text);
    ck_assert_msg(strstr(text, "after emailing its confirmation (500)") != NULL, "%s", text);
    line.node = node_named(pane, "chargers");
    line.detail = 0;
    view_narration_line(pane, &line, text, sizeof text);
    ck_assert_ptr_nonnull(strstr(text, "before charging it (500)"));
    view_pane_destroy(pane);
    free(scenario);
}
END_TEST

/* C11's fencing with C38's crashing store, as check_consumer_store_crash has it: one message,
 * a handler running from 10 ms to 110 ms, a store without persistence down from 30 ms to
 * 50 ms, so at 110 the job finds no row with its token: its lease was lost to the restart
 * (no newer holder), and its delivery goes back. */
static const char lease_lost_to_a_store_restart[] =
    "{\"seed\": 1, \"duration_ms\": 2000, \"modes\": [\"idempotent\"],"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000}],"
    " \"clients\": [{\"id\": \"app\", \"count\": 1, \"target\": \"broker\","
    "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 1, \"interval_ms\": {\"dist\": \"const\", \"value\": 0}},"
    "   \"retry\": {\"timeout_ms\": 1000, \"max_attempts\": 1}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 5}}},"
    " \"broker\": {\"family\": \"channel\","
    "   \"consumers\": {\"workers\": 1, \"service_ms\": {\"dist\": \"const\", \"value\": 100},"
    "     \"idempotency\": {\"durable\": false, \"fencing\": true, \"lock_timeout_ms\": 10000,"
    "       \"crash\": {\"every_ms\": {\"dist\": \"const\", \"value\": 30}, \"restart_ms\": 20,"
    "                 \"max_crashes\": 1}}}}}";

/* The narration of the first fenced record a pane's run traces. */
static void narrate_first_fenced(ViewPane *pane, char *text, size_t size)
{
    while (view_pane_step(pane, 1)) {
        if (pane->narration.present && pane->narration.event == TRACE_FENCED) {
            view_narration_line(pane, &pane->narration, text, size);
            return;
        }
    }
    ck_abort_msg("nothing traced fenced");
}

/* A fenced record says only that a job's lease was lost (taken over, or its row gone in a
 * store restart) and at which service; not whether its effect or its completion was refused.
 * The narration says what follows at each kind of service: a server's 409, a queue's
 * delivery handed back, a log's record tried again in place; and no "newer request": here
 * the lease went with the store's restart, and nobody holds it. */
START_TEST(test_view_narration_of_fencing_says_what_each_service_does)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    ck_assert_ptr_nonnull(scenario);
    ck_assert_ptr_nonnull(errors);
    const char *lease_lost = "lost the key's lease (taken over, or its row gone): fencing refuses "
                             "its effect";
    char text[256], expected[256];
    ck_assert(scenario_load_text(lease_lost_to_a_store_restart,
                                 sizeof lease_lost_to_a_store_restart - 1, NULL, 0, scenario,
                                 errors));
    ViewPane *pane = view_pane_create(scenario, MODE_IDEMPOTENT, scenario->seed);
    ck_assert_ptr_nonnull(pane);
    narrate_first_fenced(pane, text, sizeof text);
    snprintf(expected, sizeof expected,
             "a delivery of payment 0 %s (handed back, a nack) or its completion", lease_lost);
    ck_assert_msg(strcmp(text, expected) == 0, "narrated '%s'", text);
    view_pane_destroy(pane);

    const char *log[] = {"broker.family=\"log\"",
                         "broker.consumers.idempotency.when_down=\"proceed\""};
    memset(scenario, 0, sizeof *scenario);
    ck_assert(scenario_load_text(lease_lost_to_a_store_restart,
                                 sizeof lease_lost_to_a_store_restart - 1, log, 2, scenario,
                                 errors));
    pane = view_pane_create(scenario, MODE_IDEMPOTENT, scenario->seed);
    ck_assert_ptr_nonnull(pane);
    narrate_first_fenced(pane, text, sizeof text);
    snprintf(expected, sizeof expected,
             "a record of payment 0 %s (tried again in place) or its completion", lease_lost);
    ck_assert_msg(strcmp(text, expected) == 0, "narrated '%s'", text);
    view_pane_destroy(pane);

    /* C11's server, its lease taken over by the client's retry */
    const char *fencing[] = {"server.idempotency.fencing=true"};
    memset(scenario, 0, sizeof *scenario);
    pane = pane_of(IDEMSIM_SOURCE_DIR "/scenarios/11_lease_fencing.json", fencing, 1,
                   MODE_IDEMPOTENT, scenario);
    narrate_first_fenced(pane, text, sizeof text);
    snprintf(expected, sizeof expected, "a run of payment 0 %s (409) or its completion",
             lease_lost);
    ck_assert_msg(strcmp(text, expected) == 0, "narrated '%s'", text);
    view_pane_destroy(pane);
    free(errors);
    free(scenario);
}
END_TEST

/* With several gateways a caller's timeout, retry or lost charge names the gateway it
 * calls (checkout charges at cards, billing at wallet), not the first gateway. */
START_TEST(test_view_narration_names_the_gateway_each_caller_calls)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    ck_assert(scenario_load_file(IDEMSIM_SOURCE_DIR "/tests/good_scenarios/two_gateways.json", NULL,
                                 0, scenario, errors));
    ViewPane *pane = view_pane_create(scenario, MODE_IDEMPOTENT, scenario->seed);
    ck_assert_ptr_nonnull(pane);
    uint32_t billing = node_named(pane, "billing"), checkout = node_named(pane, "checkout");
    uint32_t wallet = node_named(pane, "wallet"), cards = node_named(pane, "cards");
    ViewNarration retry = {.event = TRACE_CHARGE_RETRY,
                           .node = billing,
                           .kind = NODE_CONSUMERS,
                           .peer = TRACE_NO_NODE,
                           .value = 2};
    expect_narration(pane, retry,
                     "no answer from the provider wallet: the consumer group billing charges "
                     "payment 0 again (try #2)");
    retry.node = checkout;
    retry.kind = NODE_SERVER;
    expect_narration(
        pane, retry,
        "no answer from the provider cards: the service checkout charges payment 0 again (try #2)");
    ViewNarration timeout = {.event = TRACE_GATEWAY_TIMEOUT,
                             .node = billing,
                             .kind = NODE_CONSUMERS,
                             .peer = TRACE_NO_NODE,
                             .value = 504};
    expect_narration(pane, timeout,
                     "no answer from the provider wallet for payment 0: 504, charged or not?");
    ViewNarration lost = {.event = TRACE_LOST,
                          .node = billing,
                          .kind = NODE_CONSUMERS,
                          .peer = wallet,
                          .message = MESSAGE_CHARGE};
    expect_narration(pane, lost,
                     "the charge for payment 0 was lost on the way to the provider wallet");
    lost = (ViewNarration){.event = TRACE_LOST,
                           .node = wallet,
                           .kind = NODE_GATEWAY,
                           .peer = billing,
                           .message = MESSAGE_CHARGE_REPLY};
    expect_narration(pane, lost, "the answer of the provider wallet for payment 0 was lost");
    /* a group's lost ack: no possessive on its id ("billing'") */
    lost = (ViewNarration){.event = TRACE_LOST,
                           .node = billing,
                           .kind = NODE_CONSUMERS,
                           .peer = TRACE_NO_NODE,
                           .message = MESSAGE_ACK};
    expect_narration(
        pane, lost,
        "the ack of the consumer group billing for payment 0 was lost: it will be delivered again");
    (void)cards;
    view_pane_destroy(pane);
    free(errors);
    free(scenario);
}
END_TEST

/* A delivery lost on its way to a later consumer group, and that group's lost ack, name that
 * group (the collectors of orders_and_invoices_two_groups), not the first one (the chargers). */
START_TEST(test_view_narration_names_the_group_a_delivery_was_for)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    ck_assert(scenario_load_file(IDEMSIM_SOURCE_DIR
                                 "/scenarios/architectures/orders_and_invoices_two_groups.json",
                                 NULL, 0, scenario, errors));
    ViewPane *pane = view_pane_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    ck_assert_ptr_nonnull(pane);
    uint32_t events = node_named(pane, "events"), collectors = node_named(pane, "collectors");
    ViewNarration lost = {.event = TRACE_LOST,
                          .node = events,
                          .kind = NODE_BROKER,
                          .peer = collectors,
                          .message = MESSAGE_DELIVERY};
    expect_narration(
        pane, lost, "a delivery of payment 0 was lost on the way to the consumer group collectors");
    lost = (ViewNarration){.event = TRACE_LOST,
                           .node = collectors,
                           .kind = NODE_CONSUMERS,
                           .peer = events,
                           .message = MESSAGE_ACK};
    expect_narration(
        pane, lost,
        "the ack of the consumer group collectors for payment 0 was lost: it will be delivered "
        "again");
    view_pane_destroy(pane);
    free(errors);
    free(scenario);
}
END_TEST

/* A service whose id already says what it is reads by its id alone: the gateway
 * "provider" of mesh_two_instances_checkout is "the provider", not "the provider provider";
 * its checkout instances are "the service checkout#2". */
START_TEST(test_view_narration_names_a_service_its_id_describes_once)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    ck_assert(scenario_load_file(IDEMSIM_SOURCE_DIR
                                 "/scenarios/architectures/mesh_two_instances_checkout.json",
                                 NULL, 0, scenario, errors));
    ViewPane *pane = view_pane_create(scenario, MODE_IDEMPOTENT, scenario->seed);
    ck_assert_ptr_nonnull(pane);
    ViewNarration declined = {.event = TRACE_DECLINED,
                              .node = node_named(pane, "provider"),
                              .kind = NODE_GATEWAY,
                              .peer = TRACE_NO_NODE};
    expect_narration(pane, declined,
                     "the provider declined payment 0: 402, nothing charged, and the client is "
                     "told");
    ViewNarration restart = {.event = TRACE_RESTART,
                             .node = node_named(pane, "checkout#2"),
                             .kind = NODE_SERVER,
                             .peer = TRACE_NO_NODE};
    expect_narration(pane, restart, "the service checkout#2 restarted");
    view_pane_destroy(pane);
    free(errors);
    free(scenario);
}
END_TEST

/* A reconciliation names the gateway the server asked: the wallet, where checkout charges
 * there, as explain and the SVG name it among several gateways; and an order API's publish is
 * a sentence, not the trace's event name. */
START_TEST(test_view_narration_names_the_gateway_a_reconciliation_asked)
{
    const char *sets[] = {"services.checkout.steps[0].call=\"wallet\"",
                          "services.checkout.steps[0].reconcile_ms=1000",
                          "services.billing.steps[0].call=\"cards\""};
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    ck_assert(scenario_load_file(IDEMSIM_SOURCE_DIR "/tests/good_scenarios/two_gateways.json", sets,
                                 3, scenario, errors));
    ViewPane *pane = view_pane_create(scenario, MODE_IDEMPOTENT, scenario->seed);
    ck_assert_ptr_nonnull(pane);
    ViewNarration reconciled = {.event = TRACE_RECONCILED,
                                .node = node_named(pane, "checkout"),
                                .kind = NODE_SERVER,
                                .peer = TRACE_NO_NODE,
                                .value = 200};
    expect_narration(
        pane, reconciled,
        "the service checkout asked the provider wallet about payment 0: charged (200), its key "
        "completed");
    reconciled.value = 404;
    expect_narration(pane, reconciled,
                     "the service checkout asked the provider wallet about payment 0: never "
                     "charged (404), its key "
                     "freed for a retry");
    view_pane_destroy(pane);
    memset(scenario, 0, sizeof *scenario);
    memset(errors, 0, sizeof *errors);
    ck_assert(scenario_load_file(IDEMSIM_SOURCE_DIR
                                 "/tests/good_scenarios/order_api_publishes.json",
                                 NULL, 0, scenario, errors));
    pane = view_pane_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    ck_assert_ptr_nonnull(pane);
    ViewNarration published = {.event = TRACE_ORDER_PUBLISHED,
                               .node = node_named(pane, "order-api"),
                               .kind = NODE_SERVER,
                               .peer = TRACE_NO_NODE};
    expect_narration(pane, published,
                     "the service order-api published the order of payment 0 to the broker orders");
    view_pane_destroy(pane);
    free(errors);
    free(scenario);
}
END_TEST

START_TEST(test_view_narration_stays_inside_its_box)
{
    check_narration_inside("1280", "720");
    check_narration_inside("1920", "1080");
}
END_TEST

START_TEST(test_view_bad_scenario_path_exits_2)
{
    char png[160];
    snprintf(png, sizeof png, "%s/never.png", work_dir);
    const char *arguments[] = {"/no/such/scenario.json", "--headless", "--png", png, NULL};
    ck_assert_int_eq(run_view(arguments), 2);
    ck_assert_int_ne(access(png, F_OK), 0);
}
END_TEST

START_TEST(test_view_usage_errors_exit_2_and_help_exits_0)
{
    const char *no_scenario[] = {"--headless", NULL};
    const char *bad_speed[] = {scenario_path, "--speed", "0", NULL};
    const char *unknown[] = {scenario_path, "--bogus", NULL};
    const char *png_without_headless[] = {scenario_path, "--png", "x.png", NULL};
    const char *bad_override[] = {
        scenario_path, "--set", "clients[0].count=-1", "--headless", "--png", "x.png", NULL};
    const char *help[] = {"--help", NULL};
    ck_assert_int_eq(run_view(no_scenario), 2);
    ck_assert_int_eq(run_view(bad_speed), 2);
    ck_assert_int_eq(run_view(unknown), 2);
    ck_assert_int_eq(run_view(png_without_headless), 2);
    ck_assert_int_eq(run_view(bad_override), 2);
    ck_assert_int_eq(run_view(help), 0);
}
END_TEST

static int run_program(char *const argv[], bool keep_display)
{
    pid_t child = fork();
    ck_assert_int_ne(child, -1);
    if (child == 0) {
        if (!keep_display) {
            unsetenv("SDL_VIDEODRIVER");
            /* Under AddressSanitizer, libX11 and Mesa leak a few blocks of their own; the
             * dummy-driver test keeps leak checking on for the view's code. */
            setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

START_TEST(test_view_command_line_rejects_a_missing_scenario)
{
    char *argv[] = {
        (char *)IDEMSIM_BINARY,   "view", "/no/such/scenario.json", "--headless", "--png",
        "/nonexistent-dir/x.png", NULL};
    ck_assert_int_eq(run_program(argv, true), 2);
}
END_TEST

/* ------------------------------------------------------------------ predict */

/* view_main in a child with its standard output in out_path (the one line headless
 * --predict prints); returns the exit code. */
static int run_view_to(const char *const *arguments, const char *out_path)
{
    fflush(stdout);
    pid_t child = fork();
    ck_assert_int_ne(child, -1);
    if (child == 0) {
        if (freopen(out_path, "w", stdout) == NULL)
            _exit(127);
        int code = run_view(arguments);
        fflush(stdout);
        _exit(code);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static const char *const question_at_15s =
    "questions=[{\"at_ms\": 15000, \"ask\": \"Who charges twice?\", \"reveal\": [\"double\"]}]";

/* Renders the test scenario with a question at 15 s, at 1920x1080; returns what it printed. */
static char *render_predict(const char *png, const char *presses)
{
    char out[200];
    snprintf(out, sizeof out, "%s.txt", png);
    const char *arguments[] = {
        scenario_path, "--set",     question_at_15s, "--predict", "--headless", "--png",
        png,           "--at-ms",   "20000",         "--width",   "1920",       "--height",
        "1080",        "--presses", presses,         NULL};
    ck_assert_int_eq(run_view_to(arguments, out), 0);
    long size = 0;
    return read_all(out, &size);
}

/* Issue 24: a question's words are the scenario author's, and reach a terminal with
 * headless --predict; an escape (ESC, or the C1 CSI) is shown escaped, as titles are. */
START_TEST(test_view_predict_escapes_control_characters_of_the_question)
{
    char png[160], out[200];
    snprintf(png, sizeof png, "%s/escape.png", work_dir);
    snprintf(out, sizeof out, "%s/escape.txt", work_dir);
    const char *arguments[] = {
        scenario_path,
        "--set",
        "questions=[{\"at_ms\": 15000, \"ask\": \"Clear \\u001b[2J now \\u009b?\", "
        "\"reveal\": [\"double\"]}]",
        "--predict",
        "--headless",
        "--png",
        png,
        "--at-ms",
        "20000",
        NULL};
    ck_assert_int_eq(run_view_to(arguments, out), 0);
    long size = 0;
    char *printed = read_all(out, &size);
    ck_assert_msg(strstr(printed, "Clear \\x1b[2J now \\u009b?") != NULL, "%s", printed);
    ck_assert_ptr_null(memchr(printed, 0x1b, (size_t)size));
    ck_assert_ptr_null(strstr(printed, "\xc2\x9b"));
    free(printed);
}
END_TEST

/* At 15 s at-least-once has charged someone twice (the red of test_view_frame_shows_double_
 * red_...). Asked, its DOUBLE counter is an amber "?" with no red anywhere in it, in every
 * column; revealed (one press), the red is back, at the same moment; run on (two presses),
 * the frame is the end's. */
START_TEST(test_view_predict_hides_the_double_counter_until_the_reveal)
{
    char asked[160], revealed[160], after[160];
    snprintf(asked, sizeof asked, "%s/asked.png", work_dir);
    snprintf(revealed, sizeof revealed, "%s/revealed.png", work_dir);
    snprintf(after, sizeof after, "%s/after.png", work_dir);
    char *asked_text = render_predict(asked, "0");
    char *revealed_text = render_predict(revealed, "1");
    char *after_text = render_predict(after, "2");
    ck_assert_msg(strstr(asked_text, "t 15000 ms: question 1 of 1 asked, 6 counters shown as ?") ==
                      asked_text,
                  "got: %s", asked_text);
    ck_assert_msg(strstr(revealed_text, "t 15000 ms: question 1 of 1 revealed, 0 counters") ==
                      revealed_text,
                  "got: %s", revealed_text);
    ck_assert_msg(strstr(after_text, "t 20000 ms: no question on screen (all 1 asked)") ==
                      after_text,
                  "got: %s", after_text);
    uint32_t red = view_palette_rgb(VIEW_COLOR_DOUBLE);
    uint32_t amber = view_palette_rgb(VIEW_COLOR_WARNING);
    for (int pane = 0; pane < 3; pane++) {
        ViewRect counter;
        ck_assert(view_layout_region(1920, 1080, 3, pane, VIEW_REGION_COUNTER_DOUBLE, &counter));
        ck_assert_uint_eq(count_rgb(asked, counter, red), 0);
        ck_assert_uint_gt(count_rgb(asked, counter, amber), 50);
    }
    ViewRect at_least_once;
    ck_assert(view_layout_region(1920, 1080, 3, 1, VIEW_REGION_COUNTER_DOUBLE, &at_least_once));
    ck_assert_uint_gt(count_rgb(revealed, at_least_once, red), 100);
    ck_assert_uint_gt(count_rgb(after, at_least_once, red), 100);
    free(asked_text);
    free(revealed_text);
    free(after_text);
}
END_TEST

/* The card of a question revealing refused_store_down names it as the run table does in
 * that scenario: a server whose key store is down answers 503 (C38), a consumer group's
 * workers hand the delivery back and answer nobody (workers_dedupe_store_down, where only
 * the workers' Redis crashes); the card once said "503" for the workers too. */
START_TEST(test_view_predict_card_names_store_down_refusals_as_the_table_does)
{
    static const struct {
        const char *scenario;
        const char *words;
        const char *not_words;
    } cases[] = {
        {IDEMSIM_SOURCE_DIR "/scenarios/architectures/workers_dedupe_store_down.json",
         "\"handed back: key store down:", "503"},
        {IDEMSIM_SOURCE_DIR "/scenarios/38_key_store_down_fail_closed.json",
         "\"503: key store down:", "handed back"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char png[160], labels[160], out[160];
        snprintf(png, sizeof png, "%s/store-down-card-%zu.png", work_dir, c);
        snprintf(labels, sizeof labels, "%s/store-down-card-%zu.json", work_dir, c);
        snprintf(out, sizeof out, "%s/store-down-card-%zu.txt", work_dir, c);
        const char *arguments[] = {cases[c].scenario,
                                   "--set",
                                   "questions=[{\"at_ms\": 31000, \"ask\": \"How many?\", "
                                   "\"reveal\": [\"refused_store_down\"]}]",
                                   "--mode",
                                   "idempotent",
                                   "--predict",
                                   "--presses",
                                   "1",
                                   "--headless",
                                   "--png",
                                   png,
                                   "--at-ms",
                                   "31000",
                                   "--labels-json",
                                   labels,
                                   NULL};
        ck_assert_int_eq(run_view_to(arguments, out), 0);
        long size;
        char *text = read_all(labels, &size);
        const char *card = strstr(text, "\"card\": [");
        ck_assert_msg(card != NULL, "%s: no card drawn", cases[c].scenario);
        ck_assert_msg(strstr(card, cases[c].words) != NULL, "%s: the card does not say %s: %s",
                      cases[c].scenario, cases[c].words, card);
        ck_assert_msg(strstr(card, cases[c].not_words) == NULL, "%s: the card says %s: %s",
                      cases[c].scenario, cases[c].not_words, card);
        free(text);
    }
}
END_TEST

START_TEST(test_view_predict_usage_errors_exit_2)
{
    const char *no_questions[] = {scenario_path, "--predict", "--headless", "--png", "x.png", NULL};
    const char *presses_without_predict[] = {scenario_path, "--headless", "--png", "x.png",
                                             "--presses",   "1",          NULL};
    const char *presses_in_a_window[] = {scenario_path, "--predict", "--presses", "1", NULL};
    const char *bad_presses[] = {scenario_path, "--predict", "--headless", "--png",
                                 "x.png",       "--presses", "-1",         NULL};
    ck_assert_int_eq(run_view(no_questions), 2);
    ck_assert_int_eq(run_view(presses_without_predict), 2);
    ck_assert_int_eq(run_view(presses_in_a_window), 2);
    ck_assert_int_eq(run_view(bad_presses), 2);
    ck_assert_int_ne(access("x.png", F_OK), 0);
}
END_TEST

/* Every curriculum file: the headless predict frame at its first question's time renders,
 * says that question is asked with counters shown as "?", and the first hidden counter
 * (of ok, double, lost) holds the amber "?" in every column. */
static void check_curriculum_predict_frame(const char *name, Scenario *scenario)
{
    char path[256], png[256], out[256], at[32];
    snprintf(path, sizeof path, IDEMSIM_SOURCE_DIR "/scenarios/%s", name);
    snprintf(png, sizeof png, "%s/%s.png", work_dir, name);
    snprintf(out, sizeof out, "%s/%s.txt", work_dir, name);
    LoadErrors errors;
    ck_assert_msg(scenario_load_file(path, NULL, 0, scenario, &errors), "%s does not load", name);
    ck_assert_msg(scenario->question_count > 0, "%s has no questions", name);
    snprintf(at, sizeof at, "%.0f", scenario->questions[0].at_ms);
    const char *arguments[] = {path, "--predict", "--headless", "--png", png, "--at-ms", at, NULL};
    ck_assert_int_eq(run_view_to(arguments, out), 0);
    long size = 0;
    char *text = read_all(out, &size);
    char expected[96];
    snprintf(expected, sizeof expected, "t %s ms: question 1 of %u asked, ", at,
             scenario->question_count);
    ck_assert_msg(strncmp(text, expected, strlen(expected)) == 0, "%s: got %s", name, text);
    int hidden_drawn = atoi(text + strlen(expected));
    ck_assert_msg(hidden_drawn > 0, "%s: nothing drawn as ?", name);
    free(text);
    ViewQuiz quiz;
    view_quiz_init(&quiz, scenario->questions, scenario->question_count);
    view_quiz_on_clock(&quiz, view_quiz_at_us(&quiz, 0), false);
    static const ViewRegion regions[] = {VIEW_REGION_COUNTER_OK, VIEW_REGION_COUNTER_DOUBLE,
                                         VIEW_REGION_COUNTER_LOST};
    for (int c = 0; c < 3; c++) {
        if ((view_quiz_hidden(&quiz) & (1u << c)) == 0)
            continue;
        /* a question on mismatches or stale writes shows the fifth counter too */
        ViewLayout layout;
        view_layout_compute(&layout, 1280, 720, (int)scenario->mode_count, false);
        bool fifth = (view_quiz_hidden(&quiz) & (VIEW_QUIZ_HIDE_MISMATCH | VIEW_QUIZ_HIDE_STALE));
        view_layout_set_counters(&layout, fifth ? VIEW_COUNTERS_MAX : VIEW_COUNTERS);
        for (uint32_t pane = 0; pane < scenario->mode_count; pane++) {
            ViewRect counter = layout.panes[pane].counters[c], region;
            ck_assert(view_layout_region(1280, 720, (int)scenario->mode_count, (int)pane,
                                         regions[c], &region));
            ck_assert(fifth || memcmp(&region, &counter, sizeof region) == 0);
            ck_assert_msg(count_rgb(png, counter, view_palette_rgb(VIEW_COLOR_WARNING)) > 20,
                          "%s: no amber ? in column %u", name, pane + 1);
        }
        break;
    }
    unlink(png);
}

/* The curriculum's scenario files (numbered ones and default.json), sorted: one loop test
 * each, so that a slow machine times out one frame rather than the whole library's. Listed
 * before the suite runs; the forked tests inherit the list. */
#define CURRICULUM_MAX 128
static char curriculum[CURRICULUM_MAX][sizeof(((struct dirent *)0)->d_name)];
static int curriculum_count;

static int compare_names(const void *a, const void *b)
{
    return strcmp(a, b);
}

static void list_curriculum(void)
{
    DIR *directory = opendir(IDEMSIM_SOURCE_DIR "/scenarios");
    if (directory == NULL)
        return;
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL && curriculum_count < CURRICULUM_MAX) {
        const char *name = entry->d_name;
        bool numbered = name[0] >= '0' && name[0] <= '9' && name[2] == '_';
        if ((numbered || strcmp(name, "default.json") == 0) && strstr(name, ".json") != NULL)
            snprintf(curriculum[curriculum_count++], sizeof curriculum[0], "%s", name);
    }
    closedir(directory);
    qsort(curriculum, (size_t)curriculum_count, sizeof curriculum[0], compare_names);
}

START_TEST(test_the_curriculum_is_listed)
{
    ck_assert_int_ge(curriculum_count, 21);
    ck_assert_int_lt(curriculum_count, CURRICULUM_MAX); /* none left out */
}
END_TEST

START_TEST(test_view_predict_frame_of_every_curriculum_scenario)
{
    Scenario *scenario = malloc(sizeof *scenario);
    ck_assert_ptr_nonnull(scenario);
    check_curriculum_predict_frame(curriculum[_i], scenario);
    free(scenario);
}
END_TEST

/* ------------------------------------------------------------------ window */

START_TEST(test_view_window_runs_and_quits_with_the_dummy_driver)
{
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    const char *arguments[] = {scenario_path, "--quit-after-ms", "400", "--speed", "4", NULL};
    ck_assert_int_eq(run_view(arguments), 0);
}
END_TEST

START_TEST(test_view_window_records_numbered_frames)
{
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    char dir[160], first[200];
    snprintf(dir, sizeof dir, "%s/frames", work_dir);
    snprintf(first, sizeof first, "%s/frame_000001.png", dir);
    const char *arguments[] = {scenario_path, "--quit-after-ms", "300", "--record", dir, "--width",
                               "640",         "--height",        "360", NULL};
    ck_assert_int_eq(run_view(arguments), 0);
    ck_assert_int_eq(access(first, R_OK), 0);
}
END_TEST

static bool have_xvfb(void)
{
    return system("command -v xvfb-run >/dev/null 2>&1") == 0;
}

START_TEST(test_view_window_opens_under_xvfb)
{
    char self[1024];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    ck_assert_int_gt(length, 0);
    self[length] = '\0';
    char *argv[] = {"xvfb-run", "-a",      "-s",          "-screen 0 1280x720x24",
                    self,       "--view",  scenario_path, "--quit-after-ms",
                    "1500",     "--stats", NULL};
    ck_assert_int_eq(run_program(argv, false), 0);
}
END_TEST

static bool have_xdotool(void)
{
    return system("command -v xdotool >/dev/null 2>&1") == 0;
}

/* The keys a presenter uses, typed into the real window (xdotool waits for the window to
 * appear; nothing sleeps): 2 focuses the second mode, space pauses, + + makes 0.5x into 2x,
 * s restarts with the next seed, p saves a screenshot, h shows the help, q quits. The view's
 * closing state line must show each effect. */
START_TEST(test_view_controls_under_xvfb_do_what_the_help_says)
{
    char self[1024];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    ck_assert_int_gt(length, 0);
    self[length] = '\0';
    char stats[200], script[2048];
    snprintf(stats, sizeof stats, "%s/stats.txt", work_dir);
    snprintf(script, sizeof script,
             "cd '%s' && '%s' --view '%s' --quit-after-ms 30000 --stats 2>'%s' & pid=$!; "
             "xdotool search --sync --name idemsim windowfocus --sync key 2 space plus plus s p "
             "h q; wait $pid",
             work_dir, self, scenario_path, stats);
    char *argv[] = {"xvfb-run", "-a", "-s", "-screen 0 1280x720x24", "sh", "-c", script, NULL};
    ck_assert_int_eq(run_program(argv, false), 0);
    FILE *file = fopen(stats, "r");
    ck_assert_ptr_nonnull(file);
    char text[4096] = "";
    size_t used = fread(text, 1, sizeof text - 1, file);
    text[used] = '\0';
    fclose(file);
    ck_assert_msg(strstr(text, "state: paused yes, focus 2, speed 2, seed 8, help on, "
                               "screenshots 1") != NULL,
                  "unexpected closing state:\n%s", text);
    char screenshot[200];
    snprintf(screenshot, sizeof screenshot, "%s/idemsim-view-test-seed8-t0.png", work_dir);
    ck_assert_int_eq(access(screenshot, R_OK), 0);
}
END_TEST

/* ------------------------------------------------------------------ Limits */

/* The window stops at the question whatever the speed, and the first space reveals it
 * without moving the clock (a question at 2 s, speed 4). The script waits for the window's
 * title to name the question, then its reveal, instead of guessing how long a loaded
 * machine takes to get there. */
START_TEST(test_view_predict_window_stops_at_the_question_and_space_reveals_it)
{
    char self[1024];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    ck_assert_int_gt(length, 0);
    self[length] = '\0';
    char stats[200], script[2048];
    snprintf(stats, sizeof stats, "%s/stats.txt", work_dir);
    snprintf(
        script, sizeof script,
        "cd '%s' && '%s' --view '%s' --set 'questions=[{\"at_ms\": 2000, \"ask\": \"Who?\", "
        "\"reveal\": [\"double\"]}]' --predict --speed 4 --quit-after-ms 30000 --stats "
        "2>'%s' & pid=$!; timeout 60 xdotool search --sync --name 'question 1 of 1$' windowfocus "
        "--sync key space search --sync --name 'question 1 of 1, revealed' key q; wait $pid",
        work_dir, self, scenario_path, stats);
    char *argv[] = {"xvfb-run", "-a", "-s", "-screen 0 1280x720x24", "sh", "-c", script, NULL};
    ck_assert_int_eq(run_program(argv, false), 0);
    FILE *file = fopen(stats, "r");
    ck_assert_ptr_nonnull(file);
    char text[4096] = "";
    size_t used = fread(text, 1, sizeof text - 1, file);
    text[used] = '\0';
    fclose(file);
    ck_assert_msg(strstr(text, "simulated 2.00 s at speed 4") != NULL, "clock moved:\n%s", text);
    ck_assert_msg(strstr(text, "screenshots 0, question 1 of 1 revealed") != NULL,
                  "unexpected closing state:\n%s", text);
}
END_TEST

START_TEST(test_view_layout_regions_stay_inside_the_pane)
{
    static const int sizes[][2] = {
        {640, 360}, {1280, 720}, {1920, 1080}, {3840, 2160}, {1000, 1000}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (int panes = 1; panes <= 3; panes++) {
            for (int p = 0; p < panes; p++) {
                ViewRect pane, part;
                ck_assert(view_layout_region(sizes[s][0], sizes[s][1], panes, p, VIEW_REGION_PANE,
                                             &pane));
                for (int r = VIEW_REGION_HEADER; r < VIEW_REGION_COUNT; r++) {
                    ck_assert(view_layout_region(sizes[s][0], sizes[s][1], panes, p, (ViewRegion)r,
                                                 &part));
                    ck_assert_int_ge(part.x, pane.x);
                    ck_assert_int_ge(part.y, pane.y);
                    ck_assert_int_le(part.x + part.w, pane.x + pane.w);
                    ck_assert_int_le(part.y + part.h, pane.y + pane.h);
                }
            }
            ViewRect none;
            ck_assert(!view_layout_region(sizes[s][0], sizes[s][1], panes, panes, VIEW_REGION_PANE,
                                          &none));
        }
    }
}
END_TEST

START_TEST(test_view_headless_frame_of_thousands_of_clients)
{
    char png[160];
    snprintf(png, sizeof png, "%s/crowd.png", work_dir);
    const char *arguments[] = {scenario_path, "--set", "clients[0].count=3000",
                               "--headless",  "--png", png,
                               "--at-ms",     "3000",  NULL};
    ck_assert_int_eq(run_view(arguments), 0);
    ck_assert_int_eq(access(png, R_OK), 0);
}
END_TEST

/* Six client groups with long ids, three clients each: eight sampled lanes, too narrow for
 * their names on one row. */
static const char *const six_groups_scenario =
    "{\"name\": \"six-groups\", \"seed\": 7, \"duration_ms\": 20000,\n"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],\n"
    " \"clients\": [\n"
    "  {\"id\": \"web\", \"count\": 3, \"workload\": {\"ops\": 5, \"interval_ms\": 2000}},\n"
    "  {\"id\": \"mobile-app\", \"count\": 3, \"workload\": {\"ops\": 5, \"interval_ms\": 2000}},\n"
    "  {\"id\": \"partner-api\", \"count\": 3, \"workload\": {\"ops\": 5, \"interval_ms\": "
    "2000}},\n"
    "  {\"id\": \"batch-jobs\", \"count\": 3, \"workload\": {\"ops\": 5, \"interval_ms\": 2000}},\n"
    "  {\"id\": \"kiosk\", \"count\": 3, \"workload\": {\"ops\": 5, \"interval_ms\": 2000}},\n"
    "  {\"id\": \"support-desk\", \"count\": 3, \"workload\": {\"ops\": 5, \"interval_ms\": "
    "2000}}],\n"
    " \"network\": {\"default\": {\"loss\": 0.05}}}\n";

/* Whether text names the group id: the id whole, or its first three characters or more
 * followed by an ellipsis. */
static bool heading_names(const char *text, const char *id)
{
    static const char ellipsis[] = "\xE2\x80\xA6";
    size_t length = strlen(text);
    if (strcmp(text, id) == 0)
        return true;
    if (length < 3 + strlen(ellipsis) || strcmp(text + length - strlen(ellipsis), ellipsis) != 0)
        return false;
    size_t prefix = length - strlen(ellipsis);
    return prefix < strlen(id) && strncmp(text, id, prefix) == 0;
}

static bool boxes_overlap(const cJSON *a, const cJSON *b)
{
    int ax = cJSON_GetObjectItem(a, "x")->valueint, ay = cJSON_GetObjectItem(a, "y")->valueint;
    int aw = cJSON_GetObjectItem(a, "w")->valueint, ah = cJSON_GetObjectItem(a, "h")->valueint;
    int bx = cJSON_GetObjectItem(b, "x")->valueint, by = cJSON_GetObjectItem(b, "y")->valueint;
    int bw = cJSON_GetObjectItem(b, "w")->valueint, bh = cJSON_GetObjectItem(b, "h")->valueint;
    return ax < bx + bw && bx < ax + aw && ay < by + bh && by < ay + ah;
}

/* Renders scenario headless with options and checks, in every column's diagram, that each
 * client group is named over the lanes (whole, or shortened to three letters or more with an
 * ellipsis: never left out), and that no two of those names overlap. */
static void assert_every_group_named(const char *scenario, const char *const *options)
{
    char png[160], labels[160];
    snprintf(png, sizeof png, "%s/groups.png", work_dir);
    snprintf(labels, sizeof labels, "%s/groups.json", work_dir);
    const char *arguments[24] = {scenario,  "--headless", "--png",         png,
                                 "--at-ms", "8000",       "--labels-json", labels};
    int count = 8;
    for (int i = 0; options[i] != NULL && count < 23; i++)
        arguments[count++] = options[i];
    arguments[count] = NULL;
    ck_assert_int_eq(run_view(arguments), 0);
    Scenario *loaded = calloc(1, sizeof *loaded);
    LoadErrors *errors = calloc(1, sizeof *errors);
    ck_assert(scenario_load_file(scenario, NULL, 0, loaded, errors));
    ck_assert_uint_le(loaded->client_group_count, VIEW_LANES_MAX); /* each one sampled */
    long size = 0;
    char *text = read_all(labels, &size);
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    const cJSON *pane = NULL;
    int panes = 0;
    cJSON_ArrayForEach(pane, cJSON_GetObjectItem(root, "panes"))
    {
        const cJSON *headings[CLIENT_GROUPS_MAX] = {NULL};
        const cJSON *item = NULL;
        cJSON_ArrayForEach(item, cJSON_GetObjectItem(pane, "texts"))
        {
            const char *words = cJSON_GetObjectItem(item, "text")->valuestring;
            for (uint32_t g = 0; g < loaded->client_group_count; g++) {
                if (headings[g] == NULL && heading_names(words, loaded->client_groups[g].id))
                    headings[g] = item;
            }
        }
        for (uint32_t g = 0; g < loaded->client_group_count; g++) {
            ck_assert_msg(headings[g] != NULL, "%s %s: no heading names group '%s'", scenario,
                          options[0] != NULL ? options[0] : "", loaded->client_groups[g].id);
            for (uint32_t other = 0; other < g; other++)
                ck_assert_msg(headings[other] == headings[g] ||
                                  !boxes_overlap(headings[other], headings[g]),
                              "the headings of '%s' and '%s' overlap",
                              loaded->client_groups[other].id, loaded->client_groups[g].id);
        }
        panes++;
    }
    ck_assert_int_ge(panes, 1);
    cJSON_Delete(root);
    free(text);
    free(errors);
    free(loaded);
}

/* Client-lane headings used to drop a group's name where its lanes were too narrow for even
 * one letter and an ellipsis ("partner-api" over one lane among eight), or where the group's
 * clients had no lane of their own but the shared "+N" one: every group is named now, the
 * names staggered over two rows when one row is too crowded. Six groups at 1280x720, the same
 * with the projector preset (fewer lanes: a group only in the shared lane), and two library
 * architectures whose first group's name was left out. */
START_TEST(test_view_every_client_group_is_named_over_its_lanes)
{
    char six[160];
    snprintf(six, sizeof six, "%s/six-groups.json", work_dir);
    write_file(six, six_groups_scenario);
    const char *none[] = {NULL};
    const char *projector[] = {"--projector", NULL};
    const char *fast[] = {"--speed", "4", NULL};
    assert_every_group_named(six, none);
    assert_every_group_named(six, projector);
    assert_every_group_named(
        IDEMSIM_SOURCE_DIR "/scenarios/architectures/orders_and_receipts_two_groups.json", none);
    assert_every_group_named(IDEMSIM_SOURCE_DIR "/scenarios/20_key_scope.json", fast);
}
END_TEST

/* A service's heading is never left out where its lane is crowded: beside a long broker name
 * and another consumer group (orders_log_receipts_queue at 1920x1080: six services in a
 * column), the mailers' name, which found no room on either row, goes whole in the tiny type
 * with its lane under its first letter. Every service is named in every column, whole. */
START_TEST(test_view_every_service_is_named_over_its_lane)
{
    static const char *const services[] = {"checkout", "orders", "notifications", "chargers",
                                           "mailers"};
    char png[160], labels[160];
    snprintf(png, sizeof png, "%s/services.png", work_dir);
    snprintf(labels, sizeof labels, "%s/services.json", work_dir);
    const char *arguments[] = {IDEMSIM_SOURCE_DIR
                               "/scenarios/architectures/orders_log_receipts_queue.json",
                               "--headless",
                               "--png",
                               png,
                               "--at-ms",
                               "7000",
                               "--width",
                               "1920",
                               "--height",
                               "1080",
                               "--labels-json",
                               labels,
                               NULL};
    ck_assert_int_eq(run_view(arguments), 0);
    long size = 0;
    char *text = read_all(labels, &size);
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    const cJSON *pane = NULL;
    int panes = 0;
    cJSON_ArrayForEach(pane, cJSON_GetObjectItem(root, "panes"))
    {
        for (size_t s = 0; s < sizeof services / sizeof services[0]; s++) {
            bool named = false;
            const cJSON *item = NULL;
            cJSON_ArrayForEach(item, cJSON_GetObjectItem(pane, "texts")) named |=
                strcmp(cJSON_GetObjectItem(item, "text")->valuestring, services[s]) == 0;
            ck_assert_msg(named, "no heading names service '%s'", services[s]);
        }
        panes++;
    }
    ck_assert_int_eq(panes, 3);
    cJSON_Delete(root);
    free(text);
}
END_TEST

/* Issue 24: a window far past the run put moments billions of pixels above the strip, and
 * their int conversion overflowed (a segfault in Release, UBSan in view_canvas.c); a busy
 * window of the whole run filled the label boxes past their array. Broker, dedup window and
 * log-broker scenarios, with and without the projector preset. */
START_TEST(test_view_window_far_past_the_run_renders)
{
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    const char *scenarios[] = {"scenarios/03_broker_slow_consumers.json",
                               "scenarios/14_broker_dedup_window.json",
                               "scenarios/21_kafka_rebalance_replay.json"};
    const char *windows[] = {"999999999:1000000000", "0:1000000000"};
    for (int s = 0; s < 3; s++) {
        for (int w = 0; w < 2; w++) {
            char scenario[512], png[200];
            snprintf(scenario, sizeof scenario, "%s/%s", IDEMSIM_SOURCE_DIR, scenarios[s]);
            snprintf(png, sizeof png, "%s/far-%d-%d.png", work_dir, s, w);
            char *argv[] = {(char *)IDEMSIM_BINARY,
                            "view",
                            scenario,
                            "--headless",
                            "--png",
                            png,
                            "--window",
                            (char *)windows[w],
                            "--at-ms",
                            "1000000000",
                            "--projector",
                            NULL};
            if ((s + w) % 2 == 0)
                argv[10] = NULL; /* without the projector preset */
            ck_assert_msg(run_program(argv, true) == 0, "%s --window %s", scenarios[s], windows[w]);
            struct stat written;
            ck_assert_int_eq(stat(png, &written), 0);
            ck_assert_int_gt(written.st_size, 0);
        }
    }
}
END_TEST

/* The view's numeric options at their extremes, combined by a fixed generator (so a failure
 * names its case and reruns): a headless frame either renders (exit 0) or is refused as bad
 * usage (exit 2), never a crash; under the sanitizer build, never undefined behaviour. */
START_TEST(test_view_options_at_their_extremes_render_or_are_refused)
{
    static const char *const times[] = {"0",        "1",          "999",          "60000",
                                        "86400000", "1000000000", "999999999999", "1000000000000"};
    static const char *const widths[] = {"320", "1280", "7680"};
    static const char *const heights[] = {"240", "720", "4320"};
    uint64_t state = 24; /* a fixed LCG: the cases are the same on every run */
    int rendered = 0;
    for (int c = 0; c < 10; c++) {
        uint32_t pick[6];
        for (int k = 0; k < 6; k++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            pick[k] = (uint32_t)(state >> 33);
        }
        char window[64], png[160];
        const char *from = times[pick[0] % 8], *to = times[pick[1] % 8];
        snprintf(window, sizeof window, "%s:%s", from, to);
        snprintf(png, sizeof png, "%s/extreme-%d.png", work_dir, c);
        const char *arguments[] = {scenario_path,
                                   "--headless",
                                   "--png",
                                   png,
                                   "--at-ms",
                                   times[pick[2] % 8],
                                   "--width",
                                   widths[pick[3] % 3],
                                   "--height",
                                   heights[pick[4] % 3],
                                   pick[5] % 2 ? "--window" : NULL,
                                   window,
                                   NULL};
        int code = run_view(arguments);
        rendered += code == 0;
        ck_assert_msg(code == 0 || code == 2, "case %d (--window %s --at-ms %s %sx%s): exit %d", c,
                      window, times[pick[2] % 8], widths[pick[3] % 3], heights[pick[4] % 3], code);
        if (code == 0)
            ck_assert_int_eq(access(png, R_OK), 0);
    }
    ck_assert_int_ge(rendered, 5); /* the cases reach the drawing, not only the refusals */
}
END_TEST

START_TEST(test_view_coordinates_are_clamped_before_they_become_ints)
{
    const float limit = 16777216.0f;
    ck_assert_float_eq(view_layout_coordinate(12.5), 12.5f);
    ck_assert_float_eq(view_layout_coordinate(-1e300), -limit);
    ck_assert_float_eq(view_layout_coordinate(1e300), limit);
    ck_assert_float_eq(view_layout_coordinate(NAN), -limit);
    /* what the canvas adds to a clamped coordinate still fits an int */
    ck_assert_int_gt((int)view_layout_coordinate(1e18) + (int)view_layout_coordinate(1e18), 0);
}
END_TEST

/* A wrapped line never leaves a number's unit alone below it ("arrives at 20.024" over "s"):
 * the number and its unit go to the next line together, and what is no unit still wraps. */
START_TEST(test_view_wrap_keeps_a_number_with_its_unit)
{
    ck_assert_int_eq(TTF_Init(), 0);
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, 64, 64, 32, SDL_PIXELFORMAT_ARGB8888);
    ck_assert_ptr_nonnull(surface);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    ck_assert_ptr_nonnull(renderer);
    ViewCanvas canvas;
    char error[512];
    ck_assert_msg(view_canvas_init(&canvas, renderer, 1.0f, 1.0f, error, sizeof error), "%s",
                  error);
    int number_w = view_canvas_text_width(&canvas, VIEW_FONT_SMALL, "20.024") + 1;
    ck_assert_int_eq(view_canvas_text_line_count(&canvas, VIEW_FONT_SMALL, number_w, "20.024 s"),
                     1);
    ck_assert_int_eq(view_canvas_text_line_count(&canvas, VIEW_FONT_SMALL, number_w, "20.024 ms,"),
                     1);
    ck_assert_int_eq(view_canvas_text_line_count(&canvas, VIEW_FONT_SMALL, number_w, "20.024 sx"),
                     2);
    ck_assert_int_eq(view_canvas_text_line_count(&canvas, VIEW_FONT_SMALL, number_w, "twenty s"),
                     2);
    int line_w = view_canvas_text_width(&canvas, VIEW_FONT_SMALL, "arrives at 20.024") + 1;
    ck_assert_int_eq(
        view_canvas_text_line_count(&canvas, VIEW_FONT_SMALL, line_w, "arrives at 20.024 s"), 2);
    view_canvas_release(&canvas);
    SDL_DestroyRenderer(renderer);
    SDL_FreeSurface(surface);
    TTF_Quit();
}
END_TEST

static Suite *view_suite(void)
{
    Suite *suite = suite_create("view");
    TCase *core = tcase_create("Core");
    tcase_add_checked_fixture(core, setup, teardown);
    tcase_set_timeout(core, 120);
    tcase_add_test(core, test_view_headless_frame_is_deterministic);
    tcase_add_test(core, test_view_wrap_keeps_a_number_with_its_unit);
    tcase_add_test(core, test_view_frame_shows_double_red_at_least_once_only);
    tcase_add_test(core, test_view_frame_shows_double_red_at_1080p);
    tcase_add_test(core, test_view_live_doubles_end_equal_to_the_settled_doubles);
    tcase_add_test(core, test_view_diagram_of_a_small_world_accounts_for_every_message);
    tcase_add_test(core, test_view_diagram_lanes_come_from_the_node_table);
    tcase_add_test(core, test_view_a_proxys_instances_stand_side_by_side);
    tcase_add_test(core, test_view_key_store_lane_follows_the_groups_that_use_it);
    tcase_add_test(core, test_view_an_operations_overlapping_ack_timers_stand_apart);
    tcase_add_test(core, test_view_tells_a_store_crash_only_where_the_store_is_drawn);
    tcase_add_test(core, test_view_pane_state_does_not_depend_on_slicing);
    tcase_add_test(core,
                   test_view_pane_is_done_once_every_operation_settled_while_timers_are_pending);
    tcase_add_test(core, test_view_key_sample_keeps_processing_and_completed_rows_apart);
    tcase_add_test(core, test_view_narration_stays_inside_its_box);
    tcase_add_test(core, test_view_every_client_group_is_named_over_its_lanes);
    tcase_add_test(core, test_view_every_service_is_named_over_its_lane);
    tcase_add_test(core, test_view_narration_names_the_gateway_each_caller_calls);
    tcase_add_test(core, test_view_narration_names_the_group_a_delivery_was_for);
    tcase_add_test(core, test_view_narration_names_the_gateway_a_reconciliation_asked);
    tcase_add_test(core, test_view_narration_names_a_service_its_id_describes_once);
    tcase_add_test(core, test_view_narration_an_order_api_publishes_rather_than_charges);
    tcase_add_test(core, test_view_word_beside_an_order_api_says_what_went_out);
    tcase_add_test(core, test_view_key_store_panel_says_down_for_the_store_it_lists);
    tcase_add_test(core, test_view_consumers_hand_back_while_their_store_is_down);
    tcase_add_test(core, test_view_an_outage_past_the_run_is_shaded_within_the_chart);
    tcase_add_test(core, test_view_narration_says_what_an_outbox_relays);
    tcase_add_test(core, test_view_merged_offset_commits_say_where_they_went);
    tcase_add_test(core, test_view_narration_of_a_store_crash_follows_its_persistence);
    tcase_add_test(core, test_view_narration_of_a_relay_follows_the_copy_it_sent);
    tcase_add_test(core, test_view_narration_names_the_group_that_rebalances);
    tcase_add_test(core, test_view_narration_says_what_a_failed_handler_did);
    tcase_add_test(core, test_view_narration_of_fencing_says_what_each_service_does);
    tcase_add_test(core, test_view_bad_scenario_path_exits_2);
    tcase_add_test(core, test_view_usage_errors_exit_2_and_help_exits_0);
    tcase_add_test(core, test_view_command_line_rejects_a_missing_scenario);
    tcase_add_test(core, test_view_predict_hides_the_double_counter_until_the_reveal);
    tcase_add_test(core, test_view_predict_usage_errors_exit_2);
    tcase_add_test(core, test_view_predict_card_names_store_down_refusals_as_the_table_does);
    tcase_add_test(core, test_view_predict_escapes_control_characters_of_the_question);
    list_curriculum();
    tcase_add_test(core, test_the_curriculum_is_listed);
    tcase_add_loop_test(core, test_view_predict_frame_of_every_curriculum_scenario, 0,
                        curriculum_count);
    tcase_add_test(core, test_view_window_runs_and_quits_with_the_dummy_driver);
    tcase_add_test(core, test_view_window_records_numbered_frames);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_checked_fixture(limits, setup, teardown);
    tcase_set_timeout(limits, 120);
    tcase_add_test(limits, test_view_layout_regions_stay_inside_the_pane);
    tcase_add_test(limits, test_view_headless_frame_of_thousands_of_clients);
    tcase_add_test(limits, test_view_window_far_past_the_run_renders);
    tcase_add_test(limits, test_view_coordinates_are_clamped_before_they_become_ints);
    tcase_add_test(limits, test_view_options_at_their_extremes_render_or_are_refused);
    suite_add_tcase(suite, limits);
    return suite;
}

/* The real-window tests are CTest's check_view_real_window (tests/CMakeLists.txt). */
static Suite *real_window_suite(void)
{
    Suite *suite = suite_create("view_real_window");
    TCase *core = tcase_create("Core");
    tcase_add_checked_fixture(core, setup, teardown);
    tcase_set_timeout(core, 120);
    tcase_add_test(core, test_view_window_opens_under_xvfb);
    tcase_add_test(core, test_view_controls_under_xvfb_do_what_the_help_says);
    tcase_add_test(core, test_view_predict_window_stops_at_the_question_and_space_reveals_it);
    suite_add_tcase(suite, core);
    return suite;
}

#define EXIT_SKIPPED 77 /* CTest's SKIP_RETURN_CODE for the real-window test */

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--view") == 0)
        return view_main(argc - 2, argv + 2);
    bool real_window = argc > 1 && strcmp(argv[1], "--real-window") == 0;
    if (real_window && (!have_xvfb() || !have_xdotool())) {
        printf("check_view: %s is not installed: the real-window tests are skipped\n",
               have_xvfb() ? "xdotool" : "xvfb-run");
        return EXIT_SKIPPED;
    }
    SRunner *runner = srunner_create(real_window ? real_window_suite() : view_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
