/* The JSON report (DESIGN §5 core shape, plus more fields).
 * Written with fprintf in a fixed key order rather than through cJSON: the report's bytes
 * are part of the determinism contract, and cJSON stays inside src/scenario. */
#include <inttypes.h>
#include <string.h>

#include "report.h"

void report_write_json_string(FILE *stream, const char *text)
{
    fputc('"', stream);
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(stream, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(stream, "\\u%04x", *c);
        else
            fputc(*c, stream);
    }
    fputc('"', stream);
}

/* The widest bucket of each series over the modes: every mode's series is written on that
 * scale, so the modes' columns line up bucket for bucket. */
typedef struct {
    uint64_t key_store_us, queue_depth_us, in_flight_us;
} SeriesScale;

static uint64_t wider(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static SeriesScale common_scale(const RunReport *report)
{
    SeriesScale scale = {0};
    for (uint32_t m = 0; m < report->mode_count; m++) {
        const Metrics *metrics = report->metrics[m];
        scale.key_store_us = wider(scale.key_store_us, metrics->key_store_series.bucket_us);
        scale.queue_depth_us = wider(scale.queue_depth_us, metrics->queue_depth_series.bucket_us);
        scale.in_flight_us = wider(scale.in_flight_us, metrics->in_flight_series.bucket_us);
    }
    return scale;
}

static void write_series(FILE *stream, const char *name, const TimeSeries *original,
                         uint64_t bucket_us)
{
    TimeSeries scaled = *original;
    time_series_coarsen(&scaled, bucket_us);
    const TimeSeries *series = &scaled;
    fprintf(stream, "      \"%s\": {\"bucket_ms\": %.3f, \"max\": [", name,
            (double)series->bucket_us / 1000.0);
    for (uint32_t i = 0; i < series->used; i++)
        fprintf(stream, "%s%" PRIu64, i ? ", " : "", series->max[i]);
    fprintf(stream, "]},\n");
}

static double value_of(const Metrics *metrics, const char *name)
{
    double value = 0;
    metrics_value(metrics, name, &value);
    return value;
}

static void write_counts(FILE *stream, const char *name, const CountSeries *series, bool last)
{
    fprintf(stream, "        \"%s\": {\"bucket_ms\": %.3f, \"count\": [", name,
            (double)series->bucket_us / 1000.0);
    for (uint32_t i = 0; i < series->used; i++)
        fprintf(stream, "%s%" PRIu64, i ? ", " : "", series->count[i]);
    fprintf(stream, "]}%s\n", last ? "" : ",");
}

/* Retry storms (C22): shed and reset answers, the budget's refusals, retry amplification
 * and goodput, and attempts and successes over time, when the scenario has any of it. */
static void write_storm(FILE *stream, const Metrics *metrics)
{
    fprintf(stream,
            "      \"storm\": {\"shed\": %" PRIu64 ", \"resets\": %" PRIu64
            ", \"retries\": %" PRIu64 ", \"retries_throttled\": %" PRIu64
            ", \"amplification\": %.4f, \"goodput_per_s\": %.4f,"
            " \"attempts_peak_per_s\": %.0f,\n",
            metrics->shed, metrics->resets, metrics->retries, metrics->retries_throttled,
            value_of(metrics, "amplification"), value_of(metrics, "goodput_per_s"),
            value_of(metrics, "attempts_peak_per_s"));
    CountSeries attempts = metrics->attempts_series;
    CountSeries succeeded = metrics->succeeded_series;
    uint64_t bucket_us =
        attempts.bucket_us > succeeded.bucket_us ? attempts.bucket_us : succeeded.bucket_us;
    count_series_coarsen(&attempts, bucket_us);
    count_series_coarsen(&succeeded, bucket_us);
    write_counts(stream, "attempts_series", &attempts, false);
    write_counts(stream, "succeeded_series", &succeeded, true);
    fprintf(stream, "      },\n");
}

/* Each client group's outcomes and money, by its id. */
static void write_groups(FILE *stream, const Scenario *scenario, const Metrics *metrics)
{
    fprintf(stream, "      \"groups\": {");
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        const OutcomeShare *share = &metrics->groups[g];
        fprintf(stream, "%s", g ? ", " : "");
        report_write_json_string(stream, scenario->client_groups[g].id);
        fprintf(stream, ": {");
        for (int o = 0; o < OUTCOME_COUNT; o++)
            fprintf(stream, "\"%s\": %" PRIu64 ", ", outcome_name((Outcome)o), share->outcomes[o]);
        fprintf(stream, "\"double_amount\": %" PRId64 ", \"lost_amount\": %" PRId64 "}",
                share->double_amount, share->lost_amount);
    }
    fprintf(stream, "},\n");
}

