/* Fuzz harness for `idemsim view --headless` (issue 24, item 1): the input chooses a scenario
 * and the options that place and size a frame (--window, --at-ms, --width, --height, the
 * projector preset, --focus, --story, --predict with --presses, --labels-json), with values
 * drawn mostly from the edges that broke before (a window at 10^9 ms, at-ms far past the
 * run) and otherwise raw. Whatever they are, view_main must answer with a PNG or a usage
 * error, never a crash: ASan and UBSan, in the builds that run this, turn any fault into
 * one. Built twice: with clang's libFuzzer (-DIDEMSIM_FUZZ=ON) and, in every build with the
 * view, under fuzz_driver.c, which feeds it fixed-seed random inputs as a CTest test. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Library scenarios with the shapes that broke the view: brokers (a visibility timeout, a
 * dedup window, a log), crashes and restarts, a failover, a proxy; and a proxy that crashes,
 * a mesh before instances, two brokers of different families (a log and a channel queue). */
static const char *const scenarios[] = {
    IDEMSIM_SOURCE_DIR "/scenarios/03_broker_slow_consumers.json",
    IDEMSIM_SOURCE_DIR "/scenarios/14_broker_dedup_window.json",
    IDEMSIM_SOURCE_DIR "/scenarios/21_kafka_rebalance_replay.json",
    IDEMSIM_SOURCE_DIR "/scenarios/01_lost_answer.json",
    IDEMSIM_SOURCE_DIR "/scenarios/11_crash_after_charge.json",
    IDEMSIM_SOURCE_DIR "/scenarios/19_key_store_failover.json",
    IDEMSIM_SOURCE_DIR "/scenarios/15_proxy_retries.json",
    IDEMSIM_SOURCE_DIR "/scenarios/09_in_progress_202.json",
    IDEMSIM_SOURCE_DIR "/scenarios/architectures/mesh_sidecar_crashes.json",
    IDEMSIM_SOURCE_DIR "/scenarios/26_instances_retry_elsewhere.json",
    IDEMSIM_SOURCE_DIR "/scenarios/architectures/orders_log_receipts_queue.json",
};
#define SCENARIO_COUNT (sizeof scenarios / sizeof scenarios[0])

/* Milliseconds at the edges: 0, 1, around a scenario's duration, an int's and a double's
 * limits, the loader's bound (10^12) and past it, the whole u64. */
static const uint64_t edge_ms[] = {0,
                                   1,
                                   2,
                                   999,
                                   1000,
                                   29999,
                                   30000,
                                   60000,
                                   60001,
                                   999999999,
                                   1000000000,
                                   2147483647,
                                   2147483648ull,
                                   4294967296ull,
                                   999999999999ull,
                                   1000000000000ull,
                                   1000000000001ull,
                                   9007199254740993ull,
                                   UINT64_MAX};
static const char *const widths[] = {"320", "321", "640", "1280", "1919", "7680", "319", "0"};
static const char *const heights[] = {"240", "241", "480", "720", "1081", "4320", "239", "-1"};

typedef struct {
    const uint8_t *data;
    size_t size, at;
} Bytes;

static uint8_t next_byte(Bytes *bytes)
{
    return bytes->at < bytes->size ? bytes->data[bytes->at++] : 0;
}

static uint64_t next_u64(Bytes *bytes)
{
    uint64_t value = 0;
    for (int i = 0; i < 8; i++)
        value = value << 8 | next_byte(bytes);
    return value;
}

/* A number of ms as text: an edge, an edge +/- a little, or raw. */
static void next_ms(Bytes *bytes, char *text, size_t size)
{
    uint8_t how = next_byte(bytes);
    uint64_t value = edge_ms[how % (sizeof edge_ms / sizeof edge_ms[0])];
    if (how >= 200)
        value = next_u64(bytes);
    else if (how >= 128)
        value += (uint64_t)(int8_t)next_byte(bytes); /* wraps at the ends: the parser's job */
    snprintf(text, size, "%" PRIu64, value);
}

#define ARGS_MAX 32

static char png_path[256], labels_path[256];

static char output_dir[128];

static void remove_outputs(void)
{
    unlink(png_path);
    unlink(labels_path);
    rmdir(output_dir);
}

/* One scratch directory per process, removed at exit (libFuzzer and the driver both end
 * with exit). */
static void make_output_paths(void)
{
    if (png_path[0] != '\0')
        return;
    snprintf(output_dir, sizeof output_dir, "/tmp/idemsim-fuzz-view-%ld", (long)getpid());
    mkdir(output_dir, 0700);
    snprintf(png_path, sizeof png_path, "%s/frame.png", output_dir);
    snprintf(labels_path, sizeof labels_path, "%s/labels.json", output_dir);
    atexit(remove_outputs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    make_output_paths();
    Bytes bytes = {data, size, 0};
    static char texts[8][64];
    char *argv[ARGS_MAX];
    int argc = 0;
    argv[argc++] = (char *)scenarios[next_byte(&bytes) % SCENARIO_COUNT];
    argv[argc++] = "--headless";
    argv[argc++] = "--png";
    argv[argc++] = png_path;
    uint8_t flags = next_byte(&bytes), more = next_byte(&bytes);
    if (flags & 1) { /* mostly a valid window, FROM + a span; else two values */
        char from[32], to[32];
        next_ms(&bytes, from, sizeof from);
        uint8_t span = next_byte(&bytes);
        if (span & 1)
            next_ms(&bytes, to, sizeof to);
        else
            snprintf(to, sizeof to, "%" PRIu64,
                     (uint64_t)strtoull(from, NULL, 10) + 1 + (next_u64(&bytes) >> (span % 64)));
        snprintf(texts[0], sizeof texts[0], "%s:%s", from, to);
        argv[argc++] = "--window";
        argv[argc++] = texts[0];
    }
    if (flags & 2) {
        next_ms(&bytes, texts[1], sizeof texts[1]);
        argv[argc++] = "--at-ms";
        argv[argc++] = texts[1];
    }
    if (flags & 4) {
        argv[argc++] = "--width";
        argv[argc++] = (char *)widths[next_byte(&bytes) % (sizeof widths / sizeof widths[0])];
    }
    if (flags & 8) {
        argv[argc++] = "--height";
        argv[argc++] = (char *)heights[next_byte(&bytes) % (sizeof heights / sizeof heights[0])];
    }
    if (flags & 16)
        argv[argc++] = "--projector";
    if (flags & 32) {
        snprintf(texts[2], sizeof texts[2], "%u", next_byte(&bytes) % 5u);
        argv[argc++] = "--focus";
        argv[argc++] = texts[2];
    }
    if (flags & 64) {
        snprintf(texts[3], sizeof texts[3], "%u", (unsigned)(next_u64(&bytes) % 2000u));
        argv[argc++] = "--story";
        argv[argc++] = texts[3];
    }
    if (flags & 128) {
        argv[argc++] = "--labels-json";
        argv[argc++] = labels_path;
    }
    if (more & 1) {
        argv[argc++] = "--predict";
        snprintf(texts[4], sizeof texts[4], "%u", next_byte(&bytes) % 20u);
        argv[argc++] = "--presses";
        argv[argc++] = texts[4];
    }
    if (more & 2) {
        snprintf(texts[5], sizeof texts[5], "%" PRIu64, next_u64(&bytes) % 1000u);
        argv[argc++] = "--seed";
        argv[argc++] = texts[5];
    }
    argv[argc] = NULL;
    view_main(argc, argv); /* 0, or 2 for options it refuses: both are answers */
    return 0;
}
