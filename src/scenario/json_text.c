/* JSON text checks before cJSON, and cJSON itself.
 *
 * Why a scanner of our own runs first: cJSON gives no message and an error offset that is
 * often a token early (for '{"a":1' it points at the 1), accepts raw control characters in
 * strings, turns "\u0000" into a silently truncated string, and recurses up to 1000 levels.
 * The scanner below is a complete JSON recogniser with an explicit stack of at most
 * JSON_TEXT_DEPTH_MAX containers, so a file of a million '[' costs 33 bytes of reading; only
 * text it accepts reaches cJSON. The scanner builds nothing: cJSON still builds the tree. */
#include "json_text.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ characters */

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static bool is_word_char(unsigned char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* The characters a bad number token runs over ("0x1F", "1.2.3", "-Infinity"), so the whole
 * token is quoted rather than its first character. */
static bool is_number_token_char(unsigned char c)
{
    return is_word_char(c) || c == '+' || c == '-' || c == '.';
}

/* The characters cJSON itself reads as part of a number. */
static bool is_number_char(unsigned char c)
{
    return is_digit(c) || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E';
}

static bool is_whitespace(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Length of the valid UTF-8 sequence at s, or 0 when it is invalid (overlong forms,
 * surrogates and code points past U+10FFFF included). */
static size_t utf8_sequence_length(const unsigned char *s, size_t available)
{
    size_t need = 0;
    if (s[0] < 0x80) {
        return 1;
    } else if (s[0] >= 0xC2 && s[0] <= 0xDF) {
        need = 2;
    } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        need = 3;
    } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        need = 4;
    } else {
        return 0;
    }
    if (available < need) {
        return 0;
    }
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            return 0;
        }
    }
    if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0) ||
        (s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90)) {
        return 0;
    }
    return need;
}

/* ------------------------------------------------------------------ positions */

void json_text_position(const char *text, size_t offset, unsigned long *line, unsigned long *column)
{
    unsigned long line_number = 1;
    unsigned long column_number = 1;
    for (size_t i = 0; i < offset; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            line_number++;
            column_number = 1;
        } else if ((c & 0xC0) != 0x80) {
            column_number++;
        }
    }
    *line = line_number;
    *column = column_number;
}

/* ------------------------------------------------------------------ the scanner */

typedef enum {
    STATE_VALUE,        /* at the top, or after ':' */
    STATE_ARRAY_FIRST,  /* after '[' */
    STATE_ARRAY_NEXT,   /* after ',' in an array */
    STATE_OBJECT_FIRST, /* after '{' */
    STATE_OBJECT_NEXT,  /* after ',' in an object */
    STATE_AFTER_VALUE
} ScanState;

typedef struct {
    const unsigned char *text;
    size_t length;
    size_t offset;
    size_t comma; /* offset of the last ',' read, to point at a trailing comma */
    unsigned depth;
    unsigned char open[JSON_TEXT_DEPTH_MAX]; /* '{' or '[' */
    size_t open_offset[JSON_TEXT_DEPTH_MAX];
    char *message;
    size_t message_size;
    size_t values; /* every value and key: one cJSON node each, or a key's string */
    size_t number_count;
    size_t number_bytes; /* texts of the number tokens, for the side table */
} Scanner;