/* One entry of the services object: name's counters under the names METRIC@SERVICE uses.
 * instances: 0 for a node; for a service of several, after its instances, how many. */
static void write_service(FILE *stream, const Metrics *metrics, const ServiceMetrics *node,
                          const char *name, uint32_t instances, bool first)
{
    fprintf(stream, "%s\n        ", first ? "" : ",");
    report_write_json_string(stream, name);
    fprintf(stream, ": {\"kind\": ");
    report_write_json_string(stream, service_kind_name(node->kind));
    fprintf(stream, ", \"service\": ");
    report_write_json_string(stream, node->service);
    if (instances > 0)
        fprintf(stream, ", \"instances\": %" PRIu32, instances);
    for (unsigned k = 0; k < scenario_service_metric_count; k++) {
        double value = 0;
        metrics_service_value(metrics, name, scenario_service_metric_names[k], &value);
        fprintf(stream, ", \"%s\": %.0f", scenario_service_metric_names[k], value);
    }
    fprintf(stream, "}");
}

/* Each service node the scenario sends work through, by its name, and after the instances of
 * a service of several the service itself, by its id (its counters summed, each operation's
 * outcome once). */
static void write_services(FILE *stream, const Metrics *metrics)
{
    fprintf(stream, "      \"services\": {");
    uint32_t order[SERVICE_METRICS_MAX];
    uint32_t count = metrics_services_in_lane_order(metrics, order);
    for (uint32_t i = 0; i < count; i++) {
        const ServiceMetrics *node = &metrics->services[order[i]];
        write_service(stream, metrics, node, node->name, 0, i == 0);
        if (metrics_service_ends_instances(metrics, order, count, i))
            write_service(stream, metrics, node, node->service, node->instance_count, false);
    }
    fprintf(stream, "},\n");
}

