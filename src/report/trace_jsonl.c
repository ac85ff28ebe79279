/* The JSON-lines trace, written on the simulation's hot path. Each line is built in a local
 * buffer with plain appends (the bytes are exactly what fprintf would produce) and appended
 * to a 1 MiB chunk. A full chunk goes to a writer thread, which hands it to the kernel while
 * the simulation fills the other chunk: copying a trace of a hundred megabytes into the page
 * cache took as long as the simulation itself, and on a second core it now overlaps with it.
 * The file's bytes are the same as with direct writes, in the same order. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define CHUNK_BYTES (1u << 20)
#define LINE_BYTES_MAX 1024
/* A string is cut past this many bytes (names and words are far shorter), so five of them,
 * the literals and the numbers always fit in a line, which then always ends in a newline. */
#define STRING_BYTES_MAX 128

struct TraceJsonl {
    FILE *stream;
    char *chunks[2];
    unsigned filling; /* the chunk the simulation appends to */
    size_t used;
    bool threaded; /* false when no thread could be started: chunks are written in place */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    const char *handed; /* a chunk for the writer thread, NULL when it has none */
    size_t handed_length;
    bool closing;
    uint64_t written;   /* bytes of the lines accepted so far */
    uint64_t max_bytes; /* 0: no budget */
    bool full;          /* a line was refused: the file holds whole lines within the budget */
};

/* ------------------------------------------------------------------ the writer thread */

/* A failed write sets the stream's error flag; output_file_commit reports it. */
static void *write_chunks(void *context)
{
    TraceJsonl *writer = context;
    pthread_mutex_lock(&writer->lock);
    for (;;) {
        while (writer->handed == NULL && !writer->closing)
            pthread_cond_wait(&writer->changed, &writer->lock);
        if (writer->handed == NULL)
            break; /* closing, and nothing left */
        const char *chunk = writer->handed;
        size_t length = writer->handed_length;
        pthread_mutex_unlock(&writer->lock);
        fwrite(chunk, 1, length, writer->stream);
        pthread_mutex_lock(&writer->lock);
        writer->handed = NULL;
        pthread_cond_broadcast(&writer->changed);
    }
    pthread_mutex_unlock(&writer->lock);
    return NULL;
}

/* Gives the filled chunk to the writer thread (after it has finished the previous one) and
 * switches to the other. */
static void hand_over(TraceJsonl *writer)
{
    if (writer->used == 0)
        return;
    if (!writer->threaded) {
        fwrite(writer->chunks[writer->filling], 1, writer->used, writer->stream);
        writer->used = 0;
        return;
    }
    pthread_mutex_lock(&writer->lock);
    while (writer->handed != NULL)
        pthread_cond_wait(&writer->changed, &writer->lock);
    writer->handed = writer->chunks[writer->filling];
    writer->handed_length = writer->used;
    pthread_cond_broadcast(&writer->changed);
    pthread_mutex_unlock(&writer->lock);
    writer->filling ^= 1;
    writer->used = 0;
}

TraceJsonl *trace_jsonl_open(FILE *stream)
{
    TraceJsonl *writer = calloc(1, sizeof *writer);
    if (writer == NULL)
        return NULL;
    writer->stream = stream;
    writer->chunks[0] = malloc(CHUNK_BYTES);
    writer->chunks[1] = malloc(CHUNK_BYTES);
    if (writer->chunks[0] == NULL || writer->chunks[1] == NULL) {
        free(writer->chunks[0]);
        free(writer->chunks[1]);
        free(writer);
        return NULL;
    }
    pthread_mutex_init(&writer->lock, NULL);
    pthread_cond_init(&writer->changed, NULL);
    writer->threaded = pthread_create(&writer->thread, NULL, write_chunks, writer) == 0;
    return writer;
}

bool trace_jsonl_close(TraceJsonl *writer)
{
    if (writer == NULL)
        return true;
    hand_over(writer);
    if (writer->threaded) {
        pthread_mutex_lock(&writer->lock);
        writer->closing = true;
        pthread_cond_broadcast(&writer->changed);
        pthread_mutex_unlock(&writer->lock);
        pthread_join(writer->thread, NULL);
    }
    pthread_cond_destroy(&writer->changed);
    pthread_mutex_destroy(&writer->lock);
    bool written = !ferror(writer->stream);
    free(writer->chunks[0]);
    free(writer->chunks[1]);
    free(writer);
    return written;
}

/* ------------------------------------------------------------------ one line */

/* A line is built in place at the end of the chunk, which has LINE_BYTES_MAX free. Each
 * append takes the position and the line's end and returns the new position: kept in a
 * local, the position is not reloaded after every byte stored (a char store may alias
 * anything in memory, a local whose address is never taken nothing). */

static char *put_bytes(char *out, const char *end, const char *bytes, size_t count)
{
    size_t room = (size_t)(end - out);
    if (count > room)
        count = room;
    memcpy(out, bytes, count);
    return out + count;
}

