/* Scenario text made safe to print on a terminal: a title or a question's words cannot
 * recolour, move or clear the screen it is printed on. */
#ifndef IDEMSIM_TERMINAL_TEXT_H
#define IDEMSIM_TERMINAL_TEXT_H

#include <stddef.h>

/* text with control characters escaped (\x1b, and the C1 controls as \u009b), cut to fit
 * size without splitting an escape. */
void terminal_text_escape(char *buffer, size_t size, const char *text);

#endif
