/* The JSON path of the value being read, for error messages: "$.clients[2].retry.timeout_ms".
 * A fixed stack, no allocation: push a key or an index before reading a member, pop after.
 * Pushes and pops must pair up; a push that does not fit still counts, so pops stay paired,
 * and the path shows "..." where text was left out. */
#ifndef IDEMSIM_JSON_PATH_H
#define IDEMSIM_JSON_PATH_H

#include <stddef.h>

#define JSON_PATH_DEPTH_MAX 48
#define JSON_PATH_TEXT_MAX 512
#define JSON_PATH_KEY_LEN_MAX 64 /* longer keys are cut, with "..." */

typedef struct {
    char text[JSON_PATH_TEXT_MAX];
    size_t length;
    unsigned depth; /* pushes not yet popped, including those past JSON_PATH_DEPTH_MAX */
    size_t saved_length[JSON_PATH_DEPTH_MAX];
} JsonPath;

void json_path_init(JsonPath *path); /* "$" */
void json_path_push_key(JsonPath *path, const char *key);
void json_path_push_index(JsonPath *path, size_t index);
void json_path_pop(JsonPath *path);

/* The path as text, shortened in the middle ("$.network.links.a...b.loss") to fit size. */
void json_path_render(const JsonPath *path, char *buffer, size_t size);

#endif
