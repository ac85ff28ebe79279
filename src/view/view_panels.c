/* The panels of a pane: header, the four outcome counters, balances, the key store and the
 * narration line. Counters are the headline a room reads from afar, so they get the
 * biggest type and a coloured frame only when non-zero: a zero never shows a signal colour
 * (the tests rely on that for the double-charge red). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "view_frame.h"
#include "view_narration.h"

static int P(const ViewPanels *panels, float length)
{
    return view_layout_px(panels->layout, length);
}

static SDL_Color C(ViewColor color)
{
    return view_canvas_color(color, 255);
}

/* ------------------------------------------------------------------ header */

/* What a column's mode does on this scenario's path: "retries on timeout, no key" was
 * written under broker, log and webhook columns alike, where nobody retries on a timeout
 * but the broker redelivers, the log replays, the provider sends again. */
static const char *tagline(const Scenario *scenario, Mode mode, char *buffer, size_t size)
{
    /* the broker the first group that publishes sends to: its family's words */
    const BrokerSpec *broker = NULL;
    for (uint32_t g = 0; g < scenario->client_group_count && broker == NULL; g++) {
        const ClientGroupSpec *group = &scenario->client_groups[g];
        if (group->target == TARGET_BROKER)
            broker = scenario_broker(scenario, group->broker);
    }
    static const char *const words[][MODE_COUNT] = {
        {"sends once, never retries", "retries on timeout, no key",
         "retries with a key + a key store"},
        {"acks on delivery: never redelivered", "redelivers unacked, no key",
         "redelivers; consumers keep a key"},
        {"commits before processing", "replays from the last commit, no key",
         "replays from the commit + a key"},
        {"the client sends once; hops below retry", "every hop retries, no key",
         "every hop retries with the key"},
        {"the client sends once; hops below retry", "every hop retries, no key",
         "every hop retries; the proxy drops the key"},
    };
    /* a proxy's retries and a server's call retries are the hops' own, in every mode (C15,
     * C27): at-most-once is the app's promise, not theirs */
    bool hops_retry = scenario_proxies_retry(scenario) || scenario_call_retries(scenario);
    int path = broker != NULL                        ? (broker->family == BROKER_LOG ? 2 : 1)
               : !hops_retry                         ? 0
               : scenario_proxies_drop_key(scenario) ? 4
                                                     : 3;
    if (mode >= MODE_COUNT)
        return "";
    /* who sends: C24's webhook provider is a client like the shop's web app */
    if (path == 0 && scenario->client_group_count == 1)
        snprintf(buffer, size, "%s: %s", scenario->client_groups[0].id, words[path][mode]);
    else
        snprintf(buffer, size, "%s", words[path][mode]);
    return buffer;
}

void view_panels_header(const ViewPanels *panels)
{
    ViewCanvas *canvas = panels->canvas;
    ViewRect r = panels->box->header;
    const ViewPane *pane = panels->pane;
    char name[32];
    snprintf(name, sizeof name, "%s", mode_name(pane->mode));
    for (char *c = name; *c != '\0'; c++)
        *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
    int header_h = view_canvas_text_height(canvas, VIEW_FONT_HEADER);
    int small_h = view_canvas_text_height(canvas, VIEW_FONT_SMALL);
    int top = r.y + (r.h - header_h - small_h) / 2;
    view_canvas_text_fit(canvas, VIEW_FONT_HEADER, C(VIEW_COLOR_TEXT), r.x, top, VIEW_ALIGN_LEFT,
                         r.w, name);
    char status[96], words[NAME_LEN_MAX + 64];
    ViewColor status_color = VIEW_COLOR_TEXT_DIM;
    if (view_pane_stop_text(pane, status, sizeof status) != NULL) {
        status_color = VIEW_COLOR_WARNING; /* a budget cut it short: every figure is partial */
    } else if (pane->tally.done) {
        snprintf(status, sizeof status, "\xE2\x9C\x93 finished");
        status_color = VIEW_COLOR_OK;
    } else {
        snprintf(status, sizeof status, "%" PRIu64 " ops \xC2\xB7 %" PRIu64 " in flight",
                 pane->tally.operations, world_messages_in_flight(pane->world));
    }
    int line_y = top + header_h;
    int status_w = view_canvas_text(canvas, VIEW_FONT_SMALL, C(status_color), r.x + r.w, line_y,
                                    VIEW_ALIGN_RIGHT, status);
    view_canvas_text_fit(canvas, VIEW_FONT_SMALL, C(VIEW_COLOR_TEXT_DIM), r.x, line_y,
                         VIEW_ALIGN_LEFT, r.w - status_w - P(panels, 10),
                         tagline(pane->scenario, pane->mode, words, sizeof words));
    view_canvas_fill(canvas, (ViewRect){r.x, r.y + r.h - 1, r.w, P(panels, 1)}, C(VIEW_COLOR_GRID));
}

/* ------------------------------------------------------------------ counters */

