/* The JSON path stack (see json_path.h). */
#include "json_path.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void json_path_init(JsonPath *path)
{
    memcpy(path->text, "$", 2);
    path->length = 1;
    path->depth = 0;
}

static void append(JsonPath *path, const char *text, size_t n)
{
    if (path->length + n + 1 > JSON_PATH_TEXT_MAX) {
        if (path->length + 4 <= JSON_PATH_TEXT_MAX) {
            memcpy(path->text + path->length, "...", 4);
            path->length += 3;
        }
        return;
    }
    memcpy(path->text + path->length, text, n);
    path->length += n;
    path->text[path->length] = '\0';
}

/* Saves the length to return to; false past JSON_PATH_DEPTH_MAX, where nothing is added. */
static bool begin_push(JsonPath *path)
{
    if (path->depth < JSON_PATH_DEPTH_MAX) {
        path->saved_length[path->depth] = path->length;
    }
    path->depth++;
    return path->depth <= JSON_PATH_DEPTH_MAX;
}

void json_path_push_key(JsonPath *path, const char *key)
{
    if (!begin_push(path)) {
        return;
    }
    char segment[1 + JSON_PATH_KEY_LEN_MAX + 4];
    size_t n = 0;
    segment[n++] = '.';
    size_t i = 0;
    for (; key[i] != '\0' && i < JSON_PATH_KEY_LEN_MAX; i++) {
        unsigned char c = (unsigned char)key[i];
        segment[n++] = (char)(c < 0x20 || c == 0x7F ? '?' : c); /* keep errors one line */
    }
    if (key[i] != '\0') {
        while (n > 1 && ((unsigned char)segment[n - 1] & 0xC0) == 0x80) {
            n--; /* do not cut a character in half */
        }
        if (n > 1 && (unsigned char)segment[n - 1] >= 0xC0) {
            n--;
        }
        memcpy(segment + n, "...", 3);
        n += 3;
    }
    append(path, segment, n);
}

void json_path_push_index(JsonPath *path, size_t index)
{
    if (!begin_push(path)) {
        return;
    }
    char segment[32];
    int n = snprintf(segment, sizeof segment, "[%zu]", index);
    append(path, segment, (size_t)n);
}

void json_path_pop(JsonPath *path)
{
    if (path->depth == 0) {
        return;
    }
    path->depth--;
    if (path->depth < JSON_PATH_DEPTH_MAX) {
        path->length = path->saved_length[path->depth];
        path->text[path->length] = '\0';
    }
}

void json_path_render(const JsonPath *path, char *buffer, size_t size)
{
    if (size == 0) {
        return;
    }
    if (path->length < size) {
        memcpy(buffer, path->text, path->length + 1);
        return;
    }
    /* Keep the start (where) and the end (which field), drop the middle. */
    size_t tail = (size - 4) / 3;
    size_t head = size - 4 - tail;
    while (head > 0 && ((unsigned char)path->text[head] & 0xC0) == 0x80) {
        head--;
    }
    size_t tail_start = path->length - tail;
    while (tail_start < path->length && ((unsigned char)path->text[tail_start] & 0xC0) == 0x80) {
        tail_start++;
    }
    memcpy(buffer, path->text, head);
    memcpy(buffer + head, "...", 3);
    memcpy(buffer + head + 3, path->text + tail_start, path->length - tail_start + 1);
}
