/* JSON text: the checks cJSON does not make, and the one place that calls its parser.
 * json_text_parse() accepts strict RFC 8259 JSON only (valid UTF-8, no raw control characters
 * in strings, no NUL escape, no trailing commas), with at most JSON_TEXT_DEPTH_MAX levels of
 * nesting, and explains a rejection with a line and column. Every number node of the tree
 * keeps its source text in valuestring (owned by the tree), so messages can quote a number
 * as it was written: "1e400", not "inf". */
#ifndef IDEMSIM_JSON_TEXT_H
#define IDEMSIM_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#define JSON_TEXT_DEPTH_MAX 32
#define JSON_TEXT_NUMBER_LEN_MAX 63 /* cJSON 1.7.15 reads at most this many characters */

/* Returns the tree (free it with cJSON_Delete) or NULL with a one-line reason in message,
 * such as "invalid JSON at line 3, column 7: trailing comma before '}'". */
cJSON *json_text_parse(const char *text, size_t length, char *message, size_t message_size);

/* The source text of a number node from json_text_parse, or NULL for other nodes. */
const char *json_text_number(const cJSON *item);

/* Whether text is valid UTF-8 (for text that does not come through json_text_parse). */
bool json_text_is_utf8(const char *text, size_t length);

/* 1-based line and column (in characters) of a byte offset. */
void json_text_position(const char *text, size_t offset, unsigned long *line,
                        unsigned long *column);

#endif