typedef struct {
    const char *label;
    const char *label_short; /* when five counters share a column */
    ViewColor color;
    uint64_t count;
    const char *sub_long;
    const char *sub_short;
    bool sub_colored;
    bool hidden; /* --predict: a question about it is open; no number, no signal colour */
} Counter;

static void draw_counter(const ViewPanels *panels, ViewRect r, const Counter *counter)
{
    ViewCanvas *canvas = panels->canvas;
    bool active = counter->count > 0 && !counter->hidden; /* a red frame would answer it */
    float radius = (float)P(panels, 6);
    int border = P(panels, 2);
    if (active) {
        view_canvas_round(canvas, r, radius, C(counter->color));
        ViewRect inner = {r.x + border, r.y + border, r.w - 2 * border, r.h - 2 * border};
        view_canvas_round(canvas, inner, radius - (float)border,
                          view_canvas_mix(VIEW_COLOR_PANEL_RAISED, counter->color, 0.16f));
    } else {
        view_canvas_round(canvas, r, radius, C(VIEW_COLOR_PANEL_RAISED));
    }
    SDL_Color ink = active ? C(counter->color) : C(VIEW_COLOR_TEXT_DIM);
    int pad = P(panels, 7);
    int inner_w = r.w - 2 * pad;
    /* Five counters in a column of a 1080p projector frame are about 110 px wide: a label
     * that does not fit drops its sign, then comes closer to the edge, and is cut last. */
    const char *label = counter->label;
    int label_pad = pad;
    if (view_canvas_text_width(canvas, VIEW_FONT_LABEL, label) > inner_w) {
        label = counter->label_short;
        label_pad = P(panels, 3);
    }
    view_canvas_text_fit(canvas, VIEW_FONT_LABEL, ink, r.x + label_pad, r.y + pad - P(panels, 2),
                         VIEW_ALIGN_LEFT, r.w - 2 * label_pad, label);
    char number[32];
    snprintf(number, sizeof number, "%" PRIu64, counter->count);
    if (counter->hidden) {
        snprintf(number, sizeof number, "?");
        if (panels->hidden_drawn != NULL)
            (*panels->hidden_drawn)++;
    }
    /* A number is never cut: smaller type, then closer to the edge, then smaller again. */
    ViewFont font = VIEW_FONT_NUMBER;
    int number_pad = pad;
    if (view_canvas_text_width(canvas, font, number) > inner_w)
        font = VIEW_FONT_NUMBER_SMALL;
    if (view_canvas_text_width(canvas, font, number) > inner_w)
        number_pad = P(panels, 3);
    if (view_canvas_text_width(canvas, font, number) > r.w - 2 * number_pad)
        font = VIEW_FONT_HEADER;
    int label_h = view_canvas_text_height(canvas, VIEW_FONT_LABEL);
    int small_h = view_canvas_text_height(canvas, VIEW_FONT_SMALL);
    int number_h = view_canvas_text_height(canvas, font);
    int slot_top = r.y + pad + label_h - P(panels, 4);
    int slot_h = r.y + r.h - pad - small_h - slot_top;
    /* A hidden number is the same amber "?" in every column: nothing to compare yet. */
    SDL_Color number_ink = counter->hidden ? C(VIEW_COLOR_WARNING)
                           : active        ? C(counter->color)
                                           : C(VIEW_COLOR_TEXT_DIM);
    view_canvas_text_fit(canvas, font, number_ink, r.x + number_pad,
                         slot_top + (slot_h - number_h) / 2, VIEW_ALIGN_LEFT, r.w - 2 * number_pad,
                         number);
    const char *sub = counter->hidden ? "vote first" : counter->sub_long;
    int sub_pad = pad;
    if (!counter->hidden && view_canvas_text_width(canvas, VIEW_FONT_SMALL, sub) > inner_w)
        sub = counter->sub_short;
    if (view_canvas_text_width(canvas, VIEW_FONT_SMALL, sub) > inner_w)
        sub_pad = P(panels, 3);
    SDL_Color sub_ink = active && counter->sub_colored ? C(counter->color) : C(VIEW_COLOR_TEXT_DIM);
    view_canvas_text_fit(canvas, VIEW_FONT_SMALL, sub_ink, r.x + sub_pad,
                         r.y + r.h - pad - small_h + P(panels, 1), VIEW_ALIGN_LEFT,
                         r.w - 2 * sub_pad, sub);
}