/* A string literal, copied with a length known at compile time. */
#define put_literal(out, end, literal) put_bytes((out), (end), (literal), sizeof(literal) - 1)

static char *put_string(char *out, const char *end, const char *text)
{
    static const char hex[] = "0123456789abcdef";
    const char *stop = out + STRING_BYTES_MAX < end - 7 ? out + STRING_BYTES_MAX : end - 7;
    if (out >= stop)
        return out;
    *out++ = '"';
    for (const unsigned char *c = (const unsigned char *)text; *c != '\0' && out < stop; c++) {
        if (*c == '"' || *c == '\\') {
            *out++ = '\\';
            *out++ = (char)*c;
        } else if (*c < 0x20) {
            memcpy(out, "\\u00", 4);
            out[4] = hex[*c >> 4];
            out[5] = hex[*c & 15];
            out += 6;
        } else {
            *out++ = (char)*c;
        }
    }
    *out++ = '"';
    return out;
}

static char *put_u64(char *out, const char *end, uint64_t value)
{
    static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930"
                                   "31323334353637383940414243444546474849505152535455565758596061"
                                   "62636465666768697071727374757677787980818283848586878889909192"
                                   "93949596979899";
    char digits[24];
    size_t start = sizeof digits;
    while (value >= 100) {
        unsigned pair = (unsigned)(value % 100) * 2;
        value /= 100;
        digits[--start] = pairs[pair + 1];
        digits[--start] = pairs[pair];
    }
    if (value >= 10) {
        digits[--start] = pairs[value * 2 + 1];
        digits[--start] = pairs[value * 2];
    } else {
        digits[--start] = (char)('0' + value);
    }
    return put_bytes(out, end, digits + start, sizeof digits - start);
}

static char *put_i64(char *out, const char *end, int64_t value)
{
    if (value >= 0)
        return put_u64(out, end, (uint64_t)value);
    out = put_literal(out, end, "-");
    return put_u64(out, end, (uint64_t)0 - (uint64_t)value);
}

static void write_trace_record(void *context, const TraceRecord *record)
{
    TraceJsonl *writer = context;
    if (writer->full)
        return;
    if (CHUNK_BYTES - writer->used < LINE_BYTES_MAX)
        hand_over(writer);
    char *const line = writer->chunks[writer->filling] + writer->used;
    const char *const end = line + LINE_BYTES_MAX;
    char *out = put_literal(line, end, "{\"t_us\": ");
    out = put_u64(out, end, record->t_us);
    out = put_literal(out, end, ", \"mode\": ");
    out = put_string(out, end, mode_name(record->mode));
    out = put_literal(out, end, ", \"actor\": ");
    out = put_string(out, end, record->actor_name);
    out = put_literal(out, end, ", \"event\": ");
    out = put_string(out, end, trace_event_name(record->event));
    if (record->peer_name != NULL) {
        out = put_literal(out, end, ", \"peer\": ");
        out = put_string(out, end, record->peer_name);
    }
    out = put_literal(out, end, ", \"op\": ");
    if (record->no_operation)
        out = put_literal(out, end, "null"); /* 0 is a real operation's id */
    else
        out = put_u64(out, end, record->operation);
    out = put_literal(out, end, ", \"click\": ");
    out = put_u64(out, end, record->click);
    out = put_literal(out, end, ", \"attempt\": ");
    out = put_u64(out, end, record->attempt);
    out = put_literal(out, end, ", \"copy\": ");
    out = put_u64(out, end, record->copy);
    out = put_literal(out, end, ", \"value\": ");
    out = put_i64(out, end, record->value);
    const char *detail = trace_detail_text(record);
    if (detail != NULL) {
        out = put_literal(out, end, ", \"detail\": ");
        out = put_string(out, end, detail);
    }
    const char *reviewed = trace_reviewed_text(record);
    if (reviewed != NULL) { /* the detail there is the queue's: the effect needs its own field */
        out = put_literal(out, end, ", \"reviewed\": ");
        out = put_string(out, end, reviewed);
    }
    out = put_literal(out, end, "}\n");
    size_t length = (size_t)(out - line);
    if (writer->max_bytes != 0 && writer->written + length > writer->max_bytes) {
        writer->full = true; /* the line is dropped: the file ends at a whole line */
        return;
    }
    writer->used += length;
    writer->written += length;
}

uint64_t trace_jsonl_full(void *context)
{
    const TraceJsonl *writer = context;
    return writer->full ? writer->max_bytes : 0;
}

void trace_jsonl_limit(TraceJsonl *writer, uint64_t max_bytes)
{
    writer->max_bytes = max_bytes;
}

TraceSink trace_jsonl_sink(TraceJsonl *writer)
{
    return (TraceSink){.write = write_trace_record, .context = writer};
}
