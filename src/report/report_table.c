/* The side-by-side table: one row per metric, one column per mode, so a learner reads
 * across a row to see what each strategy did to the same operations. */
#include <inttypes.h>
#include <string.h>

#include "node_kind.h"
#include "report.h"

#define LABEL_WIDTH 30     /* the label column, unless a service, group, queue or account's */
#define LABEL_WIDTH_MAX 72 /* name needs more (label_width) */
#define COLUMN_WIDTH 15

#define RED "\x1b[31;1m"
#define GREEN "\x1b[32m"
#define DIM "\x1b[2m"
#define RESET "\x1b[0m"

typedef enum { ROW_COUNT, ROW_BAD, ROW_MILLISECONDS, ROW_RATIO } RowStyle;

typedef enum {
    SHOW_ALWAYS,
    SHOW_WITH_BROKER,
    SHOW_WITH_RECEIPTS,
    SHOW_WITH_EMAIL,
    SHOW_WITH_PROXY,
    SHOW_WITH_PROXY_CRASH, /* a proxy whose process may crash */
    SHOW_WITH_QUERIES,
    SHOW_WITH_RECONCILE,
    SHOW_WITH_FAILOVER,
    SHOW_WITH_STATUS_RECORDS,
    SHOW_WITH_LOG, /* a log broker (Kafka) only: the other families' tables stay as they were */
    SHOW_WITH_STORM,
    SHOW_WITH_HEARTBEAT,         /* consumers that send heartbeats only */
    SHOW_WITH_CALL_RETRY,        /* a server whose gateway call retries on its own */
    SHOW_WITH_PROVIDER_CALLS,    /* the same, with a gateway some call step charges at */
    SHOW_WITH_DECLINES,          /* a gateway that may decline, or a mode where one did */
    SHOW_WITH_SAGA,              /* a server whose order has a fulfil step after its charge */
    SHOW_WITH_BALANCE_UPDATES,   /* a debit written other than atomically (C29) */
    SHOW_WITH_DEADLINES,         /* requests that carry a deadline (C31) */
    SHOW_WITH_CONNECTION_CLOSES, /* connections closed before an answer, library retries (C32) */
    SHOW_WITH_BALANCER_RETRY,    /* a balancer that sends on past a down instance */
    SHOW_WITH_SAME_ORDERS,       /* groups that fulfil the same orders (C33) */
    SHOW_WITH_STORE_CRASH,       /* a key store that crashes on its own (C38) */
    SHOW_WITH_SCHEDULE,          /* a scheduler with two instances (C34) */
    SHOW_WITH_MANUAL_CAPTURE,    /* a gateway that authorises, then captures (C35) */
    SHOW_WITH_FAILING_CONSUMERS, /* consumers' handlers that fail, dead letters reviewed (C36) */
    SHOW_WITH_TRANSACTIONS,      /* a log broker whose consumers write in transactions (C37) */
    SHOW_WITH_LOST_CAPTURES,     /* captures whose answer may be lost, settlement (C35) */
    SHOW_WITH_REFUNDS,           /* a saga's refunds, or settlement corrections (C35) */
} RowShown;

typedef struct {
    const char *label;
    const char *metric;
    RowStyle style;
    RowShown shown;
} Row;

