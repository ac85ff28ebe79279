/* Compiled with the scenario loader's include directories, this must fail: the loader sits
 * below the model. */
#include "world.h"