static void write_mode(FILE *stream, const RunReport *report, uint32_t m, SeriesScale scale)
{
    const Metrics *metrics = report->metrics[m];
    const Scenario *scenario = report->scenario;
    fprintf(stream, "    ");
    report_write_json_string(stream, mode_name(report->modes[m]));
    fprintf(stream,
            ": {\n      \"operations\": %" PRIu64 ", \"attempts\": %" PRIu64
            ", \"executions\": %" PRIu64 ", \"effects\": %" PRIu64 ",\n",
            metrics->operations, metrics->attempts, metrics->executions, metrics->effects);
    fprintf(stream,
            "      \"client_succeeded\": %" PRIu64 ", \"client_failed\": %" PRIu64
            ", \"client_unknown\": %" PRIu64 ",\n",
            metrics->client_succeeded, metrics->client_failed, metrics->client_unknown);
    fprintf(stream, "      \"outcomes\": {");
    for (int o = 0; o < OUTCOME_COUNT; o++)
        fprintf(stream, "%s\"%s\": %" PRIu64, o ? ", " : "", outcome_name((Outcome)o),
                metrics->outcomes[o]);
    fprintf(stream, "},\n      \"double_amount\": %" PRId64 ", \"lost_amount\": %" PRId64 ",\n",
            metrics->double_amount, metrics->lost_amount);
    if (scenario->client_group_count > 1) /* only then: other reports stay as they were */
        write_groups(stream, scenario, metrics);
    write_services(stream, metrics);
    fprintf(stream,
            "      \"responses\": {\"replayed\": %" PRIu64 ", \"409\": %" PRIu64
            ", \"422\": %" PRIu64 ", \"400\": %" PRIu64 ", \"202\": %" PRIu64
            ", \"late_ignored\": %" PRIu64 "},\n",
            metrics->replayed, metrics->status_409, metrics->status_422, metrics->status_400,
            metrics->status_202, metrics->late_responses_ignored);
    fprintf(stream,
            "      \"broker\": {\"messages\": %" PRIu64 ", \"deliveries\": %" PRIu64
            ", \"redeliveries\": %" PRIu64 ", \"dead_lettered\": %" PRIu64
            ", \"deduplicated\": %" PRIu64 ", \"late_acks\": %" PRIu64
            ", \"consumer_replayed\": %" PRIu64 ", \"queue_depth_peak\": %.0f"
            ", \"in_flight_peak\": %.0f,\n        \"queues\": {",
            metrics->messages, metrics->deliveries, metrics->redeliveries, metrics->dead_lettered,
            metrics->deduplicated, metrics->late_acks, metrics->consumer_replayed,
            value_of(metrics, "queue_depth_peak"), value_of(metrics, "in_flight_peak"));
    for (uint32_t q = 0; q < metrics->queue_count; q++) {
        const QueueMetrics *queue = &metrics->queues[q];
        fprintf(stream, "%s", q ? ", " : "");
        char queue_name[2 * NAME_LEN_MAX];
        scenario_queue_label(scenario, q, queue_name, sizeof queue_name);
        report_write_json_string(stream, queue_name);
        fprintf(stream,
                ": {\"messages\": %" PRIu64 ", \"deliveries\": %" PRIu64
                ", \"redeliveries\": %" PRIu64 ", \"dead_lettered\": %" PRIu64
                ", \"deduplicated\": %" PRIu64 ", \"late_acks\": %" PRIu64 "}",
                queue->messages, queue->deliveries, queue->redeliveries, queue->dead_lettered,
                queue->deduplicated, queue->late_acks);
    }
    fprintf(stream, "}},\n");
    fprintf(stream,
            "      \"receipts\": {\"sent\": %" PRIu64 ", \"duplicated\": %" PRIu64
            ", \"missing\": %" PRIu64 "},\n",
            metrics->receipts_sent, metrics->receipts_duplicated, metrics->receipts_missing);
    if (scenario_uses_status_records(scenario))
        fprintf(stream,
                "      \"ordering\": {\"stale_overwrites\": %" PRIu64 ", \"stale_final\": %" PRIu64
                ", \"412\": %" PRIu64 "},\n",
                metrics->stale_overwrites, metrics->stale_final, metrics->status_412);
    if (scenario_uses_balance_updates(scenario)) /* only then: other reports stay as they were */
        fprintf(stream,
                "      \"balance_updates\": {\"lost_updates\": %" PRIu64
                ", \"lost_update_amount\": %" PRId64 ", \"update_conflicts\": %" PRIu64 "},\n",
                metrics->lost_updates, metrics->lost_update_amount, metrics->update_conflicts);
    if (scenario_uses_deadlines(scenario)) /* only then: other reports stay as they were */
        fprintf(stream,
                "      \"deadlines\": {\"work_after_deadline\": %" PRIu64
                ", \"deadline_drops\": %" PRIu64 "},\n",
                metrics->work_after_deadline, metrics->deadline_drops);
    if (scenario_uses_connection_closes(scenario)) /* only then: other reports stay as they were */
        fprintf(stream,
                "      \"connections\": {\"connection_closes\": %" PRIu64
                ", \"library_retries\": %" PRIu64 "},\n",
                metrics->connection_closes, metrics->library_retries);
    if (scenario_uses_same_orders(scenario)) /* only then: other reports stay as they were */
        fprintf(stream, "      \"orders\": {\"fulfilled_twice\": %" PRIu64 "},\n",
                metrics->orders_fulfilled_twice);
    if (scenario_uses_store_crash(scenario)) /* only then: other reports stay as they were */
        fprintf(stream,
                "      \"key_store\": {\"crashes\": %" PRIu64 ", \"keys_lost\": %" PRIu64
                ", \"refused_down\": %" PRIu64 ", \"unchecked_runs\": %" PRIu64 "},\n",
                metrics->store_crashes, metrics->keys_lost_in_store_crash,
                metrics->refused_store_down, metrics->unchecked_runs);
    if (scenario_uses_manual_capture(scenario)) /* only then: other reports stay as they were */
        fprintf(stream,
                "      \"card\": {\"holds\": %" PRIu64 ", \"orphan_holds\": %" PRIu64
                ", \"double_holds\": %" PRIu64 ", \"voids\": %" PRIu64 "},\n",
                metrics->holds, metrics->orphan_holds, metrics->double_holds, metrics->voids);
    if (scenario_uses_manual_capture(scenario) && scenario->gateway.capture_lost > 0)
        fprintf(stream,
                "      \"settlement\": {\"captures_lost\": %" PRIu64 ", \"corrections\": %" PRIu64
                "},\n",
                metrics->captures_lost, metrics->settlement_corrections);
    if (scenario_uses_schedule(scenario)) /* only then: other reports stay as they were */
        fprintf(stream, "      \"schedule\": {\"second_firings\": %" PRIu64 "},\n",
                metrics->second_firings);
    if (scenario_uses_failing_consumers(scenario)) /* only then: other reports stay as they were */
        fprintf(stream,
                "      \"consumer_failures\": {\"handler_failures\": %" PRIu64
                ", \"dead_letters_reviewed\": %" PRIu64 ", \"dead_letters_charged\": %" PRIu64
                "},\n",
                metrics->handler_failures, metrics->dead_letters_reviewed,
                metrics->dead_letters_charged);
    if (scenario_uses_log(scenario)) /* only then: other reports stay as they were */
        fprintf(stream,
                "      \"log\": {\"rebalances\": %" PRIu64 ", \"offset_commits\": %" PRIu64 "},\n",
                metrics->rebalances, metrics->offset_commits);
    if (scenario_uses_log_transactions(scenario))
        fprintf(stream,
                "      \"transactions\": {\"aborted\": %" PRIu64 ", \"zombies_fenced\": %" PRIu64
                "},\n",
                metrics->transactions_aborted, metrics->zombies_fenced);
    if (scenario_uses_storm(scenario))
        write_storm(stream, metrics);
    if (scenario_uses_proxy_crash(scenario)) /* only then: other reports stay as they were */
        fprintf(stream,
                "      \"proxy\": {\"retries\": %" PRIu64 ", \"timeouts\": %" PRIu64
                ", \"crashes\": %" PRIu64 "},\n",
                metrics->proxy_retries, metrics->proxy_timeouts, metrics->proxy_crashes);
    else if (scenario_uses_proxy(scenario))
        fprintf(stream, "      \"proxy\": {\"retries\": %" PRIu64 ", \"timeouts\": %" PRIu64 "},\n",
                metrics->proxy_retries, metrics->proxy_timeouts);
    if (scenario_call_retries(scenario)) /* only then: other reports stay as they were */
        fprintf(stream,
                "      \"call\": {\"retries\": %" PRIu64 ", \"provider_charges\": %" PRIu64 "},\n",
                metrics->call_retries, metrics->provider_charges);
    if (scenario_uses_balancer_retry(scenario))
        fprintf(stream, "      \"balancer\": {\"retries\": %" PRIu64 "},\n",
                metrics->balancer_retries);
    if (scenario_uses_saga(scenario))
        fprintf(stream,
                "      \"saga\": {\"fulfil_failures\": %" PRIu64 ", \"refunds\": %" PRIu64
                ", \"refund_retries\": %" PRIu64 ", \"double_refunds\": %" PRIu64
                ", \"double_refund_amount\": %" PRId64 "},\n",
                metrics->fulfil_failures, metrics->refunds, metrics->refund_retries,
                metrics->double_refunds, metrics->double_refund_amount);
    fprintf(stream,
            "      \"network\": {\"sent\": %" PRIu64 ", \"dropped\": %" PRIu64
            ", \"duplicated\": %" PRIu64 "},\n",
            metrics->network_sent, metrics->network_dropped, metrics->network_duplicated);
    fprintf(stream,
            "      \"latency_ms\": {\"p50\": %.1f, \"p99\": %.1f, \"p999\": %.1f},"
            " \"key_store_peak\": %" PRIu64 ", \"emails_sent\": %" PRIu64 ", \"crashes\": %" PRIu64
            ", \"events\": %" PRIu64 ",\n",
            value_of(metrics, "latency_p50_ms"), value_of(metrics, "latency_p99_ms"),
            value_of(metrics, "latency_p999_ms"), metrics->key_store_peak, metrics->emails_sent,
            metrics->crashes, metrics->events);
    write_series(stream, "key_store_series", &metrics->key_store_series, scale.key_store_us);
    write_series(stream, "queue_depth_series", &metrics->queue_depth_series, scale.queue_depth_us);
    write_series(stream, "in_flight_series", &metrics->in_flight_series, scale.in_flight_us);
    fprintf(stream, "      \"stopped\": ");
    if (report->stop_reasons[m] != NULL)
        report_write_json_string(stream, report->stop_reasons[m]);
    else
        fprintf(stream, "null");
    fprintf(stream, ",\n      \"balances\": {");
    for (uint32_t a = 0; a < scenario->account_count; a++) {
        fprintf(stream, "%s", a ? ", " : "");
        report_write_json_string(stream, scenario->accounts[a].id);
        fprintf(stream, ": {\"expected\": %" PRId64 ", \"actual\": %" PRId64 "}",
                metrics->balances[a].expected, metrics->balances[a].actual);
    }
    fprintf(stream, "}}");
}

bool report_write_json(FILE *stream, const RunReport *report)
{
    fprintf(stream, "{\n  \"scenario\": ");
    report_write_json_string(stream, report->scenario->name);
    fprintf(stream, ", \"seed\": %" PRIu64 ", \"profile\": ", report->seed);
    report_write_json_string(stream,
                             store_profile_name(report->scenario->server.idempotency.profile));
    fprintf(stream, ",\n  \"modes\": {\n");
    SeriesScale scale = common_scale(report);
    for (uint32_t m = 0; m < report->mode_count; m++) {
        write_mode(stream, report, m, scale);
        fprintf(stream, "%s\n", m + 1 < report->mode_count ? "," : "");
    }
    fprintf(stream, "  }\n}\n");
    return !ferror(stream);
}
