/* Text from a scenario (a name, a title, a question) on a terminal: control characters
 * escaped. Shared by the command line's tables and the view's headless lines. */
#include "terminal_text.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

bool terminal_text_append(char *buffer, size_t size, size_t *used, const char *piece, size_t length)
{
    if (*used + length >= size)
        return false;
    memcpy(buffer + *used, piece, length);
    *used += length;
    buffer[*used] = '\0';
    return true;
}

void terminal_text_escape(char *buffer, size_t size, const char *text)
{
    size_t used = 0;
    buffer[0] = '\0';
    for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; c++) {
        char escaped[8];
        bool fits;
        if (*c < 0x20 || *c == 0x7f) {
            snprintf(escaped, sizeof escaped, "\\x%02x", *c);
            fits = terminal_text_append(buffer, size, &used, escaped, strlen(escaped));
        } else if (c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f) {
            /* C1 controls in UTF-8: some terminals take U+009B as an escape sequence. */
            snprintf(escaped, sizeof escaped, "\\u%04x", c[1]);
            fits = terminal_text_append(buffer, size, &used, escaped, strlen(escaped));
            c++;
        } else {
            fits = terminal_text_append(buffer, size, &used, (const char *)c, 1);
        }
        if (!fits)
            return;
    }
}
