/* Scenario text made safe to print on a terminal: a title or a question's words cannot
 * recolour, move or clear the screen it is printed on. */
#ifndef IDEMSIM_TERMINAL_TEXT_H
#define IDEMSIM_TERMINAL_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Appends length bytes of piece to buffer (size bytes, *used of them taken, NUL-terminated)
 * whole or not at all, so a cut text never ends in half an escape or a quote. */
bool terminal_text_append(char *buffer, size_t size, size_t *used, const char *piece,
                          size_t length);

/* text with control characters escaped (\x1b, and the C1 controls as \u009b), cut to fit
 * size without splitting an escape. */
void terminal_text_escape(char *buffer, size_t size, const char *text);

#endif
