/* Named moments of a run (`idemsim view --headless --moment NAME`): the first double charge,
 * crash, replay, rebalance, failover, dead letter or stale overwrite in any mode, found by
 * running each mode's world on its own with the same scenario and seed, so a frame of the
 * lesson needs no hunting by hand. SDL-free. */
#ifndef IDEMSIM_VIEW_MOMENT_H
#define IDEMSIM_VIEW_MOMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"
#include "sim_time.h"

bool view_moment_known(const char *name);
/* The earliest time name happens in any of the modes, and the mode; false when it never
 * does (or memory ran out). */
bool view_moment_find(const char *name, const Scenario *scenario, const Mode *modes,
                      uint32_t mode_count, uint64_t seed, SimTimeUs *at_us, Mode *mode);

#endif