void view_panels_counters(const ViewPanels *panels)
{
    const ViewTally *tally = &panels->pane->tally;
    char double_long[64], double_short[48], lost_long[64], lost_short[48];
    view_narration_money(double_short, sizeof double_short, tally->double_amount, true);
    snprintf(double_long, sizeof double_long, "%s extra", double_short);
    view_narration_money(lost_short, sizeof lost_short, tally->lost_amount, false);
    snprintf(lost_long, sizeof lost_long, "%s unpaid", lost_short);
    /* no money to count where the operations carry none (C23's status writes) */
    ViewEffectWords effects = view_narration_effects(panels->pane);
    if (!effects.money) {
        snprintf(double_long, sizeof double_long, "%s twice", effects.verb);
        snprintf(double_short, sizeof double_short, "twice");
        snprintf(lost_long, sizeof lost_long, "never %s", effects.verb);
        snprintf(lost_short, sizeof lost_short, "not done");
    }
    if (tally->outcomes[OUTCOME_DOUBLE] == 0)
        snprintf(double_long, sizeof double_long, "none");
    if (tally->outcomes[OUTCOME_LOST] == 0)
        snprintf(lost_long, sizeof lost_long, "none");
    char ok_long[48];
    snprintf(ok_long, sizeof ok_long, "%s once", effects.verb);
    const Counter counters[VIEW_COUNTERS] = {
        {"\xE2\x9C\x93 OK", "OK", VIEW_COLOR_OK, tally->outcomes[OUTCOME_OK], ok_long, "once",
         false, panels->hidden & VIEW_QUIZ_HIDE_OK},
        {"\xC3\x97"
         "2 DOUBLE",
         "DOUBLE", VIEW_COLOR_DOUBLE, tally->outcomes[OUTCOME_DOUBLE], double_long,
         tally->outcomes[OUTCOME_DOUBLE] ? double_short : "none", true,
         panels->hidden & VIEW_QUIZ_HIDE_DOUBLE},
        {"\xE2\x9C\x95 LOST", "LOST", VIEW_COLOR_LOST, tally->outcomes[OUTCOME_LOST], lost_long,
         tally->outcomes[OUTCOME_LOST] ? lost_short : "none", false,
         panels->hidden & VIEW_QUIZ_HIDE_LOST},
        {"? PHANTOM", "PHANTOM", VIEW_COLOR_WARNING, tally->outcomes[OUTCOME_PHANTOM],
         effects.money ? "paid, not told" : "done, not told", "not told", false,
         panels->hidden & VIEW_QUIZ_HIDE_PHANTOM},
    };
    for (int i = 0; i < VIEW_COUNTERS; i++)
        draw_counter(panels, panels->box->counters[i], &counters[i]);
    if (panels->extra == VIEW_EXTRA_NONE || panels->box->counter_count <= VIEW_COUNTERS)
        return;
    /* Red like a double: a customer told "paid" for a payment never made, a status that went
     * backwards; neither is visible in the money of the column that has it. */
    const Counter mismatch = {"\xE2\x89\xA0 MISMATCH",
                              "\xE2\x89\xA0 WRONG",
                              VIEW_COLOR_DOUBLE,
                              tally->outcomes[OUTCOME_MISMATCH],
                              "told another's answer",
                              "mismatch",
                              false,
                              panels->hidden & VIEW_QUIZ_HIDE_MISMATCH};
    const Counter stale = {"\xE2\x86\xBA STALE",
                           "STALE",
                           VIEW_COLOR_DOUBLE,
                           world_metrics(panels->pane->world)->stale_overwrites,
                           "older status won",
                           "reverted",
                           false,
                           panels->hidden & VIEW_QUIZ_HIDE_STALE};
    /* A refund that paid more than was charged is money given away: said in red below it. */
    uint64_t refunded_twice = world_metrics(panels->pane->world)->double_refunds;
    char refunded_long[48], refunded_short[32];
    snprintf(refunded_long, sizeof refunded_long, "%" PRIu64 " refunded twice", refunded_twice);
    snprintf(refunded_short, sizeof refunded_short, "%" PRIu64 " twice", refunded_twice);
    const Counter refunded = {"\xE2\x86\xA9 REFUNDED",
                              "REFUND",
                              VIEW_COLOR_WARNING,
                              tally->outcomes[OUTCOME_REFUNDED],
                              refunded_twice ? refunded_long : "order failed, paid back",
                              refunded_twice ? refunded_short : "paid back",
                              refunded_twice > 0,
                              panels->hidden & VIEW_QUIZ_HIDE_REFUNDED};
    const Counter declined = {"\xE2\x8A\x98 DECLINED",
                              "DECLINED",
                              VIEW_COLOR_TEXT_DIM,
                              tally->outcomes[OUTCOME_DECLINED],
                              "card refused, told",
                              "refused",
                              false,
                              false};
    /* C33: each path's request is its own operation; the harm is the order's */
    const Counter twice = {"\xC3\x97"
                           "2 ORDERS",
                           "ORDERS",
                           VIEW_COLOR_DOUBLE,
                           world_metrics(panels->pane->world)->orders_fulfilled_twice,
                           "fulfilled twice",
                           "twice",
                           false,
                           panels->hidden & VIEW_QUIZ_HIDE_TWICE};
    /* C29: every client was told "paid" and charged once, yet the balance misses debits */
    const Counter written_over = {"\xE2\x9C\x8E LOST UPDATES",
                                  "UPDATES",
                                  VIEW_COLOR_DOUBLE,
                                  world_metrics(panels->pane->world)->lost_updates,
                                  "debits written over",
                                  "lost",
                                  false,
                                  panels->hidden & VIEW_QUIZ_HIDE_LOST_UPDATES};
    /* C35: nothing charged twice, yet the customer's card shows two holds */
    const Counter holds = {"\xC3\x97"
                           "2 HOLDS",
                           "HOLDS",
                           VIEW_COLOR_DOUBLE,
                           world_metrics(panels->pane->world)->double_holds,
                           "two holds on a card",
                           "on a card",
                           false,
                           panels->hidden & VIEW_QUIZ_HIDE_DOUBLE_HOLDS};
    const Counter *extra = panels->extra == VIEW_EXTRA_MISMATCH       ? &mismatch
                           : panels->extra == VIEW_EXTRA_STALE        ? &stale
                           : panels->extra == VIEW_EXTRA_TWICE        ? &twice
                           : panels->extra == VIEW_EXTRA_LOST_UPDATES ? &written_over
                           : panels->extra == VIEW_EXTRA_DOUBLE_HOLDS ? &holds
                           : panels->extra == VIEW_EXTRA_REFUNDED     ? &refunded
                                                                      : &declined;
    draw_counter(panels, panels->box->counters[VIEW_COUNTERS], extra);
}