/* Records "invalid JSON at line L, column C: detail" and returns false. */
static bool scan_error(Scanner *s, size_t offset, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static bool scan_error(Scanner *s, size_t offset, const char *format, ...)
{
    char detail[128];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(detail, sizeof detail, format, arguments);
    va_end(arguments);
    unsigned long line = 0;
    unsigned long column = 0;
    json_text_position((const char *)s->text, offset, &line, &column);
    snprintf(s->message, s->message_size, "invalid JSON at line %lu, column %lu: %s", line, column,
             detail);
    return false;
}

/* What stands at offset, for "(got X)": "end of file", "'}'", "'True'", "control character
 * U+0009". A word is quoted whole, up to 16 characters. */
static void describe(const Scanner *s, size_t offset, char *buffer, size_t size)
{
    if (offset >= s->length) {
        snprintf(buffer, size, "end of file");
        return;
    }
    const unsigned char *at = s->text + offset;
    if (at[0] < 0x20 || at[0] == 0x7F) {
        snprintf(buffer, size, "control character U+%04X", at[0]);
        return;
    }
    if (at[0] == '"') {
        snprintf(buffer, size, "a string");
        return;
    }
    if (at[0] == '\'') {
        snprintf(buffer, size, "a single quote; JSON strings take double quotes");
        return;
    }
    size_t n = 1;
    if (is_word_char(at[0])) {
        while (offset + n < s->length && is_word_char(at[n]) && n < 16) {
            n++;
        }
    } else if (at[0] >= 0x80) {
        n = utf8_sequence_length(at, s->length - offset);
    }
    bool longer = is_word_char(at[0]) && offset + n < s->length && is_word_char(at[n]);
    snprintf(buffer, size, "'%.*s%s'", (int)n, (const char *)at, longer ? "..." : "");
}

static void skip_whitespace(Scanner *s)
{
    while (s->offset < s->length && is_whitespace(s->text[s->offset])) {
        s->offset++;
    }
}

static int peek(const Scanner *s)
{
    return s->offset < s->length ? s->text[s->offset] : -1;
}

/* ------------------------------------------------------------------ strings */

static bool read_hex4(const Scanner *s, size_t offset, unsigned *code)
{
    unsigned value = 0;
    if (offset + 4 > s->length) {
        return false;
    }
    for (size_t i = 0; i < 4; i++) {
        unsigned char c = s->text[offset + i];
        unsigned digit = 0;
        if (is_digit(c)) {
            digit = (unsigned)(c - '0');
        } else if (c >= 'a' && c <= 'f') {
            digit = (unsigned)(c - 'a' + 10);
        } else if (c >= 'A' && c <= 'F') {
            digit = (unsigned)(c - 'A' + 10);
        } else {
            return false;
        }
        value = value * 16 + digit;
    }
    *code = value;
    return true;
}

/* A \u escape at s->offset. NUL is refused because every name is a C string; a lone
 * surrogate because it is not a character (cJSON refuses it too). */
static bool scan_unicode_escape(Scanner *s)
{
    size_t at = s->offset;
    unsigned code = 0;
    if (!read_hex4(s, at + 2, &code)) {
        return scan_error(s, at, "invalid escape in string, expected \\u and 4 hex digits");
    }
    if (code == 0) {
        return scan_error(s, at, "escape \\u0000 (NUL) is not allowed in strings");
    }
    if (code >= 0xDC00 && code <= 0xDFFF) {
        return scan_error(s, at, "unpaired surrogate \\u%04X in string", code);
    }
    if (code < 0xD800 || code > 0xDBFF) {
        s->offset = at + 6;
        return true;
    }
    unsigned low = 0;
    if (at + 8 > s->length || s->text[at + 6] != '\\' || s->text[at + 7] != 'u' ||
        !read_hex4(s, at + 8, &low) || low < 0xDC00 || low > 0xDFFF) {
        return scan_error(s, at, "unpaired surrogate \\u%04X in string", code);
    }
    s->offset = at + 12;
    return true;
}

static bool scan_escape(Scanner *s, size_t start)
{
    size_t at = s->offset;
    if (at + 1 >= s->length) {
        return scan_error(s, start, "unterminated string");
    }
    unsigned char e = s->text[at + 1];
    if (e == 'u') {
        return scan_unicode_escape(s);
    }
    if (e != 0 && strchr("\"\\/bfnrt", e) != NULL) {
        s->offset = at + 2;
        return true;
    }
    if (e > 0x20 && e < 0x7F) {
        return scan_error(s, at, "invalid escape '\\%c' in string", e);
    }
    return scan_error(s, at, "invalid escape in string");
}

static bool scan_string(Scanner *s)
{
    size_t start = s->offset;
    s->offset++;
    while (s->offset < s->length) {
        unsigned char c = s->text[s->offset];
        if (c == '"') {
            s->offset++;
            return true;
        }
        if (c < 0x20) {
            return scan_error(s, s->offset,
                              "raw control character U+%04X in string, expected an escape "
                              "such as \\n",
                              c);
        }
        if (c == '\\') {
            if (!scan_escape(s, start)) {
                return false;
            }
            continue;
        }
        s->offset++;
    }
    return scan_error(s, start, "unterminated string");
}

/* ------------------------------------------------------------------ numbers and literals */

/* RFC 8259: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool number_grammar(const unsigned char *p, size_t n)
{
    size_t i = 0;
    if (i < n && p[i] == '-') {
        i++;
    }
    if (i < n && p[i] == '0') {
        i++;
    } else if (i < n && p[i] >= '1' && p[i] <= '9') {
        while (i < n && is_digit(p[i])) {
            i++;
        }
    } else {
        return false;
    }
    if (i < n && p[i] == '.') {
        size_t digits = ++i;
        while (i < n && is_digit(p[i])) {
            i++;
        }
        if (i == digits) {
            return false;
        }
    }
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < n && (p[i] == '+' || p[i] == '-')) {
            i++;
        }
        size_t digits = i;
        while (i < n && is_digit(p[i])) {
            i++;
        }
        if (i == digits) {
            return false;
        }
    }
    return i == n;
}

static bool scan_number(Scanner *s)
{
    size_t start = s->offset;
    size_t end = start;
    while (end < s->length && is_number_token_char(s->text[end])) {
        end++;
    }
    size_t n = end - start;
    if (!number_grammar(s->text + start, n)) {
        return scan_error(s, start, "invalid number '%.*s%s'", (int)(n > 24 ? 24 : n),
                          (const char *)s->text + start, n > 24 ? "..." : "");
    }
    if (n > JSON_TEXT_NUMBER_LEN_MAX) {
        return scan_error(s, start, "expected number of at most %d characters (got %zu)",
                          JSON_TEXT_NUMBER_LEN_MAX, n);
    }
    s->number_count++;
    s->number_bytes += n + 1;
    s->offset = end;
    return true;
}

static bool scan_literal(Scanner *s)
{
    static const char *const literals[] = {"true", "false", "null"};
    size_t end = s->offset;
    while (end < s->length && is_word_char(s->text[end])) {
        end++;
    }
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(literals[i]);
        if (end - s->offset == n && memcmp(s->text + s->offset, literals[i], n) == 0) {
            s->offset = end;
            return true;
        }
    }
    char got[64];
    describe(s, s->offset, got, sizeof got);
    return scan_error(s, s->offset, "expected value (got %s)", got);
}

/* ------------------------------------------------------------------ structure */

static bool scan_open(Scanner *s, ScanState *state)
{
    if (s->depth == JSON_TEXT_DEPTH_MAX) {
        unsigned long line = 0;
        unsigned long column = 0;
        json_text_position((const char *)s->text, s->offset, &line, &column);
        snprintf(s->message, s->message_size,
                 "nesting deeper than %d levels at line %lu, column %lu", JSON_TEXT_DEPTH_MAX, line,
                 column);
        return false;
    }
    unsigned char c = s->text[s->offset];
    s->open[s->depth] = c;
    s->open_offset[s->depth] = s->offset;
    s->depth++;
    s->offset++;
    *state = c == '{' ? STATE_OBJECT_FIRST : STATE_ARRAY_FIRST;
    return true;
}

static bool scan_value(Scanner *s, ScanState *state)
{
    int c = peek(s);
    *state = STATE_AFTER_VALUE;
    s->values++;
    if (c == '{' || c == '[') {
        return scan_open(s, state);
    }
    if (c == '"') {
        return scan_string(s);
    }
    if (c == '-' || (c >= 0 && is_digit((unsigned char)c))) {
        return scan_number(s);
    }
    if (c >= 0 && is_word_char((unsigned char)c)) {
        return scan_literal(s);
    }
    char got[64];
    describe(s, s->offset, got, sizeof got);
    return scan_error(s, s->offset, "expected value (got %s)", got);
}

static bool scan_key(Scanner *s, ScanState *state)
{
    char got[64];
    if (peek(s) == '}') {
        if (*state == STATE_OBJECT_NEXT) {
            return scan_error(s, s->comma, "trailing comma before '}'");
        }
        s->offset++;
        s->depth--;
        *state = STATE_AFTER_VALUE;
        return true;
    }
    if (peek(s) != '"') {
        describe(s, s->offset, got, sizeof got);
        return scan_error(s, s->offset, "expected string key%s (got %s)",
                          *state == STATE_OBJECT_FIRST ? " or '}'" : "", got);
    }
    if (!scan_string(s)) {
        return false;
    }
    skip_whitespace(s);
    if (peek(s) != ':') {
        describe(s, s->offset, got, sizeof got);
        return scan_error(s, s->offset, "expected ':' after key (got %s)", got);
    }
    s->offset++;
    *state = STATE_VALUE;
    return true;
}

static bool scan_array_item(Scanner *s, ScanState *state)
{
    if (peek(s) == ']') {
        if (*state == STATE_ARRAY_NEXT) {
            return scan_error(s, s->comma, "trailing comma before ']'");
        }
        s->offset++;
        s->depth--;
        *state = STATE_AFTER_VALUE;
        return true;
    }
    return scan_value(s, state);
}

static bool scan_after_value(Scanner *s, ScanState *state, bool *done)
{
    char got[64];
    describe(s, s->offset, got, sizeof got);
    if (s->depth == 0) {
        *done = true;
        if (s->offset < s->length) {
            return scan_error(s, s->offset,
                              "expected end of file after the top-level value (got %s)", got);
        }
        return true;
    }
    unsigned char open = s->open[s->depth - 1];
    char close = open == '{' ? '}' : ']';
    if (peek(s) == ',') {
        s->comma = s->offset++;
        *state = open == '{' ? STATE_OBJECT_NEXT : STATE_ARRAY_NEXT;
        return true;
    }
    if (peek(s) == close) {
        s->offset++;
        s->depth--;
        return true;
    }
    if (s->offset < s->length) {
        return scan_error(s, s->offset, "expected ',' or '%c' (got %s)", close, got);
    }
    unsigned long line = 0;
    unsigned long column = 0;
    json_text_position((const char *)s->text, s->open_offset[s->depth - 1], &line, &column);
    return scan_error(s, s->offset,
                      "expected ',' or '%c' (got end of file; '%c' at line %lu, "
                      "column %lu is not closed)",
                      close, open, line, column);
}

static bool scan_document(Scanner *s)
{
    ScanState state = STATE_VALUE;
    bool done = false;
    while (!done) {
        skip_whitespace(s);
        bool ok = true;
        switch (state) {
        case STATE_VALUE:
            ok = scan_value(s, &state);
            break;
        case STATE_ARRAY_FIRST:
        case STATE_ARRAY_NEXT:
            ok = scan_array_item(s, &state);
            break;
        case STATE_OBJECT_FIRST:
        case STATE_OBJECT_NEXT:
            ok = scan_key(s, &state);
            break;
        case STATE_AFTER_VALUE:
            ok = scan_after_value(s, &state, &done);
            break;
        }
        if (!ok) {
            return false;
        }
    }
    return true;
}

/* ------------------------------------------------------------------ whole-text checks */

static bool check_not_empty(const unsigned char *text, size_t length, char *message,
                            size_t message_size)
{
    if (length == 0) {
        snprintf(message, message_size, "empty file");
        return false;
    }
    for (size_t i = 0; i < length; i++) {
        if (!is_whitespace(text[i])) {
            return true;
        }
    }
    snprintf(message, message_size, "empty file (only whitespace)");
    return false;
}

static bool check_utf8(const unsigned char *text, size_t length, char *message, size_t message_size)
{
    size_t i = 0;
    while (i < length) {
        size_t n = utf8_sequence_length(text + i, length - i);
        if (n == 0) {
            unsigned long line = 0;
            unsigned long column = 0;
            json_text_position((const char *)text, i, &line, &column);
            snprintf(message, message_size, "invalid UTF-8 at line %lu, column %lu", line, column);
            return false;
        }
        i += n;
    }
    return true;
}

bool json_text_is_utf8(const char *text, size_t length)
{
    const unsigned char *bytes = (const unsigned char *)text;
    for (size_t i = 0, n = 0; i < length; i += n) {
        n = utf8_sequence_length(bytes + i, length - i);
        if (n == 0) {
            return false;
        }
    }
    return true;
}

/* ------------------------------------------------------------------ the number side table */

/* Open addressing by node address (a node lives at one address until deleted; a later node
 * at a reused address replaces the entry). Texts live in one growing arena, so a table costs
 * two allocations whatever the number count. Rejected: writing the text into the node's
 * valuestring, which cJSON_Delete happens to free for numbers in 1.7.15 only. */
typedef struct {
    const cJSON *node; /* NULL: empty */
    size_t text_offset;
} NumberEntry;

struct JsonNumbers {
    NumberEntry *entries;
    size_t capacity; /* a power of two */
    size_t count;
    char *arena;
    size_t arena_used;
    size_t arena_capacity;
};

JsonNumbers *json_numbers_create(void)
{
    return calloc(1, sizeof(JsonNumbers));
}

void json_numbers_destroy(JsonNumbers *numbers)
{
    if (numbers == NULL) {
        return;
    }
    free(numbers->entries);
    free(numbers->arena);
    free(numbers);
}

static size_t node_slot(const JsonNumbers *numbers, const cJSON *node)
{
    uint64_t h = (uint64_t)(uintptr_t)node * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 20) & (numbers->capacity - 1);
}

