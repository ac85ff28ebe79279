/* Load errors: recording, quoting, and the lines the command line prints. */
#include "scenario_errors.h"

#include <stdio.h>
#include <string.h>

void scenario_errors_trim_utf8(char *text)
{
    size_t n = strlen(text);
    size_t start = n;
    while (start > 0 && ((unsigned char)text[start - 1] & 0xC0) == 0x80) {
        start--;
    }
    if (start == 0 || (unsigned char)text[start - 1] < 0xC0) {
        return; /* ends in ASCII or in a complete sequence after ASCII */
    }
    unsigned char lead = (unsigned char)text[start - 1];
    size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
    if (n - (start - 1) < need) {
        text[start - 1] = '\0';
    }
}

/* Every error is one printable line, whatever bytes the input (or a --set argument) had. */
static void replace_control_characters(char *text)
{
    for (; *text != '\0'; text++) {
        if ((unsigned char)*text < 0x20 || *text == 0x7F) {
            *text = '?';
        }
    }
}

void scenario_errors_clear(LoadErrors *errors)
{
    errors->count = 0;
    errors->truncated = false;
}

void scenario_errors_addv(LoadErrors *errors, const char *path, const char *format,
                          va_list arguments)
{
    if (errors->count == LOAD_ERRORS_MAX) {
        errors->truncated = true;
        return;
    }
    LoadError *error = &errors->items[errors->count++];
    error->from_set[0] = '\0';
    snprintf(error->path, sizeof error->path, "%s", path);
    scenario_errors_trim_utf8(error->path);
    int n = vsnprintf(error->message, sizeof error->message, format, arguments);
    if (n >= (int)sizeof error->message) {
        scenario_errors_trim_utf8(error->message); /* cut, not garbled */
    }
    replace_control_characters(error->path);
    replace_control_characters(error->message);
}

void scenario_errors_add(LoadErrors *errors, const char *path, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    scenario_errors_addv(errors, path, format, arguments);
    va_end(arguments);
}

const char *scenario_errors_quote(char *buffer, size_t size, const char *value)
{
    if (size < 6) {
        buffer[0] = '\0';
        return buffer;
    }
    size_t limit = size - 6 < SCENARIO_QUOTE_LEN_MAX ? size - 6 : SCENARIO_QUOTE_LEN_MAX;
    size_t n = 0;
    buffer[n++] = '\'';
    size_t i = 0;
    for (; value[i] != '\0' && i < limit; i++) {
        unsigned char c = (unsigned char)value[i];
        buffer[n++] = (char)(c < 0x20 || c == 0x7F ? '?' : c);
    }
    buffer[n] = '\0';
    if (value[i] != '\0') {
        scenario_errors_trim_utf8(buffer);
        n = strlen(buffer);
        memcpy(buffer + n, "...", 3);
        n += 3;
    }
    buffer[n++] = '\'';
    buffer[n] = '\0';
    return buffer;
}

/* ------------------------------------------------------------------ the printed lines */

int scenario_format_error(char *buffer, size_t size, const char *file_path, const LoadError *error)
{
    const char *file = file_path != NULL ? file_path : "";
    const char *file_separator = file[0] != '\0' ? ": " : "";
    const char *path_separator = error->path[0] != '\0' ? ": " : "";
    bool from_set = error->from_set[0] != '\0';
    return snprintf(buffer, size, "%s%s%s%s%s%s%s%s", file, file_separator, error->path,
                    path_separator, error->message, from_set ? " (from --set " : "",
                    error->from_set, from_set ? ")" : "");
}

void scenario_print_errors(FILE *stream, const char *file_path, const LoadErrors *errors)
{
    const char *file = file_path != NULL ? file_path : "";
    const char *file_separator = file[0] != '\0' ? ": " : "";
    for (uint32_t i = 0; i < errors->count && i < LOAD_ERRORS_MAX; i++) {
        const LoadError *error = &errors->items[i];
        /* The same line as scenario_format_error, without a length limit on the file. */
        bool from_set = error->from_set[0] != '\0';
        fprintf(stream, "%s%s%s%s%s%s%s%s\n", file, file_separator, error->path,
                error->path[0] != '\0' ? ": " : "", error->message, from_set ? " (from --set " : "",
                error->from_set, from_set ? ")" : "");
    }
    if (errors->truncated) {
        fprintf(stream, "%s%s... and more errors (only the first %d are shown)\n", file,
                file_separator, LOAD_ERRORS_MAX);
    }
}