static const Row rows[] = {
    {"operations", "operations", ROW_COUNT, SHOW_ALWAYS},
    {"attempts sent", "attempts", ROW_COUNT, SHOW_ALWAYS},
    {"executions (handler runs)", "executions", ROW_COUNT, SHOW_ALWAYS},
    {"effects (state changes)", "effects", ROW_COUNT, SHOW_ALWAYS},
    {"ok", "ok", ROW_COUNT, SHOW_ALWAYS},
    {"double", "double", ROW_BAD, SHOW_ALWAYS},
    {"  double-charged money", "double_amount", ROW_BAD, SHOW_ALWAYS},
    {"lost", "lost", ROW_BAD, SHOW_ALWAYS},
    {"  lost money", "lost_amount", ROW_BAD, SHOW_ALWAYS},
    {"phantom (done, told otherwise)", "phantom", ROW_BAD, SHOW_ALWAYS},
    {"declined by the provider", "declined", ROW_COUNT, SHOW_WITH_DECLINES},
    {"refunded (charged, given back)", "refunded", ROW_COUNT, SHOW_WITH_REFUNDS},
    {"mismatch (another's response)", "mismatch", ROW_BAD, SHOW_ALWAYS},
    {"  of another account (leak)", "leaks", ROW_BAD, SHOW_ALWAYS},
    {"client told failed", "client_failed", ROW_COUNT, SHOW_ALWAYS},
    {"client never told (unknown)", "client_unknown", ROW_COUNT, SHOW_ALWAYS},
    {"409 in progress / conflict", "409", ROW_COUNT, SHOW_ALWAYS},
    {"202 accepted, in progress", "202", ROW_COUNT, SHOW_ALWAYS},
    {"422 key reused, other body", "422", ROW_COUNT, SHOW_ALWAYS},
    {"400 no key / other body", "400", ROW_COUNT, SHOW_ALWAYS},
    {"replayed from the key store", "replayed", ROW_COUNT, SHOW_ALWAYS},
    {"stale overwrites (old on new)", "stale_overwrites", ROW_BAD, SHOW_WITH_STATUS_RECORDS},
    {"  records left at old status", "stale_final", ROW_BAD, SHOW_WITH_STATUS_RECORDS},
    {"412 version moved on, refused", "412", ROW_COUNT, SHOW_WITH_STATUS_RECORDS},
    {"lost updates (wrote over)", "lost_updates", ROW_BAD, SHOW_WITH_BALANCE_UPDATES},
    {"  money written over", "lost_update_amount", ROW_BAD, SHOW_WITH_BALANCE_UPDATES},
    {"update conflicts, run again", "update_conflicts", ROW_COUNT, SHOW_WITH_BALANCE_UPDATES},
    {"work after caller gave up", "work_after_deadline", ROW_BAD, SHOW_WITH_DEADLINES},
    {"dropped: deadline passed", "deadline_drops", ROW_COUNT, SHOW_WITH_DEADLINES},
    {"closed before any answer", "connection_closes", ROW_COUNT, SHOW_WITH_CONNECTION_CLOSES},
    {"  sent again by the library", "library_retries", ROW_COUNT, SHOW_WITH_CONNECTION_CLOSES},
    {"status queries (GET by key)", "status_queries", ROW_COUNT, SHOW_WITH_QUERIES},
    {"  unknown resolved by them", "resolved_by_lookup", ROW_COUNT, SHOW_WITH_QUERIES},
    {"gateway timeouts reconciled", "reconciled", ROW_COUNT, SHOW_WITH_RECONCILE},
    {"broker messages", "messages", ROW_COUNT, SHOW_WITH_BROKER},
    {"deliveries", "deliveries", ROW_COUNT, SHOW_WITH_BROKER},
    {"redeliveries", "redeliveries", ROW_COUNT, SHOW_ALWAYS},
    {"dead-lettered", "dead_lettered", ROW_COUNT, SHOW_ALWAYS},
    {"  moved back (redrive)", "redriven", ROW_COUNT, SHOW_WITH_BROKER},
    {"channels closed, all requeued", "channel_closures", ROW_COUNT, SHOW_WITH_BROKER},
    {"handler runs that failed", "handler_failures", ROW_COUNT, SHOW_WITH_FAILING_CONSUMERS},
    {"dead letters put up for review", "dead_letters_reviewed", ROW_COUNT,
     SHOW_WITH_FAILING_CONSUMERS},
    {"  of them already charged", "dead_letters_charged", ROW_BAD, SHOW_WITH_FAILING_CONSUMERS},
    {"rebalances, replay from commit", "rebalances", ROW_COUNT, SHOW_WITH_LOG},
    {"offsets committed", "offset_commits", ROW_COUNT, SHOW_WITH_LOG},
    {"outputs in aborted transactions", "transactions_aborted", ROW_COUNT, SHOW_WITH_TRANSACTIONS},
    {"  of them a fenced zombie's", "zombies_fenced", ROW_COUNT, SHOW_WITH_TRANSACTIONS},
    {"late acks (after the timeout)", "late_acks", ROW_COUNT, SHOW_WITH_BROKER},
    {"heartbeats (timeout extended)", "heartbeats", ROW_COUNT, SHOW_WITH_HEARTBEAT},
    {"queue depth, peak", "queue_depth_peak", ROW_COUNT, SHOW_WITH_BROKER},
    {"delivered, not acked, peak", "in_flight_peak", ROW_COUNT, SHOW_WITH_BROKER},
    {"publishes deduplicated", "deduplicated", ROW_COUNT, SHOW_WITH_BROKER},
    {"emails sent", "emails_sent", ROW_COUNT, SHOW_WITH_EMAIL},
    {"receipt emails sent", "receipts_sent", ROW_COUNT, SHOW_WITH_RECEIPTS},
    {"  duplicate receipts", "receipts_duplicated", ROW_BAD, SHOW_WITH_RECEIPTS},
    {"  missing receipts", "receipts_missing", ROW_BAD, SHOW_WITH_RECEIPTS},
    {"  receipts for no charge", "receipts_orphaned", ROW_BAD, SHOW_WITH_RECEIPTS},
    {"proxy retries (tries resent)", "proxy_retries", ROW_COUNT, SHOW_WITH_PROXY},
    {"proxy tries timed out", "proxy_timeouts", ROW_COUNT, SHOW_WITH_PROXY},
    {"proxy crashes", "proxy_crashes", ROW_COUNT, SHOW_WITH_PROXY_CRASH},
    {"balancer: past a down instance", "balancer_retries", ROW_COUNT, SHOW_WITH_BALANCER_RETRY},
    {"charges sent again by caller", "call_retries", ROW_COUNT, SHOW_WITH_CALL_RETRY},
    {"charges the provider received", "provider_charges", ROW_COUNT, SHOW_WITH_PROVIDER_CALLS},
    {"orders failed after the charge", "fulfil_failures", ROW_COUNT, SHOW_WITH_SAGA},
    {"refunds the provider made", "refunds", ROW_COUNT, SHOW_WITH_SAGA},
    {"  refund retries", "refund_retries", ROW_COUNT, SHOW_WITH_SAGA},
    {"  refunded twice or more", "double_refunds", ROW_BAD, SHOW_WITH_SAGA},
    {"  money refunded twice", "double_refund_amount", ROW_BAD, SHOW_WITH_SAGA},
    {"orders fulfilled twice or more", "orders_fulfilled_twice", ROW_BAD, SHOW_WITH_SAME_ORDERS},
    {"periods fired by both instances", "second_firings", ROW_COUNT, SHOW_WITH_SCHEDULE},
    {"card holds placed", "holds", ROW_COUNT, SHOW_WITH_MANUAL_CAPTURE},
    {"  holds never captured (orphans)", "orphan_holds", ROW_BAD, SHOW_WITH_MANUAL_CAPTURE},
    {"  payments with two holds or more", "double_holds", ROW_BAD, SHOW_WITH_MANUAL_CAPTURE},
    {"  late approvals voided", "voids", ROW_COUNT, SHOW_WITH_MANUAL_CAPTURE},
    {"captures believed failed (lost)", "captures_lost", ROW_BAD, SHOW_WITH_LOST_CAPTURES},
    {"  settlement file: refunded", "settlement_corrections", ROW_COUNT, SHOW_WITH_LOST_CAPTURES},
    {"messages lost by the network", "network_dropped", ROW_COUNT, SHOW_ALWAYS},
    {"duplicated by the network", "network_duplicated", ROW_COUNT, SHOW_ALWAYS},
    {"crashes (server, consumers)", "crashes", ROW_COUNT, SHOW_ALWAYS},
    {"shed unrun (429/503, full)", "shed", ROW_COUNT, SHOW_WITH_STORM},
    {"reset (server in outage)", "resets", ROW_COUNT, SHOW_WITH_STORM},
    {"retries sent", "retries", ROW_COUNT, SHOW_WITH_STORM},
    {"retries refused by budget", "retries_throttled", ROW_COUNT, SHOW_WITH_STORM},
    {"attempts per operation", "amplification", ROW_RATIO, SHOW_WITH_STORM},
    {"attempts per second, peak", "attempts_peak_per_s", ROW_COUNT, SHOW_WITH_STORM},
    {"goodput (ok per second)", "goodput_per_s", ROW_RATIO, SHOW_WITH_STORM},
    {"latency p50 (ms)", "latency_p50_ms", ROW_MILLISECONDS, SHOW_ALWAYS},
    {"latency p99 (ms)", "latency_p99_ms", ROW_MILLISECONDS, SHOW_ALWAYS},
    {"latency p999 (ms)", "latency_p999_ms", ROW_MILLISECONDS, SHOW_ALWAYS},
    {"key-store peak rows", "key_store_peak", ROW_COUNT, SHOW_ALWAYS},
    {"keys lost in failovers", "keys_lost_in_failover", ROW_BAD, SHOW_WITH_FAILOVER},
    {"key store crashes", "store_crashes", ROW_COUNT, SHOW_WITH_STORE_CRASH},
    {"  keys lost in its crashes", "keys_lost_in_store_crash", ROW_BAD, SHOW_WITH_STORE_CRASH},
    {"  503: key store down", "refused_store_down", ROW_COUNT, SHOW_WITH_STORE_CRASH},
    {"  run with no key check", "unchecked_runs", ROW_BAD, SHOW_WITH_STORE_CRASH},
};