/* ------------------------------------------------------------------ balances */

static int bar_x(int x, int w, int64_t amount, int64_t scale)
{
    if (amount <= 0 || scale <= 0)
        return x;
    if (amount >= scale)
        return x + w;
    return x + (int)((double)w * (double)amount / (double)scale);
}

/* Blue: charged as expected; red beyond the white expected tick: charged twice; an outline
 * short of it: not charged (yet: operations in flight count in "expected" from their start,
 * in "actual" from their charge). */
static void balance_bar(const ViewPanels *panels, ViewRect bar, int64_t expected_debit,
                        int64_t actual_debit, ViewColor shortfall)
{
    if (panels->hidden & VIEW_QUIZ_HIDE_BALANCES) /* --predict: show only what was agreed */
        actual_debit = expected_debit =
            actual_debit < expected_debit ? actual_debit : expected_debit;
    ViewCanvas *canvas = panels->canvas;
    int64_t scale = panels->money_scale > 0 ? panels->money_scale : 1;
    view_canvas_fill(canvas, bar, C(VIEW_COLOR_PANEL_RAISED));
    int expected_x = bar_x(bar.x, bar.w, expected_debit, scale);
    int actual_x = bar_x(bar.x, bar.w, actual_debit, scale);
    int agreed_x = expected_x < actual_x ? expected_x : actual_x;
    view_canvas_fill(canvas, (ViewRect){bar.x, bar.y, agreed_x - bar.x, bar.h},
                     C(VIEW_COLOR_MESSAGE));
    if (actual_x > expected_x)
        view_canvas_fill(canvas, (ViewRect){expected_x, bar.y, actual_x - expected_x, bar.h},
                         C(VIEW_COLOR_DOUBLE));
    if (actual_x < expected_x)
        view_canvas_outline(canvas, (ViewRect){actual_x, bar.y, expected_x - actual_x, bar.h},
                            (float)P(panels, 2), C(shortfall));
    int tick = P(panels, 2);
    view_canvas_fill(
        canvas, (ViewRect){expected_x - tick / 2, bar.y - P(panels, 3), tick, bar.h + P(panels, 6)},
        C(VIEW_COLOR_TEXT));
}

/* The verdict on an account. With one account it comes from the settled outcomes (money
 * charged twice, money never charged), so operations in flight do not read as "short";
 * with several, from the account's live balances. */
static ViewColor balance_verdict(const ViewPanels *panels, uint32_t account, char *text,
                                 size_t size)
{
    const ViewTally *tally = &panels->pane->tally;
    int64_t over, under;
    if (panels->hidden & VIEW_QUIZ_HIDE_BALANCES) {
        snprintf(text, size, "?");
        if (panels->hidden_drawn != NULL)
            (*panels->hidden_drawn)++;
        return VIEW_COLOR_TEXT_DIM;
    }
    if (tally->account_count == 1) {
        over = tally->double_amount;
        under = tally->lost_amount;
        /* Settled, the balance itself is final: what the outcomes miss (a client given
         * another payment's answer was never charged) shows as money short. */
        int64_t difference = tally->expected[0] - tally->actual[0];
        if (tally->done && over == 0 && under == 0 && difference != 0) {
            over = difference > 0 ? difference : 0;
            under = difference < 0 ? -difference : 0;
        }
    } else {
        int64_t difference = tally->expected[account] - tally->actual[account];
        over = difference > 0 ? difference : 0;
        under = difference < 0 ? -difference : 0;
    }
    char money[48];
    if (over > 0) {
        view_narration_money(money, sizeof money, over, true);
        snprintf(text, size, "%s over", money);
        return VIEW_COLOR_DOUBLE;
    }
    if (under > 0) {
        view_narration_money(money, sizeof money, under, false);
        snprintf(text, size, "%s short", money);
        return VIEW_COLOR_WARNING;
    }
    /* The money adds up, but "exact" under a run with told-wrong clients, a row inserted
     * twice or a stale status write would read as "nothing went wrong". */
    const Metrics *metrics = world_metrics(panels->pane->world);
    uint64_t bad = metrics->stale_overwrites;
    for (Outcome outcome = OUTCOME_DOUBLE; outcome < OUTCOME_COUNT; outcome++)
        bad += outcome_is_harm(outcome) ? tally->outcomes[outcome] : 0; /* a double write of a
                                                                            row costs no money */
    if (bad > 0) {
        snprintf(text, size, "money right");
        return VIEW_COLOR_WARNING;
    }
    snprintf(text, size, "\xE2\x9C\x93 exact");
    return VIEW_COLOR_OK;
}