static NumberEntry *entry_for(const JsonNumbers *numbers, const cJSON *node)
{
    size_t mask = numbers->capacity - 1;
    for (size_t i = node_slot(numbers, node);; i = (i + 1) & mask) {
        if (numbers->entries[i].node == node || numbers->entries[i].node == NULL) {
            return &numbers->entries[i];
        }
    }
}

static bool grow_entries(JsonNumbers *numbers, size_t needed)
{
    if ((numbers->count + needed) * 2 <= numbers->capacity) {
        return true;
    }
    size_t capacity = numbers->capacity ? numbers->capacity : 64;
    while ((numbers->count + needed) * 2 > capacity) {
        capacity *= 2;
    }
    NumberEntry *old = numbers->entries;
    size_t old_capacity = numbers->capacity;
    numbers->entries = calloc(capacity, sizeof *numbers->entries);
    if (numbers->entries == NULL) {
        numbers->entries = old;
        return false;
    }
    numbers->capacity = capacity;
    for (size_t i = 0; i < old_capacity; i++) {
        if (old[i].node != NULL) {
            *entry_for(numbers, old[i].node) = old[i];
        }
    }
    free(old);
    return true;
}

static bool grow_arena(JsonNumbers *numbers, size_t needed)
{
    if (numbers->arena_used + needed <= numbers->arena_capacity) {
        return true;
    }
    size_t capacity = numbers->arena_capacity ? numbers->arena_capacity : 256;
    while (numbers->arena_used + needed > capacity) {
        capacity *= 2;
    }
    char *arena = realloc(numbers->arena, capacity);
    if (arena == NULL) {
        return false;
    }
    numbers->arena = arena;
    numbers->arena_capacity = capacity;
    return true;
}