/* A row's label in this scenario's table, indent and all: a store down refuses a server's
 * request with 503, and makes a consumer group hand its delivery back, with no status. The
 * table and every other place that names a metric to a person (the view's quiz) ask here,
 * so they say the same. */
static const char *row_label(const Scenario *scenario, const Row *row)
{
    if (strcmp(row->metric, "refused_store_down") != 0)
        return row->label;
    bool consumers = false;
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++)
        consumers |= scenario_consumer_group(scenario, g)->idempotency.crash.enabled;
    if (!consumers)
        return row->label;
    return scenario->server.idempotency.crash.enabled ? "  refused: key store down"
                                                      : "  handed back: key store down";
}

const char *report_metric_label(const Scenario *scenario, const char *metric)
{
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        if (strcmp(rows[r].metric, metric) == 0) {
            const char *label = row_label(scenario, &rows[r]);
            while (*label == ' ') /* a sub-row's indent means nothing out of the table */
                label++;
            return label;
        }
    }
    return NULL;
}

/* 130500 as "1,305.00": two decimals, thousands grouped. */
static void format_major_units(char *buffer, size_t size, int64_t minor)
{
    uint64_t magnitude = minor < 0 ? (uint64_t)0 - (uint64_t)minor : (uint64_t)minor;
    char digits[32];
    snprintf(digits, sizeof digits, "%" PRIu64, magnitude / 100);
    /* at most 18 digits (2^64 / 100) and 5 commas: sized to that, so gcc -Os can see
     * that the whole amount always fits the callers' cells */
    char grouped[24];
    size_t length = strlen(digits), used = 0;
    for (size_t i = 0; i < length && used + 2 < sizeof grouped; i++) {
        if (i > 0 && (length - i) % 3 == 0)
            grouped[used++] = ',';
        grouped[used++] = digits[i];
    }
    grouped[used] = '\0';
    snprintf(buffer, size, "%s%s.%02" PRIu64, minor < 0 ? "-" : "", grouped, magnitude % 100);
}

