/* Compiled with the reports' include directories, this must compile: a report reads the
 * world (the probes that must fail use the same command). */
#include "report.h"
#include "world.h"
