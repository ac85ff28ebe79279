/* Metric names of scenario files and reports, mapped to the counters of a run. */
#include "metrics.h"

#include <stdio.h>
#include <string.h>

const char *outcome_name(Outcome outcome)
{
    static const char *const names[OUTCOME_COUNT] = {"ok",       "double",   "lost",    "phantom",
                                                     "mismatch", "declined", "refunded"};
    return outcome < OUTCOME_COUNT ? names[outcome] : "?";
}

bool outcome_is_harm(Outcome outcome)
{
    return outcome == OUTCOME_DOUBLE || outcome == OUTCOME_LOST || outcome == OUTCOME_PHANTOM ||
           outcome == OUTCOME_MISMATCH;
}

int64_t metrics_balance_error(const Metrics *metrics)
{
    int64_t error = 0;
    for (uint32_t a = 0; a < metrics->account_count; a++)
        error += metrics->balances[a].actual - metrics->balances[a].expected;
    return error;
}

static uint64_t series_peak(const TimeSeries *series)
{
    uint64_t peak = 0;
    for (uint32_t i = 0; i < series->used; i++)
        peak = series->max[i] > peak ? series->max[i] : peak;
    return peak;
}

static double latency_ms(const Metrics *metrics, double q)
{
    return (double)histogram_quantile(&metrics->latency_us, q) / 1000.0;
}

/* An outcome's count in share, or its money (double_amount, lost_amount); false when name
 * is neither. */
static bool share_value(const OutcomeShare *share, const char *name, double *value)
{
    for (int o = 0; o < OUTCOME_COUNT; o++) {
        if (strcmp(name, outcome_name((Outcome)o)) == 0) {
            *value = (double)share->outcomes[o];
            return true;
        }
    }
    if (strcmp(name, "double_amount") == 0 || strcmp(name, "lost_amount") == 0) {
        *value = (double)(name[0] == 'd' ? share->double_amount : share->lost_amount);
        return true;
    }
    return false;
}

bool metrics_group_value(const Metrics *metrics, uint32_t group, const char *name, double *value)
{
    if (group >= metrics->group_count)
        return false;
    return share_value(&metrics->groups[group], name, value);
}

/* One counter of a service by its metric name (scenario_service_metric_names); false when
 * the name is not one. */
static bool service_counter(const ServiceMetrics *service, const char *metric, double *value)
{
    const struct {
        const char *name;
        double value;
    } counters[] = {
        {"received", (double)service->received},
        {"runs", (double)service->runs},
        {"effects", (double)service->effects},
        {"doubles", (double)service->doubles},
        {"charged_amount", (double)service->charged_amount},
        {"double_amount", (double)service->double_amount},
        {"refunds", (double)service->refunds},
        {"replayed", (double)service->replayed},
        {"refused", (double)service->refused},
        {"retries", (double)service->retries},
        {"crashes", (double)service->crashes},
    };
    for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++) {
        if (strcmp(metric, counters[i].name) == 0) {
            *value = counters[i].value;
            return true;
        }
    }
    return false;
}

/* The outcomes of the operations a node, or a service of several instances, took part in:
 * a service's own, not its instances' summed (one operation may reach two of them). */
static bool service_outcome(const Metrics *metrics, const char *service, const char *metric,
                            double *value)
{
    if (strcmp(metric, "double_amount") == 0) /* a counter of the service's own */
        return false;
    for (uint32_t i = 0; i < metrics->service_count; i++) {
        const ServiceMetrics *node = &metrics->services[i];
        if (strcmp(node->name, service) == 0)
            return share_value(&metrics->reached[i], metric, value);
        if (strcmp(node->service, service) == 0 && node->first_of_service == i)
            return share_value(&metrics->service_reached[i], metric, value);
    }
    return false;
}

bool metrics_service_value(const Metrics *metrics, const char *service, const char *metric,
                           double *value)
{
    if (service_outcome(metrics, service, metric, value))
        return true;
    double sum = 0;
    bool found = false;
    for (uint32_t i = 0; i < metrics->service_count; i++) {
        const ServiceMetrics *node = &metrics->services[i];
        double one = 0;
        if ((strcmp(node->name, service) == 0 || strcmp(node->service, service) == 0) &&
            service_counter(node, metric, &one)) {
            sum += one;
            found = true;
        }
    }
    if (found)
        *value = sum;
    return found;
}