/* Status queries happen after a 202, or where a client looks its unknown outcomes up. */
static bool asks_status(const Scenario *scenario)
{
    bool asks = scenario->server.idempotency.on_in_progress == 202;
    for (uint32_t g = 0; g < scenario->client_group_count; g++)
        asks |= scenario->client_groups[g].on_unknown == ON_UNKNOWN_LOOKUP;
    return asks;
}

static void write_cell(FILE *stream, double value, RowStyle style, bool color)
{
    char text[32];
    if (style == ROW_MILLISECONDS)
        snprintf(text, sizeof text, "%.1f", value);
    else if (style == ROW_RATIO)
        snprintf(text, sizeof text, "%.2f", value);
    else
        snprintf(text, sizeof text, "%.0f", value);
    const char *paint = NULL;
    if (color && style == ROW_BAD)
        paint = value > 0 ? RED : GREEN;
    if (paint != NULL)
        fprintf(stream, "%s%*s%s", paint, COLUMN_WIDTH, text, RESET);
    else
        fprintf(stream, "%*s", COLUMN_WIDTH, text);
}

static void write_balances(FILE *stream, const RunReport *report, bool color, int width)
{
    const Scenario *scenario = report->scenario;
    for (uint32_t a = 0; a < scenario->account_count; a++) {
        char label[64];
        snprintf(label, sizeof label, "balance %s", scenario->accounts[a].id);
        fprintf(stream, "%-*.*s", width, width - 1, label);
        for (uint32_t m = 0; m < report->mode_count; m++)
            fprintf(stream, "%*" PRId64, COLUMN_WIDTH, report->metrics[m]->balances[a].actual);
        fprintf(stream, "\n%-*s", width, "  expected");
        for (uint32_t m = 0; m < report->mode_count; m++)
            fprintf(stream, "%*" PRId64, COLUMN_WIDTH, report->metrics[m]->balances[a].expected);
        fprintf(stream, "\n%-*s", width, "  actual - expected");
        for (uint32_t m = 0; m < report->mode_count; m++) {
            const BalanceMetrics *balance = &report->metrics[m]->balances[a];
            int64_t error = balance->actual - balance->expected;
            char text[32];
            snprintf(text, sizeof text, error ? "%+" PRId64 : "0", error);
            const char *paint = color ? (error == 0 ? GREEN : RED) : NULL;
            fprintf(stream, "%s%*s%s", paint ? paint : "", COLUMN_WIDTH, text, paint ? RESET : "");
        }
        fputc('\n', stream);
    }
}

