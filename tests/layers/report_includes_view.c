/* Compiled with the reports' include directories, this must fail: the view sits above them. */
#include "view.h"