static void balance_row(const ViewPanels *panels, uint32_t account, ViewRect row)
{
    ViewCanvas *canvas = panels->canvas;
    const ViewTally *tally = &panels->pane->tally;
    int64_t expected_debit = tally->initial[account] - tally->expected[account];
    int64_t actual_debit = tally->initial[account] - tally->actual[account];
    char text[96];
    ViewColor color = balance_verdict(panels, account, text, sizeof text);
    int small_h = view_canvas_text_height(canvas, VIEW_FONT_SMALL);
    int text_y = row.y + (row.h - small_h) / 2;
    const char *name = panels->pane->scenario->accounts[account].id;
    int name_w = view_canvas_text_width(canvas, VIEW_FONT_SMALL, name) + P(panels, 10);
    name_w = name_w < P(panels, 58) ? P(panels, 58) : name_w > row.w / 4 ? row.w / 4 : name_w;
    /* the verdict whole ("+11,774.11 over"), the bar shorter for it, up to half the row */
    int diff_w = view_canvas_text_width(canvas, VIEW_FONT_SMALL, text) + P(panels, 12);
    int diff_max = (row.w - name_w) / 2;
    diff_w = diff_w < P(panels, 112) ? P(panels, 112) : diff_w > diff_max ? diff_max : diff_w;
    view_canvas_text_fit(canvas, VIEW_FONT_SMALL, C(VIEW_COLOR_TEXT), row.x, text_y,
                         VIEW_ALIGN_LEFT, name_w - P(panels, 6), name);
    view_canvas_text_fit(canvas, VIEW_FONT_SMALL, C(color), row.x + row.w, text_y, VIEW_ALIGN_RIGHT,
                         diff_w - P(panels, 6), text);
    int bar_h = P(panels, 10);
    ViewRect bar = {row.x + name_w, row.y + (row.h - bar_h) / 2, row.w - name_w - diff_w, bar_h};
    balance_bar(panels, bar, expected_debit, actual_debit,
                color == VIEW_COLOR_WARNING ? VIEW_COLOR_WARNING : VIEW_COLOR_TEXT_DIM);
}

void view_panels_balances(const ViewPanels *panels)
{
    ViewCanvas *canvas = panels->canvas;
    ViewRect r = panels->box->balances;
    const ViewTally *tally = &panels->pane->tally;
    int heading_w = view_canvas_text(canvas, VIEW_FONT_LABEL, C(VIEW_COLOR_TEXT_DIM), r.x, r.y,
                                     VIEW_ALIGN_LEFT, "CHARGED vs EXPECTED");
    int heading_h = view_canvas_text_height(canvas, VIEW_FONT_LABEL) + P(panels, 2);
    uint32_t shown = tally->account_count < 2 ? tally->account_count : 2;
    if (tally->account_count > shown) {
        char more[48];
        snprintf(more, sizeof more, "+%u more accounts", tally->account_count - shown);
        view_canvas_text(canvas, VIEW_FONT_SMALL, C(VIEW_COLOR_TEXT_DIM), r.x + r.w, r.y,
                         VIEW_ALIGN_RIGHT, more);
    } else if (shown == 1) {
        char balance[48], line[96];
        view_narration_money(balance, sizeof balance, tally->actual[0], false);
        snprintf(line, sizeof line, "balance %s",
                 panels->hidden & VIEW_QUIZ_HIDE_BALANCES ? "?" : balance);
        if (view_canvas_text_width(canvas, VIEW_FONT_SMALL, line) < r.w - heading_w - P(panels, 8))
            view_canvas_text(canvas, VIEW_FONT_SMALL, C(VIEW_COLOR_TEXT_DIM), r.x + r.w, r.y,
                             VIEW_ALIGN_RIGHT, line);
    }
    int rows_h = r.h - heading_h;
    int row_h = shown > 0 ? rows_h / (int)(shown > 1 ? shown : 1) : rows_h;
    if (shown == 1 && row_h > P(panels, 30))
        row_h = P(panels, 30);
    for (uint32_t a = 0; a < shown; a++)
        balance_row(panels, a, (ViewRect){r.x, r.y + heading_h + (int)a * row_h, r.w, row_h});
}

/* ------------------------------------------------------------------ key store */

