/* Text inside XML (JUnit reports, SVG charts and diagrams): one escaping for every writer. */
#ifndef IDEMSIM_XML_TEXT_H
#define IDEMSIM_XML_TEXT_H

#include <stdio.h>

/* Writes text with & < > " ' escaped; control characters XML 1.0 cannot carry (all below
 * 0x20 but tab, newline and carriage return) become '?'. */
void xml_text_write(FILE *stream, const char *text);

#endif
