/* The JSON report (DESIGN §5 core shape, plus more fields) and the JSON-lines trace.
 * Written with fprintf in a fixed key order rather than through cJSON: the report's bytes
 * are part of the determinism contract, and cJSON stays inside src/scenario. */
#include <inttypes.h>
#include <string.h>

#include "report.h"

static void write_string(FILE *stream, const char *text)
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

static void write_series(FILE *stream, const char *name, const TimeSeries *series)
{
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

static void write_mode(FILE *stream, const RunReport *report, uint32_t m)
{
    const Metrics *metrics = report->metrics[m];
    const Scenario *scenario = report->scenario;
    fprintf(stream, "    ");
    write_string(stream, mode_name(report->modes[m]));
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
            ", \"consumer_replayed\": %" PRIu64 "},\n",
            metrics->messages, metrics->deliveries, metrics->redeliveries, metrics->dead_lettered,
            metrics->deduplicated, metrics->late_acks, metrics->consumer_replayed);
    fprintf(stream,
            "      \"receipts\": {\"sent\": %" PRIu64 ", \"duplicated\": %" PRIu64
            ", \"missing\": %" PRIu64 "},\n",
            metrics->receipts_sent, metrics->receipts_duplicated, metrics->receipts_missing);
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
    write_series(stream, "key_store_series", &metrics->key_store_series);
    write_series(stream, "queue_depth_series", &metrics->queue_depth_series);
    write_series(stream, "in_flight_series", &metrics->in_flight_series);
    fprintf(stream, "      \"stopped\": ");
    if (report->stop_reasons[m] != NULL)
        write_string(stream, report->stop_reasons[m]);
    else
        fprintf(stream, "null");
    fprintf(stream, ",\n      \"balances\": {");
    for (uint32_t a = 0; a < scenario->account_count; a++) {
        fprintf(stream, "%s", a ? ", " : "");
        write_string(stream, scenario->accounts[a].id);
        fprintf(stream, ": {\"expected\": %" PRId64 ", \"actual\": %" PRId64 "}",
                metrics->balances[a].expected, metrics->balances[a].actual);
    }
    fprintf(stream, "}}");
}

bool report_write_json(FILE *stream, const RunReport *report)
{
    fprintf(stream, "{\n  \"scenario\": ");
    write_string(stream, report->scenario->name);
    fprintf(stream, ", \"seed\": %" PRIu64 ", \"profile\": ", report->seed);
    write_string(stream, store_profile_name(report->scenario->server.idempotency.profile));
    fprintf(stream, ",\n  \"modes\": {\n");
    for (uint32_t m = 0; m < report->mode_count; m++) {
        write_mode(stream, report, m);
        fprintf(stream, "%s\n", m + 1 < report->mode_count ? "," : "");
    }
    fprintf(stream, "  }\n}\n");
    return !ferror(stream);
}

/* The trace is written once per record, on the simulation's hot path: each line is built in
 * a local buffer with plain appends and leaves in one fwrite, instead of a dozen locked
 * stdio calls. The bytes are exactly what fprintf would produce. */
typedef struct {
    char text[1024];
    size_t length;
} TraceLine;

static void line_put(TraceLine *line, const char *text)
{
    for (; *text != '\0' && line->length < sizeof line->text; text++)
        line->text[line->length++] = *text;
}

static void line_put_string(TraceLine *line, const char *text)
{
    static const char hex[] = "0123456789abcdef";
    line_put(line, "\"");
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (line->length + 6 >= sizeof line->text)
            break;
        if (*c == '"' || *c == '\\') {
            line->text[line->length++] = '\\';
            line->text[line->length++] = (char)*c;
        } else if (*c < 0x20) {
            line_put(line, "\\u00");
            line->text[line->length++] = hex[*c >> 4];
            line->text[line->length++] = hex[*c & 15];
        } else {
            line->text[line->length++] = (char)*c;
        }
    }
    line_put(line, "\"");
}

static void line_put_u64(TraceLine *line, uint64_t value)
{
    char digits[24];
    size_t count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0);
    while (count > 0 && line->length < sizeof line->text)
        line->text[line->length++] = digits[--count];
}

static void line_put_i64(TraceLine *line, int64_t value)
{
    if (value < 0) {
        line_put(line, "-");
        line_put_u64(line, (uint64_t)0 - (uint64_t)value);
    } else {
        line_put_u64(line, (uint64_t)value);
    }
}

static void write_trace_record(void *context, const TraceRecord *record)
{
    TraceJsonl *writer = context;
    TraceLine line = {.length = 0};
    line_put(&line, "{\"t_us\": ");
    line_put_u64(&line, record->t_us);
    line_put(&line, ", \"mode\": ");
    line_put_string(&line, record->mode);
    line_put(&line, ", \"actor\": ");
    line_put_string(&line, record->actor);
    line_put(&line, ", \"event\": ");
    line_put_string(&line, record->event);
    if (record->peer != NULL) {
        line_put(&line, ", \"peer\": ");
        line_put_string(&line, record->peer);
    }
    line_put(&line, ", \"op\": ");
    line_put_u64(&line, record->operation);
    line_put(&line, ", \"click\": ");
    line_put_u64(&line, record->click);
    line_put(&line, ", \"attempt\": ");
    line_put_u64(&line, record->attempt);
    line_put(&line, ", \"copy\": ");
    line_put_u64(&line, record->copy);
    line_put(&line, ", \"value\": ");
    line_put_i64(&line, record->value);
    if (record->detail != NULL) {
        line_put(&line, ", \"detail\": ");
        line_put_string(&line, record->detail);
    }
    line_put(&line, "}\n");
    /* A failed write sets the stream's error flag; output_file_commit reports it. */
    fwrite(line.text, 1, line.length, writer->stream);
}

TraceSink trace_jsonl_sink(TraceJsonl *writer)
{
    return (TraceSink){.write = write_trace_record, .context = writer};
}