/* With named queues, each queue's messages, redeliveries and dead letters, below the totals. */
static void write_queues(FILE *stream, const RunReport *report, int width)
{
    const Scenario *scenario = report->scenario;
    if (scenario_queue_total(scenario) < 2)
        return;
    for (uint32_t q = 0; q < scenario_queue_total(scenario); q++) {
        static const char *const what[] = {"messages", "redeliveries", "dead-lettered"};
        char queue_name[2 * NAME_LEN_MAX];
        scenario_queue_label(scenario, q, queue_name, sizeof queue_name);
        for (int w = 0; w < 3; w++) {
            char label[160];
            snprintf(label, sizeof label, "  %s: %s", queue_name, what[w]);
            fprintf(stream, "%-*.*s", width, width - 1, label);
            for (uint32_t m = 0; m < report->mode_count; m++) {
                const QueueMetrics *queue = &report->metrics[m]->queues[q];
                uint64_t value = w == 0   ? queue->messages
                                 : w == 1 ? queue->redeliveries
                                          : queue->dead_lettered;
                fprintf(stream, "%*" PRIu64, COLUMN_WIDTH, value);
            }
            fputc('\n', stream);
        }
    }
}

/* With several client groups, each one's outcomes under the whole mode's. */
static void write_groups(FILE *stream, const RunReport *report, int width)
{
    const Scenario *scenario = report->scenario;
    if (scenario->client_group_count < 2)
        return;
    static const Outcome shown[] = {OUTCOME_OK, OUTCOME_DOUBLE, OUTCOME_LOST, OUTCOME_PHANTOM};
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        for (size_t o = 0; o < sizeof shown / sizeof shown[0]; o++) {
            char label[96];
            snprintf(label, sizeof label, "  %s: %s", scenario->client_groups[g].id,
                     outcome_name(shown[o]));
            fprintf(stream, "%-*.*s", width, width - 1, label);
            for (uint32_t m = 0; m < report->mode_count; m++)
                fprintf(stream, "%*" PRIu64, COLUMN_WIDTH,
                        report->metrics[m]->groups[g].outcomes[shown[o]]);
            fputc('\n', stream);
        }
    }
}

/* The services some mode's run sends work through, in lane order: those of the mode with the
 * most (a key store is one in the idempotent mode only, the only mode that consults it).
 * Returns how many, and the metrics that name them. */
static uint32_t services_in_lane_order(const RunReport *report, uint32_t order[SERVICE_METRICS_MAX],
                                       const Metrics **named_by)
{
    uint32_t count = 0;
    *named_by = report->metrics[0];
    for (uint32_t m = 0; m < report->mode_count; m++) {
        uint32_t mode_order[SERVICE_METRICS_MAX];
        uint32_t mode_count = metrics_services_in_lane_order(report->metrics[m], mode_order);
        if (m == 0 || mode_count > count) {
            count = mode_count;
            memcpy(order, mode_order, sizeof mode_order[0] * mode_count);
            *named_by = report->metrics[m];
        }
    }
    return count;
}

/* Whether the table lists each service's counters: when the scenario sends work through
 * three services or more, or through one with several instances; a single server, or a
 * server and its provider, say all in the rows above. */
static bool shows_services(const RunReport *report)
{
    if (report->mode_count == 0)
        return false;
    uint32_t order[SERVICE_METRICS_MAX];
    const Metrics *metrics;
    uint32_t count = services_in_lane_order(report, order, &metrics);
    bool instances = false;
    for (uint32_t i = 0; i < count; i++)
        instances |= metrics->services[order[i]].instance_count > 1;
    return count >= 3 || instances;
}

/* Whether a service took part in only some of the operations that reached a service, in
 * some mode (the rest went to another instance or group, or were lost before it): only then
 * do its outcomes tell something the mode's own rows do not. */