static void format_ttl(char *buffer, size_t size, const KeyRow *row, SimTimeUs now_us)
{
    if (row->expires_us == SIM_TIME_NEVER) {
        snprintf(buffer, size, "no ttl");
        return;
    }
    if (row->expires_us <= now_us) {
        snprintf(buffer, size, "expired");
        return;
    }
    uint64_t s = (row->expires_us - now_us) / 1000000;
    if (s >= 3600)
        snprintf(buffer, size, "ttl %" PRIu64 "h%02" PRIu64 "m", s / 3600, s % 3600 / 60);
    else if (s >= 60)
        snprintf(buffer, size, "ttl %" PRIu64 "m%02" PRIu64 "s", s / 60, s % 60);
    else
        snprintf(buffer, size, "ttl %.1fs", (double)(row->expires_us - now_us) / 1e6);
}

static void key_row(const ViewPanels *panels, const KeyRow *row, ViewRect r)
{
    ViewCanvas *canvas = panels->canvas;
    SimTimeUs now = panels->pane->keys.at_us;
    const char *status = "PROCESSING";
    ViewColor color = VIEW_COLOR_WARNING;
    if (row->expires_us <= now) {
        status = "EXPIRED";
        color = VIEW_COLOR_LOST;
    } else if (row->status == KEY_STATUS_COMPLETED) {
        status = "COMPLETED";
        color = VIEW_COLOR_OK;
    } else if (row->status == KEY_STATUS_FAILED) {
        status = "FAILED";
        color = VIEW_COLOR_LOST;
    } else if (row->status == KEY_STATUS_RETRYABLE) {
        status = "RETRYABLE";
        color = VIEW_COLOR_WARNING;
    }
    int pill_w = P(panels, 84);
    int status_w = view_canvas_text_width(canvas, VIEW_FONT_TINY, status) + P(panels, 8);
    pill_w = status_w > pill_w ? status_w : pill_w;
    ViewRect pill = {r.x, r.y + P(panels, 2), pill_w, r.h - P(panels, 4)};
    view_canvas_round(canvas, pill, (float)P(panels, 4), view_canvas_color(color, 60));
    int tiny_h = view_canvas_text_height(canvas, VIEW_FONT_TINY);
    view_canvas_text(canvas, VIEW_FONT_TINY, C(color), pill.x + pill.w / 2,
                     pill.y + (pill.h - tiny_h) / 2, VIEW_ALIGN_CENTER, status);
    int text_h = view_canvas_text_height(canvas, VIEW_FONT_MONO);
    int y = r.y + (r.h - text_h) / 2;
    char key[32], what[64], ttl[32];
    snprintf(key, sizeof key, "%08" PRIx64, row->key >> 32);
    int x = pill.x + pill.w + P(panels, 8);
    x += view_canvas_text(canvas, VIEW_FONT_MONO, C(VIEW_COLOR_TEXT), x, y, VIEW_ALIGN_LEFT, key);
    if (row->status != KEY_STATUS_PROCESSING)
        snprintf(what, sizeof what, "op %" PRIu64 " \xE2\x86\x92 %d", row->response_of,
                 row->response_status);
    else
        snprintf(what, sizeof what, "running");
    format_ttl(ttl, sizeof ttl, row, now);
    int ttl_w = view_canvas_text(canvas, VIEW_FONT_SMALL, C(VIEW_COLOR_TEXT_DIM), r.x + r.w, y,
                                 VIEW_ALIGN_RIGHT, ttl);
    x += P(panels, 10);
    view_canvas_text_fit(canvas, VIEW_FONT_SMALL, C(VIEW_COLOR_TEXT_DIM), x, y, VIEW_ALIGN_LEFT,
                         r.x + r.w - ttl_w - P(panels, 8) - x, what);
}

static void keys_heading(const ViewPanels *panels, ViewRect r)
{
    ViewCanvas *canvas = panels->canvas;
    const ViewPane *pane = panels->pane;
    const ViewKeySample *keys = &pane->keys;
    view_canvas_text(canvas, VIEW_FONT_LABEL, C(VIEW_COLOR_TEXT_DIM), r.x, r.y, VIEW_ALIGN_LEFT,
                     "KEY STORE");
    char counts[128];
    if (pane->mode != MODE_IDEMPOTENT)
        snprintf(counts, sizeof counts, "off");
    else if (view_pane_has_kind(pane, NODE_SERVER))
        snprintf(counts, sizeof counts, "%s%" PRIu64 " keys \xC2\xB7 %" PRIu64 " processing",
                 view_pane_key_store_down(pane, true) ? "DOWN \xC2\xB7 " : "", keys->rows,
                 keys->processing);
    else
        snprintf(counts, sizeof counts, "%s%" PRIu64 " keys",
                 view_pane_key_store_down(pane, false) ? "DOWN \xC2\xB7 " : "",
                 world_metrics(pane->world)->key_store_rows);
    view_canvas_text(canvas, VIEW_FONT_SMALL, C(VIEW_COLOR_TEXT_DIM), r.x + r.w, r.y,
                     VIEW_ALIGN_RIGHT, counts);
}

/* No retries is not no doubles: a second click and a copy the network duplicated are
 * requests the server runs like any other, and a proxy or a server's call retries on its
 * own, so the text names them when the scenario has them (the DOUBLE counter next to it
 * would contradict a flat "nothing runs twice"). */
