/* JSON text: the checks cJSON does not make, and the one place that calls its parser.
 * json_text_parse() accepts strict RFC 8259 JSON only (valid UTF-8, no raw control characters
 * in strings, no NUL escape, no trailing commas), with at most JSON_TEXT_DEPTH_MAX levels of
 * nesting and a tree of at most JSON_TEXT_TREE_BYTES_MAX, and explains a rejection with a
 * line and column. A side table (JsonNumbers, owned by the caller) keeps the source text of
 * every number node, so messages can quote a number as it was written ("1e400", not "inf")
 * and integers can be checked exactly; the tree itself is cJSON's, untouched. */
#ifndef IDEMSIM_JSON_TEXT_H
#define IDEMSIM_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#define JSON_TEXT_DEPTH_MAX 32
#define JSON_TEXT_NUMBER_LEN_MAX 63 /* cJSON 1.7.15 reads at most this many characters */
/* What a parse may build: cJSON's nodes and strings plus the number side table, estimated by
 * the scanner before anything is built (a scenario takes kilobytes; a 63 MiB array of zeros
 * would take gigabytes). */
#define JSON_TEXT_TREE_BYTES_MAX ((size_t)256 << 20)

typedef struct JsonNumbers JsonNumbers; /* opaque: number node -> its source text */

/* NULL when memory runs out. */
JsonNumbers *json_numbers_create(void);
void json_numbers_destroy(JsonNumbers *numbers); /* NULL is a no-op */

/* Returns the tree (free it with cJSON_Delete) or NULL with a one-line reason in message,
 * such as "invalid JSON at line 3, column 7: trailing comma before '}'". The texts of its
 * numbers go into numbers (may be NULL), which may already hold those of other trees: a
 * --set value is parsed on its own and grafted into the scenario's tree. */
cJSON *json_text_parse(const char *text, size_t length, JsonNumbers *numbers, char *message,
                       size_t message_size);

/* Lowers the bound on a tree below JSON_TEXT_TREE_BYTES_MAX (a memory budget smaller than
 * it); process-wide, so set it before any parse, not during one. */
void json_text_set_tree_bytes_max(size_t bytes);

/* The source text of a number node parsed into numbers, or NULL (other nodes, numbers NULL,
 * or a node built otherwise). Valid while numbers lives. */
const char *json_text_number(const JsonNumbers *numbers, const cJSON *item);

/* Whether text is valid UTF-8 (for text that does not come through json_text_parse). */
bool json_text_is_utf8(const char *text, size_t length);

/* 1-based line and column (in characters) of a byte offset. */
void json_text_position(const char *text, size_t offset, unsigned long *line,
                        unsigned long *column);

#endif