uint32_t metrics_services_in_lane_order(const Metrics *metrics, uint32_t order[SERVICE_METRICS_MAX])
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < metrics->service_count; i++) {
        if (!metrics->services[i].active)
            continue;
        /* insertion sort, stable, by lane and then by the service's first node: a service's
         * instances stand at its first one's place, next to each other, though other nodes
         * of the lane come between them in node order (a proxy after the first, before the
         * first proxy's appended instances; a called server's first node, before the
         * instances of the one before it) */
        const ServiceMetrics *node = &metrics->services[i];
        uint32_t at = count++;
        while (at > 0 &&
               (metrics->services[order[at - 1]].lane > node->lane ||
                (metrics->services[order[at - 1]].lane == node->lane &&
                 metrics->services[order[at - 1]].first_of_service > node->first_of_service))) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = i;
    }
    return count;
}

bool metrics_service_ends_instances(const Metrics *metrics, const uint32_t *order, uint32_t count,
                                    uint32_t i)
{
    const ServiceMetrics *node = &metrics->services[order[i]];
    return node->instance_count > 1 &&
           (i + 1 == count || strcmp(metrics->services[order[i + 1]].service, node->service) != 0);
}

bool metrics_named_value(const Metrics *metrics, const Scenario *scenario, const char *name,
                         double *value)
{
    const char *at = strchr(name, '@');
    if (at == NULL)
        return metrics_value(metrics, name, value);
    char base[NAME_LEN_MAX];
    snprintf(base, sizeof base, "%.*s", (int)(at - name), name);
    int group = scenario_metric_group(scenario, name);
    if (group >= 0)
        return metrics_group_value(metrics, (uint32_t)group, base, value);
    return metrics_service_value(metrics, at + 1, base, value);
}

bool metrics_expectation_value(const Metrics *metrics, const Expectation *expectation,
                               double *value)
{
    if (!expectation->per_group && expectation->service[0] == '\0')
        return metrics_value(metrics, expectation->metric, value);
    char name[NAME_LEN_MAX]; /* the metric before "@GROUP" or "@SERVICE" */
    snprintf(name, sizeof name, "%.*s", (int)strcspn(expectation->metric, "@"),
             expectation->metric);
    if (expectation->service[0] != '\0')
        return metrics_service_value(metrics, expectation->service, name, value);
    return metrics_group_value(metrics, expectation->group, name, value);
}