static void at_most_once_words(const Scenario *scenario, char *why, size_t size)
{
    if (scenario_proxies_retry(scenario) || scenario_call_retries(scenario)) {
        snprintf(why, size,
                 "No keys: the client sends once, but the hops below it retry on their own, and "
                 "each retry that reaches the effect charges again.");
        return;
    }
    bool clicks = false, duplicates = scenario->network.default_link.duplicate > 0;
    for (uint32_t g = 0; g < scenario->client_group_count; g++)
        clicks = clicks || scenario->client_groups[g].double_click.prob > 0;
    for (uint32_t l = 0; l < scenario->network.link_count; l++)
        duplicates = duplicates || scenario->network.links[l].spec.duplicate > 0;
    const char *again = clicks && duplicates ? "a second click or a network duplicate"
                        : clicks             ? "a second click"
                        : duplicates         ? "a copy the network duplicated"
                                             : NULL;
    if (again != NULL)
        snprintf(why, size,
                 "No keys: nothing is retried, so what is lost stays lost; but %s still runs, "
                 "and charges again.",
                 again);
    else
        snprintf(why, size,
                 "No keys: nothing is retried, so nothing runs twice, but nothing lost is ever "
                 "recovered.");
}

/* Why a column has no rows to list: the mode keeps no keys, or the keys live with the
 * consumers, whose store the public API does not list (only counts). */
static bool explain_keys(const ViewPanels *panels, ViewRect r, int top)
{
    const ViewPane *pane = panels->pane;
    char why[512];
    if (pane->mode == MODE_AT_MOST_ONCE)
        at_most_once_words(pane->scenario, why, sizeof why);
    else if (pane->mode == MODE_AT_LEAST_ONCE && !view_pane_has_kind(pane, NODE_SERVER) &&
             pane->scenario->extra_consumer_count > 0)
        snprintf(why, sizeof why,
                 "No keys: every copy that reaches a consumer group runs, a redelivery of a "
                 "payment that went through included.");
    else if (pane->mode == MODE_AT_LEAST_ONCE)
        snprintf(why, sizeof why,
                 "No keys: every copy that reaches the %s runs, a retry of a "
                 "payment that went through included.",
                 world_node(pane->world,
                            world_node_of_kind(pane->world, view_pane_has_kind(pane, NODE_SERVER)
                                                                ? NODE_SERVER
                                                                : NODE_CONSUMERS))
                     ->service);
    else if (!view_pane_has_kind(pane, NODE_SERVER)) {
        uint64_t replayed = world_metrics(pane->world)->consumer_replayed;
        const char *group =
            world_node(pane->world, world_node_of_kind(pane->world, NODE_CONSUMERS))->service;
        bool apart =
            scenario_consumer_instances(pane->scenario) > 1 &&
            pane->scenario->broker.consumers.idempotency.placement == PLACEMENT_PER_INSTANCE;
        char keeps[(CONSUMER_GROUPS_EXTRA_MAX + 1) * (NAME_LEN_MAX + 2) + 80];
        if (pane->scenario->extra_consumer_count > 0) { /* each group its own store */
            int at = snprintf(keeps, sizeof keeps, "Each consumer group (%s", group);
            for (uint32_t g = 0; g < pane->scenario->extra_consumer_count; g++)
                at += snprintf(keeps + at, sizeof keeps - (size_t)at, ", %s",
                               pane->scenario->extra_consumers[g].id);
            snprintf(keeps + at, sizeof keeps - (size_t)at,
                     ") keeps one key per message id in its own store");
        } else if (apart)
            snprintf(keeps, sizeof keeps,
                     "Each instance of %s keeps its own key per message id, unknown to the others",
                     group);
        else if (strcmp(group, "consumers") == 0) /* the older form's name: a plural */
            snprintf(keeps, sizeof keeps, "The consumers keep one key per message id");
        else
            snprintf(keeps, sizeof keeps, "The consumer group %s keeps one key per message id",
                     group);
        snprintf(why, sizeof why,
                 "%s; %" PRIu64 " %s found %s key done and %s acknowledged without a charge.",
                 keeps, replayed, replayed == 1 ? "copy" : "copies",
                 replayed == 1 ? "its" : "their", replayed == 1 ? "was" : "were");
    } else
        return false;
    view_canvas_text_wrapped(panels->canvas, VIEW_FONT_SMALL, C(VIEW_COLOR_TEXT_DIM), r.x, top, r.w,
                             why);
    return true;
}