static bool service_takes_a_share(const RunReport *report, const char *name)
{
    for (uint32_t m = 0; m < report->mode_count; m++) {
        double total = 0;
        for (int o = 0; o < OUTCOME_COUNT; o++) {
            double value = 0;
            metrics_service_value(report->metrics[m], name, outcome_name((Outcome)o), &value);
            total += value;
        }
        const Metrics *metrics = report->metrics[m];
        if (total !=
            (double)(metrics->operations_settled - metrics->operations_reaching_no_service))
            return true;
    }
    return false;
}

/* Whether metric is an outcome of the operations a service took part in, and so whether its
 * table row may be written (written): ok, double, lost and phantom, as a client group's are,
 * for a service that took a share of the operations only; the rest of a service's outcomes
 * are in the JSON report and the CSV. */
static bool service_outcome_row(const RunReport *report, const char *name, const char *metric,
                                bool *written)
{
    *written = false;
    if (strcmp(metric, "lost_amount") == 0)
        return true;
    for (int o = 0; o < OUTCOME_COUNT; o++) {
        if (strcmp(metric, outcome_name((Outcome)o)) != 0)
            continue;
        *written =
            (o == OUTCOME_OK || o == OUTCOME_DOUBLE || o == OUTCOME_LOST || o == OUTCOME_PHANTOM) &&
            service_takes_a_share(report, name);
        return true;
    }
    return false;
}

/* A service's counter in each mode; false when its row is left out: 0 in every mode, or an
 * outcome that says nothing the mode's row does not (service_outcome_row). */
static bool service_row(const RunReport *report, const char *name, const char *metric,
                        double values[MODE_COUNT])
{
    bool any = false;
    for (uint32_t m = 0; m < report->mode_count; m++) {
        values[m] = 0;
        metrics_service_value(report->metrics[m], name, metric, &values[m]);
        any |= values[m] != 0;
    }
    bool written;
    if (service_outcome_row(report, name, metric, &written))
        return any && written;
    return any;
}

/* Each service's counters, under the names METRIC@SERVICE gives them, in the order a request
 * meets the services; a counter that is 0 in every mode is left out. */
static void write_services(FILE *stream, const RunReport *report, int width)
{
    if (!shows_services(report))
        return;
    fprintf(stream, "per service (METRIC@SERVICE)\n");
    uint32_t order[SERVICE_METRICS_MAX];
    const Metrics *metrics;
    uint32_t count = services_in_lane_order(report, order, &metrics);
    for (uint32_t i = 0; i < count; i++) {
        const char *name = metrics->services[order[i]].name;
        for (unsigned k = 0; k < scenario_service_metric_count; k++) {
            const char *metric = scenario_service_metric_names[k];
            double values[MODE_COUNT];
            if (!service_row(report, name, metric, values))
                continue;
            char label[96];
            snprintf(label, sizeof label, "  %s: %s", name, metric);
            fprintf(stream, "%-*.*s", width, width - 1, label);
            for (uint32_t m = 0; m < report->mode_count; m++)
                fprintf(stream, "%*.0f", COLUMN_WIDTH, values[m]);
            fputc('\n', stream);
        }
    }
}

/* A consumer group tells the broker it is still working (heartbeat_ms). */
static bool any_group_beats(const Scenario *scenario)
{
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++) {
        if (scenario_consumer_group(scenario, g)->heartbeat_ms > 0)
            return true;
    }
    return false;
}

/* A key store fails over to a lagging replica: the first server's, a called server's or a
 * consumer group's. */
static bool stores_fail_over(const Scenario *scenario)
{
    bool lag = scenario->server.idempotency.replication_lag_ms > 0;
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++)
        lag = lag || scenario_consumer_group(scenario, g)->idempotency.replication_lag_ms > 0;
    for (uint32_t c = 0; c < scenario->called_server_count; c++)
        lag = lag || scenario->called_servers[c].spec.idempotency.replication_lag_ms > 0;
    return lag;
}

static bool sends_email(const Scenario *scenario)
{
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        if (scenario->client_groups[g].operation.kind == OPERATION_SEND_EMAIL)
            return true;
    }
    return false;
}

static bool any_mode_counts(const RunReport *report, const char *metric)
{
    for (uint32_t m = 0; m < report->mode_count; m++) {
        double value = 0;
        if (metrics_value(report->metrics[m], metric, &value) && value != 0)
            return true;
    }
    return false;
}

