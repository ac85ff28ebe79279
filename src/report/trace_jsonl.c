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

/* A line being built in place at the end of the chunk, which has LINE_BYTES_MAX free. */
typedef struct {
    char *text;
    size_t length;
} TraceLine;

static void line_put_bytes(TraceLine *line, const char *bytes, size_t count)
{
    size_t room = LINE_BYTES_MAX - line->length;
    if (count > room)
        count = room;
    memcpy(line->text + line->length, bytes, count);
    line->length += count;
}

/* A string literal, copied with a length known at compile time. */
#define line_put(line, literal) line_put_bytes((line), (literal), sizeof(literal) - 1)

static void line_put_string(TraceLine *line, const char *text)
{
    static const char hex[] = "0123456789abcdef";
    line_put(line, "\"");
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (line->length + 6 >= LINE_BYTES_MAX)
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
    line_put_bytes(line, digits + start, sizeof digits - start);
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
    if (CHUNK_BYTES - writer->used < LINE_BYTES_MAX)
        hand_over(writer);
    TraceLine line = {.text = writer->chunks[writer->filling] + writer->used, .length = 0};
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
    writer->used += line.length;
}

TraceSink trace_jsonl_sink(TraceJsonl *writer)
{
    return (TraceSink){.write = write_trace_record, .context = writer};
}