void view_panels_keys(const ViewPanels *panels)
{
    ViewCanvas *canvas = panels->canvas;
    ViewRect r = panels->box->keys;
    const ViewKeySample *keys = &panels->pane->keys;
    int top = r.y + P(panels, 22);
    if (panels->hidden & VIEW_QUIZ_HIDE_KEY_STORE) { /* --predict: its rows are the answer */
        view_canvas_text(canvas, VIEW_FONT_LABEL, C(VIEW_COLOR_TEXT_DIM), r.x, r.y, VIEW_ALIGN_LEFT,
                         "KEY STORE");
        view_canvas_text(canvas, VIEW_FONT_NUMBER_SMALL, C(VIEW_COLOR_WARNING), r.x, top,
                         VIEW_ALIGN_LEFT, "?");
        if (panels->hidden_drawn != NULL)
            (*panels->hidden_drawn)++;
        return;
    }
    keys_heading(panels, r);
    int row_h = P(panels, 19);
    if (explain_keys(panels, r, top))
        return;
    /* Processing rows first (a concurrent retry runs into them and gets 409), then the
     * newest completed ones, which are what a retry is answered from. Half the rows are
     * kept for the completed ones, else a busy store would show only processing rows. */
    uint32_t room = (uint32_t)panels->box->key_rows;
    uint32_t settled = keys->settled_shown < room / 2 ? keys->settled_shown : room / 2;
    uint32_t processing =
        keys->processing_shown < room - settled ? keys->processing_shown : room - settled;
    settled = keys->settled_shown < room - processing ? keys->settled_shown : room - processing;
    uint32_t rows = 0;
    for (uint32_t i = 0; i < processing; i++, rows++)
        key_row(panels, &keys->processing_rows[i],
                (ViewRect){r.x, top + (int)rows * row_h, r.w, row_h});
    for (uint32_t i = 0; i < settled; i++, rows++)
        key_row(panels, &keys->settled_rows[i],
                (ViewRect){r.x, top + (int)rows * row_h, r.w, row_h});
    if (keys->rows > rows) {
        char more[64];
        snprintf(more, sizeof more, "+%" PRIu64 " more", keys->rows - rows);
        view_canvas_text(canvas, VIEW_FONT_SMALL, C(VIEW_COLOR_TEXT_DIM), r.x,
                         top + (int)rows * row_h + P(panels, 1), VIEW_ALIGN_LEFT, more);
    } else if (keys->rows == 0) {
        view_canvas_text(canvas, VIEW_FONT_SMALL, C(VIEW_COLOR_TEXT_DIM), r.x, top, VIEW_ALIGN_LEFT,
                         "empty");
    }
}

/* ------------------------------------------------------------------ narration */

void view_panels_narration(const ViewPanels *panels)
{
    ViewCanvas *canvas = panels->canvas;
    ViewRect r = panels->box->narration;
    const ViewPane *pane = panels->pane;
    char line[256];
    /* A done pane's last event stays up while it is fresh, then gives way to the verdict:
     * a stale sentence under a finished run reads as if something were still happening. */
    bool verdict = view_pane_finished_at(pane, panels->now_us, panels->clock_stopped);
    ViewColor color = verdict ? view_narration_finished(pane, line, sizeof line)
                              : view_narration_line(pane, &pane->narration, line, sizeof line);
    view_canvas_round(canvas, r, (float)P(panels, 6), C(VIEW_COLOR_PANEL_RAISED));
    view_canvas_fill(canvas, (ViewRect){r.x, r.y + P(panels, 6), P(panels, 4), r.h - P(panels, 12)},
                     C(color));
    char when[32];
    snprintf(when, sizeof when, "%.2f s", (double)pane->narration.t_us / 1e6);
    int tiny_h = view_canvas_text_height(canvas, VIEW_FONT_TINY);
    int time_w = P(panels, 52);
    int when_w = view_canvas_text_width(canvas, VIEW_FONT_TINY, when) + P(panels, 6);
    time_w = when_w > time_w ? when_w : time_w; /* "180.00 s" in projector type */
    if (pane->narration.present && !verdict)
        view_canvas_text(canvas, VIEW_FONT_TINY, C(VIEW_COLOR_TEXT_DIM), r.x + P(panels, 12),
                         r.y + (r.h - tiny_h) / 2, VIEW_ALIGN_LEFT, when);
    bool stamped = pane->narration.present && !verdict; /* a verdict has no time of its own */
    int x = r.x + P(panels, 12) + (stamped ? time_w : 0);
    int wrap = r.x + r.w - P(panels, 8) - x;
    if (wrap <= 0)
        return;
    /* Body type when the sentence fits the box in it, else small type with as many lines as
     * the box holds, the last one ending in an ellipsis if words are left over: the line
     * never spills out of its box. */
    int room_h = r.h - P(panels, 6);
    ViewFont font = VIEW_FONT_BODY;
    int line_h = view_canvas_text_height(canvas, font);
    int lines = view_canvas_text_line_count(canvas, font, wrap, line);
    if (lines * line_h > room_h) {
        font = VIEW_FONT_SMALL;
        line_h = view_canvas_text_height(canvas, font);
        int fit = room_h / line_h > 1 ? room_h / line_h : 1;
        lines = view_canvas_text_line_count(canvas, font, wrap, line);
        lines = lines < fit ? lines : fit;
    }
    view_canvas_text_lines(canvas, font, C(color), x, r.y + (r.h - lines * line_h) / 2, wrap, lines,
                           line);
}