static void widen(int *width, size_t label_length)
{
    size_t needed = label_length + 1;
    if (needed > (size_t)*width)
        *width = needed < LABEL_WIDTH_MAX ? (int)needed : LABEL_WIDTH_MAX;
}

/* The label column: LABEL_WIDTH, or wide enough for the longest label a group, a queue, an
 * account or a service writes (a name is never cut short; capped at LABEL_WIDTH_MAX). */
static int label_width(const RunReport *report)
{
    const Scenario *scenario = report->scenario;
    int width = LABEL_WIDTH;
    for (uint32_t g = 0; g < scenario->client_group_count && scenario->client_group_count > 1; g++)
        widen(&width, strlen("  : phantom") + strlen(scenario->client_groups[g].id));
    for (uint32_t q = 0; q < scenario_queue_total(scenario) && scenario_queue_total(scenario) > 1;
         q++) {
        char queue_name[2 * NAME_LEN_MAX];
        scenario_queue_label(scenario, q, queue_name, sizeof queue_name);
        widen(&width, strlen("  : dead-lettered") + strlen(queue_name));
    }
    for (uint32_t a = 0; a < scenario->account_count; a++)
        widen(&width, strlen("balance ") + strlen(scenario->accounts[a].id));
    if (!shows_services(report))
        return width;
    uint32_t order[SERVICE_METRICS_MAX];
    const Metrics *metrics;
    uint32_t count = services_in_lane_order(report, order, &metrics);
    for (uint32_t i = 0; i < count; i++) {
        const char *name = metrics->services[order[i]].name;
        for (unsigned k = 0; k < scenario_service_metric_count; k++) {
            double values[MODE_COUNT];
            const char *metric = scenario_service_metric_names[k];
            if (service_row(report, name, metric, values))
                widen(&width, strlen("  : ") + strlen(name) + strlen(metric));
        }
    }
    return width;
}