const char *json_text_number(const JsonNumbers *numbers, const cJSON *item)
{
    if (numbers == NULL || numbers->capacity == 0 || !cJSON_IsNumber(item)) {
        return NULL;
    }
    const NumberEntry *entry = entry_for(numbers, item);
    return entry->node == item ? numbers->arena + entry->text_offset : NULL;
}

static size_t skip_string(const char *text, size_t length, size_t at)
{
    at++;
    while (at < length && text[at] != '"') {
        at += text[at] == '\\' ? 2 : 1;
    }
    return at + 1;
}

/* Walks the tree in document order and the text in step with it: the n-th number node is
 * the n-th number token outside strings, since the scanner accepted the text. Room was made
 * beforehand, so nothing here allocates. */
static void record_number_texts(JsonNumbers *numbers, const cJSON *item, const char *text,
                                size_t length, size_t *cursor)
{
    for (; item != NULL; item = item->next) {
        if (cJSON_IsNumber(item)) {
            size_t at = *cursor;
            while (at < length && text[at] != '-' && !is_digit((unsigned char)text[at])) {
                at = text[at] == '"' ? skip_string(text, length, at) : at + 1;
            }
            size_t end = at;
            while (end < length && is_number_char((unsigned char)text[end])) {
                end++;
            }
            NumberEntry *entry = entry_for(numbers, item);
            numbers->count += entry->node == NULL;
            *entry = (NumberEntry){.node = item, .text_offset = numbers->arena_used};
            memcpy(numbers->arena + numbers->arena_used, text + at, end - at);
            numbers->arena[numbers->arena_used + (end - at)] = '\0';
            numbers->arena_used += end - at + 1;
            *cursor = end;
        }
        record_number_texts(numbers, item->child, text, length, cursor);
    }
}

