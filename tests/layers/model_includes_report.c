/* Compiled with the model's include directories, this must fail: the model cannot see the
 * reports (CMakeLists.txt, one library per layer). */
#include "report.h"