bool report_write_table(FILE *stream, const RunReport *report, bool color)
{
    int width = label_width(report);
    const Scenario *scenario = report->scenario;
    fprintf(stream, "%s%s%s  (seed %" PRIu64 ", key-store profile %s)\n", scenario->name,
            scenario->title[0] ? ": " : "", scenario->title, report->seed,
            store_profile_name(scenario->server.idempotency.profile));
    uint32_t stopped = 0;
    for (uint32_t m = 0; m < report->mode_count; m++)
        stopped += report->stop_reasons[m] != NULL;
    if (stopped > 0) /* said first: every figure below is partial */
        fprintf(stream,
                "%sSTOPPED EARLY: %u of %u modes did not finish; their figures are partial%s\n",
                color ? RED : "", stopped, report->mode_count, color ? RESET : "");
    fprintf(stream, "%-*s", width, "");
    for (uint32_t m = 0; m < report->mode_count; m++)
        fprintf(stream, "%*s", COLUMN_WIDTH, mode_name(report->modes[m]));
    fputc('\n', stream);
    fprintf(stream, "%s", color ? DIM : "");
    for (int i = 0; i < width + COLUMN_WIDTH * (int)report->mode_count; i++)
        fputc('-', stream);
    fprintf(stream, "%s\n", color ? RESET : "");
    bool has_broker = scenario_server_publishes(&scenario->server);
    bool has_proxy = scenario_uses_proxy(scenario);
    for (uint32_t g = 0; g < scenario->client_group_count; g++)
        has_broker |= scenario->client_groups[g].target == TARGET_BROKER;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        if (rows[r].shown == SHOW_WITH_BROKER && !has_broker)
            continue;
        if (rows[r].shown == SHOW_WITH_RECEIPTS && !scenario_sends_receipts(scenario))
            continue;
        if (rows[r].shown == SHOW_WITH_EMAIL && !sends_email(scenario))
            continue;
        if (rows[r].shown == SHOW_WITH_PROXY && !has_proxy)
            continue;
        if (rows[r].shown == SHOW_WITH_LOG && !(has_broker && scenario_uses_log(scenario)))
            continue;
        if (rows[r].shown == SHOW_WITH_QUERIES && !asks_status(scenario))
            continue;
        if (rows[r].shown == SHOW_WITH_RECONCILE && scenario->server.reconcile_ms <= 0)
            continue;
        if (rows[r].shown == SHOW_WITH_CALL_RETRY && !scenario_call_retries(scenario))
            continue;
        if (rows[r].shown == SHOW_WITH_PROVIDER_CALLS &&
            !(scenario_call_retries(scenario) && node_kind_reached(scenario, NODE_GATEWAY)))
            continue;
        if (rows[r].shown == SHOW_WITH_STORM && !scenario_uses_storm(scenario))
            continue;
        if (rows[r].shown == SHOW_WITH_HEARTBEAT && !(has_broker && any_group_beats(scenario)))
            continue;
        if (rows[r].shown == SHOW_WITH_FAILOVER && !stores_fail_over(scenario))
            continue;
        if (rows[r].shown == SHOW_WITH_STATUS_RECORDS && !scenario_uses_status_records(scenario))
            continue;
        if (rows[r].shown == SHOW_WITH_DECLINES && !scenario_can_decline(scenario) &&
            !any_mode_counts(report, "declined"))
            continue;
        if (rows[r].shown == SHOW_WITH_SAGA && !scenario_uses_saga(scenario))
            continue;
        if (rows[r].shown == SHOW_WITH_STORE_CRASH && !scenario_uses_store_crash(scenario))
            continue;
        if (rows[r].shown == SHOW_WITH_BALANCER_RETRY && !scenario_uses_balancer_retry(scenario))
            continue;
        if (rows[r].shown == SHOW_WITH_PROXY_CRASH && !scenario_uses_proxy_crash(scenario))
            continue;
        if (rows[r].shown == SHOW_WITH_BALANCE_UPDATES && !scenario_uses_balance_updates(scenario))
            continue;
        if (rows[r].shown == SHOW_WITH_DEADLINES && !scenario_uses_deadlines(scenario))
            continue;
        if (rows[r].shown == SHOW_WITH_SAME_ORDERS && !scenario_uses_same_orders(scenario))
            continue;
        if (rows[r].shown == SHOW_WITH_SCHEDULE && !scenario_uses_schedule(scenario))
            continue;
        if (rows[r].shown == SHOW_WITH_MANUAL_CAPTURE && !scenario_uses_manual_capture(scenario))
            continue;
        bool lost_captures =
            scenario_uses_manual_capture(scenario) && scenario->gateway.capture_lost > 0;
        if (rows[r].shown == SHOW_WITH_LOST_CAPTURES && !lost_captures)
            continue;
        if (rows[r].shown == SHOW_WITH_REFUNDS && !scenario_uses_saga(scenario) && !lost_captures)
            continue;
        if (rows[r].shown == SHOW_WITH_TRANSACTIONS &&
            !(has_broker && scenario_uses_log_transactions(scenario)))
            continue;
        if (rows[r].shown == SHOW_WITH_FAILING_CONSUMERS &&
            !scenario_uses_failing_consumers(scenario))
            continue;
        if (rows[r].shown == SHOW_WITH_CONNECTION_CLOSES &&
            !scenario_uses_connection_closes(scenario))
            continue;
        fprintf(stream, "%-*s", width, row_label(scenario, &rows[r]));
        for (uint32_t m = 0; m < report->mode_count; m++) {
            double value = 0;
            metrics_value(report->metrics[m], rows[r].metric, &value);
            write_cell(stream, value, rows[r].style, color);
        }
        fputc('\n', stream);
        if (strcmp(rows[r].metric, "dead_lettered") == 0)
            write_queues(stream, report, width);
        if (strcmp(rows[r].metric, "leaks") == 0)
            write_groups(stream, report, width);
    }
    write_services(stream, report, width);
    write_balances(stream, report, color, width);
    /* The view shows 1,305.00; the table keeps the integers the JSON report and the
     * expectations use, and says so with a figure of this run. */
    char minor[32], major[40];
    int64_t example = report->mode_count > 0 && scenario->account_count > 0
                          ? report->metrics[0]->balances[0].actual
                          : 130500;
    snprintf(minor, sizeof minor, "%" PRId64, example);
    format_major_units(major, sizeof major, example);
    fprintf(stream, "%s(money and balances in minor units: %s is %s)%s\n", color ? DIM : "", minor,
            major, color ? RESET : "");
    for (uint32_t m = 0; m < report->mode_count; m++) {
        if (report->stop_reasons[m] != NULL)
            fprintf(stream, "%s: %s\n", mode_name(report->modes[m]), report->stop_reasons[m]);
    }
    return !ferror(stream);
}