/* ------------------------------------------------------------------ parse */

/* What cJSON and the side table will allocate for a scanned text, over-estimated: a node per
 * value (malloc rounds a 64-byte cJSON up to 80), the strings (no longer than the text), and
 * per number an entry at half load plus its text. */
static size_t tree_bytes_estimate(const Scanner *scanner)
{
    return scanner->values * 80 + scanner->length + scanner->number_bytes * 2 +
           scanner->number_count * 4 * sizeof(NumberEntry);
}

/* Set by the command line from its memory budget; the loader and the model sit below the
 * memory account, so the tree is bounded rather than charged. */
static size_t tree_bytes_max = JSON_TEXT_TREE_BYTES_MAX;

void json_text_set_tree_bytes_max(size_t bytes)
{
    tree_bytes_max = bytes < JSON_TEXT_TREE_BYTES_MAX ? bytes : JSON_TEXT_TREE_BYTES_MAX;
}

cJSON *json_text_parse(const char *text, size_t length, JsonNumbers *numbers, char *message,
                       size_t message_size)
{
    const unsigned char *bytes = (const unsigned char *)text;
    if (length >= 3 && memcmp(bytes, "\xEF\xBB\xBF", 3) == 0) {
        bytes += 3; /* a byte-order mark is allowed and is not column 1 */
        length -= 3;
    }
    if (!check_not_empty(bytes, length, message, message_size) ||
        !check_utf8(bytes, length, message, message_size)) {
        return NULL;
    }
    Scanner scanner = {
        .text = bytes, .length = length, .message = message, .message_size = message_size};
    if (!scan_document(&scanner)) {
        return NULL;
    }
    size_t estimate = tree_bytes_estimate(&scanner);
    if (estimate > tree_bytes_max) {
        snprintf(message, message_size,
                 "too large: %zu values would take about %zu MiB in memory (at most %zu MiB)",
                 scanner.values, estimate >> 20, tree_bytes_max >> 20);
        return NULL;
    }
    if (numbers != NULL && (!grow_entries(numbers, scanner.number_count) ||
                            !grow_arena(numbers, scanner.number_bytes))) {
        snprintf(message, message_size, "out of memory reading %zu values", scanner.values);
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts((const char *)bytes, length, &end, false);
    if (root == NULL) {
        /* Text the scanner accepted; in practice only when memory runs out. */
        unsigned long line = 0;
        unsigned long column = 0;
        size_t offset = end != NULL ? (size_t)(end - (const char *)bytes) : 0;
        json_text_position((const char *)bytes, offset <= length ? offset : 0, &line, &column);
        snprintf(message, message_size, "invalid JSON at line %lu, column %lu (out of memory?)",
                 line, column);
        return NULL;
    }
    if (numbers != NULL) {
        size_t cursor = 0;
        record_number_texts(numbers, root, (const char *)bytes, length, &cursor);
    }
    return root;
}
