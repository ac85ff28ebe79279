/* Recording load errors (LoadErrors in scenario.h) and quoting values inside their messages.
 * An error past LOAD_ERRORS_MAX is dropped and sets `truncated`. Every message is cut to fit
 * on a character boundary, so it stays valid UTF-8 on one line. */
#ifndef IDEMSIM_SCENARIO_ERRORS_H
#define IDEMSIM_SCENARIO_ERRORS_H

#include <stdarg.h>
#include <stddef.h>

#include "scenario.h"

#define SCENARIO_QUOTE_LEN_MAX 40 /* longer values are cut, with "..." */

void scenario_errors_clear(LoadErrors *errors);
void scenario_errors_add(LoadErrors *errors, const char *path, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
void scenario_errors_addv(LoadErrors *errors, const char *path, const char *format,
                          va_list arguments) __attribute__((format(printf, 3, 0)));

/* "'value'" into buffer: control characters shown as '?', cut after
 * SCENARIO_QUOTE_LEN_MAX bytes. Returns buffer, to be used as a printf argument. */
const char *scenario_errors_quote(char *buffer, size_t size, const char *value);

/* Cuts a partial UTF-8 sequence off the end of a NUL-terminated string. */
void scenario_errors_trim_utf8(char *text);

#endif
