#include "xml_text.h"

void xml_text_write(FILE *stream, const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; c++) {
        switch (*c) {
        case '&':
            fputs("&amp;", stream);
            break;
        case '<':
            fputs("&lt;", stream);
            break;
        case '>':
            fputs("&gt;", stream);
            break;
        case '"':
            fputs("&quot;", stream);
            break;
        case '\'':
            fputs("&apos;", stream);
            break;
        default:
            /* XML 1.0 has no way to write other control characters, even escaped. */
            if (*c < 0x20 && *c != '\t' && *c != '\n' && *c != '\r')
                fputc('?', stream);
            else
                fputc(*c, stream);
        }
    }
}