bool metrics_value(const Metrics *metrics, const char *name, double *value)
{
    for (int o = 0; o < OUTCOME_COUNT; o++) {
        if (strcmp(name, outcome_name((Outcome)o)) == 0) {
            *value = (double)metrics->outcomes[o];
            return true;
        }
    }
    const struct {
        const char *name;
        uint64_t count;
    } counters[] = {
        {"operations", metrics->operations},
        {"attempts", metrics->attempts},
        {"executions", metrics->executions},
        {"effects", metrics->effects},
        {"client_succeeded", metrics->client_succeeded},
        {"client_failed", metrics->client_failed},
        {"client_unknown", metrics->client_unknown},
        {"replayed", metrics->replayed},
        {"409", metrics->status_409},
        {"422", metrics->status_422},
        {"400", metrics->status_400},
        {"202", metrics->status_202},
        {"messages", metrics->messages},
        {"deliveries", metrics->deliveries},
        {"redeliveries", metrics->redeliveries},
        {"dead_lettered", metrics->dead_lettered},
        {"deduplicated", metrics->deduplicated},
        {"network_dropped", metrics->network_dropped},
        {"network_duplicated", metrics->network_duplicated},
        {"proxy_retries", metrics->proxy_retries},
        {"proxy_timeouts", metrics->proxy_timeouts},
        {"proxy_crashes", metrics->proxy_crashes},
        {"status_queries", metrics->status_queries},
        {"resolved_by_lookup", metrics->resolved_by_lookup},
        {"reconciled", metrics->reconciled},
        {"provider_charges", metrics->provider_charges},
        {"call_retries", metrics->call_retries},
        {"balancer_retries", metrics->balancer_retries},
        {"fulfil_failures", metrics->fulfil_failures},
        {"refunds", metrics->refunds},
        {"refund_retries", metrics->refund_retries},
        {"double_refunds", metrics->double_refunds},
        {"redriven", metrics->redriven},
        {"keys_lost_in_failover", metrics->keys_lost_in_failover},
        {"leaks", metrics->leaks},
        {"channel_closures", metrics->channel_closures},
        {"stale_overwrites", metrics->stale_overwrites},
        {"stale_final", metrics->stale_final},
        {"412", metrics->status_412},
        {"lost_updates", metrics->lost_updates},
        {"update_conflicts", metrics->update_conflicts},
        {"work_after_deadline", metrics->work_after_deadline},
        {"deadline_drops", metrics->deadline_drops},
        {"connection_closes", metrics->connection_closes},
        {"library_retries", metrics->library_retries},
        {"orders_fulfilled_twice", metrics->orders_fulfilled_twice},
        {"store_crashes", metrics->store_crashes},
        {"keys_lost_in_store_crash", metrics->keys_lost_in_store_crash},
        {"refused_store_down", metrics->refused_store_down},
        {"unchecked_runs", metrics->unchecked_runs},
        {"second_firings", metrics->second_firings},
        {"holds", metrics->holds},
        {"orphan_holds", metrics->orphan_holds},
        {"double_holds", metrics->double_holds},
        {"voids", metrics->voids},
        {"handler_failures", metrics->handler_failures},
        {"dead_letters_reviewed", metrics->dead_letters_reviewed},
        {"dead_letters_charged", metrics->dead_letters_charged},
        {"transactions_aborted", metrics->transactions_aborted},
        {"zombies_fenced", metrics->zombies_fenced},
        {"captures_lost", metrics->captures_lost},
        {"settlement_corrections", metrics->settlement_corrections},
        {"rebalances", metrics->rebalances},
        {"offset_commits", metrics->offset_commits},
        {"key_store_peak", metrics->key_store_peak},
        {"crashes", metrics->crashes},
        {"late_acks", metrics->late_acks},
        {"heartbeats", metrics->heartbeats},
        {"emails_sent", metrics->emails_sent},
        {"receipts_sent", metrics->receipts_sent},
        {"receipts_duplicated", metrics->receipts_duplicated},
        {"receipts_missing", metrics->receipts_missing},
        {"receipts_orphaned", metrics->receipts_orphaned},
        {"shed", metrics->shed},
        {"resets", metrics->resets},
        {"retries", metrics->retries},
        {"retries_throttled", metrics->retries_throttled},
    };
    for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++) {
        if (strcmp(name, counters[i].name) == 0) {
            *value = (double)counters[i].count;
            return true;
        }
    }
    if (strcmp(name, "double_amount") == 0)
        *value = (double)metrics->double_amount;
    else if (strcmp(name, "lost_amount") == 0)
        *value = (double)metrics->lost_amount;
    else if (strcmp(name, "double_refund_amount") == 0)
        *value = (double)metrics->double_refund_amount;
    else if (strcmp(name, "lost_update_amount") == 0)
        *value = (double)metrics->lost_update_amount;
    else if (strcmp(name, "balance_error") == 0)
        *value = (double)metrics_balance_error(metrics);
    else if (strcmp(name, "latency_p50_ms") == 0)
        *value = latency_ms(metrics, 0.50);
    else if (strcmp(name, "latency_p99_ms") == 0)
        *value = latency_ms(metrics, 0.99);
    else if (strcmp(name, "latency_p999_ms") == 0)
        *value = latency_ms(metrics, 0.999);
    else if (strcmp(name, "queue_depth_peak") == 0)
        *value = (double)series_peak(&metrics->queue_depth_series);
    else if (strcmp(name, "in_flight_peak") == 0)
        *value = (double)series_peak(&metrics->in_flight_series);
    else if (strcmp(name, "amplification") == 0)
        *value =
            metrics->operations > 0 ? (double)metrics->attempts / (double)metrics->operations : 0.0;
    else if (strcmp(name, "goodput_per_s") == 0)
        *value = metrics->duration_us > 0
                     ? (double)metrics->outcomes[OUTCOME_OK] * 1e6 / (double)metrics->duration_us
                     : 0.0;
    else if (strcmp(name, "attempts_peak_per_s") == 0)
        *value = (double)count_series_peak(&metrics->attempts_series) * 1e6 /
                 (double)metrics->attempts_series.bucket_us;
    else
        return false;
    return true;
}
